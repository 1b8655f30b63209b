"""Critical-path list scheduling for the `Scheduler`: a gate that gives a free request slot to the waiting call
with the most work left behind it, and the estimate of that work.

An item is a chain of calls (extract, check, continue; gists, facts). Its work left is what the pass's calls at
each later step took on average, weighted by how often items reached that step, and scaled by the item's own
pace: before its first call, its weight (what is known of it beforehand) corrected by how the finished items of
its group (a chunk's document) compared with their weights; then how its calls so far compared with the
average at their step. The makespan of list scheduling is at most work/C + the longest chain; taking long
chains first is what keeps a run near max(work/C, longest chain) instead.
"""

from __future__ import annotations

import contextlib
import heapq
import itertools
from typing import AsyncIterator, Callable, Hashable

import attrs
import trio


class _Waiter:
    """A task waiting for a place: parked, and rescheduled by the `release` that grants it one (a
    ``trio.Event`` per waiter cost more than the rest of the wait)."""

    __slots__ = ("priority", "key", "task", "granted", "cancelled")

    def __init__(self, priority: Callable[[], float], key: Hashable) -> None:
        self.priority, self.key = priority, key
        self.task = trio.lowlevel.current_task()
        self.granted = False
        self.cancelled = False

    def grant(self) -> None:
        self.granted = True
        trio.lowlevel.reschedule(self.task)


class PriorityGate:
    """At most ``capacity`` holders at once; a freed place goes to the waiter of highest priority, equal
    priorities first come, first served. Priorities are callables, read when a caller starts waiting and
    read again for every waiter whenever ``epoch()`` has changed (the estimates behind them were revised), or
    for the waiters whose ``key`` is among those ``moved()`` names (the estimates of some items were revised:
    reading every waiter's again for each was most of the gate's cost).

    ``capacity`` may be a callable, read at every change of hands: a client that cuts its concurrency after a
    429 then admits no more holders than it sends requests for, so priorities, not the order of waiting
    inside the client, still decide which calls go. A capacity that grew is filled at the next release."""

    def __init__(self, capacity: int | Callable[[], int], epoch: Callable[[], int] | None = None,
                 moved: Callable[[], set[Hashable]] | None = None) -> None:
        self._capacity = capacity if callable(capacity) else (lambda: capacity)
        self.held = 0
        self._epoch = epoch or (lambda: 0)
        self._moved = moved or set
        self._seen = self._epoch()
        self._queue: list[tuple[float, int, _Waiter]] = []
        self._waiting = 0
        self._order = itertools.count()

    @property
    def capacity(self) -> int:
        return max(1, self._capacity())

    @contextlib.asynccontextmanager
    async def slot(self, priority: Callable[[], float], key: Hashable = None) -> AsyncIterator[None]:
        await self.acquire(priority, key)
        try:
            yield
        finally:
            self.release()

    async def acquire(self, priority: Callable[[], float], key: Hashable = None) -> None:
        """A place (each ``acquire`` is followed by one `release`); `slot` is both around a block. ``key``: what
        ``moved()`` names when this waiter's priority has to be read again."""
        await trio.lowlevel.checkpoint_if_cancelled()
        if self.held < self.capacity and not self._waiting:
            # a free place is taken without a trip through trio's scheduler: the holder's request (or cache
            # read) is the checkpoint
            self.held += 1
            return
        waiter = _Waiter(priority, key)
        heapq.heappush(self._queue, (-priority(), next(self._order), waiter))
        self._waiting += 1

        def abort(_: object) -> trio.lowlevel.Abort:
            # marked at once, not when the task runs again: a release before then must not reschedule it twice
            waiter.cancelled = True
            self._waiting -= 1
            return trio.lowlevel.Abort.SUCCEEDED  # skipped when its turn comes

        try:
            await trio.lowlevel.wait_task_rescheduled(abort)
        except BaseException:
            if waiter.granted:  # handed a place, then interrupted before it used it: pass the place on
                self.release()
            raise

    def release(self) -> None:
        self.held -= 1
        self.refill()

    def refill(self) -> None:
        """Hand free places to waiters (after a release, or when the capacity grew)."""
        moved = self._moved()
        if self._epoch() != self._seen:
            self._seen = self._epoch()
            self._queue = [(-w.priority(), order, w) for _, order, w in self._queue if not w.cancelled]
            heapq.heapify(self._queue)
        elif moved:
            self._queue = [(-w.priority() if w.key in moved else rank, order, w)
                           for rank, order, w in self._queue if not w.cancelled]
            heapq.heapify(self._queue)
        capacity = self.capacity
        while self._queue and self.held < capacity:
            waiter = heapq.heappop(self._queue)[2]
            if not waiter.cancelled:
                self.held += 1
                self._waiting -= 1
                waiter.grant()


# What a call of a pass none of whose calls has been timed yet is taken to last: nothing to speak of, but more
# than a call outside any item (a description summary streamed while chunks finish), so a new pass's items
# (entity resolution's questions after extraction) do not queue behind those.
_UNTIMED = 1e-6


@attrs.define
class _Step:
    calls: int = 0
    seconds: float = 0.0
    reached_by_finished: int = 0  # finished items that made this step


@attrs.define
class _Group:
    """The items of one group (a document's chunks): the finished ones' weights and work, and how many have not
    made their first call yet."""

    weight: float = 0.0
    seconds: float = 0.0
    unstarted: int = 0
    factor: float = 1.0  # when the waiters were last ranked by it


