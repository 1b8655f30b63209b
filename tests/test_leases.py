"""The global rate limit of engine ray without a cluster: the lease bucket and the workers' leased limiters,
on one virtual clock (trio's MockClock), the actor's methods called in process."""

from __future__ import annotations

import time

import pytest
import trio
import trio.testing
from hypothesis import example, given, settings
from hypothesis import strategies as st

from graphglean.engines.ray.leases import (
    EXPIRY_S,
    LEASE_S,
    REPORT_S,
    STALE_S,
    BatchSize,
    Holding,
    LeaseBucket,
    LeasedRateLimiter,
    Pace,
    spare,
)

RPM = 600  # 10 a second, one second banked
RATE = RPM / 60


def _in_virtual_time(main):
    """Run ``main(clock)`` on a virtual clock that jumps whenever every task waits."""
    clock = trio.testing.MockClock(autojump_threshold=0)
    return trio.run(main, clock, clock=clock)


def _relay(bucket: LeaseBucket, log: list | None = None):
    def relay(method, *args):
        if log is not None:
            log.append(method)
        return getattr(bucket, method)(*args)
    return relay


async def _direct(fn, *args):
    """The actor's answer at once, with no thread: virtual time stands still during a round trip."""
    await trio.lowlevel.checkpoint()
    return fn(*args)


def _travel(round_trip_s: float):
    """The actor's answer after ``round_trip_s`` of virtual time, its state read halfway."""
    async def wait_on(fn, *args):
        await trio.sleep(round_trip_s / 2)
        answer = fn(*args)
        await trio.sleep(round_trip_s / 2)
        return answer
    return wait_on


def _limiter(bucket: LeaseBucket, batch: BatchSize, clock, round_trip_s: float = 0.0, **kw) -> LeasedRateLimiter:
    relay = _relay(bucket)
    return LeasedRateLimiter(relay, relay, batch, clock=clock.current_time,
                             wait_on=_travel(round_trip_s) if round_trip_s else _direct, **kw)


def _most_in_a_second(times: list[float]) -> int:
    """The most calls in any window (t - 1, t] (a hair less, for float dust at the edges)."""
    times = sorted(times)
    best, j = 0, 0
    for i, t in enumerate(times):
        while times[j] <= t - 1.0 + 1e-6:
            j += 1
        best = max(best, i - j + 1)
    return best


def test_a_short_bucket_grants_a_reservation_usable_once_earned():
    now = [0.0]
    bucket = LeaseBucket(RPM, 0, clock=lambda: now[0])
    first = bucket.lease("a", 0, 0, 8, 0)
    assert (first.requests, first.wait_s) == (8, 0.0)
    bucket.lease("a", 0, 0, 0, 0)  # "a" spent its 8
    second = bucket.lease("b", 0, 0, 5, 0)  # 2 banked: 3 more are earned in 0.3 s
    assert second.requests == 5 and second.wait_s == pytest.approx(0.3)
    assert bucket.stats()["leases"] == 2


def test_what_holders_hold_counts_against_the_bank():
    now = [0.0]
    bucket = LeaseBucket(RPM, 0, clock=lambda: now[0])
    bucket.lease("a", 0, 0, 6, 0)
    now[0] += 100.0  # a long idle time banks no more than a second less what "a" still holds
    assert bucket.lease("b", 0, 0, 4, 0).wait_s == 0.0
    assert bucket.lease("b", 4, 0, 1, 0).wait_s == pytest.approx(0.1)
    now[0] += 1.0
    bucket.lease("a", 0, 0, 0, 0)  # "a" spent its 6: a report, not a lease
    assert bucket.stats()["holder_reports"] == 1 and bucket.stats()["leases"] == 3
    now[0] += 1.0
    assert bucket.lease("c", 0, 0, 5, 0).wait_s == pytest.approx(0.0)  # 10 - 5 held by "b"
    assert bucket.lease("c", 5, 0, 1, 0).wait_s > 0


def test_a_silent_holder_is_forgotten_and_drops_its_stock_first():
    now = [0.0]
    bucket = LeaseBucket(RPM, 0, clock=lambda: now[0])
    bucket.lease("dead", 0, 0, 10, 0)
    now[0] += STALE_S - 1.0
    bucket.lease("b", 0, 0, 0, 0)
    assert bucket.requests.level() == 0  # while "dead" may still spend its 10, nothing is banked
    now[0] += 1.5
    bucket.lease("b", 0, 0, 0, 0)  # past STALE_S: "dead" is forgotten, the bank refills
    now[0] += 1.0
    assert bucket.requests.level() == pytest.approx(10)
    holding = Holding(requests=4, reported_at=0.0)
    holding.drop_if_stale(STALE_S - 0.1)
    assert holding.requests == 4
    holding.drop_if_stale(STALE_S + 0.1)  # the worker side drops first: it counts from when it asked
    assert holding.requests == 0


def test_a_pause_stops_every_lease_until_it_ends():
    now = [0.0]
    bucket = LeaseBucket(RPM, 0, clock=lambda: now[0])
    bucket.pause(2.0)
    lease = bucket.lease("a", 0, 0, 3, 0)
    assert lease.requests == 0 and lease.pause_s == pytest.approx(2.0)
    now[0] += 2.01
    assert bucket.lease("a", 0, 0, 3, 0).requests == 3


