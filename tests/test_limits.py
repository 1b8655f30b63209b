"""Rate limits nobody configured: learned from 429s, recovered in seconds, never charged as faults."""

import pytest
import trio
from trio.testing import MockClock

from graphglean.core.config import LLMConfig
from graphglean.core.errors import LLMError
from graphglean.engines.ray.leases.batch import BatchSize
from graphglean.engines.ray.leases.limiter import LeasedRateLimiter
from graphglean.llm import ChatClient, RateLimiter
from graphglean.llm.limits import LearnedRate, TokenBucket
from graphglean.llm.server.in_flight import AdaptiveConcurrency
from graphglean.testing import FakeLLMServer, Reply

from .helpers import llm_config

SPEED = 30  # virtual seconds per real second: a 10-RPM minute passes in two real seconds


@pytest.fixture
def fast_clock():
    """Trio time (the fake server's rate window, the client's limiter and its sleeps) runs SPEED times faster
    than the wall clock, while the sockets stay real."""
    return MockClock(rate=SPEED)


def msg(text):
    return [{"role": "user", "content": text}]


async def run_items(client, n):
    """Send ``n`` requests at once, as a pass does with its items; the ones that failed for good."""
    failed = []

    async def item(i):
        try:
            await client.chat(client.request(msg(f"item {i}")))
        except LLMError as e:
            failed.append(e)

    async with trio.open_nursery() as nursery:
        for i in range(n):
            nursery.start_soon(item, i)
    return failed


async def test_a_10_rpm_endpoint_nobody_configured_loses_no_item(fast_clock):
    async with FakeLLMServer(lambda r: "ok", rpm=10).running() as s:
        cfg = llm_config(s, max_retries=6, timeout_s=60 * SPEED)
        async with ChatClient(cfg) as client:
            failed = await run_items(client, 20)
    assert failed == []
    assert s.status_counts[200] == 20
    learned = client.limiter.learned
    assert learned is not None and learned.ceiling * 60 <= 20  # it learned the 10 RPM (the old floor was 30)


@pytest.mark.parametrize("rpm", [1, 3, 10, 45])
async def test_any_enforced_rate_down_to_1_rpm_is_learned(autojump_clock, rpm):
    """A token-bucket endpoint at ``rpm`` simulated on the limiter alone: what gets through is what is learned."""
    server = TokenBucket(rpm, trio.current_time)
    limiter = RateLimiter()
    accepted = 0
    for _ in range(6 * rpm + 20):
        await limiter.acquire()
        sent = trio.current_time()
        wait = server.wait_time(1)
        if wait > 0:
            limiter.on_rate_limited(sent, retry_after=wait)
            limiter.pause(wait)
        else:
            server.take(1)
            limiter.on_success()
            accepted += 1
    assert limiter.learned is not None
    assert 0.6 * rpm <= limiter.learned.ceiling * 60 <= 1.5 * rpm
    assert accepted >= 0.8 * (6 * rpm + 20)  # most attempts get through once the rate is known


@pytest.mark.parametrize("answered_before", [10, 60, 250])
async def test_one_429_under_a_configured_rpm_costs_seconds_not_half_the_run(autojump_clock, answered_before):
    limiter = RateLimiter(requests_per_minute=3000)  # 50 a second
    for _ in range(answered_before):
        await limiter.acquire()
        limiter.on_success()
    limiter.on_rate_limited(trio.current_time(), retry_after=0.02)
    limiter.pause(0.02)
    t0 = trio.current_time()
    for _ in range(1000):
        await limiter.acquire()
        limiter.on_success()
    assert trio.current_time() - t0 <= 20.0 * 1.05  # 1000 calls at 50 a second, less than 1 s lost


def test_a_rate_guessed_low_grows_back_and_a_failed_probe_costs_no_cut():
    now = [0.0]
    idle = LearnedRate(1.0, lambda: now[0])
    learned = LearnedRate(1.0, lambda: now[0])  # one a second, when the endpoint takes far more
    for _ in range(6000):  # a minute of sending as fast as allowed, no 429
        now[0] += 0.01
        idle.refresh()
        learned.refresh()
        if learned.bucket.wait_time(1) == 0:
            learned.take()
    assert idle.ceiling == 1.0  # a rate nobody used teaches nothing
    assert learned.ceiling > 3.0 and learned.rate() > learned.ceiling
    ceiling = learned.ceiling
    learned.cut(estimate=100.0)  # the probe above the ceiling met a 429
    assert learned.ceiling == ceiling and learned.rate() == pytest.approx(ceiling)
    learned.cut(estimate=100.0)  # a 429 at the ceiling itself: the ceiling was too high
    assert learned.ceiling == pytest.approx(ceiling) and learned.rate() == pytest.approx(0.8 * ceiling)
    learned.cut(estimate=0.5)  # the server's hint says far less
    assert learned.ceiling == 0.5


