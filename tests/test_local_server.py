"""Slow local servers (issue 29): streamed answers, timeouts that mean something, concurrency that matches the
server, against `FakeLLMServer(local=LocalServer(...))`. Time is scaled: a server ``SCALE`` times faster than
the real one and the default timeouts divided by as much, so a test takes seconds, not an hour."""

from __future__ import annotations

import itertools
import json
import re

import pytest
import trio
import trio.testing

from graphglean.core.config import Config, LLMConfig
from graphglean.launch import run
from graphglean.llm.client import ChatClient
from graphglean.testing import FakeLLMServer, LocalServer, Reply
from graphglean.testing.models.responders import MARK_CONTINUE, MARK_LOOP, dense_records, passage_of

SCALE = 50.0  # the server is this much faster than 20 tokens/s, the timeouts this much shorter than the defaults
PADDING = " It is described at some length, as a small model that says everything twice would describe it." * 3


def scaled(cfg: LLMConfig) -> LLMConfig:
    """The default timeouts, scaled."""
    defaults = LLMConfig()
    cfg.timeout_s = defaults.timeout_s / SCALE
    cfg.first_token_timeout_s = defaults.first_token_timeout_s / SCALE
    return cfg


_SYLLABLES = ["ka", "vo", "ren", "tiq", "lu", "mo", "pra", "det", "zor", "blat", "quiv", "nes", "tor", "pel", "sau"]


def names(n: int) -> list[str]:
    words = ("".join(p).capitalize() for p in itertools.product(_SYLLABLES, repeat=3))
    pairs = zip(words, words)
    return [f"{a} {b}" for a, b in itertools.islice(pairs, n)]


def corpus(documents: int, per_document: int) -> str:
    """JSONL of documents whose sentences each name two people met nowhere else."""
    people = names(documents * per_document)
    lines = []
    for k in range(documents):
        mine = people[k * per_document:(k + 1) * per_document]
        text = " ".join(f"{a} met {b} at noon." for a, b in zip(mine[::2], mine[1::2]))
        lines.append(json.dumps({"id": f"d{k}", "text": text}))
    return "\n".join(lines) + "\n"


def long_answers(req) -> Reply | str:
    """A model that writes every record of its passage at length (well over 120 s at 20 tokens/s), then NO."""
    if req.max_tokens == 1 or MARK_LOOP in req.last_user:
        return Reply("NO", finish_reason="length")
    if MARK_CONTINUE in req.last_user:
        return "<|COMPLETE|>"
    if "Records:" in req.last_user:
        records = [re.sub(r'\.\)$', "." + PADDING + ")", r) for r in dense_records(passage_of(req.last_user))]
        return "##\n".join(records) + "\n<|COMPLETE|>"
    return "OK"


def slow_server(**changes) -> LocalServer:
    """Two slots at 20 tokens/s (scaled), no slot report, a hang-up does not stop a generation."""
    return LocalServer(**{"slots": 2, "tokens_per_s": 20 * SCALE, "reports_slots": False, "cancels_on_hangup": False,
                          "headers_at_first_token": True, **changes})


async def inline(fn, *args, **_options):
    await trio.lowlevel.checkpoint()  # a scheduling point, as a thread's start is
    return fn(*args)


async def test_a_slow_local_server_with_the_default_settings_finishes_everything(tmp_path, autojump_clock,
                                                                                  monkeypatch):
    # on virtual time, so the queue the learner reads is the server's, not the machine's load (a loaded CI machine
    # once stretched first tokens so that no queue showed); the blocking work runs inline, as a thread working
    # while the clock jumps would let virtual time run away
    monkeypatch.setattr(trio.to_thread, "run_sync", inline)
    text = corpus(documents=6, per_document=20)
    local = slow_server()
    async with FakeLLMServer(long_answers, local=local).running() as s:
        cfg = Config()
        cfg.llm = scaled(LLMConfig(base_url=s.base_url, model="small-local"))
        cfg.llm.cache.mode = "off"
        cfg.input.path = str(tmp_path / "in.jsonl")
        (tmp_path / "in.jsonl").write_text(text)
        cfg.output.dir = str(tmp_path / "out")
        cfg.graph.resolve.method = "rules"
        notices: list[str] = []
        result = await run(cfg, notice=notices.append, out=open("/dev/null", "w"))
        log = s.request_log()
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert report["failed"] == [] and report["chunks"] == 6
    answers = [r for r in log if r["completion_tokens"] > 1000]
    assert len(answers) == report["chunks"]  # each chunk's answer is long: 2,500 tokens or so, > 120 s unscaled
    assert min(r["completion_tokens"] for r in answers) / 20 > 120
    nodes = {json.loads(line)["name"] for line in (tmp_path / "out" / "entities.jsonl").read_text().splitlines()}
    assert set(n.upper() for n in names(6 * 20)) <= {n.upper() for n in nodes}  # every issued record
    stats = local.stats()
    assert stats["abandoned_tokens"] <= 0.02 * stats["delivered_tokens"]
    # the wall time against the server's work over its slots is measured in benchmarks/local_server.py
    assert stats["max_queue_wait_s"] < LLMConfig().first_token_timeout_s / SCALE
    concurrency = report["llm"]["concurrency"]
    assert concurrency["server_slots"] == 2 and concurrency["in_flight_limit"] == 3, concurrency
    assert concurrency["start"] == 64 and concurrency["timeline"][-1]["limit"] == 3
    held = [n for n in notices if "llm.server_concurrency" in n]
    assert len(held) == 1 and "3 in flight" in held[0], notices  # said once, naming the setting
    assert result.failed == 0