def test_leases_follow_calls_not_time():
    """Calls slower than the rate: one lease per batch of calls, however long the stock is held (it used to
    lapse after a second, and a slow worker leased again and again)."""
    bucket = LeaseBucket(RPM * 10, 0)
    batch = BatchSize.of(RPM * 10, 0, workers=1)
    assert batch.requests == 25

    async def main(clock):
        async with _limiter(bucket, batch, clock) as limiter:
            for _ in range(60):
                await limiter.acquire()
                await trio.sleep(0.4)  # 24 s of calls at 2.5 a second
        return limiter

    limiter = _in_virtual_time(main)
    assert limiter.leases <= 60 / batch.requests + 1
    assert bucket.stats()["leases"] == limiter.leases


def _tasks_in_one_process(rpm: int, holding: Holding, log: list, coming: bool = True) -> int:
    """Six tasks of 7 calls, one after the other, each a moment longer than its calls; their leases.
    ``coming``: what the driver says of tasks still to come."""
    batch = BatchSize.of(rpm, 0, workers=1)

    async def main(clock):
        bucket = LeaseBucket(rpm, 0, clock=clock.current_time)
        bucket.tasks_coming(coming)
        leases = 0
        for _ in range(6):
            async with _limiter(bucket, batch, clock, holding=holding) as limiter:
                assert holding.busy
                for _ in range(7):
                    await limiter.acquire()
                await trio.sleep(0.05)  # the last answers come in while the next lease may be on its way
            leases += limiter.leases
            assert not holding.busy
            log.append(dict(bucket.requests.held))
        return leases

    return _in_virtual_time(main)


def test_a_process_holding_carries_over_to_the_next_task():
    """A rate that does not bind: what a task did not spend, the next one in the process does, with no lease."""
    log: list = []
    leases = _tasks_in_one_process(RPM * 10, Holding(), log)
    assert leases <= 42 / BatchSize.of(RPM * 10, 0, workers=1).requests + 1
    assert all(held for held in log)  # the bucket goes on counting what the process holds


def test_when_the_rate_binds_and_no_task_is_coming_a_task_gives_back_what_it_did_not_spend():
    """Others wait for permits: none idles in a process with no task to come (a reservation included)."""
    log: list = []
    holding = Holding()
    _tasks_in_one_process(RPM, holding, log, coming=False)
    assert log[-4:] == [{}] * 4 and holding.report() == (0, 0)  # once the banked second is spent


def test_unspent_permits_go_back_when_a_worker_is_done():
    now = [0.0]
    bucket = LeaseBucket(RPM, 0, clock=lambda: now[0])
    relay = _relay(bucket)
    batch = BatchSize.of(RPM, 0, workers=1)

    async def main():
        async with LeasedRateLimiter(relay, relay, batch, clock=lambda: now[0]) as limiter:
            await limiter.acquire()

    trio.run(main)
    assert batch.requests + spare(batch.requests) == 4  # the first lease: a batch and the spare
    assert bucket.stats()["leased_requests"] == 1
    assert bucket.requests.level() == pytest.approx(9) and not bucket.requests.held


STEP = st.tuples(st.sampled_from([0.0, 0.05, 0.4, 1.5, 6.0, 13.0]), st.integers(0, 14), st.booleans())
HOARDERS = [[(0.0, 1, False), (1.5, 14, False)]] * 5  # stock up, let the bank fill, then all spend at once


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 4), st.lists(st.lists(STEP, min_size=1, max_size=6), min_size=1, max_size=5),
       st.lists(st.booleans(), min_size=5, max_size=5), st.sampled_from([0.0, 0.004, 0.03]))
@example(1, HOARDERS, [False] * 5, 0.0)
@example(1, [[(0.0, 1, True), (1.5, 14, True)]] * 5, [True] * 5, 0.0)  # the same across tasks of a process
@example(1, HOARDERS, [True] * 5, 0.03)  # batches grown to the most by a slow round trip
@example(1, [[(0.05, 12, False)], [(0.0, 0, False), (0.0, 12, True)], [(0.0, 13, False), (1.5, 5, False)]],
         [False] * 5, 0.004)  # a stock held while reservations wait: more held than the bank's second (21/s)
@example(1, [[(0.0, 2, False)], [(0.0, 10, False)], [(0.0, 11, False)], [(0.0, 0, False)], [(0.0, 12, False)]],
         [False] * 5, 0.004)  # a reservation given back and granted again to another (21/s)