def test_429s_of_requests_sent_before_a_cut_are_one_signal():
    now = [100.0]
    limiter = RateLimiter(clock=lambda: now[0])
    for i in range(50):
        now[0] += 0.1
        limiter.on_success()
    sent = now[0]
    now[0] += 0.01
    limiter.on_rate_limited(sent, retry_after=0.5)
    first = limiter.learned.ceiling
    for _ in range(20):  # the rest of the burst that was already in flight
        limiter.on_rate_limited(sent, retry_after=0.5)
    assert limiter.learned.ceiling == first


def test_nothing_is_learned_while_nothing_gets_through():
    """An endpoint that answers every request 429 teaches no rate (a cut would only slow a dead end down)."""
    now = [0.0]
    limiter = RateLimiter(clock=lambda: now[0])
    for _ in range(10):
        now[0] += 1
        limiter.on_rate_limited(now[0] - 0.01, retry_after=1.0)
    assert limiter.learned is None


async def test_a_limit_of_zero_is_no_limit(autojump_clock):
    headers = {"x-ratelimit-limit-requests": "0", "x-ratelimit-remaining-requests": "0",
               "x-ratelimit-reset-requests": "5s", "x-ratelimit-limit-tokens": "0",
               "x-ratelimit-remaining-tokens": "0", "x-ratelimit-reset-tokens": "7s"}
    limiter = RateLimiter()
    limiter.observe_headers(headers)
    t0 = trio.current_time()
    await limiter.acquire()
    assert trio.current_time() == t0
    limiter.observe_headers({**headers, "x-ratelimit-limit-requests": "10"})  # a real limit, spent: wait
    await limiter.acquire()
    assert trio.current_time() - t0 == pytest.approx(5.0)


def test_concurrency_comes_back_within_seconds_after_a_429():
    now = [0.0]
    concurrency = AdaptiveConcurrency(64, clock=lambda: now[0])
    concurrency.back_off(now[0])
    assert concurrency.limiter.total_tokens == 32
    concurrency.back_off(now[0] - 0.05)  # sent before the cut: the same signal
    assert concurrency.limiter.total_tokens == 32
    for _ in range(100):  # 20 successes a second for 5 s
        now[0] += 0.05
        concurrency.on_success()
    assert concurrency.limiter.total_tokens == 64


async def test_429s_while_others_get_through_do_not_use_up_the_retry_budget():
    """A request that keeps meeting 429s while the endpoint answers other requests is waiting its turn."""
    served = []

    def respond(req):
        served.append(req.last_user)
        if req.last_user == "patient" and served.count("patient") <= 5:
            return Reply(status=429, headers={"retry-after-ms": "20"}, body={"error": {"message": "slow down"}})
        return "ok"

    async with FakeLLMServer(respond).running() as s:
        async with ChatClient(llm_config(s, max_retries=2, max_concurrency=4)) as client:
            async def others(done):
                while not done.is_set():
                    await client.chat(client.request(msg("other")))
                    await trio.sleep(0.01)

            async with trio.open_nursery() as nursery:
                done = trio.Event()
                nursery.start_soon(others, done)
                await trio.sleep(0.05)
                result = await client.chat(client.request(msg("patient")))
                done.set()
    assert result.text == "ok" and served.count("patient") == 6


async def test_an_endpoint_that_only_answers_429_still_ends():
    def refuse(req):
        return Reply(status=429, headers={"retry-after-ms": "10"}, body={"error": {"message": "slow down"}})

    async with FakeLLMServer(refuse).running() as s:
        async with ChatClient(llm_config(s, max_retries=3)) as client:
            with pytest.raises(LLMError, match="gave up after 4 attempts"):
                await client.chat(client.request(msg("hi")))


async def test_a_server_reporting_zero_limits_is_not_waited_on():
    """Proxies with no limit configured report limit 0 and remaining 0 on every answer."""
    zeros = {"x-ratelimit-limit-requests": "0", "x-ratelimit-remaining-requests": "0",
             "x-ratelimit-reset-requests": "60s"}
    async with FakeLLMServer(lambda r: Reply("ok", headers=zeros)).running() as s:
        async with ChatClient(llm_config(s)) as client:
            with trio.fail_after(30):  # each answer would hold the next request for a minute
                for i in range(3):
                    await client.chat(client.request(msg(f"q{i}")))
    assert s.status_counts[200] == 3


