"""Critical-path list scheduling, on a virtual clock: every item runs once whatever the durations, weights and
failures, and a skewed run ends near max(work/C, longest chain) and sooner than input order does."""

from __future__ import annotations

import attrs
import trio
import trio.testing
from hypothesis import given, settings
from hypothesis import strategies as st

from graphglean.core.config import LLMConfig
from graphglean.graph.building.describe import rounds_after
from graphglean.llm.limits import AdaptiveConcurrency
from graphglean.llm.records import ChatResult, Usage
from graphglean.scheduling.scheduler import Scheduler, rounds_ahead


@attrs.define
class SimClient:
    """A client whose calls take the seconds they are asked for, on trio's clock; checks the slot limit."""

    cfg: LLMConfig
    concurrency: AdaptiveConcurrency = attrs.field(
        default=attrs.Factory(lambda self: AdaptiveConcurrency(self.cfg.max_concurrency), takes_self=True))
    in_flight: int = 0
    most_in_flight: int = 0
    calls: list[tuple[float, float]] = attrs.field(factory=list)  # (start, end)

    async def chat(self, seconds, account=None, slot=None) -> ChatResult:
        async with slot(), self.concurrency.limiter:  # as the real client: its own, adaptive, limit inside
            self.in_flight += 1
            self.most_in_flight = max(self.most_in_flight, self.in_flight)
            start = trio.current_time()
            try:
                await trio.sleep(seconds)
            finally:
                self.in_flight -= 1
        self.calls.append((start, trio.current_time()))
        return ChatResult(text=str(seconds), finish_reason="stop", usage=Usage(1, 1))


def simulate(chains, concurrency, weights=None, fail=(), **sched_kw):
    """Run ``chains`` (seconds per call of each item) through a Scheduler; (makespan, outcomes, client)."""
    async def main():
        client = SimClient(LLMConfig(max_concurrency=concurrency))
        sched = Scheduler(client, **sched_kw)
        llm = sched.llm("sim")
        ran = []

        async def fn(i):
            ran.append(i)
            for seconds in chains[i]:
                await llm.chat(seconds)
            if i in fail:
                raise ValueError(f"item {i}")
            return i * 10

        start = trio.current_time()
        outcomes = await sched.map(fn, range(len(chains)), pass_name="sim",
                                   weight=(lambda i: weights[i]) if weights else None)
        return trio.current_time() - start, outcomes, client, ran

    return trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))


async def fifo_makespan(chains, concurrency):
    """The naive engine: ``concurrency`` workers take items in input order and run each chain through."""
    todo = iter(range(len(chains)))
    start = trio.current_time()

    async def worker():
        for i in todo:
            for seconds in chains[i]:
                await trio.sleep(seconds)

    async with trio.open_nursery() as nursery:
        for _ in range(concurrency):
            nursery.start_soon(worker)
    return trio.current_time() - start


def bound(chains, concurrency):
    return max(sum(map(sum, chains)) / concurrency, max(map(sum, chains)))


def skewed(n=120, dense_every=30):
    """Extract, check, continue per item; every ``dense_every``-th item (the last ones in input order
    included) answers 2.5x as much."""
    chains = []
    for i in range(n):
        d = 2.5 if i % dense_every == dense_every - 1 else 1.0
        chains.append([0.3 + 3.0 * d + 0.01 * (i % 7), 0.3, 0.3 + 1.5 * d])
    return chains


def test_a_skewed_run_ends_near_the_bound_and_before_input_order():
    chains = skewed()
    weights = [sum(c) for c in chains]  # what a pass's weight (prompt tokens) would say about each item
    makespan, outcomes, client, _ = simulate(chains, 32, weights=weights)
    fifo = trio.run(fifo_makespan, chains, 32, clock=trio.testing.MockClock(autojump_threshold=0))
    assert all(o.ok for o in outcomes) and client.most_in_flight == 32
    assert makespan <= 1.25 * bound(chains, 32) < 1.25 * fifo
    assert makespan < 0.9 * fifo


def test_without_weights_long_chains_found_by_their_first_call_still_beat_input_order():
    chains = skewed(n=300, dense_every=50)
    makespan, *_ = simulate(chains, 64)
    fifo = trio.run(fifo_makespan, chains, 64, clock=trio.testing.MockClock(autojump_threshold=0))
    assert makespan <= 1.25 * bound(chains, 64) and makespan < fifo


def test_admission_stays_bounded():
    active = []

    async def main():
        sched = Scheduler(SimClient(LLMConfig(max_concurrency=4)), max_active_items=6)
        llm = sched.llm("sim")
        live = 0

        async def fn(i):
            nonlocal live
            live += 1
            active.append(live)
            await llm.chat(1.0)
            live -= 1

        await sched.map(fn, range(50), pass_name="sim")

    trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    assert len(active) == 50 and max(active) == 6


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.lists(st.floats(0.0, 5.0), max_size=4), st.floats(0.1, 10.0), st.booleans()),
                max_size=40),
       st.integers(1, 8), st.integers(1, 12))