def test_no_second_ever_sees_more_than_the_rate_and_one_second_burst(workers, plans, keeps, round_trip_s):
    """Workers idle, hoard, burst, end early and leave holdings behind (like killed ones), in any pattern, and
    whatever batch their round trip grows: what they send in any one second is at most the rate plus one
    second's worth."""
    batch = BatchSize.of(RPM, 0, workers)
    sent: list[float] = []
    holdings = [Holding() for _ in plans]
    bucket = None

    async def spend(limiter, calls):
        async def call():
            await limiter.acquire()
            sent.append(trio.current_time())

        async with trio.open_nursery() as nursery:  # all at once: the callers waiting may grow a batch
            for _ in range(calls):
                nursery.start_soon(call)

    async def worker(clock, i, plan):
        limiter = None
        for pause, calls, new_task in plan:  # a new task, or idle within the one before
            if limiter is None or new_task:
                if limiter is not None:
                    await limiter.__aexit__(None, None, None)
                limiter = await _limiter(bucket, batch, clock, round_trip_s,
                                         holding=holdings[i] if keeps[i] else None).__aenter__()
            await trio.sleep(pause)
            await spend(limiter, calls)
        await limiter.__aexit__(None, None, None)

    async def main(clock):
        nonlocal bucket
        bucket = LeaseBucket(RPM, 0, clock=clock.current_time)
        with trio.fail_after(3600):
            async with trio.open_nursery() as nursery:
                for i, plan in enumerate(plans):
                    nursery.start_soon(worker, clock, i, plan)

    _in_virtual_time(main)
    assert len(sent) == sum(c for plan in plans for _, c, _ in plan)
    assert _most_in_a_second(sent) <= RATE + bucket.requests.bucket.capacity


async def test_a_pause_reported_by_one_worker_holds_the_others():
    bucket = LeaseBucket(6000, 0)
    batch = BatchSize.of(6000, 0, workers=2)
    relay = _relay(bucket)
    async with LeasedRateLimiter(relay, relay, batch) as a, LeasedRateLimiter(relay, relay, batch) as b:
        await a.acquire()
        await b.acquire()
        a.pause(0.5)  # a 429 seen by worker a
        t0 = time.monotonic()
        for _ in range(batch.requests + spare(batch.requests) + 1):  # b spends its stock, then waits out the pause
            await b.acquire()
        assert time.monotonic() - t0 >= 0.4


def test_without_a_limit_a_run_never_paused_asks_the_bucket_every_report_s():
    """No configured limit and no 429: a task making calls for a minute asks the bucket about pauses every
    REPORT_S, not every LEASE_S (which was 11.4 CPU s of a 1M-chunk run)."""
    log: list = []

    async def main(clock):
        bucket = LeaseBucket(0, 0, clock=clock.current_time)
        relay = _relay(bucket, log)
        for _ in range(2):
            async with LeasedRateLimiter(relay, relay, BatchSize.of(0, 0, workers=2), clock=clock.current_time,
                                         wait_on=_direct, holding=Holding()) as limiter:
                for _ in range(60):
                    await limiter.acquire()
                    await trio.sleep(1.0)

    _in_virtual_time(main)
    assert set(log) == {"pause_state"} and 2 * 60 / REPORT_S <= len(log) <= 2 * (60 / REPORT_S + 1)


def test_without_a_limit_a_pause_reaches_every_worker():
    """Within REPORT_S; within LEASE_S for a task started after a pause anywhere, or whose own call met a 429."""

    async def main(clock):
        def limiter(bucket=LeaseBucket(0, 0, clock=clock.current_time)):
            relay = _relay(bucket)
            return LeasedRateLimiter(relay, relay, BatchSize.of(0, 0, workers=3), clock=clock.current_time,
                                     wait_on=_direct)

        async def waits(worker) -> float:
            t0 = trio.current_time()
            await worker.acquire()
            return trio.current_time() - t0

        async with limiter() as a, limiter() as early:
            await trio.sleep(0.01)
            a.pause(0.6)  # a 429 seen by worker a
            await trio.sleep(0.3)
            assert await waits(early) == 0  # its next ask is REPORT_S after its first
            async with limiter() as late:
                await trio.sleep(0.01)
                assert await waits(late) == pytest.approx(0.29)  # the pause in force as it started
                await trio.sleep(1.0)
                a.pause(0.6)  # a second 429 at worker a
                await trio.sleep(LEASE_S)
                assert await waits(late) > 0.3
            assert trio.current_time() < REPORT_S - 0.2
            a.pause(3.0)
            await trio.sleep(REPORT_S)
            assert await waits(early) > 0.3
        fresh = LeaseBucket(0, 0, clock=clock.current_time)  # no pause there yet
        async with limiter(fresh) as a, limiter(fresh) as hurt:
            await trio.sleep(0.01)
            hurt.pause(0.01)  # its own 429: from now on it asks every LEASE_S
            await trio.sleep(0.1)
            a.pause(0.6)
            await trio.sleep(LEASE_S)
            assert await waits(hurt) > 0.3

    _in_virtual_time(main)


def test_a_429_under_leases_is_learned_by_the_worker():
    """The client tells the limiter when a rejected request was sent and what Retry-After said."""
    bucket = LeaseBucket(RPM, 0)
    relay = _relay(bucket)
    limiter = LeasedRateLimiter(relay, relay, BatchSize.of(RPM, 0, workers=1))

    async def main():
        for _ in range(5):
            limiter.on_success()
        limiter.on_rate_limited(trio.current_time(), 0.5)
        return limiter.answered_since(trio.current_time() - 1.0)

    assert trio.run(main) is True
    assert limiter.local.learned is not None


