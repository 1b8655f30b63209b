"""429s of a rate limit against 429s of a limit on requests at once: a rate limit is learned as a rate (its 429s
set no ceiling on the requests in flight), whether its headers say so or a trial shows it (a request sent after a
429 taken while the requests the server held then go on); a limit on requests at once is found where a trial
shows none is taken until one of those held ends; long waits for a rate limit are said in one line."""

import math
import re
from functools import partial

import trio
import trio.testing

from graphglean.core.config import LLMConfig
from graphglean.llm import ChatClient, RateLimiter
from graphglean.llm.limits import stated_rate
from graphglean.llm.server.in_flight import AdaptiveConcurrency
from graphglean.testing import FakeLLMServer

from .test_concurrency import AtMost, drive


class Sent:
    """An attempt on the wire, as `AdaptiveConcurrency` sees one (an `AttemptWatch`'s ``sent_at``)."""

    def __init__(self, at: float) -> None:
        self.sent_at = at


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def concurrency(*flying: Sent) -> tuple[AdaptiveConcurrency, Clock]:
    clock = Clock()
    c = AdaptiveConcurrency(64, clock=clock)
    c.flying.update(flying)
    return c, clock


def test_a_request_taken_after_a_429_while_those_held_go_on_is_a_rate_limit():
    held = [Sent(0.0), Sent(0.0)]
    c, clock = concurrency(*held)
    found: list[str] = []
    c.on_rate_limit = found.append
    clock.now = 0.01
    c.back_off(0.0, "a 429", 3, Sent(0.0), wait_said=True)  # sent with them: refused at once
    assert c.current == 32 and not c.rate_limit
    clock.now = 0.6
    c.back_off(0.5, "a 429", 3, Sent(0.5), wait_said=True)  # again after the cut: the two held and one more tried
    assert c.refused == 3
    taken = Sent(1.2)  # sent after the 429s, taken: still on the wire when one of those held is answered
    c.flying.add(taken)
    clock.now = 3.0
    c.answered(held[0])
    assert c.rate_limit and found == [c.rate_limit] and c.refused == math.inf
    clock.now = 10.0
    c.back_off(9.9, "a 429", 6, Sent(9.9))  # a rate limit's 429: the learned rate's to answer, nothing cut here
    assert c.allowed == 64 and "429s of a rate limit" in c.summary()["timeline"][-1]["reason"]


def test_requests_refused_until_one_of_those_held_ends_are_a_limit_on_requests_at_once():
    held = [Sent(0.0) for _ in range(10)]
    c, clock = concurrency(*held)
    clock.now = 0.01
    c.back_off(0.0, "a 429", 11, Sent(0.0))
    clock.now = 0.4
    c.back_off(0.3, "a 429", 11, Sent(0.3))  # 429s again after the cut: one below them
    assert c.refused == 10 and not c.rate_limit
    clock.now = 1.0
    c.back_off(0.9, "a 429", 11, Sent(0.9))  # (old news for the ceiling: the trial is tested)
    clock.now = 2.0
    c.answered(held[0])
    assert not c.rate_limit and c.refused == 10
    assert any(e["reason"] == "429s while the server held 10: a limit on requests at once"
               for e in c.summary()["timeline"])


def test_429s_while_none_of_ours_was_held_are_a_rate_limit_until_a_trial_finds_a_limit_at_once():
    """A key shared by several clients: this one's 429s came while the others held the server's places."""
    c, clock = concurrency()
    found: list[str] = []
    c.on_rate_limit = found.append
    clock.now = 0.01
    c.back_off(0.0, "a 429", 1, Sent(0.0))
    clock.now = 1.0
    c.back_off(0.9, "a 429", 1, Sent(0.9))  # again, none of ours held meanwhile
    assert c.rate_limit == "429s while the server held none of ours" and found == [c.rate_limit]
    held = [Sent(1.5) for _ in range(10)]
    c.flying.update(held)
    clock.now = 2.0
    c.back_off(1.9, "a 429", 11, Sent(1.9))  # a trial of the 10 the server holds of ours now
    clock.now = 2.5
    c.back_off(2.4, "a 429", 11, Sent(2.4))  # sent after it began, refused
    clock.now = 3.0
    c.answered(held[0])  # nothing sent after the 429s was taken meanwhile
    assert not c.rate_limit and c.at_once and c.refused == 10 and c.current == 10 and len(found) == 1
    clock.now = 4.0
    c.back_off(3.9, "a 429", 1, Sent(3.9))
    clock.now = 5.0
    c.back_off(4.9, "a 429", 1, Sent(4.9))  # none of ours held again: the limit on requests at once explains it
    assert not c.rate_limit and c.at_once


def test_429s_whose_headers_state_a_rate_limit_cut_nothing():
    c, clock = concurrency(Sent(0.0))
    clock.now = 0.01
    c.back_off(0.0, "a 429", 2, Sent(0.0), rate_said=True)
    assert c.rate_limit == "its 429s carry x-ratelimit headers" and c.current == 64 and c.refused == math.inf


