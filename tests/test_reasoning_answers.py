"""A reasoning model's ``<think>`` blocks never reach free text: summaries (and the summary fed back to the next
call), session summaries, intents, description summaries and query answers are its answer without them, closed
or not; an answer of reasoning alone is no answer (a failed item, asked again by the next run), never stored
as an empty or reasoning summary."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from graphglean import query
from graphglean.core.answers import NoAnswer, prose, prose_answer, strip_reasoning, without_reasoning
from graphglean.core.config import Config
from graphglean.llm.records import parse_chat_body
from graphglean.scheduling.scheduler import Scheduler
from graphglean.summaries import HistoryMessage, ProgressiveSummarizer
from graphglean.testing import FakeLLMServer, RecordedRequest, Reply
from graphglean.testing.models.responders import (
    MARK_DESCRIBE,
    MARK_INTENT,
    MARK_PROGRESSIVE,
    MARK_SUMMARY,
    synthetic,
    thinking,
)

from .helpers import config
from .test_determinism import locomo
from .test_resume import quiet_run

DEBRIS = "THINKDEBRIS"
REASONING = f"{DEBRIS} draft: the user wants a short answer, let me plan it."


@pytest.mark.parametrize("answer,said", [
    ("<think>\nplan\n</think>\n\nThe summary.", "The summary."),
    ("<think>plan</think> The <thinking>more</thinking>summary.", "The summary."),
    ("plan, reasoned in the prompt's open block</think>\nThe summary.", "The summary."),  # orphan closing tag
    ("The summary.", "The summary."),
])
def test_free_text_is_the_answer_without_its_reasoning(answer, said):
    assert prose(answer) == said and prose_answer(answer)


@pytest.mark.parametrize("answer", ["<think>\nplan, cut by the cap", "<think>plan</think>\n\n", "", "  \n",
                                    "<think>plan</think>I'm sorry, but I can't help with that."])
def test_reasoning_alone_or_a_refusal_is_no_free_text_answer(answer):
    with pytest.raises(NoAnswer):
        prose(answer)
    assert not prose_answer(answer)


def test_an_unclosed_block_is_dropped_from_free_text_and_kept_for_records():
    cut = "<think>\nplan ("  # records and JSON may stand inside an unclosed block: their readers keep it
    assert strip_reasoning(cut) == "\nplan (" and without_reasoning(cut) == ""


def test_a_server_that_parses_reasoning_out_and_found_no_answer_gives_reasoning_not_an_answer():
    def body(message):
        return {"choices": [{"message": message, "finish_reason": "length"}], "usage": {"completion_tokens": 9}}

    only = parse_chat_body(body({"role": "assistant", "content": None, "reasoning_content": "I should plan."}))
    assert only.text == "<think>I should plan." and strip_reasoning(only.text) == "I should plan."
    with pytest.raises(NoAnswer):
        prose(only.text)
    both = parse_chat_body(body({"role": "assistant", "content": "The summary.", "reasoning_content": "Plan."}))
    assert both.text == "The summary."
    assert parse_chat_body(body({"role": "assistant", "content": None})).text == ""


async def test_a_running_summary_fed_back_is_the_answer_without_its_reasoning():
    async with FakeLLMServer(thinking(synthetic, REASONING)).running() as s:
        cfg = config(s)
        from graphglean.llm.client import ChatClient

        async with ChatClient.from_config(cfg.llm) as client:
            summarizer = ProgressiveSummarizer(Scheduler(client).llm("summary"), window=2, token_budget=30)
            for i in range(8):
                summarizer.add(HistoryMessage(f"m{i}", "user", f"Message {i}: Ada Archer walked to Lagos on day {i}."))
                await summarizer.maybe_summarize()
    assert len(summarizer.summaries) > 1 and not any(DEBRIS in p.content for p in summarizer.summaries)
    prompts = [r.prompt for r in s.chat_requests()]
    assert "(none yet)" in prompts[0] and all(DEBRIS not in p for p in prompts)


def conversation(tmp_path: Path) -> Path:
    corpus = tmp_path / "conversation.json"
    corpus.write_text(json.dumps([locomo(sessions=2, turns=6)], ensure_ascii=False))
    return corpus


def every_pass(server, tmp_path: Path, cache: bool = False) -> Config:
    """Graph (gleaning, description summaries, communities and reports), recursive summaries, episodes and
    enrichment (intents, entities, embeddings, session summaries) over a LoCoMo conversation."""
    cfg = config(server, tmp_path if cache else None, embedding_model="text-embedding-3-small")
    cfg.input.path, cfg.input.format = str(conversation(tmp_path)), "locomo"
    cfg.output.dir, cfg.output.formats = str(tmp_path / "out"), ["jsonl"]
    cfg.chunking.size, cfg.chunking.overlap = 200, 20
    cfg.graph.description_max_tokens = 12  # some summarized
    c = cfg.graph.communities
    c.enabled, c.max_cluster_size, c.min_report_size = True, 4, 2
    cfg.summary.enabled, cfg.summary.detail, cfg.summary.minimum_chunk_size = True, 0.5, 60
    cfg.summary.recursive = True  # each chunk's call is given the summaries so far
    cfg.episodic.enabled = True
    e = cfg.enrich
    e.enabled, e.message_window, e.entity_backend = True, 4, "llm"
    return cfg


def memory_rows(out: Path) -> dict[str, list[tuple]]:
    with sqlite3.connect(out / "memory.sqlite") as db:
        tables = [t for (t,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {t: db.execute(f"SELECT * FROM {t}").fetchall() for t in tables}


def jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


async def test_no_reasoning_reaches_any_output_or_any_prompt(tmp_path):
    async with FakeLLMServer(thinking(synthetic, REASONING), embedding_dim=16).running() as s:
        cfg = every_pass(s, tmp_path)
        result = await quiet_run(cfg)
        local = await query(cfg, "Who did Lena Archer meet?")
        world = await query(cfg, "What are the storms about?", method="global")
    out = Path(cfg.output.dir)
    assert not result.failed and DEBRIS not in local.answer + world.answer and local.answer and world.answer
    # what was made: every free-text output is there, and holds no reasoning
    summaries, intents = jsonl(out / "summaries.jsonl"), [r["metadata"]["system"].get("intent")
                                                          for r in jsonl(out / "enrichment.jsonl")]
    assert len(summaries) == 2 and all(r["summary"] for r in summaries) and all(intents)
    assert jsonl(out / "session_summaries.jsonl") and jsonl(out / "community_reports.jsonl")
    graph = next(p for p in json.loads((out / "report.json").read_text())["passes"] if p["pass"] == "graph")
    assert graph["summarized_descriptions"] > 0
    # the model's raw answers are kept as they came where they are documented so: episodes.jsonl's
    # ``response`` ("the model's raw answer") and the run store (the graph pass's answers, parsed again)
    for path in sorted(p for p in out.rglob("*") if p.is_file() and p.name.split(".")[0] not in ("run", "memory")):
        text = path.read_text(encoding="utf-8", errors="replace")
        if path.name == "episodes.jsonl":
            text = json.dumps([{k: v for k, v in r.items() if k != "response"} for r in jsonl(path)])
        assert DEBRIS not in text, path.name
    assert not [t for t, rows in memory_rows(out).items() if DEBRIS in repr(rows)]
    # nothing fed back: no prompt holds reasoning, only a cut answer's own turn when it is continued
    fed = [m["content"] for r in s.chat_requests() for m in r.messages if m.get("role") != "assistant"]
    assert not [m[:200] for m in fed if DEBRIS in m]


def free_text_alone_is_reasoning(req: RecordedRequest) -> Reply | str:
    """`synthetic`, except that summaries, intents and description summaries are reasoning alone, never closed."""
    if any(mark in req.prompt for mark in (MARK_SUMMARY, MARK_PROGRESSIVE, MARK_INTENT, MARK_DESCRIBE)):
        return f"<think>\n{REASONING}"
    return synthetic(req)


async def test_an_answer_of_reasoning_alone_is_a_failed_item_never_a_summary_and_is_asked_again(tmp_path):
    def free_text(server) -> int:
        return sum(any(m in r.prompt for m in (MARK_SUMMARY, MARK_PROGRESSIVE, MARK_INTENT))
                   for r in server.chat_requests())

    async with FakeLLMServer(free_text_alone_is_reasoning, embedding_dim=16).running() as s:
        cfg = every_pass(s, tmp_path, cache=True)
        cfg.summary.recursive = False
        first = await quiet_run(cfg)
        asked = free_text(s)
        again = await quiet_run(cfg)
        asked_again = free_text(s) - asked
    out = Path(cfg.output.dir)
    failed = {p.name: p.failed for p in again.passes}
    assert first.failed and again.failed == first.failed
    # no summary stored, empty or not; each document a failed item saying why
    assert jsonl(out / "summaries.jsonl") == [] and len(failed["summary"]) == 2
    assert all("only reasoning" in row["error"] for row in failed["summary"])
    # no intent and no session summary; their steps failed, each named
    assert not [r for r in jsonl(out / "enrichment.jsonl") if "intent" in r["metadata"].get("system", {})]
    assert jsonl(out / "session_summaries.jsonl") == [] and not memory_rows(out)["summaries"]
    steps = {row["item"].rsplit(" ", 1)[1] for row in failed["enrich"] if "only reasoning" in row["error"]}
    assert steps == {"intent", "summary"}
    # descriptions that were to be summarized stay as found
    assert not [r for r in jsonl(out / "entities.jsonl") if DEBRIS in json.dumps(r)]
    # none of those answers was kept: the next run asked each again (the graph's came from the run store)
    assert asked and asked_again == asked


@pytest.mark.parametrize("answer", [
    "The user asked the model to stop printing <think> blocks; it apologised and gave the recipe for bread.",
    "Alice explains that a closing </reasoning> tag ends the element. Bob then fixes the parser.",
    "Use the `</think>` tag to end a block, then write the answer.",
    "The model wraps its reasoning in <think> and </think> tags, which the parser drops.",  # both tags named
])
def test_free_text_that_names_a_reasoning_tag_is_kept_whole(answer):
    assert prose(answer) == answer


@pytest.mark.parametrize("answer, said", [
    ("I should keep it short.\n</think>\n\nThe summary.", "The summary."),  # <think> was in the prompt
    ("weighing both</think>The summary.", "The summary."),
    ("<think>plan</think>\n<think>more</think>\nThe summary names <think> tags.", "The summary names <think> tags."),
])
def test_reasoning_before_the_answer_is_still_dropped(answer, said):
    assert prose(answer) == said
