"""A worker's leased limiter with no configured limit takes a free turn without yielding, as the client's own
limiter does: awaited, a task's calls passed it one per scheduler pass."""

from __future__ import annotations

from graphglean.engines.ray.leases import BatchSize, LeaseBucket, LeasedRateLimiter
from graphglean.llm import ChatClient
from graphglean.scheduling.scheduler import Scheduler
from graphglean.testing.inprocess import InProcessTransport

from .helpers import llm_config, task_resumes


def _unlimited() -> LeasedRateLimiter:
    bucket = LeaseBucket(0, 0)

    def relay(method, *args):
        return getattr(bucket, method)(*args)

    return LeasedRateLimiter(relay, relay, BatchSize.of(0, 0, workers=1))


async def test_with_no_limit_a_free_turn_is_taken_without_yielding_and_a_pause_still_holds():
    async with _unlimited() as limiter:
        with task_resumes() as counted:
            assert all(limiter.acquire_nowait() for _ in range(100))
        assert counted.count == 0
        limiter.pause(5.0)
        assert not limiter.acquire_nowait()


async def test_with_a_limit_a_turn_is_always_awaited():
    bucket = LeaseBucket(600, 0)

    def relay(method, *args):
        return getattr(bucket, method)(*args)

    async with LeasedRateLimiter(relay, relay, BatchSize.of(600, 0, workers=1)) as limiter:
        assert not limiter.acquire_nowait()


class _Server:
    base_url = "http://in-process.invalid/v1"


async def test_a_call_under_an_unlimited_leased_limiter_goes_through_the_scheduler_once():
    async with _unlimited() as limiter:
        async with ChatClient(llm_config(_Server()), limiter=limiter,
                              transport=InProcessTransport(lambda r: "ok")) as c:
            llm = Scheduler(c).llm("p")
            await llm.chat(llm.request([{"role": "user", "content": "warm up"}]))
            with task_resumes() as counted:
                await llm.chat(llm.request([{"role": "user", "content": "again"}]))
    assert counted.count <= 1