async def test_a_free_turn_is_taken_without_waiting_and_a_held_one_is_not(autojump_clock):
    free = RateLimiter()
    assert free.acquire_nowait(10) and free.acquire_nowait(10)  # no limit: every turn is free
    limited = RateLimiter(requests_per_minute=60)  # one request a second, one banked
    assert limited.acquire_nowait()
    level = limited.requests.level
    assert not limited.acquire_nowait() and limited.requests.level == level  # refused, nothing taken
    await trio.sleep(1.0)
    assert limited.acquire_nowait()
    limited.pause(5.0)
    await trio.sleep(1.0)
    assert not limited.acquire_nowait()  # a 429's pause holds the fast path too


async def test_a_free_turn_does_not_jump_the_queue(autojump_clock):
    limiter = RateLimiter(requests_per_minute=60)
    limiter.acquire_nowait()
    order = []

    async def waiter():
        await limiter.acquire()
        order.append("waiter")

    async with trio.open_nursery() as nursery:
        nursery.start_soon(waiter)
        await trio.sleep(0.5)  # the waiter holds the queue while the bucket refills
        assert not limiter.acquire_nowait()
    assert order == ["waiter"]


async def test_requests_in_flight_never_exceed_the_concurrency_with_free_slots_taken_at_once():
    async with FakeLLMServer(lambda r: "ok", latency=0.05).running() as s:
        async with ChatClient(llm_config(s, max_concurrency=3)) as c:
            await run_items(c, 12)
            assert c.concurrency.limiter.borrowed_tokens == 0  # every slot was given back
    assert s.max_in_flight == 3 and len(s.requests) == 12


async def test_a_remaining_quota_that_is_not_a_number_pauses_nothing(autojump_clock):
    limiter = RateLimiter()
    limiter.observe_headers({"x-ratelimit-remaining-requests": "nan", "x-ratelimit-limit-requests": "10",
                             "x-ratelimit-reset-requests": "5s"})
    t0 = trio.current_time()
    await limiter.acquire()
    assert trio.current_time() == t0


def counting(obj, name: str, calls: list) -> None:
    """Count the calls of ``obj``'s method ``name`` in ``calls``."""
    method = getattr(obj, name)

    def counted(*args):
        calls.append(name)
        return method(*args)
    setattr(obj, name, counted)


async def turn_while_a_slot_is_waited_for(client, meanwhile) -> None:
    """A request's turn taken while the client's one slot is held (`ChatClient._take_turn`), ``meanwhile``
    called while it waits for the slot, then the slot given to it."""
    await client._take_turn(0)  # the only slot, held
    async with trio.open_nursery() as nursery:
        nursery.start_soon(client._take_turn, 0)
        await trio.sleep(1.0)  # it took its turn of the rate limits and waits for the slot
        meanwhile()
        client.concurrency.limiter.release()


def one_slot(**llm) -> ChatClient:
    return ChatClient(LLMConfig(base_url="http://127.0.0.1:9/v1", model="m", max_concurrency=1, **llm))


def learn(limiter: RateLimiter, requests_a_second: int = 10) -> None:
    """A 429 while answers come, of an endpoint whose headers state ``requests_a_second``."""
    limiter.on_success()
    limiter.observe_headers({"x-ratelimit-limit-requests": str(6000), "x-ratelimit-reset-requests": "60s",
                             "x-ratelimit-remaining-requests": str(6000 - 60 * requests_a_second)})
    limiter.on_rate_limited(trio.current_time())


async def test_a_turn_taken_again_at_a_rate_learned_meanwhile_charges_the_configured_limits_once(autojump_clock):
    client = one_slot(requests_per_minute=600)
    limiter, configured, paced = client.limiter, [], []
    counting(limiter.requests, "take", configured)

    def rate_learned():
        learn(limiter)
        counting(limiter.learned, "take", paced)
    await turn_while_a_slot_is_waited_for(client, rate_learned)
    assert len(paced) == 1 and len(configured) == 2  # taken again at the learned rate; a request, one charge


async def test_a_learned_rate_cut_while_a_request_waits_for_a_slot_paces_it_again(autojump_clock):
    client = one_slot()
    learn(client.limiter)
    learned, paced = client.limiter.learned, []
    counting(learned, "take", paced)
    await turn_while_a_slot_is_waited_for(client, lambda: learn(client.limiter))
    assert len(paced) == 3 and learned.cuts == 1  # the second request's: at the old rate, and at the cut one


async def test_on_ray_a_rate_the_worker_learns_while_a_request_waits_for_a_slot_paces_it(autojump_clock):
    leased = LeasedRateLimiter(None, None, BatchSize.of(0, 0, workers=1))  # no configured limit: nothing leased
    client, paced = one_slot(), []
    client.limiter = leased

    def rate_learned():
        learn(leased.local)
        counting(leased.local.learned, "take", paced)
    await turn_while_a_slot_is_waited_for(client, rate_learned)
    assert len(paced) == 1
