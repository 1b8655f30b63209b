"""A whole run against a model that answers anything (any Unicode, empty, huge, cut at the cap, JSON of any
shape, records of any format) to every question every pass asks: extraction and its checks, summaries, the
resolution questions, community reports, gists and facts, intents, entities and session summaries. The run
never raises: what cannot be read is a failed item in report.json, and every output is written."""

from __future__ import annotations

import io
import json
import zlib
from pathlib import Path

import pytest
import trio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphglean.core.config import Config
from graphglean.launch import run
from graphglean.testing import FakeLLMServer, Reply

from .helpers import llm_config
from .model_text import any_text, description, name, phrase
from .test_robust_pipeline import records

TEXT = ("Ebenezer Scrooge kept the counting-house in London. His clerk, Bob Cratchit, had a small fire. "
        "Scrooge's nephew Fred came in. \"A merry Christmas, uncle!\" said Fred. Marley was dead: his ghost came "
        "at night to Scrooge's rooms, and Belle, his former love, was long gone from his life.\n\n") * 3
CONVERSATION = {"sample_id": "s1", "conversation": {
    "speaker_a": "Ana", "speaker_b": "Bo",
    "session_1_date_time": "1:56 pm on 8 May, 2023",
    "session_1": [{"speaker": "Ana", "dia_id": "D1:1", "text": "I met Bo Lindqvist in Malmö \U0001F600 yesterday."},
                  {"speaker": "Bo", "dia_id": "D1:2", "text": "Yes! We talked about Tokyo (東京) and her sister."}]}}

json_answer = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), any_text, name),
                           lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                   st.dictionaries(st.sampled_from(
                                                       ["gists", "facts", "entities", "title", "summary", "rating",
                                                        "findings", "name", "label", "subject", "object",
                                                        "predicate", "references", "explanation"]) | any_text,
                                                       inner, max_size=5)),
                           max_leaves=15).map(json.dumps)
NAMES = ["Scrooge", "Bob Cratchit", "Fred", "Marley", "Belle", "London", "Ana", "Malmö", "東京"]
answers = st.lists(st.tuples(st.one_of(records(NAMES), json_answer, description, phrase(0, 10), st.just(""),
                                       st.just("YES"), st.just("NO"), st.just("1: SAME\n2: DIFFERENT")),
                             st.sampled_from(["stop", "stop", "length", "content_filter", None])),
                   min_size=1, max_size=6)


def _model(drawn):
    """Each prompt gets one of the drawn answers, always the same one (a re-ask is answered alike)."""
    def respond(req):
        text, finish = drawn[zlib.crc32(json.dumps(req.messages, sort_keys=True).encode()) % len(drawn)]
        return Reply(text, finish_reason=finish or "stop")
    return respond


def _config(server, folder: Path, source: Path, fmt: str, **sections) -> Config:
    cfg = Config()
    cfg.llm = llm_config(server)
    cfg.llm.max_retries, cfg.llm.max_concurrency = 0, 8
    cfg.input.path, cfg.input.format = str(source), fmt
    cfg.chunking.size, cfg.chunking.overlap = 120, 10
    cfg.output.dir = str(folder / "out")
    for section, values in sections.items():
        for k, v in values.items():
            setattr(getattr(cfg, section), k, v)
    return cfg


async def _run_all(drawn, folder: Path) -> None:
    text = folder / "text.txt"
    text.write_text(TEXT)
    talk = folder / "locomo.json"
    talk.write_text(json.dumps([CONVERSATION], ensure_ascii=False))
    async with FakeLLMServer(_model(drawn), embedding_dim=8).running() as server:
        configs = [
            _config(server, folder / "a", text, "text", summary={"enabled": True}, episodic={"enabled": True},
                    output={"formats": ["graphml", "json", "jsonl", "html", "neo4j", "parquet", "lightrag"]}),
            _config(server, folder / "b", talk, "locomo", enrich={"enabled": True, "entity_backend": "llm"}),
        ]
        configs[0].graph.communities.enabled, configs[0].graph.communities.min_report_size = True, 2
        configs[0].graph.description_max_tokens = 30
        for cfg in configs:
            result = await run(cfg, out=io.StringIO(), notice=lambda line: None)
            out = Path(cfg.output.dir)
            report = json.loads((out / "report.json").read_text())
            assert len(report["failed"]) == result.failed
            assert (out / "graph.json").exists() and (out / "chunks.jsonl").exists()


@pytest.mark.slow
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                                                 HealthCheck.function_scoped_fixture])
@given(answers)
def test_a_model_answering_anything_never_stops_a_run(tmp_path_factory, drawn):
    trio.run(_run_all, drawn, tmp_path_factory.mktemp("run"))