def test_an_idle_stock_is_reported_so_it_outlives_the_stale_limit():
    bucket = None
    batch = BatchSize.of(RPM * 10, 0, workers=1)

    async def main(clock):
        nonlocal bucket
        bucket = LeaseBucket(RPM * 10, 0, clock=clock.current_time)
        async with _limiter(bucket, batch, clock) as limiter:
            await limiter.acquire()
            await trio.sleep(3 * STALE_S)  # a worker busy elsewhere (a long local step) holds its stock
            assert bucket.requests.held  # still counted: the reports say it lives
            await limiter.acquire()
        return limiter

    limiter = _in_virtual_time(main)
    assert limiter.leases == 1 and limiter.stats()["stock_reports"] >= 3


def test_token_leases_pace_requests_by_their_tokens_and_collect_a_debt():
    tpm = 6000  # 100 tokens a second, one second banked
    batch = BatchSize.of(0, tpm, workers=1)
    assert (batch.requests, batch.tokens) == (0, 25)

    async def main(clock):
        bucket = LeaseBucket(0, tpm, clock=clock.current_time)
        async with _limiter(bucket, batch, clock) as limiter:
            for _ in range(20):
                await limiter.acquire(30)  # more than a batch: goes once a whole batch is in hand
                limiter.settle(30, 40)  # each cost 10 more than estimated: a debt the next lease pays
        return trio.current_time(), bucket.stats()["leased_tokens"]

    elapsed, leased = _in_virtual_time(main)
    assert elapsed >= (20 * 40 - 100 - 2 * 40) / 100  # the rate, less the bank and the last two unpaid
    assert leased >= 19 * 40


def test_a_task_that_makes_no_call_takes_no_lease():
    """An empty stock is not a want: a task busy for long without a call (a merge with nothing to summarize)
    leases nothing, however long it runs."""
    bucket = None

    async def main(clock):
        nonlocal bucket
        bucket = LeaseBucket(RPM, 0, clock=clock.current_time)
        async with _limiter(bucket, BatchSize.of(RPM, 0, workers=1), clock):
            await trio.sleep(4 * STALE_S)

    _in_virtual_time(main)
    assert bucket.stats()["leases"] == 0 and not any(bucket.requests.held.values())


def _driver_run(rpm: int, workers: int, task_calls: list[int], tell: bool = True, round_trip_s: float = 0.0,
                limiters: list | None = None, in_flight: int = 1, call_s: float = 0.0,
                stages: list[list[int]] | None = None) -> tuple[LeaseBucket, list[float]]:
    """Tasks of ``task_calls`` calls each (``in_flight`` at a time, each ``call_s`` long), at most ``workers``
    tasks at a time, each in an idle process (its holding kept from task to task), as the Ray driver runs
    them; it says when no more tasks are coming (``tell``). ``stages``: such lists of tasks one after the
    other, each stage's tasks coming once the last one before ended. Returns the bucket and when each call
    was sent; ``limiters`` gathers the tasks' limiters."""
    batch = BatchSize.of(rpm, 0, workers)
    idle = [Holding() for _ in range(workers)]
    sent: list[float] = []
    bucket = None

    async def caller(limiter, left):
        while left[0] > 0:
            left[0] -= 1
            await limiter.acquire()
            sent.append(trio.current_time())
            await trio.sleep(call_s)

    async def task(clock, calls, holding, done):
        async with _limiter(bucket, batch, clock, round_trip_s, holding=holding) as limiter:
            if limiters is not None:
                limiters.append(limiter)
            left = [calls]
            async with trio.open_nursery() as nursery:
                for _ in range(in_flight):
                    nursery.start_soon(caller, limiter, left)
        idle.append(holding)
        done.release()

    async def main(clock):
        nonlocal bucket
        bucket = LeaseBucket(rpm, 0, clock=clock.current_time)
        slots = trio.Semaphore(workers)
        with trio.fail_after(3600):  # virtual seconds: a run that stops making progress fails
            for stage in stages or [task_calls]:
                bucket.tasks_coming(True)
                async with trio.open_nursery() as nursery:
                    for i, calls in enumerate(stage):
                        await slots.acquire()
                        nursery.start_soon(task, clock, calls, idle.pop(0), slots)
                        if tell and i == len(stage) - 1:
                            bucket.tasks_coming(False)

    _in_virtual_time(main)
    return bucket, sent


@pytest.mark.parametrize("rpm", [1080, 6000, 60_000])
def test_leases_stay_within_calls_per_batch_plus_workers_with_more_tasks_than_workers(rpm):
    """The rate binds (or not) and 9 tasks run on 4 processes: a process keeps its stock from task to task
    while more tasks are coming (it used to give it back whenever the rate bound, and the next task leased
    again), and the last tasks give back what they did not spend."""
    calls = [20 + 7 * (i % 3) for i in range(9)]
    bucket, sent = _driver_run(rpm, 4, calls)
    batch = BatchSize.of(rpm, 0, 4).requests
    assert len(sent) == sum(calls)
    assert bucket.stats()["leases"] <= sum(calls) / batch + 4
    assert _most_in_a_second(sent) <= rpm / 60 + bucket.requests.bucket.capacity
    if rpm < 60_000:  # it binds: nothing idles at the end of the run
        assert not any(bucket.requests.held.values())


