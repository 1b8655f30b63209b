"""`Timer`: tasks sleep until their deadlines and one timer task wakes them: the fake server's latencies.

trio ends a sleep 0-1 ms late (its epoll timeout is whole milliseconds, rounded up), so every answer came ~0.6 ms
late on average, ~0.6% of a 100 ms benchmark's ideal: with trio's own clock on Linux the timer task waits on a
`TimerFD` and wakes sleepers within ~0.1 ms of their deadlines. With any other clock (trio.testing's MockClock)
it waits on the trio clock, so virtual time works as with `trio.sleep`. CPU per sleep (measured, one core): a
`trio.sleep` is ~20 µs (a cancel scope, a deadline, a `Cancelled` raised through the sleeper and caught); here
~7.5 µs when deadlines fall together (a burst of requests: one wake for all), and ~45 µs against ~32 when each
deadline wakes the timer alone (one more scheduler pass): the price of the precision. In the transport
benchmark the server's CPU per call went down.
"""

from __future__ import annotations

import heapq
import itertools
import math
from typing import Any

import trio

from .timerfd import TimerFD


def _on_system_clock() -> bool:
    """Whether trio runs on its default clock, the monotonic clock a timerfd follows."""
    try:
        from trio._core._run import SystemClock
    except ImportError:  # pragma: no cover - trio moved it: no timerfd, trio's own (coarser) timing
        return False
    return type(trio.lowlevel.current_clock()) is SystemClock


class Timer:
    """Sleeps that end at their deadlines (never before), while `run` runs; without it, `trio.sleep_until`."""

    def __init__(self) -> None:
        self._heap: list[list[Any]] = []  # [deadline, sequence, task or None once cancelled]
        self._sequence = itertools.count()
        self._running = False
        self._armed = math.inf  # the deadline the timer task waits for
        self._idle: trio.lowlevel.Task | None = None  # the timer task, while nobody sleeps
        self._scope: trio.CancelScope | None = None  # its wait on the trio clock
        self._fd: TimerFD | None = None  # or on a timerfd

    async def sleep(self, seconds: float) -> None:
        await self.sleep_until(trio.current_time() + seconds)

    async def sleep_until(self, deadline: float) -> None:
        """Return at ``deadline`` (trio clock); a checkpoint, cancellable as `trio.sleep_until`."""
        if not self._running or deadline <= trio.current_time():
            await trio.sleep_until(deadline)
            return
        entry = [deadline, next(self._sequence), trio.lowlevel.current_task()]
        heapq.heappush(self._heap, entry)
        if deadline < self._armed:
            self._arm(deadline)

        def abort(_: Any) -> trio.lowlevel.Abort:
            entry[2] = None
            return trio.lowlevel.Abort.SUCCEEDED

        await trio.lowlevel.wait_task_rescheduled(abort)
        if trio.current_time() < deadline:  # woken early: the timer task stopped
            await trio.sleep_until(deadline)

    def _arm(self, deadline: float) -> None:
        self._armed = deadline
        if self._idle is not None:
            trio.lowlevel.reschedule(self._idle)
            self._idle = None
        elif self._fd is not None:
            self._fd.arm(deadline - trio.current_time())
        elif self._scope is not None:
            self._scope.deadline = deadline

    async def run(self, *, task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
        """The timer task: wakes each sleeper at its deadline, until cancelled; then any sleeper left waits on
        the trio clock."""
        self._fd = TimerFD.open() if _on_system_clock() else None
        self._running = True
        try:
            task_status.started()
            while True:
                self._wake_due()
                if not self._heap or self._heap[0][0] == math.inf:  # nobody, or only sleepers that never wake
                    self._armed = math.inf
                    self._idle = trio.lowlevel.current_task()
                    await trio.lowlevel.wait_task_rescheduled(self._abort_idle)
                    continue
                self._armed = self._heap[0][0]
                if self._fd is not None:
                    self._fd.arm(self._armed - trio.current_time())  # which also clears an expiry not read
                    await trio.lowlevel.wait_readable(self._fd)
                else:
                    with trio.CancelScope(deadline=self._armed) as self._scope:
                        await trio.sleep_forever()
                    self._scope = None
        finally:
            self._running, self._idle, self._scope, self._armed = False, None, None, math.inf
            if self._fd is not None:
                trio.lowlevel.notify_closing(self._fd)
                self._fd.close()
                self._fd = None
            for entry in self._heap:
                if entry[2] is not None:
                    trio.lowlevel.reschedule(entry[2])
            self._heap.clear()

    def _abort_idle(self, _: Any) -> trio.lowlevel.Abort:
        self._idle = None
        return trio.lowlevel.Abort.SUCCEEDED

    def _wake_due(self) -> None:
        heap, now = self._heap, trio.current_time()
        while heap and (heap[0][0] <= now or heap[0][2] is None):
            task = heapq.heappop(heap)[2]
            if task is not None:
                trio.lowlevel.reschedule(task)