def test_every_item_runs_once_results_in_order_errors_per_item(spec, concurrency, window):
    chains = [c for c, _, _ in spec]
    weights = [w for _, w, _ in spec]
    fail = {i for i, (_, _, f) in enumerate(spec) if f}
    _, outcomes, client, ran = simulate(chains, concurrency, weights=weights, fail=fail,
                                        max_active_items=window)
    assert sorted(ran) == list(range(len(chains)))
    assert [o.index for o in outcomes] == list(range(len(chains)))
    for i, o in enumerate(outcomes):
        assert (o.value, type(o.error)) == ((None, ValueError) if i in fail else (i * 10, type(None)))
    assert client.most_in_flight <= concurrency and len(client.calls) == sum(map(len, chains))


async def test_a_freed_slot_goes_to_the_highest_priority_waiter():
    from graphglean.scheduling.priority import PriorityGate

    gate = PriorityGate(1)
    got = []

    async def take(name, priority):
        async with gate.slot(lambda: priority):
            got.append(name)
            await trio.sleep(1)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(take, "first", 0)
        await trio.testing.wait_all_tasks_blocked()
        doomed = trio.CancelScope()

        async def cancelled_while_waiting():
            with doomed:
                await take("cancelled", 9)

        for name, priority in (("low", 1), ("high", 5), ("low too", 1)):
            nursery.start_soon(take, name, priority)
            await trio.testing.wait_all_tasks_blocked()
        nursery.start_soon(cancelled_while_waiting)
        await trio.testing.wait_all_tasks_blocked()
        doomed.cancel()
        with trio.CancelScope() as scope:
            scope.cancel()
            await take("never", 100)
    assert got == ["first", "high", "low", "low too"] and gate.held == 0
    with trio.CancelScope() as scope:  # a free place is not taken by a caller already cancelled
        scope.cancel()
        await take("never either", 100)
    assert gate.held == 0 and "never either" not in got


def test_after_the_client_cuts_its_concurrency_the_long_chain_still_goes_first():
    """Four slots, cut to two at t=0.5 (a 429): the long chain's next call must not queue inside the client
    behind short items the gate let in at the old size."""
    chains = [[1.0, 1.0, 1.0]] + [[1.0]] * 16

    async def main():
        client = SimClient(LLMConfig(max_concurrency=4))
        sched = Scheduler(client)
        llm = sched.llm("sim")
        starts = {}

        async def fn(i):
            for step, seconds in enumerate(chains[i]):
                result = await llm.chat(seconds)
                starts[i, step] = client.calls[-1][0]
            return result

        async def cut():
            await trio.sleep(0.5)
            client.concurrency.back_off()

        async with trio.open_nursery() as nursery:
            nursery.start_soon(cut)
            await sched.map(fn, range(len(chains)), pass_name="sim", weight=lambda i: 3.0 if i == 0 else 1.0)
        return starts

    starts = trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    assert starts[0, 0] == 0.0
    # each of the chain's later calls starts as soon as two slots' worth of calls allows: at most one second
    # after its previous one ended
    assert starts[0, 1] <= 2.0 and starts[0, 2] <= starts[0, 1] + 2.0


@given(ops=st.lists(st.one_of(st.tuples(st.just("observe"), st.integers(0, 3), st.floats(0.01, 5)),
                              st.tuples(st.just("finish"), st.integers(0, 4), st.just(0.0)),
                              st.tuples(st.just("ask"), st.integers(0, 4), st.floats(0, 9))), max_size=60))
@settings(max_examples=200, deadline=None)
def test_work_left_read_from_the_per_step_memo_is_the_work_left_worked_out_afresh(ops):
    """`PassWork.remaining` keeps each step's chain until the estimates are copied again: never a stale one."""
    from graphglean.scheduling.priority import PassWork

    pw = PassWork()
    pw.expect([1.0, 2.0, 4.0])

    def afresh(work):
        kept, pw._chains = pw._chains, {}
        try:
            return pw.remaining(work)
        finally:
            pw._chains = kept

    for op, steps, x in ops:
        work = pw.item(1.0 + steps)
        for _ in range(steps):
            work.called(0.5 + x / 10)
        if op == "observe":
            pw.observe(steps, x)
        elif op == "finish":
            pw.finished(work)
        assert pw.remaining(work) == afresh(work)


async def test_a_holder_and_its_waiters_cancelled_together_leave_the_gate_whole():
    """One scope cancels the holder and the callers parked behind it: whichever trio runs first, the holder's
    release must not grant a place to a waiter already rescheduled by its cancellation (trio would refuse to
    reschedule it twice), and every place comes back."""
    from graphglean.scheduling.priority import PriorityGate

    gate = PriorityGate(1)

    async def take(priority):
        async with gate.slot(lambda: priority):
            await trio.sleep_forever()

    for _ in range(30):  # trio shuffles each batch of runnable tasks: both orders occur
        async with trio.open_nursery() as nursery:
            for priority in (0, 5, 1):
                nursery.start_soon(take, priority)
                await trio.testing.wait_all_tasks_blocked()
            assert gate.held == 1
            nursery.cancel_scope.cancel()
        assert gate.held == 0 and gate._waiting == 0
    async with gate.slot(lambda: 0):  # and the gate still hands places out
        assert gate.held == 1


