"""`Batched`: blocking calls that queue up while one runs are made together in the next trip to a worker thread.

SQLite allows one statement at a time per connection, so a thousand concurrent callers would make a thousand
trips to a thread (and as many transactions). Here every caller waits for its own items to be done, as before,
but a trip takes everything queued since the last one: at high concurrency a trip serves many callers.
"""

from __future__ import annotations

from typing import Callable, Generic, Sequence, TypeVar

import trio

T = TypeVar("T")
R = TypeVar("R")


class _Trip(Generic[T, R]):
    def __init__(self) -> None:
        self.items: list[T] = []
        self.ran = False
        self.results: Sequence[R] = ()
        self.error: BaseException | None = None


class Batched(Generic[T, R]):
    """``await batched(items)`` runs ``run(all queued items)`` in a worker thread (under ``limiter``, one trip at
    a time) and returns the results for ``items``; ``run`` returns one result per item, in order. When a trip
    fails, every caller whose items were in it gets the error."""

    def __init__(self, run: Callable[[list[T]], Sequence[R]], limiter: trio.CapacityLimiter) -> None:
        self._run = run
        self._limiter = limiter
        self._lock = trio.Lock()
        self._next: _Trip[T, R] = _Trip()

    async def __call__(self, items: Sequence[T]) -> Sequence[R]:
        trip = self._next
        offset = len(trip.items)
        trip.items.extend(items)
        async with self._lock:  # FIFO: whoever of a trip gets here first makes it, for everyone in it
            if not trip.ran:
                if self._next is trip:
                    self._next = _Trip()
                try:
                    trip.results = await trio.to_thread.run_sync(self._run, trip.items, limiter=self._limiter)
                except Exception as e:
                    trip.error = e
                trip.ran = True  # not when cancelled: then the trip's next caller makes it
        if trip.error is not None:
            raise trip.error
        return trip.results[offset:offset + len(items)]
