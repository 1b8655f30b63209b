import pytest
import trio

from graphglean.core.config import LLMConfig
from graphglean.core.errors import LLMAuthError
from graphglean.llm import ChatClient
from graphglean.scheduling.scheduler import Scheduler
from graphglean.testing import FakeLLMServer

from .helpers import llm_config, task_resumes


async def test_map_keeps_order_isolates_errors_and_reports_them():
    seen = []
    async with FakeLLMServer(lambda r: r.last_user.upper(), latency=0.01).running() as s:
        async with ChatClient(llm_config(s)) as c:
            sched = Scheduler(c)
            llm = sched.llm("p")

            async def fn(x):
                if x == "bad":
                    raise ValueError("broken item")
                await trio.sleep(0.05 if x == "a" else 0)  # the first item finishes last
                return (await llm.chat(llm.request([{"role": "user", "content": x}]))).text

            out = await sched.map(fn, ["a", "bad", "c"], pass_name="p", on_error=seen.append)
    assert [o.value for o in out] == ["A", None, "C"]
    assert isinstance(out[1].error, ValueError) and seen[0].item == "bad"
    assert sched.accounts["p"].calls == 2 and sched.errors["p"][0].index == 1


async def test_step_two_of_an_item_starts_before_step_one_of_the_last_item_ends():
    events = []
    async with FakeLLMServer(lambda r: "ok", latency=0.05).running() as s:
        async with ChatClient(llm_config(s, max_concurrency=2)) as c:
            sched = Scheduler(c, max_active_items=2)
            llm = sched.llm("p")

            async def two_steps(i):
                await llm.chat(llm.request([{"role": "user", "content": f"s1 {i}"}]))
                events.append(("s1 done", i))
                await llm.chat(llm.request([{"role": "user", "content": f"s2 {i}"}]))
                events.append(("s2 done", i))

            await sched.map(two_steps, range(6), pass_name="p")
    assert events.index(("s2 done", 0)) < events.index(("s1 done", 5))


async def test_fatal_error_stops_the_map():
    from graphglean.testing import Reply

    async with FakeLLMServer(lambda r: Reply(status=401, body={"error": "no"})).running() as s:
        async with ChatClient(llm_config(s)) as c:
            sched = Scheduler(c)
            llm = sched.llm("p")
            with pytest.raises(LLMAuthError):
                await sched.map(lambda i: llm.chat(llm.request([{"role": "user", "content": str(i)}])),
                                range(50), pass_name="p")
    assert len(s.requests) < 50


async def test_cancellation_keeps_finished_results():
    stored = []
    async with FakeLLMServer(lambda r: "ok", latency=0.02).running() as s:
        async with ChatClient(llm_config(s, max_concurrency=1)) as c:
            sched = Scheduler(c)
            llm = sched.llm("p")

            async def fn(i):
                return (await llm.chat(llm.request([{"role": "user", "content": str(i)}]))).text

            with trio.CancelScope() as scope:  # cancelled mid-run, after a few results, however slow the machine
                def keep(o):
                    stored.append(o.index)
                    if len(stored) == 5:
                        scope.cancel()

                await sched.map(fn, range(100), pass_name="p", on_result=keep)
    # items start in input order, a pass's worth of freed places at a time (trio runs those in either order)
    assert 0 < len(stored) < 100 and len(set(stored)) == len(stored)
    assert max(stored) < len(stored) + sched.max_active_items


async def test_a_cached_answer_does_not_wait_for_a_request_slot(tmp_path):
    from graphglean.testing import Reply

    done = []
    async with FakeLLMServer(lambda r: Reply("ok", delay=0.3 if "slow" in r.last_user else 0)).running() as s:
        async with ChatClient.from_config(llm_config(s, tmp_path, max_concurrency=1)) as c:
            sched = Scheduler(c)
            llm = sched.llm("p")
            await llm.chat(llm.request([{"role": "user", "content": "cached"}]))

            async def fn(text):
                result = await llm.chat(llm.request([{"role": "user", "content": text}]))
                done.append((text, result.cached))

            await sched.map(fn, ["slow", "cached"], pass_name="p")
    assert done == [("cached", True), ("slow", False)]


