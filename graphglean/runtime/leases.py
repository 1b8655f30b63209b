"""One rate limit for every worker of a cluster: request and token permits leased in batches.

`LeaseBucket` holds the global request and token buckets; on Ray it lives in one named actor. Each worker's
`LeasedRateLimiter` (the `RateLimiter` interface the `ChatClient` calls) spends permits from a stock it leases
from the bucket: the first lease fills the stock to a batch (about a quarter second of the worker's share) plus
a spare quarter, and each later one, asked for when only the spare is left, adds a batch. So a worker asks
again only once it has spent a batch, never because time passed: leases follow calls (at most calls / batch
plus one per holder), and the next lease is on its way while the spare is spent, so callers seldom wait on
the round trip.

Why no burst gets through: the bucket counts what every holder still holds (each lease reports it) against
its one second of banked permits, ``level + held <= capacity``. Whatever the workers spend in a second is then
at most what they held plus what was banked, plus a second of refill: the rate plus one second's burst, however
long permits were held. When the bucket is short, a lease is a reservation: the permits are granted at once
and usable after the wait the bucket needs to earn them, so a lease always takes one round trip.

A holder silent for `STALE_S` (a killed worker) is forgotten, and a worker drops a stock whose last report is
that old, so dead workers do not shrink the bank; a live worker with an idle stock reports it now and then. A
429 anywhere pauses the bucket: every worker learns it with its next lease and drops what it holds. The learned
rate and retries stay per worker (its own `RateLimiter`).
"""

from __future__ import annotations

import math
import time
import uuid
from typing import Any, Awaitable, Callable, Mapping

import attrs
import trio

from ..llm.limits import RateLimiter, TokenBucket

LEASE_S = 0.25  # a batch is this long a stretch of one worker's share of the rate
STALE_S = 10.0  # a holder not heard of for this long is presumed dead: what it held goes back to the bank
REPORT_S = STALE_S / 4  # an idle worker holding permits says so this often, so it is not taken for dead


@attrs.frozen
class Lease:
    requests: int
    tokens: int
    wait_s: float  # the permits are usable only after this long (the bucket was short: a reservation)
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


def spare(batch: int) -> int:
    """Permits left when the next lease is asked for: what is spent while it travels."""
    return math.ceil(batch / 4)


class HeldBucket:
    """One unit's bucket (requests or tokens) whose bank shrinks by what holders hold."""

    def __init__(self, per_minute: int, clock: Callable[[], float]) -> None:
        self.bucket = TokenBucket(per_minute, clock)
        self.held: dict[str, float] = {}

    def level(self) -> float:
        """Refilled up to now, and never more than the capacity less what is held."""
        b = self.bucket
        b.take(0.0)  # refills up to now
        b.level = min(b.level, b.capacity - sum(self.held.values()))
        return b.level

    def report(self, holder: str, holding: float) -> None:
        """``holder`` says it holds ``holding``: less than the bucket knows means spent; more (a request that cost
        fewer tokens than estimated) is charged to the bank, so the sum stays bounded."""
        self.level()
        grown = holding - self.held.get(holder, 0.0)
        if grown > 0:
            self.bucket.level -= grown
        self.held[holder] = holding

    def reserve(self, holder: str, n: int) -> float:
        """Grant ``n`` to ``holder`` now; returns how long until the bank has earned them."""
        wait = max(0.0, (n - self.level()) / self.bucket.rate)
        self.bucket.level -= n
        self.held[holder] = self.held.get(holder, 0.0) + n
        return wait

    def release(self, holder: str, unspent: float) -> None:
        """``holder`` is gone; ``unspent`` of what it held comes back to the bank."""
        self.level()
        self.bucket.level += min(unspent, self.held.pop(holder, 0.0))
        self.level()

    def forget(self, holder: str) -> None:
        self.level()  # the refill until now is bounded by what was held until now
        self.held.pop(holder, None)

    def drain(self) -> None:
        self.level()
        self.bucket.drain()


