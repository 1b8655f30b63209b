"""One rate limit for every worker of a cluster: request and token permits leased in batches.

`LeaseBucket` holds the global request and token buckets; on Ray it lives in one named actor. Each worker's
`LeasedRateLimiter` (the `RateLimiter` interface the `ChatClient` calls) spends permits from a lease of about
a quarter second of its share and fetches the next lease when a quarter of it is left, so the actor sees a few
calls a second per worker instead of one per request. A lease is good for one second only, so permits hoarded
by an idle worker cannot add up to a burst. A 429 anywhere pauses the bucket: every worker learns it with its
next lease and drops what it holds. The learned rate and retries stay per worker (its own `RateLimiter`).
"""

from __future__ import annotations

import math
import time
from typing import Any, Callable, Mapping

import attrs
import trio

from ..llm.limits import RateLimiter, TokenBucket

LEASE_S = 0.25  # a lease is this long a stretch of one worker's share of the rate
VALID_S = 1.0  # permits not spent this long after their lease are dropped


@attrs.frozen
class Lease:
    requests: int
    tokens: int
    wait_s: float  # nothing granted: ask again after this long
    pause_s: float  # the endpoint said 429: every worker holds off this long and drops what it holds


@attrs.frozen
class BatchSize:
    requests: int
    tokens: int

    @classmethod
    def of(cls, requests_per_minute: int, tokens_per_minute: int, workers: int) -> "BatchSize":
        def share(per_minute: int) -> int:
            return max(1, math.ceil(per_minute / 60.0 / workers * LEASE_S)) if per_minute else 0
        return cls(share(requests_per_minute), share(tokens_per_minute))