def _sustained(sent: list[float]) -> float:
    """Calls a second after the first second (the banked burst)."""
    steady = [t for t in sorted(sent) if t >= min(sent) + 1.0]
    return (len(steady) - 1) / (steady[-1] - steady[0])


def test_a_round_trip_costs_each_permit_under_a_millisecond_when_the_rate_binds():
    """10 ms round trips against 100 permits a second from 4 workers, whose least batch is 7 (1.4 ms a permit):
    each worker grows its batch from the round trips it measures, within its share of one second of the
    rate, so the rate and its burst still hold."""
    calls = [100 + 7 * (i % 3) for i in range(9)]
    limiters: list = []
    bucket, sent = _driver_run(6000, 4, calls, round_trip_s=0.01, limiters=limiters, in_flight=64)
    permits = sum(limiter.permits for limiter in limiters)
    least = BatchSize.of(6000, 0, 4).requests
    assert sum(limiter.round_trip_s for limiter in limiters) / permits < 0.001
    assert permits / sum(limiter.leases for limiter in limiters) > 2 * least
    assert bucket.stats()["leases"] <= sum(calls) / least + 4
    assert _most_in_a_second(sent) <= 100 + 100
    assert _sustained(sent) >= 0.95 * 100


def test_when_the_rate_binds_and_no_task_is_coming_a_lease_is_no_larger_than_the_callers_waiting():
    """The last tasks (here the only ones), two calls in flight each, slow round trips (which grow batches):
    a last lease a task did not spend was lost when the task ended, after the others had reserved behind it
    (76 permits wasted, 93% of the rate sustained)."""
    limiters: list = []
    bucket, sent = _driver_run(6000, 4, [250] * 4, round_trip_s=0.02, limiters=limiters, in_flight=2,
                               call_s=0.01)
    wasted = sum(limiter.permits for limiter in limiters) - 4 * 250
    least = BatchSize.of(6000, 0, 4).requests
    assert wasted <= 4 * (least + spare(least))  # at most each worker's least lease and its spare
    assert _sustained(sent) >= 0.98 * 100
    assert not any(bucket.requests.held.values())


def test_a_batch_grows_with_the_round_trip_within_the_worker_s_share_of_one_second():
    least = BatchSize.of(6000, 240_000, workers=4)  # 100 requests and 4000 tokens a second
    assert (least.requests, least.tokens) == (7, 250)
    assert least.most_requests + spare(least.most_requests) <= 100 / 4
    assert least.most_tokens + spare(least.most_tokens) <= 4000 / 4
    assert least.grown(0.0, 100) == least
    grown = least.grown(0.006, 50)  # 12 requests pay a 6 ms round trip 0.5 ms each; their tokens with them
    assert (grown.requests, grown.tokens) == (12, 600)
    assert least.grown(0.006, 50, callers=9).requests == 9
    assert least.grown(0.006, 50, callers=1).requests == 7  # never below the least
    most = least.grown(1.0, 500)
    assert (most.requests, most.tokens) == (least.most_requests, least.most_tokens)
    tokens_only = BatchSize.of(0, 240_000, workers=4).grown(0.006, 50)
    assert (tokens_only.requests, tokens_only.tokens) == (0, 600)


def test_a_round_trip_ends_when_the_reply_reaches_the_process_not_when_a_busy_loop_takes_it_up():
    from graphglean.engines.ray.leases.ray_wait import Arrived

    async def main(clock):
        bucket = LeaseBucket(RPM, 0, clock=clock.current_time)

        async def wait_on(fn, *args):  # the reply is in after 4 ms; the loop takes it up 20 ms later
            sent = trio.current_time()
            await trio.sleep(0.024)
            return Arrived(fn(*args), sent + 0.004)

        relay = _relay(bucket)
        limiter = LeasedRateLimiter(relay, relay, BatchSize.of(RPM, 0, 1), clock=clock.current_time, wait_on=wait_on)
        async with limiter:
            await limiter.acquire()
        return limiter

    limiter = _in_virtual_time(main)
    assert limiter.round_trip_s == pytest.approx(0.004 * limiter.leases)
    assert limiter.stats()["lease_reply_wait_s"] == pytest.approx(0.02 * limiter.leases)
    assert limiter.holding.round_trip_s == pytest.approx(0.004)