class LeaseBucket:
    """The global buckets. Plain Python (testable alone); ``ray.remote`` makes it the named actor."""

    def __init__(self, requests_per_minute: int, tokens_per_minute: int,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self.requests = HeldBucket(requests_per_minute, clock) if requests_per_minute else None
        self.tokens = HeldBucket(tokens_per_minute, clock) if tokens_per_minute else None
        self._heard: dict[str, float] = {}
        self._holders: set[str] = set()
        self._paused_until = 0.0
        self.leases = 0
        self.reports = 0
        self.granted_requests = 0
        self.granted_tokens = 0
        self.pauses = 0

    def _units(self, requests: float, tokens: float) -> list[tuple[HeldBucket, float]]:
        return [(u, n) for u, n in ((self.requests, requests), (self.tokens, tokens)) if u is not None]

    def lease(self, holder: str, held_requests: int, held_tokens: int, requests: int, tokens: int) -> Lease:
        """``holder`` holds ``held_*`` and asks for ``requests`` and ``tokens`` more (none: a report only).
        Granted in full unless the bucket is paused; the wait says when they are usable."""
        now = self._clock()
        self._forget_silent(now)
        self._heard[holder] = now
        for unit, n in self._units(held_requests, held_tokens):
            unit.report(holder, n)
        if now < self._paused_until:
            return Lease(0, 0, 0.0, self._paused_until - now)
        if not (requests or tokens):
            self.reports += 1
            return Lease(0, 0, 0.0, 0.0)
        wait = max([unit.reserve(holder, n) for unit, n in self._units(requests, tokens) if n > 0] + [0.0])
        got_r, got_t = requests if self.requests else 0, tokens if self.tokens else 0
        self.leases += 1
        self._holders.add(holder)
        self.granted_requests += got_r
        self.granted_tokens += got_t
        return Lease(got_r, got_t, wait, 0.0)

    def give_back(self, holder: str, requests: int, tokens: int) -> None:
        """``holder`` is done; what it held and will not spend goes back to the others."""
        for unit, n in self._units(requests, tokens):
            unit.release(holder, n)
        self._heard.pop(holder, None)
        self.granted_requests -= requests if self.requests else 0
        self.granted_tokens -= tokens if self.tokens else 0

    def _forget_silent(self, now: float) -> None:
        for holder in [h for h, t in self._heard.items() if now - t > STALE_S]:
            for unit, _ in self._units(0, 0):
                unit.forget(holder)
            del self._heard[holder]

    def pause(self, seconds: float) -> None:
        """Hold every worker for ``seconds`` and empty the buckets."""
        self._paused_until = max(self._paused_until, self._clock() + seconds)
        self.pauses += 1
        for unit, _ in self._units(0, 0):
            unit.drain()

    def paused_for(self) -> float:
        return max(0.0, self._paused_until - self._clock())

    def stats(self) -> dict[str, int]:
        return {"leases": self.leases, "leased_requests": self.granted_requests,
                "leased_tokens": self.granted_tokens, "global_pauses": self.pauses, "holder_reports": self.reports,
                "holders": len(self._holders)}


@attrs.define
class Holding:
    """The permits one worker holds, under one holder name at the bucket. A process keeps its holding from one
    task to the next (`process_holding`) while the rate does not bind, so a task ending does not waste a lease;
    when it binds, a task gives back what it did not spend, so no permit idles while others wait."""

    holder: str = attrs.field(factory=lambda: uuid.uuid4().hex)
    requests: float = 0.0
    tokens: float = 0.0  # below 0: a debt (requests cost more tokens than estimated), paid by the next lease
    pending: tuple[int, int] = (0, 0)  # requests and tokens of a reservation, usable at ``usable_at``
    usable_at: float = -math.inf
    reported_at: float = -math.inf  # when the last call the bucket answered was sent
    busy: bool = False

    def drop(self) -> None:
        self.requests, self.tokens, self.pending = 0.0, min(self.tokens, 0.0), (0, 0)

    def drop_if_stale(self, now: float) -> None:
        """The bucket forgets a holder silent for STALE_S; its permits go with it (a debt stays)."""
        if now - self.reported_at > STALE_S:
            self.drop()

    def report(self) -> tuple[int, int]:
        """What it holds, a reservation included (the bucket counts it from the grant)."""
        return (math.ceil(max(0.0, self.requests)) + self.pending[0],
                math.ceil(max(0.0, self.tokens)) + self.pending[1])


async def ray_result(submit: Callable[..., Any], *args: Any) -> Any:
    """The result of ``submit(*args)``, a Ray ObjectRef, awaited with no thread: Ray's completion callback
    wakes this trio task (a thread blocked in ``ray.get`` waits on the busy worker's GIL to hand it back)."""
    future = submit(*args).future()
    token, done = trio.lowlevel.current_trio_token(), trio.Event()

    def wake(_: Any) -> None:
        try:
            token.run_sync_soon(done.set)
        except trio.RunFinishedError:
            pass

    future.add_done_callback(wake)
    await done.wait()
    return future.result()


_process_holdings: dict[str, Holding] = {}


def process_holding(bucket_name: str) -> Holding | None:
    """This process's holding at the bucket ``bucket_name``; None while a task here uses it."""
    global _process_holdings
    holding = _process_holdings.get(bucket_name)
    if holding is None:
        holding = Holding()
        _process_holdings = {bucket_name: holding}  # holdings at the buckets of past runs are of no use
    return None if holding.busy else holding


class LeasedRateLimiter:
    """The `RateLimiter` interface over leases from a `LeaseBucket` actor. Use inside ``async with``: it runs
    the task that fetches leases. ``call`` turns an actor method and its arguments into a result that
    ``wait_on(call, method, *args)`` awaits (by default in a thread: ``call`` blocks; on Ray `ray_result` of
    ``actor.method.remote``); ``notify`` sends one without waiting. A ``holding`` shared with the next task
    (`process_holding`) is kept on exit unless the rate binds; otherwise its permits go back. ``clock`` is the
    bucket's (time.monotonic on Ray: it is per machine, and only durations are compared)."""

    def __init__(self, call: Callable[..., Any], notify: Callable[..., None], batch: BatchSize,
                 local: RateLimiter | None = None, holding: Holding | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 wait_on: Callable[..., Awaitable[Any]] = trio.to_thread.run_sync) -> None:
        self._call, self._notify, self._clock, self._wait_on = call, notify, clock, wait_on
        self.batch = batch
        self.local = local or RateLimiter()  # learned rate and the pause of this worker
        self._keep = holding is not None
        self._binding = False  # the last lease had to wait: the rate binds, and others need what is left
        self.holding = holding or Holding()
        self._lock = trio.Lock()
        self._wanted = trio.Event()
        self._stocked = trio.Event()
        self._blocked_since: float | None = None
        self.leases = 0
        self.permits = 0
        self.round_trip_s = 0.0
        self.stall_s = 0.0
        self.reports = 0
        self.report_round_trip_s = 0.0
        self.connects = 0
        self.connect_s = 0.0
        self.connect_stall_s = 0.0
        self._nursery: trio.Nursery | None = None
        self._nursery_cm: Any = None

    @property
    def limits_tokens(self) -> bool:
        return self.batch.tokens > 0

    async def __aenter__(self) -> "LeasedRateLimiter":
        self.holding.busy = True
        self.holding.drop_if_stale(self._clock())
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
            self._leave()

    def _leave(self) -> None:
        h = self.holding
        h.busy = False
        if self._keep and not self._binding:  # nobody is short: the next task here spends it, with no lease
            return
        unused = h.report()
        if any(unused):  # unspent permits go back to the other workers
            self._notify("give_back", h.holder, *unused)
        h.drop()

    def _enough(self, tokens: int) -> bool:
        """A request larger than a batch goes once a whole batch is in hand (the debt is paid by the next lease)."""
        h = self.holding
        h.drop_if_stale(self._clock())
        return ((not self.batch.requests or h.requests >= 1)
                and (not self.batch.tokens or h.tokens >= max(1, min(tokens, self.batch.tokens))))

    def _low(self) -> bool:
        """Only the spare is left: time for the next lease."""
        b, h = self.batch, self.holding
        return bool((b.requests and h.requests <= spare(b.requests))
                    or (b.tokens and h.tokens <= spare(b.tokens)))

    async def acquire(self, estimated_tokens: int = 0) -> None:
        async with self._lock:
            await self.local.acquire(0)
            if not (self.batch.requests or self.batch.tokens):
                return
            while not self._enough(estimated_tokens):
                self._wanted.set()
                self._blocked_since = time.perf_counter()
                try:
                    await self._stocked.wait()
                finally:
                    self._blocked_since = None
            self.holding.requests -= 1 if self.batch.requests else 0
            self.holding.tokens -= estimated_tokens if self.batch.tokens else 0
            if self._low():
                self._wanted.set()  # the next lease travels while the spare is spent

    async def _ask(self, requests: int, tokens: int, connect: bool = False) -> Lease:
        """One round trip to the bucket, reporting what this worker holds."""
        h = self.holding
        sent, t0 = self._clock(), time.perf_counter()
        with trio.CancelScope(shield=True):  # a lease granted is counted by the bucket: it must reach the holding
            lease: Lease = await self._wait_on(self._call, "lease", h.holder, *h.report(), requests, tokens)
        t1 = time.perf_counter()
        h.reported_at = sent
        stall = t1 - max(t0, self._blocked_since) if self._blocked_since is not None else 0.0
        if connect:
            self.connects += 1
            self.connect_s += t1 - t0
            self.connect_stall_s += stall
        elif requests or tokens:
            self.round_trip_s += t1 - t0
            if lease.wait_s == 0 and lease.pause_s == 0:  # a caller waited on the round trip, not the rate
                self.stall_s += stall
        else:
            self.reports += 1
            self.report_round_trip_s += t1 - t0
        return lease

    def _top_up(self) -> tuple[int, int]:
        """What fills the stock to a batch plus the spare (a token debt included)."""
        b, h = self.batch, self.holding
        r = b.requests and max(0, b.requests + spare(b.requests) - math.floor(h.requests))
        t = b.tokens and max(0, b.tokens + spare(b.tokens) - math.floor(h.tokens))
        return r, t

    async def _fetch_leases(self) -> None:
        if not (self.batch.requests or self.batch.tokens):
            await self._watch_pauses()
            return
        await self._stock_pending()
        if self.holding.reported_at == -math.inf:
            await self._ask(0, 0, connect=True)  # a process's first call to the actor sets up its connection
        while True:
            with trio.move_on_after(REPORT_S):
                await self._wanted.wait()
            self._wanted = trio.Event()
            h = self.holding
            if not self._low():  # nothing wanted: an idle stock is reported, so the bucket keeps counting it
                if (h.requests > 0 or h.tokens > 0) and self._clock() - h.reported_at > REPORT_S:
                    await self._ask(0, 0)
                continue
            lease = await self._ask(*self._top_up())
            if lease.pause_s > 0:
                h.drop()
                self.local.pause(lease.pause_s)
                await trio.sleep(lease.pause_s)
                self._wanted.set()
                continue
            self.leases += 1
            self.permits += lease.requests
            self._binding = lease.wait_s > 0
            h.pending, h.usable_at = (lease.requests, lease.tokens), self._clock() + lease.wait_s
            await self._stock_pending()

    async def _stock_pending(self) -> None:
        """A reservation joins the stock once the bucket has earned it (the one of a task before, too)."""
        h = self.holding
        if any(h.pending):
            await trio.sleep(max(0.0, h.usable_at - self._clock()))
            h.requests += h.pending[0]
            h.tokens += h.pending[1]
            h.pending = (0, 0)
            self._stocked.set()
            self._stocked = trio.Event()

    async def _watch_pauses(self) -> None:
        """No configured limit, so no leases: still learn of a 429 elsewhere, within a batch's time."""
        while True:
            paused = await self._wait_on(self._call, "paused_for")
            if paused > 0:
                self.local.pause(paused)
            await trio.sleep(LEASE_S)

    def on_success(self) -> None:
        self.local.on_success()

    def on_rate_limited(self, sent_at: float | None = None, retry_after: float | None = None) -> None:
        self.local.on_rate_limited(sent_at, retry_after)

    def answered_since(self, moment: float) -> bool:
        return self.local.answered_since(moment)

    def settle(self, estimated_tokens: int, actual_tokens: int) -> None:
        if self.batch.tokens:
            self.holding.tokens += estimated_tokens - actual_tokens

    def pause(self, seconds: float) -> None:
        """A 429 or an exhausted quota here: pause this worker now and every other at its next lease."""
        self.local.pause(seconds)
        self.holding.drop()
        self._notify("pause", seconds)

    def observe_headers(self, headers: Mapping[str, str]) -> None:
        before = self.local._resume_at
        self.local.observe_headers(headers)
        if self.local._resume_at > before:
            self._notify("pause", self.local._resume_at - trio.current_time())

    def stats(self) -> dict[str, float]:
        return {"worker_leases": self.leases, "leased_permits": self.permits,
                "lease_round_trip_s": round(self.round_trip_s, 4), "lease_stall_s": round(self.stall_s, 4),
                "stock_reports": self.reports, "report_round_trip_s": round(self.report_round_trip_s, 4),
                "connects": self.connects, "connect_s": round(self.connect_s, 4),
                "connect_stall_s": round(self.connect_stall_s, 4)}