class LeaseBucket:
    """The global buckets. Plain Python (testable alone); ``ray.remote`` makes it the named actor."""

    def __init__(self, requests_per_minute: int, tokens_per_minute: int,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self.requests = TokenBucket(requests_per_minute, clock) if requests_per_minute else None
        self.tokens = TokenBucket(tokens_per_minute, clock) if tokens_per_minute else None
        self._paused_until = 0.0
        self.leases = 0
        self.granted_requests = 0
        self.granted_tokens = 0
        self.pauses = 0

    def lease(self, requests: int, tokens: int) -> Lease:
        """``requests`` and ``tokens`` permits when the buckets hold them all, else none and how long to wait:
        whole leases only, so a worker's round trips stay one per batch however scarce the permits are."""
        now = self._clock()
        if now < self._paused_until:
            return Lease(0, 0, self._paused_until - now, self._paused_until - now)
        wanted = [(b, min(n, b.capacity)) for b, n in ((self.requests, requests), (self.tokens, tokens))
                  if b is not None and n > 0]
        wait = max([b.wait_time(n) for b, n in wanted] + [0.0])
        if wait > 0:
            return Lease(0, 0, wait, 0.0)
        for b, n in wanted:
            b.take(n)
        got = {id(b): int(n) for b, n in wanted}
        got_r, got_t = got.get(id(self.requests), 0), got.get(id(self.tokens), 0)
        self.leases += 1
        self.granted_requests += got_r
        self.granted_tokens += got_t
        return Lease(got_r, got_t, 0.0, 0.0)

    def give_back(self, requests: int, tokens: int) -> None:
        """Permits a worker leased and will not spend (its shard is done)."""
        for bucket, n in ((self.requests, requests), (self.tokens, tokens)):
            if bucket is not None and n > 0:
                bucket.give_back(n)
        self.granted_requests -= requests
        self.granted_tokens -= tokens

    def pause(self, seconds: float) -> None:
        """Hold every worker for ``seconds`` and empty the buckets."""
        self._paused_until = max(self._paused_until, self._clock() + seconds)
        self.pauses += 1
        for bucket in (self.requests, self.tokens):
            if bucket is not None:
                bucket.drain()

    def paused_for(self) -> float:
        return max(0.0, self._paused_until - self._clock())

    def stats(self) -> dict[str, int]:
        return {"leases": self.leases, "leased_requests": self.granted_requests,
                "leased_tokens": self.granted_tokens, "global_pauses": self.pauses}


class LeasedRateLimiter:
    """The `RateLimiter` interface over leases from a `LeaseBucket` actor. Use inside ``async with``: it runs
    the task that fetches leases. ``call`` turns an actor method and its arguments into a blocking result
    (``ray.get(actor.method.remote(...))``); ``notify`` sends one without waiting."""

    def __init__(self, call: Callable[..., Any], notify: Callable[..., None], batch: BatchSize,
                 local: RateLimiter | None = None, clock: Callable[[], float] | None = None) -> None:
        self._call, self._notify = call, notify
        self.batch = batch
        self.local = local or RateLimiter()  # learned rate and the pause of this worker
        self._clock = clock or trio.current_time
        self._requests = 0.0
        self._tokens = 0.0
        self._expires = -math.inf
        self._lock = trio.Lock()
        self._wanted = trio.Event()
        self._stocked = trio.Event()
        self.leases = 0
        self.round_trip_s = 0.0
        self.permits = 0
        self._nursery: trio.Nursery | None = None
        self._nursery_cm: Any = None

    @property
    def limits_tokens(self) -> bool:
        return self.batch.tokens > 0

    async def __aenter__(self) -> "LeasedRateLimiter":
        self._nursery_cm = trio.open_nursery()
        self._nursery = await self._nursery_cm.__aenter__()
        self._nursery.start_soon(self._fetch_leases)
        return self

    async def __aexit__(self, *exc: Any) -> Any:
        assert self._nursery is not None
        self._nursery.cancel_scope.cancel()
        try:
            return await self._nursery_cm.__aexit__(*exc)
        finally:
            self._expire()
            unused = int(self._requests), max(0, int(self._tokens))
            if any(unused):  # unspent permits go back to the other workers
                self._notify("give_back", *unused)

    def _expire(self) -> None:
        if self._clock() > self._expires:
            self._requests, self._tokens = 0.0, min(self._tokens, 0.0)  # a token debt outlives its lease

    def _enough(self, tokens: int) -> bool:
        """A request larger than a lease goes once a whole lease is in hand (the debt is waited off after)."""
        self._expire()
        return ((not self.batch.requests or self._requests >= 1)
                and (not self.batch.tokens or self._tokens >= max(1, min(tokens, self.batch.tokens))))

    async def acquire(self, estimated_tokens: int = 0) -> None:
        async with self._lock:
            await self.local.acquire(0)
            if not (self.batch.requests or self.batch.tokens):
                return
            while not self._enough(estimated_tokens):
                self._wanted.set()
                await self._stocked.wait()
            self._requests -= 1 if self.batch.requests else 0
            self._tokens -= estimated_tokens if self.batch.tokens else 0
            b = self.batch
            if (b.requests and self._requests <= b.requests / 4) or (b.tokens and self._tokens <= b.tokens / 4):
                self._wanted.set()  # a quarter left: fetch the next lease before this one runs out

    async def _fetch_leases(self) -> None:
        if not (self.batch.requests or self.batch.tokens):
            await self._watch_pauses()
            return
        while True:
            await self._wanted.wait()
            self._wanted = trio.Event()
            t0 = time.perf_counter()
            ask_tokens = self.batch.tokens and max(self.batch.tokens, math.ceil(-self._tokens) + 1)
            lease: Lease = await trio.to_thread.run_sync(self._call, "lease", self.batch.requests, ask_tokens)
            self.round_trip_s += time.perf_counter() - t0
            if lease.pause_s > 0:
                self._requests = self._tokens = 0.0
                self.local.pause(lease.pause_s)
            if lease.requests or lease.tokens:
                self.leases += 1
                self.permits += lease.requests
                self._expire()
                self._requests += lease.requests
                self._tokens += lease.tokens
                self._expires = self._clock() + VALID_S
                self._stocked.set()
                self._stocked = trio.Event()
            else:
                await trio.sleep(lease.wait_s)
                self._wanted.set()

    async def _watch_pauses(self) -> None:
        """No configured limit, so no leases: still learn of a 429 elsewhere, within a lease's time."""
        while True:
            paused = await trio.to_thread.run_sync(self._call, "paused_for")
            if paused > 0:
                self.local.pause(paused)
            await trio.sleep(LEASE_S)

    def on_success(self) -> None:
        self.local.on_success()

    def on_rate_limited(self) -> None:
        self.local.on_rate_limited()

    def settle(self, estimated_tokens: int, actual_tokens: int) -> None:
        if self.batch.tokens:
            self._tokens += estimated_tokens - actual_tokens

    def pause(self, seconds: float) -> None:
        """A 429 or an exhausted quota here: pause this worker now and every other at its next lease."""
        self.local.pause(seconds)
        self._requests = self._tokens = 0.0
        self._notify("pause", seconds)

    def observe_headers(self, headers: Mapping[str, str]) -> None:
        before = self.local._resume_at
        self.local.observe_headers(headers)
        if self.local._resume_at > before:
            self._notify("pause", self.local._resume_at - self._clock())

    def stats(self) -> dict[str, float]:
        return {"worker_leases": self.leases, "leased_permits": self.permits,
                "lease_round_trip_s": round(self.round_trip_s, 4)}