def test_a_task_leaving_keeps_its_stock_only_while_tasks_are_coming_and_nothing_pauses():
    now = [0.0]
    bucket = LeaseBucket(RPM, 0, clock=lambda: now[0])
    bucket.lease("a", 0, 0, 6, 0)
    assert bucket.leave("a", 4, 0, 4, 0) is True and bucket.requests.held == {"a": 4}  # kept, and counted
    bucket.pause(1.0)
    assert bucket.leave("a", 4, 0, 4, 0) is False and "a" not in bucket.requests.held  # a 429: given back
    now[0] += 2.0
    assert bucket.lease("b", 0, 0, 5, 0).wait_s == 0
    reservation = bucket.lease("b", 0, 0, 8, 0)  # b spent its 5; 5 banked, 3 more to earn
    assert reservation.wait_s == pytest.approx(0.3) and reservation.binds
    bucket.tasks_coming(False)
    level = bucket.requests.level()
    assert bucket.leave("b", 8, 0, 0, 0) is False and "b" not in bucket.requests.held
    assert bucket.requests.level() == pytest.approx(level)  # a reservation given up is lost, not given back
    now[0] += 5.0
    assert not bucket.lease("c", 0, 0, 0, 0).binds  # a second after the last reservation was earned


def test_no_lease_is_granted_beyond_what_the_bank_could_earn_beside_what_is_held():
    """Reservations are timed by the refill they wait for; were more held than one second's worth, the bank
    would stop refilling short of them, and they would be spent before they were earned (a burst)."""
    now = [0.0]
    bucket = LeaseBucket(RPM, 0, clock=lambda: now[0])  # 10 a second, one second banked
    assert bucket.lease("a", 0, 0, 6, 0).requests == 6
    assert bucket.lease("b", 0, 0, 4, 0).requests == 4
    refused = bucket.lease("c", 0, 0, 2, 0)
    assert (refused.requests, refused.wait_s) == (0, pytest.approx(0.2)) and bucket.stats()["leases"] == 2
    now[0] += 0.2
    assert bucket.lease("a", 1, 0, 0, 0).requests == 0  # a spent 5: now there is room
    assert bucket.lease("c", 0, 0, 2, 0).requests == 2


async def _binding_task(bucket: LeaseBucket, clock, holding: Holding, idle_s: float = 0.0) -> None:
    """A task in the process of ``holding`` spending past the banked second (the rate binds), then busy
    elsewhere for ``idle_s``."""
    async with _limiter(bucket, BatchSize.of(RPM, 0, workers=1), clock, holding=holding) as limiter:
        for _ in range(14):
            await limiter.acquire()
        await trio.sleep(idle_s)


def test_a_stock_kept_at_a_task_end_counts_from_the_leave_not_from_the_last_lease():
    """The bucket heard of the stock when the task left: the next task in the process, 8 s later, still
    holds it (it was dropped as stale, counted from the last lease, while the bucket still counted it)."""
    holding = Holding()
    batch = BatchSize.of(RPM, 0, workers=1)

    async def main(clock):
        bucket = LeaseBucket(RPM, 0, clock=clock.current_time)
        await _binding_task(bucket, clock, holding, idle_s=2.4)  # just short of an idle report
        assert holding.binding
        kept = holding.report()
        await trio.sleep(8.0)
        async with _limiter(bucket, batch, clock, holding=holding):
            assert holding.report() == kept
            assert bucket.requests.held[holding.holder] == sum(kept)

    _in_virtual_time(main)


def test_a_request_needing_more_tokens_than_the_stock_above_the_spare_gets_a_lease():
    """250-token batches with a spare of 63: 113 tokens left after a 200-token request are above the spare,
    yet short of the next 200; the caller waited for a lease nobody asked for (a hang under a token limit)."""
    tpm = 240_000
    batch = BatchSize.of(0, tpm, workers=4)
    assert (batch.tokens, spare(batch.tokens)) == (250, 63)

    async def main(clock):
        bucket = LeaseBucket(0, tpm, clock=clock.current_time)
        async with _limiter(bucket, batch, clock) as limiter:
            with trio.fail_after(60):
                for _ in range(5):
                    await limiter.acquire(200)
        return bucket.stats()["leased_tokens"]

    assert _in_virtual_time(main) >= 5 * 200


def test_while_the_rate_binds_a_lease_is_asked_for_with_nothing_left_so_the_bucket_hears_of_every_spend():
    """4 workers, 64 calls in flight each, 360 calls at 18 a second: what a worker spent after asking (its
    spare) the bucket learned of only a lease later, counted it held meanwhile and banked less (94%)."""
    sent = _driver_run(1080, 4, [45] * 8, round_trip_s=0.005, in_flight=64)[1]
    assert _sustained(sent) >= 0.98 * 18


def test_a_batch_grown_after_a_lease_does_not_make_the_stock_of_that_lease_low():
    """A slow first round trip grows the batch from 20 to 64: the stock of the first lease (25) counted as
    low against the spare of the new batch (16) after 9 calls, and a lease followed 9 calls (the lease
    bound is a lease per least batch of calls)."""
    batch = BatchSize.of(19_200, 0, workers=4)
    assert (batch.requests, batch.grown(0.1, 0).requests) == (20, 64)

    async def main(clock):
        bucket = LeaseBucket(19_200, 0, clock=clock.current_time)
        async with _limiter(bucket, batch, clock, 0.1) as limiter:
            for _ in range(12):
                await limiter.acquire()
                await trio.sleep(0.3)
        return bucket.stats()["leases"]

    assert _in_virtual_time(main) == 1