def test_a_document_found_denser_than_its_weights_said_has_its_other_chunks_ranked_up():
    """Two slots; a document's two chunks take 8 s each, though the second one's weight is the lowest of all;
    twenty other chunks take 1.1 s. Once the first chunk's answer shows how dense its document is, the second
    goes before the light chunks still waiting, not after them."""
    async def main(grouped):
        client = SimClient(LLMConfig(max_concurrency=2))
        sched = Scheduler(client)
        llm = sched.llm("sim")
        items = ["A"] + [f"o{k}" for k in range(20)] + ["B"]
        weights = {"A": 2.0, "B": 0.5, **{f"o{k}": 1.05 - k / 100 for k in range(20)}}

        async def fn(item):
            await llm.chat(8.0 if item in "AB" else 1.1)

        start = trio.current_time()
        await sched.map(fn, items, pass_name="sim", weight=weights.__getitem__,
                        group=(lambda item: item if item not in "AB" else "dense") if grouped else None)
        return trio.current_time() - start

    with_groups = trio.run(main, True, clock=trio.testing.MockClock(autojump_threshold=0))
    without = trio.run(main, False, clock=trio.testing.MockClock(autojump_threshold=0))
    assert with_groups <= 1.1 * (8 + 8 + 20 * 1.1) / 2 and with_groups < without - 2, (with_groups, without)


def test_a_call_of_another_pass_started_from_an_item_is_no_step_of_its_chain_and_waits_behind_items():
    """A description summary started when a chunk finishes (in a task that inherits the chunk's context) is
    not counted in the chunk's chain, and a free slot goes to a chunk's call before it."""
    async def main():
        client = SimClient(LLMConfig(max_concurrency=1))
        sched = Scheduler(client)
        graph, describe = sched.llm("graph"), sched.llm("graph.describe")
        order = []

        async def summary(name):
            await describe.chat(0.5)
            order.append(name)

        async with trio.open_nursery() as nursery:
            async def fn(i):
                await graph.chat(1.0)
                nursery.start_soon(summary, f"summary {i}")
                await graph.chat(1.0)
                order.append(f"chunk {i}")

            await sched.map(fn, range(3), pass_name="graph")
        return sched.work["graph"], order

    work, order = trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    assert [s.calls for s in work.steps] == [3, 3]
    assert sorted(order[:3]) == ["chunk 0", "chunk 1", "chunk 2"]


def test_a_new_pass_goes_before_calls_outside_any_item():
    """Entity resolution's questions, asked once extraction is done, while summaries streamed from finished
    chunks still wait for slots: none of the new pass's calls has been timed yet, and still its items' calls go
    before every call made outside an item, not behind them in the order they came."""
    async def main():
        client = SimClient(LLMConfig(max_concurrency=1))
        sched = Scheduler(client)
        describe, resolve = sched.llm("graph.describe"), sched.llm("graph.resolve")
        order = []

        async def summary(k):
            await describe.chat(1.0)
            order.append(f"summary {k}")

        async def question(k):
            await resolve.chat(0.5)
            order.append(f"question {k}")

        async with trio.open_nursery() as nursery:
            for k in range(4):
                nursery.start_soon(summary, k)
            await trio.sleep(0.1)  # the summaries wait behind the first one
            await sched.map(question, range(2), pass_name="graph.resolve")
        return order

    order = trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    assert order[1:3] == ["question 0", "question 1"] or order[1:3] == ["question 1", "question 0"], order


def test_calls_outside_items_with_more_rounds_behind_them_go_first_and_still_after_items():
    async def main():
        client = SimClient(LLMConfig(max_concurrency=1))
        sched = Scheduler(client)
        describe = sched.llm("graph.describe")
        order = []

        async def summary(name, rounds):
            rounds_ahead(rounds)
            await describe.chat(1.0)
            order.append(name)

        async def chunk(i):
            await sched.llm("graph").chat(0.5)
            order.append(f"chunk {i}")

        async with trio.open_nursery() as nursery:
            nursery.start_soon(summary, "first", 0)  # takes the one slot
            await trio.sleep(0.1)
            nursery.start_soon(summary, "one round", 0)
            nursery.start_soon(summary, "group of a long list", 2)
            await trio.sleep(0.1)
            await sched.map(chunk, range(1), pass_name="graph")
        return order

    order = trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    assert order == ["first", "chunk 0", "group of a long list", "one round"], order


def test_rounds_after_a_round_of_groups():
    assert [rounds_after(n) for n in (1, 2, 3, 4, 9, 10, 27, 28)] == [0, 1, 1, 2, 2, 3, 3, 4]
