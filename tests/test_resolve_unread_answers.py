"""The LLM tier of entity resolution on answers it cannot read (issue 33): a whole answer that gives no pair a
verdict ("OK") is no answer — neither cached nor kept, its batch a failed item that report.json lists (exit 1),
asked again on the next run — and the test server's own model answers the resolution prompt."""

from __future__ import annotations

import io
from pathlib import Path

from graphglean.graph.resolution.resolve import AnswerMemo, resolve_entities
from graphglean.testing import FakeLLMServer
from graphglean.testing.models.responders import synthetic

from .helpers import config
from .test_resolve import graph_of, together

NODES = [("Dengue", "disease", "Dengue is a viral infection that mosquitoes transmit."),
         ("Dengue Fever", "disease", "Dengue fever is a viral infection with a high fever.")]


async def test_an_answer_that_gives_no_pair_a_verdict_is_a_failed_batch_kept_nowhere():
    saved: dict = {}

    async def save(key, answer):
        saved[key] = answer

    async with FakeLLMServer(lambda req: "OK").running() as s:
        cfg = config(s)
        cfg.graph.resolve.embeddings = False
        resolution = await resolve_entities(graph_of(NODES), cfg, method="llm", memo=AnswerMemo({}, save))
    assert not together(resolution.graph, "Dengue", "Dengue Fever") and resolution.stats.llm_unanswered == 1
    [failed] = resolution.failed
    assert failed["item"] == "resolution batch 1 (1 pairs)" and "none of its 1 pairs a verdict: 'OK'" in failed["error"]
    assert saved == {}  # nothing kept: the next run asks again


async def test_a_run_whose_resolution_answers_are_unreadable_lists_them_and_asks_again(tmp_path):
    from graphglean.launch import run

    def model(req):
        return "OK" if "same real-world entity" in req.prompt else synthetic(req)

    async with FakeLLMServer(model).running() as s:
        cfg = config(s)
        cfg.llm.cache.mode = "readwrite"
        cfg.llm.cache.path = str(tmp_path / "cache.sqlite")
        cfg.graph.resolve.method = "llm"
        cfg.input.path = str(Path(__file__).parent.parent / "examples" / "a_christmas_carol_stave1.txt")
        cfg.output.dir = str(tmp_path / "out")
        first = await run(cfg, out=io.StringIO())
        asked = [r for r in s.chat_requests() if "same real-world entity" in r.prompt]
        again = await run(cfg, out=io.StringIO())
        asked_again = [r for r in s.chat_requests() if "same real-world entity" in r.prompt][len(asked):]
    assert asked and first.failed and again.failed  # exit 1
    assert {f["pass"] for f in first.report["failed"]} == {"graph"}
    assert all(f["item"].startswith("resolution batch") for f in first.report["failed"])
    assert len(asked_again) == len(asked)  # neither the cache nor the run store kept an answer that said nothing


async def test_the_test_servers_model_answers_resolution_questions():
    async with FakeLLMServer(synthetic).running() as s:
        cfg = config(s)
        cfg.graph.resolve.embeddings = False
        nodes = [*NODES, ("Dengue Virus Lab", "organization", "A laboratory.")]
        resolution = await resolve_entities(graph_of(nodes), cfg, method="llm")
    assert resolution.stats.llm_pairs and resolution.stats.llm_unanswered == 0 and not resolution.failed