@attrs.define(eq=False)
class ItemWork:
    """One item's progress: its calls so far and their service time."""

    pass_work: "PassWork"
    weight: float
    group: Hashable = None
    steps: int = 0
    spent: float = 0.0

    def called(self, seconds: float) -> None:
        self.pass_work.observe(self.steps, seconds, self)
        self.steps += 1
        self.spent += seconds

    def remaining(self) -> float:
        return self.pass_work.remaining(self)

    @property
    def key(self) -> Hashable:
        """What `PassWork.moved` names when this item's work left was revised (its group's correction)."""
        return self.pass_work, self.group


class PassWork:
    """What the calls of one pass have taught about its items' chains (see the module docstring)."""

    def __init__(self) -> None:
        self.steps: list[_Step] = []
        self.finished_items = 0
        self.mean_weight = 1.0
        # Estimates are read from a copy taken as they firm up (counts reach powers of two): between copies
        # every waiter is ranked by the same numbers, and re-ranked (``version``) when they change; the waiters
        # of a group whose correction moved, alone (``moved``: their `ItemWork.key`).
        self.version = 0
        self.moved: set[Hashable] = set()
        self._seen: list[_Step] = []
        self._chains: dict[int, tuple[float, float]] = {}  # step -> (work ahead, work behind) by `_seen`
        self._groups: dict[Hashable, _Group] = {}
        self._done_weight = self._done_seconds = 0.0  # of the finished items that made calls

    def expect(self, weights: list[float]) -> None:
        if weights:
            self.mean_weight = max(sum(weights) / len(weights), 1e-9)

    def item(self, weight: float, group: Hashable = None) -> ItemWork:
        if group is not None:
            self._groups.setdefault(group, _Group()).unstarted += 1
        return ItemWork(self, weight, group)

    def observe(self, step: int, seconds: float, work: ItemWork | None = None) -> None:
        while len(self.steps) <= step:
            self.steps.append(_Step())
        self.steps[step].calls += 1
        self.steps[step].seconds += seconds
        if step == 0 and work is not None and work.group is not None:
            self._groups[work.group].unstarted -= 1
        self._firmer(self.steps[step].calls)

    def finished(self, work: ItemWork) -> None:
        self.finished_items += 1
        for step in self.steps[:work.steps]:
            step.reached_by_finished += 1
        if work.spent > 0:  # an item answered from the cache says nothing of its size
            self._learn(work)
        self._firmer(self.finished_items)

    def _learn(self, work: ItemWork) -> None:
        """A finished item's work against its weight, for its group's items still to start; their waiters are
        ranked again when the group's correction moved by a tenth or more."""
        self._done_weight += work.weight
        self._done_seconds += work.spent
        group = self._groups.get(work.group)
        if group is None:
            return
        group.weight += work.weight
        group.seconds += work.spent
        if group.unstarted > 0 and abs(self.factor(work.group) - group.factor) >= 0.1 * group.factor:
            group.factor = self.factor(work.group)
            self.moved.add((self, work.group))

    def factor(self, group: Hashable) -> float:
        """How much more work than their weights say the items of ``group`` have: its finished items' work over
        what the pass's finished items do for such weights, shrunk toward 1 by one item of mean weight."""
        g = self._groups.get(group)
        if g is None or not g.weight or not self._done_weight or not self._done_seconds:
            return 1.0
        per_weight = self._done_seconds / self._done_weight
        return (g.seconds + per_weight * self.mean_weight) / (per_weight * (g.weight + self.mean_weight))

    def _firmer(self, count: int) -> None:
        if count & (count - 1) == 0:
            self.version += 1
            self._seen = [attrs.evolve(s) for s in self.steps]
            self._chains = {}

    def _mean(self, step: int) -> float:
        s = self._seen[step] if step < len(self._seen) else None
        return s.seconds / s.calls if s and s.calls else 0.0

    def _reach(self, step: int, given: int) -> float:
        """How likely an item that made ``given`` steps makes step ``step`` too (1 until items finish)."""
        base = self._seen[given].reached_by_finished if given < len(self._seen) else 0
        if base == 0:
            return 1.0
        return self._seen[step].reached_by_finished / base

    def _mean_of_any(self) -> float:
        calls = sum(s.calls for s in self._seen)
        return sum(s.seconds for s in self._seen) / calls if calls else 0.0

    def remaining(self, work: ItemWork) -> float:
        """Expected service seconds of ``work``'s calls from the next one on (the next one is certain: before
        any call at its step has ended, it is taken to last as long as the pass's calls so far)."""
        k = work.steps
        chain = self._chains.get(k)
        if chain is None:  # read once per step between copies: every waiter at a step has the same
            chain = self._chains[k] = self._chain(k)
        ahead, behind = chain
        if k and behind > 0:
            pace = work.spent / behind
        else:
            pace = work.weight / self.mean_weight * (self.factor(work.group) if work.group is not None else 1.0)
        return pace * ahead

    def _chain(self, k: int) -> tuple[float, float]:
        """The pass's mean work from step ``k`` on (step ``k`` certain, later ones as likely as items reach them),
        and its mean work before step ``k``."""
        ahead = self._mean(k) or self._mean_of_any() or _UNTIMED
        ahead += sum(self._reach(j, k) * self._mean(j) for j in range(k + 1, len(self._seen)))
        return ahead, sum(self._mean(j) for j in range(k))
