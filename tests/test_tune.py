"""``graphglean tune`` (issue 34): a schema proposed from a sample of the corpus, on the scheduler (cached,
priced), grounded (no invented names), in the corpus's language, that a second run uses."""

from __future__ import annotations

import io
import json

import pytest
import yaml

from graphglean.core.config_loader import load_config
from graphglean.core.errors import ConfigError
from graphglean.graph.schema.ontology import schema_of
from graphglean.launch import run
from graphglean.testing import FakeLLMServer
from graphglean.testing.models.structured import MARK_TUNE, typed_corpus, typed_model
from graphglean.text.chunking import Chunk
from graphglean.tune import corpus_language, sample_of, tune

from .test_cli import STAVE, cli, write_config


def tune_requests(server):
    return [r for r in server.chat_requests() if r.messages and MARK_TUNE in r.messages[0]["content"]]


async def test_tune_on_the_sample_corpus_writes_a_schema_a_second_run_uses(tmp_path):
    async with FakeLLMServer(typed_model(typed_corpus())).running() as s:
        cfg_path = write_config(tmp_path, s.base_url, llm={"model": "gpt-4o-mini"})
        out = io.StringIO()
        result = await tune(load_config(cfg_path), sample=5, config_path=str(cfg_path), stdout=out)
        asked = tune_requests(s)
        again = await tune(load_config(cfg_path), sample=5, out=str(tmp_path / "again.yaml"), stdout=io.StringIO())
        assert len(tune_requests(s)) == len(asked) == 5  # the second tune came from the cache
        text = (tmp_path / "schema.yaml").read_text()
        cfg = load_config(cfg_path)
        cfg.graph.entity_types = list(type(cfg.graph)().entity_types)
        cfg.graph.schema = str(tmp_path / "schema.yaml")
        report = (await run(cfg, notice=lambda m: None, out=io.StringIO())).report
        extraction = [r for r in s.chat_requests() if "You build a knowledge graph" in r.messages[0]["content"]
                      and r.max_tokens != 1]
    assert result.path == tmp_path / "schema.yaml" and result.language == "English" and result.types >= 1
    assert all(r.body["response_format"] == {"type": "json_object"} for r in asked)
    assert "$" in out.getvalue() and result.summary["cost_usd"] > 0 and again.summary["cache_hits"] == 5
    schema = yaml.safe_load(text)
    assert schema["mode"] == "open" and "CHARACTER" in schema["entities"]
    assert schema["relationships"] == [["CHARACTER", "MEETS", "CHARACTER"]]
    assert "Zorblax" not in text and result.summary["invented_examples"] > 0  # no invented name kept
    stave = STAVE.read_text()
    examples = [e.split(" (")[0] for line in text.splitlines() if "e.g." in line
                for e in line.split("e.g. ", 1)[1].split(", ") if " -> " not in e]
    assert examples and all(e in stave for e in examples)
    assert "  # named in 5 of 5 sampled chunks; e.g. " in text and "a_christmas_carol_stave1.txt #" in text
    assert extraction and all(r.body["response_format"]["type"] == "json_schema" for r in extraction)
    assert "- CHARACTER: " in extraction[0].messages[0]["content"]
    row = next(p for p in report["passes"] if p["pass"] == "graph")
    assert row["nodes"] > 0 and row["structured_output"]["format"] == "json_schema"
    graph = json.loads((tmp_path / "out" / "graph.json").read_text())
    assert {n["type"] for n in graph["nodes"]} == {"CHARACTER"}
    assert schema_of(cfg.graph).types == tuple(schema["entities"])


async def test_tune_refuses_to_overwrite_and_its_dry_run_calls_nothing(tmp_path):
    async with FakeLLMServer(typed_model(typed_corpus())).running() as s:
        cfg_path = write_config(tmp_path, s.base_url, llm={"model": "gpt-4o-mini"})
        (tmp_path / "schema.yaml").write_text("entities: {MINE: edited}\n")
        with pytest.raises(ConfigError, match="schema.yaml: exists"):
            await tune(load_config(cfg_path), config_path=str(cfg_path), stdout=io.StringIO())
        out = io.StringIO()
        dry = await tune(load_config(cfg_path), sample=3, config_path=str(cfg_path), dry=True, stdout=out)
        assert not s.chat_requests()
    assert dry.path is None and dry.summary["calls_est"] == 3 and dry.summary["cost_usd_est"] > 0
    assert "3 calls" in out.getvalue() and (tmp_path / "schema.yaml").read_text() == "entities: {MINE: edited}\n"


def test_the_sample_spreads_over_the_input_and_the_language_is_the_corpus_s():
    chunks = [Chunk(f"c{i}", "d", i, "x", 0, 1, 1) for i in range(10)]
    assert [c.id for c in sample_of(chunks, 3)] == ["c1", "c5", "c8"]
    assert sample_of(chunks, 20) == chunks
    french = "Le conseil du port s'est réuni mardi. Sa présidente a annoncé que la compagnie de ferries reprendrait " \
             "la ligne du nord après les tempêtes de printemps, et que les habitants de la ville seraient consultés."
    assert corpus_language([Chunk("a", "d", 0, french, 0, 1, 1)] * 2, "English") == "French"
    assert corpus_language([Chunk("a", "d", 0, "x", 0, 1, 1)], "Dutch") == "Dutch"


@pytest.mark.slow
async def test_the_tune_command(tmp_path):
    async with FakeLLMServer(typed_model(typed_corpus())).running() as s:
        cfg_path = write_config(tmp_path, s.base_url, llm={"model": "gpt-4o-mini"})
        done = await cli("tune", cfg_path, "--sample", "3", "--out", tmp_path / "s.yaml")
        dry = await cli("tune", cfg_path, "--dry-run")
        bad = await cli("tune", cfg_path, "--sample", "0")
    assert done.returncode == 0 and "wrote" in done.stdout.decode() and (tmp_path / "s.yaml").exists()
    assert dry.returncode == 0 and "dry run" in dry.stdout.decode()
    assert bad.returncode == 2 and "--sample" in bad.stderr.decode()
