"""A reasoning model's answer cut while it thinks, on a passage however short, is continued to its records: the
gleaning loop's backstops weigh what an answer says outside its reasoning, and its reasoning apart. A chunk whose
answers end cut, kept as they were, with no record is never a quiet success: it fails, naming why, is not
stored, and the next run asks again."""

from __future__ import annotations

import json

from graphglean.graph.extract import extract_graph
from graphglean.testing import FakeLLMServer, RecordedRequest
from graphglean.testing.models.responders import MARK_RESUME, capped, synthetic

from .helpers import config as base_config
from .test_resume import base_config as run_config
from .test_resume import quiet_run

PASSAGE = "Ada Archer walked to Lagos and back again, slowly, over many days of rain."  # ~20 tokens
RECORDS = ('("entity"<|>Ada Archer<|>person<|>A traveller who walked to Lagos.)##\n'
           '("entity"<|>Lagos<|>geo<|>The city Ada Archer walked to.)##\n'
           '("relationship"<|>Ada Archer<|>Lagos<|>Ada Archer walked to Lagos and back.<|>7)\n<|COMPLETE|>')


def reasoning(sentences: int) -> str:
    """A reasoning block of ``sentences`` different sentences (no loop), ~18 tokens each."""
    return "<think>\n" + "\n".join(f"Step {i}: I consider whether part {i} of the passage names an entity."
                                   for i in range(sentences)) + "\n</think>\n\n"


def thinker(sentences: int):
    def respond(req: RecordedRequest) -> str:
        return reasoning(sentences) + RECORDS if "Records:" in req.last_user else "NO"
    return capped(respond)


def config(server):
    cfg = base_config(server, model="local")
    cfg.graph.resolve.enabled = False
    cfg.graph.max_gleanings = 0
    return cfg


async def test_an_answer_cut_while_reasoning_on_a_short_passage_is_continued_to_its_records():
    # ~16k tokens of reasoning before three records, at the default cap (4096): every passage under 205 tokens
    # had its first cut answer kept as it was, reasoning alone, and the chunk stored with no record, silently
    async with FakeLLMServer(thinker(900)).running() as s:
        result = await extract_graph(PASSAGE, config(s))
    asked = s.chat_requests()
    assert {"ada archer", "lagos"} <= set(result.output.nodes) and result.output.has_edge("ada archer", "lagos")
    assert not result.failed and result.stats.cut_records == 0 and result.stats.continuations == len(asked) - 1 > 1
    assert {r.max_tokens for r in asked} == {4096}  # continued at the cap, never asked again from the start
    assert all(MARK_RESUME in r.last_user for r in asked[1:])


async def test_records_drafted_while_reasoning_and_then_written_are_no_loop():
    records = [f'("entity"<|>Person {i}<|>person<|>Person {i}, as the passage says.)##\n' for i in range(30)]
    draft, final = "".join(records[:4]), "".join(records)

    def respond(req: RecordedRequest) -> str:
        return f"<think>\nA draft:\n{draft}</think>\n\n{final}<|COMPLETE|>" if "Records:" in req.last_user else "NO"

    async with FakeLLMServer(capped(respond)).running() as s:
        cfg = config(s)
        cfg.llm.max_tokens = 150  # cut in the final records, four of them the draft's again
        result = await extract_graph(" ".join(f"Person {i} came." for i in range(30)), cfg)
    assert result.stats.repetition_loops == 0 and result.stats.continuations > 0
    assert {f"person {i}" for i in range(30)} <= set(result.output.nodes)


async def test_a_model_thinking_past_the_backstop_fails_its_chunk_which_the_next_run_asks_again(tmp_path):
    # at a cap of 256, reasoning is continued for eight calls (2,048 tokens), then kept as it is: no record; the
    # other document's chunk is read as usual (a graph with nodes: no warning of an empty graph either)
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.txt").write_text(PASSAGE)
    (tmp_path / "in" / "b.txt").write_text("Bram Brook sailed from Porto to Recife with Cleo Vance.")

    def respond(req: RecordedRequest):
        return reasoning(900) + RECORDS if "Records:" in req.last_user and PASSAGE in req.prompt else synthetic(req)

    async with FakeLLMServer(capped(respond)).running() as s:
        cfg = run_config(s, tmp_path, input={"path": str(tmp_path / "in")}, graph={"max_gleanings": 0})
        cfg.llm.max_tokens = 256
        first = await quiet_run(cfg)
        asked, total = [r for r in s.chat_requests() if PASSAGE in r.prompt], len(s.chat_requests())
        again = await quiet_run(cfg)
        asked_again = s.chat_requests()[total:]
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    failed = [row for p in again.passes if p.name == "graph" for row in p.failed]
    assert first.failed == again.failed == 1 and report["failed"] and not again.empty
    assert failed[0]["item"].startswith("chunk-") and "its reasoning ran past 2048 tokens" in failed[0]["error"]
    assert "raise llm.max_tokens" in failed[0]["error"]
    assert "bram brook" in {json.loads(line)["id"] for line in (tmp_path / "out" / "entities.jsonl").open()}
    # not stored as finished: asked again (a cut answer is never kept), and only it
    assert len(asked) == len(asked_again) == 8 and all(PASSAGE in r.prompt for r in asked_again)


async def test_a_cut_answer_with_records_is_kept_whatever_its_ending():
    # the loop's backstop on what an answer says still holds: a cut answer that runs on past twenty tokens a
    # passage token is kept as it is, and its records read (its chunk does not fail)
    endless = "##\n".join(f'("entity"<|>Ada Archer {i}<|>person<|>Number {i} of an endless list.)' for i in range(2000))

    async with FakeLLMServer(capped(lambda req: endless if "Records:" in req.last_user else "NO")).running() as s:
        cfg = config(s)
        cfg.llm.max_tokens = 100
        result = await extract_graph("Ada Archer walked to the market and back again.", cfg)
    assert not result.failed and result.stats.cut_records == 1 and len(result.output.nodes) > 10
