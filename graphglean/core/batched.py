"""`Batched`: blocking calls that queue up while one runs are made together in the next trip to a worker thread.

SQLite allows one statement at a time per connection, so a thousand concurrent callers would make a thousand
trips to a thread (and as many transactions). Here every caller waits for its own items to be done, as before,
but a trip takes everything queued since the last one: at high concurrency a trip serves many callers. One
caller of a trip (its leader) makes it; the others wait for it together and resume together when it is done.
Calls short enough can be made in the trio thread itself, still in trips (``limiter`` None).
"""

from __future__ import annotations

from contextlib import asynccontextmanager
from typing import AsyncIterator, Callable, Generic, Sequence, TypeVar

import trio

T = TypeVar("T")
R = TypeVar("R")


class _Trip(Generic[T, R]):
    def __init__(self) -> None:
        self.items: list[T] = []
        self.ran = False
        self.results: Sequence[R] = ()
        self.error: BaseException | None = None
        self.led = False  # a caller is making it (or waiting for the previous trip to end)
        self.settled = trio.Event()  # set when it ran, or when its leader gave up before it ran


class Batched(Generic[T, R]):
    """``await batched(items)`` runs ``run(all queued items)`` in a worker thread (under ``limiter``, one trip at
    a time) and returns the results for ``items``; ``run`` returns one result per item, in order. When a trip
    fails, every caller whose items were in it gets the error.

    ``limiter`` None: each trip runs in the trio thread, once the other tasks ready to run have queued their
    items (for calls so short that the hand-off to a thread and back would cost more than they do)."""

    def __init__(self, run: Callable[[list[T]], Sequence[R]], limiter: trio.CapacityLimiter | None) -> None:
        self._run = run
        self._limiter = limiter
        self._lock = trio.Lock()
        self._next: _Trip[T, R] = _Trip()

    async def __call__(self, items: Sequence[T]) -> Sequence[R]:
        trip = self._next
        offset = len(trip.items)
        trip.items.extend(items)
        while not trip.ran:
            if trip.led:
                await trip.settled.wait()
                continue
            await self._lead(trip)
        if trip.error is not None:
            raise trip.error
        return trip.results[offset:offset + len(items)]

    def queue(self, items: Sequence[T]) -> None:
        """Add ``items`` to the next trip without waiting for it: they are made with the next caller's items
        (`__call__`, which an empty call also is), or by `flush`."""
        self._next.items.extend(items)

    @property
    def queued(self) -> bool:
        """Whether items wait for the next trip."""
        return bool(self._next.items)

    def flush(self) -> None:
        """Make the next trip now, in this thread, unless it is empty or a caller is making it: for an owner
        closing, once its tasks are done. Its error is raised here."""
        trip = self._next
        if not trip.items or trip.led or trip.ran:
            return
        self._next = _Trip()
        try:
            trip.results = self._run(trip.items)
        except Exception as e:
            trip.error = e
            raise
        finally:
            trip.ran = True
            trip.settled.set()

    @asynccontextmanager
    async def paused(self) -> AsyncIterator[None]:
        """No trip runs in the block: once the running one is done, callers queue their items for the next."""
        async with self._lock:
            yield

    async def _lead(self, trip: _Trip[T, R]) -> None:
        """Make ``trip`` once the previous one is done (FIFO), then wake its other callers. A leader cancelled
        before it ran hands the trip on: one of its other callers makes it (or the next to join it)."""
        trip.led = True
        try:
            async with self._lock:
                if self._next is trip:
                    self._next = _Trip()
                try:
                    trip.results = await self._make(trip)
                except Exception as e:
                    trip.error = e
                trip.ran = True
        finally:
            trip.led = False
            settled, trip.settled = trip.settled, trio.Event()
            settled.set()

    async def _make(self, trip: _Trip[T, R]) -> Sequence[R]:
        if self._limiter is not None:
            return await trio.to_thread.run_sync(self._run, trip.items, limiter=self._limiter)
        return self._run(trip.items)  # the lock's checkpoint let the tasks that were ready join the trip
