"""A worker's `RateLimiter` that spends permits leased in batches from the global bucket."""

from __future__ import annotations

import math
import time
from typing import Any, Awaitable, Callable, Mapping

import trio

from ....llm.limits import RateLimiter
from .batch import LEASE_S, BatchSize, spare
from .bucket import STALE_S, Lease
from .holding import Holding
from .pace import EXPIRY_S, Pace
from .ray_wait import Arrived

REPORT_S = STALE_S / 4  # an idle worker holding permits says so this often, so it is not taken for dead


class LeasedRateLimiter:
    """The `RateLimiter` interface over leases from a `LeaseBucket` actor. Use inside ``async with``: it runs
    the task that fetches leases. ``call`` turns an actor method and its arguments into a result that
    ``wait_on(call, method, *args)`` awaits (by default in a thread: ``call`` blocks; on Ray `ray_result` of
    ``actor.method.remote``); ``notify`` sends one without waiting. A ``holding`` shared with the next task
    (`process_holding`) is kept on exit unless the rate binds and the bucket says no more tasks are coming;
    a holding of this task alone goes back. ``clock`` is the bucket's (time.monotonic on Ray: it is per
    machine, and only durations are compared)."""

    def __init__(self, call: Callable[..., Any], notify: Callable[..., None], batch: BatchSize,
                 local: RateLimiter | None = None, holding: Holding | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 wait_on: Callable[..., Awaitable[Any]] = trio.to_thread.run_sync) -> None:
        self._call, self._notify, self._clock, self._wait_on = call, notify, clock, wait_on
        self.batch = batch
        self.local = local or RateLimiter()  # learned rate and the pause of this worker
        self._keep = holding is not None
        self.holding = holding or Holding()
        self._lock = trio.Lock()
        self._wanted = trio.Event()
        self._stocked = trio.Event()
        self._pushed_back = trio.Event()  # this worker saw a 429 or an exhausted quota
        self._blocked_since: float | None = None
        self.leases = 0
        self.permits = 0
        self.paced = 0
        self.void = 0
        self.round_trip_s = 0.0
        self.stall_s = 0.0
        self.reply_wait_s = 0.0
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
        if any(self.holding.report()):  # kept from a task before: the bucket may have taken it back since
            await self._ask(0, 0)
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
            with trio.CancelScope(shield=True):  # what the bucket counts must match what the process keeps
                await self._leave()

    async def _leave(self) -> None:
        h = self.holding
        try:
            if self._keep and not any(h.report()) and not any(h.told):  # the bucket counts nothing here
                return
            sent = self._clock()
            h.told = h.report()
            if self._keep and (await self._reply("leave", h.holder, *h.told, *h.in_hand()))[0]:
                h.reported_at = sent  # the bucket counts it from now: more tasks are coming to spend it
                return
            if not self._keep and (any(h.report()) or any(h.told)):  # unspent permits go back to the others
                self._notify("give_back", h.holder, *h.in_hand())
            h.drop()
        finally:
            h.busy = False

    def _callers(self) -> int:
        """Callers waiting for a permit now (the one holding the lock included)."""
        return self._lock.statistics().tasks_waiting + self._lock.locked()

    def _paces(self, callers: int) -> bool:
        """Callers enough for a least batch ask for their permits in one lease: what the bank has comes in
        stock, the rest as a schedule, which needs no room in the bank's one second (a stock is cut to the
        worker's share of that second, and its round trip shared by a few permits). Not while round trips
        take half a scheduled permit's time or more, nor before one was measured: the first permits would go
        void on the way."""
        h = self.holding
        return bool(self.batch.requests and callers >= self.batch.requests
                    and h.round_trips and h.round_trip_s < EXPIRY_S / 2)

    def sized(self) -> BatchSize:
        """The batch now: grown so that the round trip this process measures costs each permit little; when
        the rate binds and no task is coming to spend what this one leaves, to no more than the callers
        waiting now (the one holding the lock included)."""
        h = self.holding
        callers = self._callers() if h.binding and h.last else None
        return self.batch.grown(h.round_trip_s, h.tokens_per_request, callers)

    def _enough(self, tokens: int) -> bool:
        """A request larger than a batch goes once a whole batch is in hand (the debt is paid by the next lease)."""
        h = self.holding
        h.drop_if_stale(self._clock())
        return ((not self.batch.requests or h.requests >= 1 or h.pace_usable(self._clock()) >= 1)
                and self._enough_tokens(tokens))

    def _enough_tokens(self, tokens: int) -> bool:
        return not self.batch.tokens or self.holding.tokens >= max(1, min(tokens, self.sized().tokens))

    def _pace_wait(self, tokens: int) -> float | None:
        """How long until the schedule earns the permit a caller lacks (None: it lacks more than that)."""
        h = self.holding
        at = h.pace_next_at()
        if at is None or not self._enough_tokens(tokens):
            return None
        return max(0.0, at - self._clock())

    def _spare(self, batch: int) -> int:
        """Permits left when the next lease is asked for. None while the rate binds: the next lease waits on
        the rate more than on its round trip, and what is spent after a lease is asked for, the bucket learns
        of only at the next one (counting it held meanwhile, it banked less and slowed every worker)."""
        return 0 if self.holding.binding else spare(batch)

    def _low(self) -> bool:
        """Only the spare is left: time for the next lease. The spare of the batch the stock was filled to
        when the batch has grown since (so a lease still follows a batch of calls)."""
        b, h = self.sized(), self.holding
        if h.binding:  # the next lease waits behind the others' in the bucket: asked for only by a caller short
            return False  # (one asked ahead could come after the task ended, wasted for those behind it)
        requests, tokens = (min(now, then) if then else now
                            for now, then in ((b.requests, h.leased[0]), (b.tokens, h.leased[1])))
        return bool((requests and h.requests <= self._spare(requests))
                    or (tokens and h.tokens <= self._spare(tokens)))

    def _due(self) -> bool:
        """A lease is due: a caller waits (a request may need more tokens than the stock above the spare), or
        only the spare is left."""
        return self._blocked_since is not None or self._low()

    def acquire_nowait(self, estimated_tokens: int = 0) -> bool:
        """With no configured limit (nothing leased), a turn taken without yielding when nobody waits and this
        worker is not paused; False otherwise (then `acquire`). Awaited, every call held the lock across the
        local limiter's checkpoint, so a task's calls passed the limiter one per scheduler pass."""
        if self.batch.requests or self.batch.tokens or self._lock.locked():
            return False
        return self.local.acquire_nowait(0)

    async def acquire(self, estimated_tokens: int = 0) -> None:
        async with self._lock:
            await self.local.acquire(0)
            if not (self.batch.requests or self.batch.tokens):
                return
            while not self._enough(estimated_tokens):
                wait = self._pace_wait(estimated_tokens)
                if wait is not None:
                    await trio.sleep(wait)
                    continue
                self._wanted.set()
                self._blocked_since = self._clock()
                try:
                    await self._stocked.wait()
                finally:
                    self._blocked_since = None
            if self.batch.requests:
                if self.holding.pace_usable(self._clock()) >= 1:
                    self.holding.pace.spend()  # type: ignore[union-attr]
                else:
                    self.holding.requests -= 1
            if self.batch.tokens:
                self.holding.tokens -= estimated_tokens
                self.holding.heard_tokens(estimated_tokens)
            if self._low():
                self._wanted.set()  # the next lease travels while the spare is spent

    async def _ask(self, requests: int, tokens: int, connect: bool = False, pace: bool = False) -> Lease:
        """One round trip to the bucket, reporting what this worker holds. A schedule granted joins the
        holding here (it is timed from when it was asked and when the reply came)."""
        h = self.holding
        t0 = self._clock()
        with trio.CancelScope(shield=True):  # a lease granted is counted by the bucket: it must reach the holding
            h.told = h.report()
            lease, arrived = await self._reply("lease", h.holder, *h.told, requests, tokens, *[True] * pace)
            if lease.reclaimed:
                h.drop()
            if lease.paced:
                self._count_void()
                h.pace = Pace(lease.paced, lease.start, lease.rate, t0, max(t0, arrived))
                if arrived - t0 >= EXPIRY_S:  # each permit's window closed before the reply came: none usable
                    self.void, h.pace = self.void + lease.paced, None
        t1 = self._clock()
        if not connect:  # a connection's set-up is no round trip of the leases to come
            h.heard_round_trip(arrived - t0)
        h.reported_at = t0
        h.binding, h.last = lease.binds, lease.last
        stall = t1 - max(t0, self._blocked_since) if self._blocked_since is not None else 0.0
        if connect:
            self.connects += 1
            self.connect_s += t1 - t0
            self.connect_stall_s += stall
        elif requests or tokens:
            self.round_trip_s += arrived - t0
            self.reply_wait_s += t1 - arrived
            if lease.wait_s == 0 and lease.pause_s == 0:  # a caller waited on the round trip, not the rate
                self.stall_s += stall
        else:
            self.reports += 1
            self.report_round_trip_s += arrived - t0
        return lease

    def _count_void(self) -> None:
        """Scheduled permits gone void (no caller took them in time) join this task's figures."""
        pace = self.holding.pace
        if pace is not None:
            self.void, pace.void = self.void + pace.void, 0

    async def _reply(self, method: str, *args: Any) -> tuple[Any, float]:
        """The bucket's answer, and when it reached this process (on Ray, maybe well before this loop, busy
        with the calls, took it up; otherwise now)."""
        answer = await self._wait_on(self._call, method, *args)
        if isinstance(answer, Arrived):
            return answer.value, answer.at
        return answer, self._clock()

    def _top_up(self) -> tuple[int, int]:
        """What fills the stock to a batch plus the spare (a token debt included)."""
        b, h = self.sized(), self.holding
        r = b.requests and max(0, b.requests + self._spare(b.requests) - math.floor(h.requests))
        t = b.tokens and max(0, b.tokens + self._spare(b.tokens) - math.floor(h.tokens))
        return r, t

    async def _fetch_leases(self) -> None:
        if not (self.batch.requests or self.batch.tokens):
            await self._watch_pauses()
            return
        await self._stock_pending()
        if self.holding.reported_at == -math.inf:
            await self._ask(0, 0, connect=True)  # a process's first call to the actor sets up its connection
        while True:
            wanted = False
            with trio.move_on_after(LEASE_S if self._scheduled() else REPORT_S):
                await self._wanted.wait()
                wanted = True  # a caller asked: an empty stock of a task with no call is no want
            self._wanted = trio.Event()
            if not wanted and self._scheduled():
                await self._heed_pause()
            asked, pace = (0, 0), False
            if wanted and self._due():
                asked, callers = self._top_up(), self._callers()
                pace = self._paces(callers)
                if self._scheduled():  # the schedule serves the requests: a caller short of tokens asks for those
                    asked, pace = (0, asked[1]), False
                elif pace:
                    asked = (min(callers, self.batch.paced_requests), asked[1])
            if any(asked):  # none: the caller that waited has what it needs, and has not run yet
                await self._lease(*asked, pace=pace)
            elif self._idle_unreported():  # so the bucket keeps counting it
                await self._ask(0, 0)

    def _scheduled(self) -> bool:
        """Scheduled permits are still to come (no lease is asked for while they serve the callers)."""
        pace = self.holding.pace
        return pace is not None and pace.next_at() is not None

    async def _heed_pause(self) -> int:
        """Ask the bucket whether a pause is on (a 429 at another worker) and heed it as a 429 here: pause this
        worker and drop what it holds, a schedule included. Returns how many pauses there were so far. A
        schedule covers up to PACE_S of calls with no lease, so it is asked every LEASE_S meanwhile."""
        (paused, pauses), _ = await self._reply("pause_state")
        if paused > 0:
            self.local.pause(paused)
            self.holding.drop()
        return pauses

    def _idle_unreported(self) -> bool:
        h = self.holding
        return (h.requests > 0 or h.tokens > 0) and self._clock() - h.reported_at > REPORT_S

    async def _lease(self, requests: int, tokens: int, pace: bool = False) -> None:
        h, b = self.holding, self.sized()
        h.leased = (b.requests, b.tokens)
        lease = await self._ask(requests, tokens, pace=pace)
        if lease.pause_s > 0 or not (lease.requests or lease.tokens):  # a 429 pause, or no room at the bucket
            if lease.pause_s > 0:
                h.drop()
                self.local.pause(lease.pause_s)
            await trio.sleep(lease.pause_s or lease.wait_s)
            self._wanted.set()
            return
        self.leases += 1
        self.permits += lease.requests
        self.paced += lease.paced
        h.pending, h.usable_at = (lease.requests - lease.paced, lease.tokens), self._clock() + lease.wait_s
        h.told = h.report()
        if lease.paced and not any(h.pending):
            self._wake()  # the schedule alone serves them
        await self._stock_pending()

    async def _stock_pending(self) -> None:
        """A reservation joins the stock once the bucket has earned it (the one of a task before, too)."""
        h = self.holding
        if any(h.pending):
            await trio.sleep(max(0.0, h.usable_at - self._clock()))
            h.requests += h.pending[0]
            h.tokens += h.pending[1]
            h.pending = (0, 0)
            self._wake()

    def _wake(self) -> None:
        """Callers waiting on a lease look again."""
        self._blocked_since = None  # a caller still short says so again: no lease for one already served
        self._stocked.set()
        self._stocked = trio.Event()

    async def _watch_pauses(self) -> None:
        """No configured limit, so no leases: still learn of a 429 elsewhere. Every LEASE_S once the endpoint
        has shown it pushes back (a pause anywhere before, or a 429 here); until then every REPORT_S, so a run
        that is never paused costs the bucket a tenth of the calls (a pause shorter than REPORT_S may end before
        a worker asks: its own 429 tells it then)."""
        h = self.holding
        while True:
            h.pauses_seen = await self._heed_pause() > 0 or h.pauses_seen
            if h.pauses_seen:
                await trio.sleep(LEASE_S)
            else:
                with trio.move_on_after(REPORT_S):
                    await self._pushed_back.wait()

    def _seen_push_back(self) -> None:
        self.holding.pauses_seen = True
        self._pushed_back.set()

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
        self._seen_push_back()
        self._notify("pause", seconds)

    def observe_headers(self, headers: Mapping[str, str]) -> None:
        before = self.local._resume_at
        self.local.observe_headers(headers)
        if self.local._resume_at > before:
            self._seen_push_back()
            self._notify("pause", self.local._resume_at - trio.current_time())

    def stats(self) -> dict[str, float]:
        self._count_void()
        return {"worker_leases": self.leases, "leased_permits": self.permits, "paced_permits": self.paced,
                "void_permits": self.void,
                "lease_round_trip_s": round(self.round_trip_s, 4), "lease_reply_wait_s": round(self.reply_wait_s, 4),
                "lease_stall_s": round(self.stall_s, 4),
                "stock_reports": self.reports, "report_round_trip_s": round(self.report_round_trip_s, 4),
                "connects": self.connects, "connect_s": round(self.connect_s, 4),
                "connect_stall_s": round(self.connect_stall_s, 4)}