async def test_the_rate_limit_headers_state_a_rate_the_limiter_learns_at_the_first_429(autojump_clock):
    openai = {"x-ratelimit-limit-requests": "500", "x-ratelimit-remaining-requests": "499",
              "x-ratelimit-reset-requests": "120ms"}
    assert abs(stated_rate(openai) - 500 / 60) < 0.01
    assert stated_rate({"x-ratelimit-limit-requests": "60", "x-ratelimit-remaining-requests": "0",
                        "x-ratelimit-reset-requests": "1m"}) == 1.0
    assert stated_rate({"retry-after": "3"}) is None and stated_rate({**openai, "x-ratelimit-reset-requests": ""}) is None
    limiter = RateLimiter()
    limiter.on_success()
    limiter.observe_headers({"x-ratelimit-limit-requests": "120", "x-ratelimit-remaining-requests": "0",
                             "x-ratelimit-reset-requests": "60s"})
    limiter.on_rate_limited(trio.current_time(), retry_after=0.3)
    assert limiter.learned is not None and limiter.learned.ceiling * 60 == 120


class AtMostForwardingRateHeaders(AtMost):
    """A gateway (LiteLLM) that forwards its upstream's ``x-ratelimit-*`` headers on the answers it passes on
    and refuses more than ``most`` at once (its max_parallel_requests) with bare 429s."""

    async def __call__(self, req):
        reply = await super().__call__(req)
        if reply.status == 200:
            reply.headers.update({"x-ratelimit-limit-requests": "10000", "x-ratelimit-remaining-requests": "9990",
                                  "x-ratelimit-reset-requests": "6ms"})
        return reply


def test_bare_429s_of_a_gateway_that_forwards_rate_headers_on_its_answers_are_a_limit_on_requests_at_once():
    """Whether a 429 is a rate limit's is read from its own headers: the rate headers an earlier answer carried
    (the upstream's, forwarded) made every later 429 a rate limit's, and no ceiling ever applied."""
    summary, s = trio.run(partial(drive, FakeLLMServer(AtMostForwardingRateHeaders(10)), 300, 200, max_retries=6),
                          clock=trio.testing.MockClock(autojump_threshold=0))
    reasons = [e["reason"] for e in summary["timeline"]]
    assert s.status_counts[200] == 300 and summary["final"] in (10, 11), (s.status_counts, summary)
    assert not any("x-ratelimit" in reason for reason in reasons), reasons


def test_a_server_that_enforces_120_rpm_with_429s_is_run_at_its_rate_not_at_a_few_in_flight():
    """The shape of QA's F2: 120 RPM enforced by 429s with Retry-After, no rate-limit headers, every answer after
    3 s (the rate needs about 6 in flight); before, 3 or 4 were kept in flight, half the rate."""
    server = FakeLLMServer(lambda r: "ok", rpm=120, latency=3.0)
    summary, s = trio.run(partial(drive, server, 90, 20), clock=trio.testing.MockClock(autojump_threshold=0))
    log = s.request_log()
    span = max(r["finished"] for r in log) - min(r["started"] for r in log)
    assert s.status_counts[200] == 90 and span < 1.2 * (90 / 2 + 3), (span, summary)
    assert summary["final"] == 64 and any("429s of a rate limit" in e["reason"] for e in summary["timeline"])


async def test_long_waits_for_a_rate_limit_are_said_with_why_and_how_long(autojump_clock):
    limiter = RateLimiter(requests_per_minute=2)
    said: list[str] = []
    limiter.tell = said.append
    for _ in range(3):
        await limiter.acquire()
    assert said == ["llm: requests wait 30 s for llm.requests_per_minute (2)"] * 2
    limiter.pause(65.0, "the endpoint's rate limit (HTTP 429, Retry-After 65 s)")
    limiter.pause(5.0, "a short one")  # (said only when long)
    assert said[-1] == "llm: requests wait 65 s for the endpoint's rate limit (HTTP 429, Retry-After 65 s)"
    assert len(said) == 3


async def test_a_client_under_a_2_rpm_limit_says_why_it_waits(autojump_clock):
    async with FakeLLMServer(lambda r: "ok", rpm=2).running() as s:
        cfg = LLMConfig(base_url=s.base_url, model="m", max_retries=6, timeout_s=600)
        cfg.cache.mode = "off"
        said: list[str] = []
        async with ChatClient(cfg) as client:
            client.on_held(said.append)
            async with trio.open_nursery() as nursery:
                for i in range(3):
                    nursery.start_soon(client.chat, client.request([{"role": "user", "content": f"q{i}"}]))
    assert s.status_counts[200] == 3
    waits = [line for line in said if line.startswith("llm: requests wait")]
    assert waits and all(re.fullmatch(r"llm: requests wait \d+ s for (the endpoint's rate limit \(HTTP 429, "
                                      r"Retry-After [\d.]+ s\)|the request rate learned from the endpoint's 429s "
                                      r"\(about [\d.]+ a minute; llm.requests_per_minute sets it\))", line)
                             for line in waits), said