async def test_after_a_429_the_gate_admits_no_more_calls_than_the_client_sends():
    from graphglean.testing import Reply

    seen = []  # (gate holders, the client's concurrency) as the server reads each request
    state = {}

    def respond(req):
        seen.append((state["sched"].gate.held, state["client"].concurrency.current))
        if req.number < 8:  # the first round is refused: the client halves its concurrency
            return Reply('{"error": {"message": "Rate limit reached", "type": "requests"}}', status=429,
                         headers={"retry-after-ms": "20"})
        return "ok"

    async with FakeLLMServer(respond, latency=0.02).running() as s:
        async with ChatClient(llm_config(s, max_concurrency=8, server_concurrency=8)) as c:  # slots known
            state["client"], state["sched"] = c, Scheduler(c)
            llm = state["sched"].llm("p")

            async def fn(i):
                return (await llm.chat(llm.request([{"role": "user", "content": f"item {i}"}]))).text

            outcomes = await state["sched"].map(fn, range(40), pass_name="p")
    assert all(o.value == "ok" for o in outcomes)
    assert min(current for _, current in seen) < 8  # the 429s cut the client's concurrency
    later = seen[len(seen) // 2:]  # the calls that held places before the cut are done by then
    assert all(held <= current for held, current in later)


async def test_a_scheduled_call_that_waits_for_nothing_but_its_answer_goes_through_the_scheduler_once():
    """The pass's gate, the rate limits, the request slot and the send are taken without yielding when free
    (five trips per call before)."""
    async with FakeLLMServer(lambda r: "ok").running() as s:
        async with ChatClient(llm_config(s)) as c:
            sched = Scheduler(c)
            llm = sched.llm("p")
            trips = []

            async def fn(i):
                await llm.chat(llm.request([{"role": "user", "content": "warm up"}]))
                with task_resumes() as counted:
                    await llm.chat(llm.request([{"role": "user", "content": "again"}]))
                trips.append(counted.count)

            await sched.map(fn, [0], pass_name="p")
    assert trips == [1]


class _Passes(trio.abc.Instrument):
    """Counts the run loop's passes (one wait for I/O each)."""

    def __init__(self):
        self.count = 0

    def before_io_wait(self, timeout):
        self.count += 1


async def _start_passes(weights, max_active_items=8):
    """The scheduler pass in which each item started (by index), and the order they started in."""
    passes = _Passes()
    trio.lowlevel.add_instrument(passes)
    started = {}

    async def fn(i):
        started[i] = passes.count
        await trio.lowlevel.checkpoint()

    try:
        async with ChatClient(LLMConfig(base_url="http://127.0.0.1:9/v1", model="gpt-4")) as c:
            await Scheduler(c, max_active_items=max_active_items).map(fn, range(len(weights)), pass_name="p",
                                                                      weight=lambda i: weights[i])
    finally:
        trio.lowlevel.remove_instrument(passes)
    return started


async def test_equal_items_freed_together_are_replaced_together():
    """Places freed in one pass are refilled in the next, all of them: items start in waves (their calls then
    share trips to the run store), not one per pass."""
    started = await _start_passes([1.0] * 64)
    assert len(started) == 64 and len(set(started.values())) <= 64 // 8 + 2


async def test_a_heavier_item_still_starts_before_a_lighter_one():
    weights = [float(w) for w in [5, 5, 4, 4, 3, 3, 2, 2, 1, 1] * 3]
    started = await _start_passes(weights, max_active_items=4)
    for i in range(len(weights)):
        for j in range(len(weights)):
            if weights[i] > weights[j]:
                assert started[i] <= started[j]
            if weights[i] > weights[j] and started[i] == started[j]:
                raise AssertionError(f"items {i} and {j} of unequal weight started in the same pass")