def test_while_the_rate_binds_callers_get_their_permits_in_one_lease_not_cut_to_the_bank_s_second():
    """1080 a minute from 4 workers with 64 callers each and 5 ms round trips: a stock is cut to a worker's
    share of the bank's one second (3 permits, 1.7 ms of round trip each); a schedule is not (it cannot be
    hoarded), so a lease serves every caller waiting."""
    calls = [45] * 8
    limiters: list = []
    bucket, sent = _driver_run(1080, 4, calls, round_trip_s=0.005, limiters=limiters, in_flight=64)
    permits = sum(limiter.permits for limiter in limiters)
    assert sum(limiter.round_trip_s for limiter in limiters) / permits < 0.001
    assert sum(limiter.paced for limiter in limiters) > permits / 2
    assert permits == sum(calls)  # none wasted: no lease asked ahead of callers while the rate binds
    assert bucket.stats()["leases"] <= sum(calls) / BatchSize.of(1080, 0, 4).requests + 4
    assert _most_in_a_second(sent) <= 18 + 18
    assert _sustained(sent) >= 0.98 * 18


def test_a_schedule_needs_no_room_in_the_bank_and_shrinks_it_while_it_may_be_spent():
    now = [0.0]
    bucket = LeaseBucket(RPM, 0, clock=lambda: now[0])  # 10 a second; a live schedule: 10 * 0.2 + 1 less room
    assert bucket.requests.pace_slack == pytest.approx(3.0)
    assert bucket.lease("a", 0, 0, 6, 0).requests == 6
    lease = bucket.lease("b", 0, 0, 12, 0, True)  # 12 callers: more than the bank's second holds
    assert (lease.requests, lease.paced, lease.start, lease.rate) == (12, 11, pytest.approx(0.0), 10.0)
    assert bucket.requests.held == {"a": 6, "b": 1}  # the bank's 4, less the room the schedule takes: in stock
    assert bucket.lease("c", 0, 0, 2, 0).requests == 0  # 6 + 1 + 2 held would not fit beside the schedule
    now[0] = 11 / 10 + 0.2 + 0.01  # the last scheduled permit is earned, and void
    assert bucket.lease("c", 0, 0, 2, 0).requests == 2
    crowded = LeaseBucket(RPM, 0, clock=lambda: now[0])
    crowded.lease("a", 0, 0, 9, 0)  # more held than a schedule leaves room for: no schedule
    lease = crowded.lease("b", 0, 0, 5, 0, True)
    assert (lease.requests, lease.paced) == (1, 0)  # what fits in stock (5 were refused for 0.5 s)


def test_scheduled_permits_saved_up_go_void_and_cannot_be_spent_at_once_later():
    pace = Pace(count=3, start=0.5, rate=10.0, asked_at=0.0, arrived_at=0.01)
    assert pace.usable(0.05) == 0 and pace.next_at() == pytest.approx(0.06)  # earned after the reply came
    assert pace.usable(0.06) == 1
    assert pace.usable(0.3) == 2 and pace.void == 1  # the first was earned 0.05 after the ask, 0.25 ago
    assert pace.usable(0.5) == 0 and pace.void == 3 and pace.next_at() is None


def test_what_a_process_kept_goes_back_when_the_last_tasks_are_submitted_while_the_rate_binds():
    """A process between tasks keeps its stock for its next task; when the driver submits the last tasks and
    none of them runs there, the stock went on shrinking the bank to the end of the run. It goes back, and
    the process drops it at its next task's first call (not spending what the bucket gave to others)."""
    holding = Holding()
    batch = BatchSize.of(RPM, 0, workers=1)

    async def main(clock):
        bucket = LeaseBucket(RPM, 0, clock=clock.current_time)
        await _binding_task(bucket, clock, holding)
        assert holding.binding and holding.report()[0] > 0 and bucket.requests.held
        bucket.tasks_coming(False)
        assert not any(bucket.requests.held.values())
        level = bucket.requests.level()
        async with _limiter(bucket, batch, clock, holding=holding) as limiter:  # a later stage's task
            assert holding.report() == (0, 0)
            await limiter.acquire()
        assert limiter.leases == 1
        assert bucket.requests.level() <= level + RATE * trio.current_time()

    _in_virtual_time(main)


@pytest.mark.parametrize("rpm", [1080, 6000, 60_000])
def test_a_later_stage_leases_again_only_when_the_rate_bound_at_the_stage_tail(rpm):
    """Two stages of 8 tasks of 10 calls: at the first stage's tail a process gives its stock back only while
    the rate binds (others wait for it); otherwise it keeps it for the next stage's task, which leases
    nothing (it gave it back at every tail, and the leases went past calls / batch + workers)."""
    stages = [[10] * 8, [10] * 8]
    bucket, sent = _driver_run(rpm, 4, [], stages=stages)
    assert len(sent) == 160
    assert bucket.stats()["leases"] <= 160 / BatchSize.of(rpm, 0, 4).requests + 4
    assert _most_in_a_second(sent) <= rpm / 60 + bucket.requests.bucket.capacity