@pytest.mark.parametrize("local, slots, limit, source", [
    (LocalServer.like("llama.cpp", slots=3, tokens_per_s=5000), 3, 4, "/props"),
    (LocalServer.like("llama.cpp", slots=3, tokens_per_s=5000, reports_slots=False), None, 64, "no request has waited"),
    (LocalServer.like("vllm", tokens_per_s=5000), None, 64, "vLLM /metrics: nothing waiting"),
])
async def test_the_server_s_own_report_of_its_slots_is_read_before_the_first_call(local, slots, limit, source):
    async with FakeLLMServer(lambda r: "ok " * 20, local=local).running() as s:
        async with ChatClient(LLMConfig(base_url=s.base_url, model="m")) as c:
            c.cache = None
            await c.chat(c.request([{"role": "user", "content": "hi"}], max_tokens=50))
            summary = c.server.summary()["concurrency"]
            limit_now = c.concurrency.current
    assert summary["server_slots"] == slots and source in summary["source"]
    assert limit_now == limit == summary["start"]  # without a report, all of llm.max_concurrency at once
    assert not s.requests[0].path.endswith(("/props", "/slots", "/metrics"))  # the asking is no LLM call


def test_slots_are_learned_from_the_wait_for_the_first_token_without_any_report():
    async def main():
        local = slow_server(slots=3, tokens_per_s=2000)
        async with FakeLLMServer(lambda r: "word " * 400, local=local).running() as s:
            cfg = scaled(LLMConfig(base_url=s.base_url, model="m"))
            cfg.cache.mode = "off"
            async with ChatClient(cfg) as c:
                async def wave(n: int) -> None:
                    async with trio.open_nursery() as nursery:
                        for i in range(n):
                            nursery.start_soon(c.chat, c.request([{"role": "user", "content": f"q{i}"}],
                                                                 max_tokens=900))

                await wave(12)  # all at once: nothing is known yet
                first = c.server.summary()["concurrency"]
                s.max_in_flight = 0
                await wave(12)
                return first, c.server.summary()["concurrency"], s.max_in_flight, local.stats()

    # on virtual time (trio's MockClock): the timings are the server's, whatever the machine's load
    first, summary, most, stats = trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    assert first["start"] == 64 and summary["server_slots"] == 3 and summary["in_flight_limit"] == 4, summary
    assert most <= 4  # once the queue showed, no more than that went at once
    assert stats["abandoned_tokens"] == 0 and summary["abandoned_attempts"] == 0  # the queue was waited out
    assert [row["limit"] for row in summary["timeline"]] == [64, 4]


async def test_progress_shows_the_answers_in_progress(monkeypatch):
    from graphglean.scheduling import scheduler as scheduling

    monkeypatch.setattr(scheduling, "TICK_S", 0.1)
    seen = []

    class Progress:
        def start(self, *a): pass
        def advance(self, *a): pass
        def finish(self, *a): pass
        def streaming(self, pass_name, answers, tokens, rate):
            seen.append((pass_name, answers, tokens, rate))

    local = LocalServer(slots=2, tokens_per_s=300)
    async with FakeLLMServer(lambda r: "word " * 200, local=local).running() as s:
        async with ChatClient(scaled(LLMConfig(base_url=s.base_url, model="m"))) as c:
            c.cache = None
            sched = scheduling.Scheduler(c, progress=Progress())
            llm = sched.llm("graph")
            await sched.map(lambda i: llm.chat(llm.request([{"role": "user", "content": f"q{i}"}], max_tokens=900)),
                            range(2), pass_name="graph")
    busy = [x for x in seen if x[1]]
    assert busy and all(p == "graph" for p, *_ in busy) and max(t for _, _, t, _ in busy) > 20
    assert 10 < max(r for *_, r in busy) < 1000  # tokens a second of the answers in progress (300 served)