def test_round_trips_longer_than_half_a_scheduled_permit_s_time_get_stocks_not_schedules():
    """A schedule's first permits would go void on a 0.3 s way back; leases come in stock then."""
    limiters: list = []
    bucket, sent = _driver_run(1080, 2, [60] * 2, round_trip_s=0.3, limiters=limiters, in_flight=64)
    assert len(sent) == 120
    assert sum(limiter.stats()["void_permits"] for limiter in limiters) == 0
    assert _most_in_a_second(sent) <= 18 + 18


def test_a_pause_elsewhere_ends_a_live_schedule_within_a_lease_s_time():
    """A schedule serves a worker's callers for up to PACE_S with no lease, so no lease brings it news of a 429
    at another worker: it asks every LEASE_S while the schedule lasts, and stops sending once paused."""

    async def main(clock):
        bucket = LeaseBucket(RPM, 0, clock=clock.current_time)
        batch = BatchSize.of(RPM, 0, workers=2)
        sent: list[float] = []
        async with _limiter(bucket, batch, clock) as a, _limiter(bucket, batch, clock) as b:

            async def caller() -> None:
                while True:
                    await a.acquire()
                    sent.append(trio.current_time())

            async with trio.open_nursery() as nursery:
                for _ in range(40):
                    nursery.start_soon(caller)
                await trio.sleep(1.0)
                assert a.paced and a.holding.pace.next_at() is not None  # a schedule is live
                b.pause(3.0)  # a 429 at worker b
                paused_at = trio.current_time()
                await trio.sleep(2.0)
                nursery.cancel_scope.cancel()
        return paused_at, sent

    paused_at, sent = _in_virtual_time(main)
    assert any(paused_at - 0.5 < t <= paused_at for t in sent)
    assert not [t for t in sent if t > paused_at + LEASE_S + 1e-6]


def test_a_schedule_whose_reply_came_too_late_is_void_and_the_callers_lease_stock():
    """Each scheduled permit is usable until EXPIRY_S after it was earned, counted from the ask: a reply that
    took longer brings none usable. It is counted void and the callers lease again at once (they waited out
    every permit of it, up to PACE_S, and asked for another only then)."""

    async def main(clock):
        bucket = LeaseBucket(RPM, 0, clock=clock.current_time)

        hiccups = [0.125]

        async def wait_on(fn, *args):  # the first schedule's reply takes 0.25 s (a hiccup), any other call none
            late = args[0] == "lease" and args[-1] is True and bool(hiccups) and hiccups.pop()
            await trio.sleep(0.125 if late else 0)
            answer = fn(*args)
            await trio.sleep(0.125 if late else 0)
            return answer

        relay = _relay(bucket)
        limiter = LeasedRateLimiter(relay, relay, BatchSize.of(RPM, 0, workers=1), clock=clock.current_time,
                                    wait_on=wait_on)
        sent: list[float] = []
        waits_on_void: list[float] = []
        pace_wait = limiter._pace_wait

        def watched(tokens):  # a caller sleeping until a permit of a schedule that came too late
            pace = limiter.holding.pace
            if pace is not None and pace.arrived_at - pace.asked_at >= EXPIRY_S:
                waits_on_void.append(trio.current_time())
            return pace_wait(tokens)

        limiter._pace_wait = watched
        async with limiter:
            await _twenty_callers_thrice(limiter, sent)
        return limiter, sent, waits_on_void

    limiter, sent, waits_on_void = _in_virtual_time(main)
    assert len(sent) == 60 and limiter.void > 0 and limiter.paced > limiter.void
    assert waits_on_void == []
    assert _most_in_a_second(sent) <= 2 * RATE


def test_while_a_schedule_serves_the_requests_a_caller_short_of_tokens_leases_tokens_only():
    """With a request and a token rate, a caller short of tokens while a schedule is still to come asks for
    tokens alone: a second schedule would replace the first, whose permits the bucket has already counted."""

    async def main(clock):
        bucket = LeaseBucket(RPM, 6000, clock=clock.current_time)  # 10 requests, 100 tokens a second
        relay = _relay(bucket)
        limiter = LeasedRateLimiter(relay, relay, BatchSize.of(RPM, 6000, workers=1), clock=clock.current_time,
                                    wait_on=_direct)
        asked_over_a_schedule: list[tuple] = []
        ask = limiter._ask

        async def watched(requests, tokens, connect=False, pace=False):
            if limiter._scheduled() and requests:
                asked_over_a_schedule.append((requests, tokens, pace))
            return await ask(requests, tokens, connect, pace)

        limiter._ask = watched
        sent: list[float] = []
        async with limiter:
            await _twenty_callers_thrice(limiter, sent, tokens=8)
        return limiter, sent, asked_over_a_schedule

    limiter, sent, asked_over_a_schedule = _in_virtual_time(main)
    assert len(sent) == 60 and limiter.paced > 0
    assert asked_over_a_schedule == []


async def _twenty_callers_thrice(limiter, sent: list[float], tokens: int = 0) -> None:
    """20 concurrent callers, each acquiring three turns of ``tokens``; when each was sent goes to ``sent``."""

    async def caller() -> None:
        for _ in range(3):
            await limiter.acquire(tokens)
            sent.append(trio.current_time())

    async with trio.open_nursery() as nursery:
        for _ in range(20):
            nursery.start_soon(caller)
