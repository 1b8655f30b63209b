"""The global buckets a cluster's workers lease from (on Ray: one named actor)."""

from __future__ import annotations

import math
import time
from typing import Callable

import attrs

from ....llm.limits import TokenBucket
from .pace import EXPIRY_S

STALE_S = 10.0  # a holder not heard of for this long is presumed dead: what it held goes back to the bank


@attrs.frozen
class Lease:
    requests: int
    tokens: int
    wait_s: float  # the permits are usable only after this long (the bucket was short: a reservation)
    pause_s: float  # the endpoint said 429: every worker holds off this long and drops what it holds
    binds: bool = False  # a lease waited on the rate within the bank's second: others are short too
    last: bool = False  # no more tasks are coming: what a task does not spend, no later task will
    paced: int = 0  # of ``requests``, these come as a schedule (`Pace`), the rest in stock
    start: float = 0.0  # the schedule's start (`Pace.start`)
    rate: float = 0.0  # the schedule's rate, a second
    reclaimed: bool = False  # what the holder kept after its last task went back: it holds nothing now


class HeldBucket:
    """One unit's bucket (requests or tokens) whose bank shrinks by what holders hold, and, while scheduled
    permits may still be spent, by the most of them one EXPIRY_S can earn (`pace`)."""

    def __init__(self, per_minute: int, clock: Callable[[], float]) -> None:
        self.bucket = TokenBucket(per_minute, clock)
        self.held: dict[str, float] = {}
        self._clock = clock
        self.paced_until = -math.inf  # a scheduled permit may be spent until then
        self.pace_slack = self.bucket.rate * EXPIRY_S + 1  # the most scheduled permits earned in EXPIRY_S

    def slack(self) -> float:
        """What scheduled permits earned but not yet spent may come to (none once no schedule is live)."""
        return self.pace_slack if self._clock() < self.paced_until else 0.0

    def room(self) -> float:
        """What holders may hold in all."""
        return self.bucket.capacity - self.slack()

    def level(self) -> float:
        """Refilled up to now, and never more than the room less what is held."""
        b = self.bucket
        b.take(0.0)  # refills up to now
        b.level = min(b.level, self.room() - sum(self.held.values()))
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

    def can_pace(self) -> bool:
        """Holders hold no more than the room a live schedule leaves."""
        return sum(self.held.values()) <= self.bucket.capacity - self.pace_slack + 1e-9

    def pace(self, holder: str, n: int) -> tuple[int, float]:
        """Grant ``n`` to ``holder`` (`can_pace`): what the bank has in whole permits in stock, the rest as a
        schedule the refill earns one after the other; returns the stock and the schedule's start (`Pace`).
        Scheduled permits are not held: each is spent within EXPIRY_S of being earned or is void, so the bank
        makes room for those one EXPIRY_S earns (`slack`) while any may be spent, and the refill, never
        stopped by what is held (at most the room), pays the schedules in time."""
        b, now = self.bucket, self._clock()
        paced_until = self.paced_until
        self.paced_until = max(self.paced_until, now + EXPIRY_S)  # the slack applies from now
        stock = min(n, math.floor(max(0.0, self.level()) + 1e-9))
        self.reserve(holder, stock)
        start = self.level()
        if n == stock:
            self.paced_until = paced_until
            return stock, start
        b.level -= n - stock
        self.paced_until = max(paced_until, now + (n - stock - start) / b.rate + EXPIRY_S)
        return stock, start

    def release(self, holder: str, unspent: float) -> None:
        """``holder`` is gone; ``unspent`` of what it held (in hand: earned) comes back to the bank. A reservation
        it gave up is lost: reservations granted after it are timed after it, and its permits given to another
        now would be earned twice."""
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
        self._tasks_coming = True
        self._short_until = -math.inf  # a lease waited on the rate: others may wait until then
        self._kept: dict[str, tuple[int, int]] = {}  # holders between tasks, and what they kept in hand
        self._reclaimed: set[str] = set()
        self.leases = 0
        self.reports = 0
        self.granted_requests = 0
        self.granted_tokens = 0
        self.pauses = 0

    def _units(self, requests: float, tokens: float) -> list[tuple[HeldBucket, float]]:
        return [(u, n) for u, n in ((self.requests, requests), (self.tokens, tokens)) if u is not None]

    def lease(self, holder: str, held_requests: int, held_tokens: int, requests: int, tokens: int,
              pace: bool = False) -> Lease:
        """``holder`` holds ``held_*`` and asks for ``requests`` and ``tokens`` more (none: a report only).
        Granted in full unless the bucket is paused; the wait says when they are usable. With ``pace`` (the
        holder has that many callers waiting) requests the bank lacks come as a schedule (`HeldBucket.pace`),
        or, while holders hold too much for one, as many in stock as fit beside them."""
        now = self._clock()
        self._forget_silent(now)
        self._heard[holder] = now
        self._kept.pop(holder, None)
        if holder in self._reclaimed:  # what it reports holding went back: it drops it and asks again
            self._reclaimed.discard(holder)
            return Lease(0, 0, 0.0, 0.0, self._binds(), not self._tasks_coming, reclaimed=True)
        for unit, n in self._units(held_requests, held_tokens):
            unit.report(holder, n)
        if now < self._paused_until:
            return Lease(0, 0, 0.0, self._paused_until - now)
        if not (requests or tokens):
            self.reports += 1
            return Lease(0, 0, 0.0, 0.0, self._binds(), not self._tasks_coming)
        r = self.requests
        paced = bool(pace and r is not None and requests > r.level() and r.can_pace())
        if pace and r is not None and not paced:  # in stock, as much as fits beside what holders hold
            requests = min(requests, max(1, math.floor(r.room() - sum(r.held.values()) + 1e-9)))
        room = self._room(0 if paced else requests, tokens)
        if room is not None:  # no reservation fits: ask again once that much could have been spent
            return Lease(0, 0, room, 0.0, True, not self._tasks_coming)
        stock, start, earned = requests, 0.0, 0.0
        if paced:
            assert r is not None
            stock, start = r.pace(holder, requests)
            earned = (requests - stock - start) / r.bucket.rate
        wait = max([unit.reserve(holder, n) for unit, n in self._units(0 if paced else requests, tokens) if n > 0]
                   + [0.0])
        if max(wait, earned) > 0:  # the rate binds until all is earned, and for the bank's second after it
            self._short_until = max(self._short_until, now + max(wait, earned) + 1.0)
        got_r, got_t = requests if r else 0, tokens if self.tokens else 0
        self.leases += 1
        self._holders.add(holder)
        self.granted_requests += got_r
        self.granted_tokens += got_t
        return Lease(got_r, got_t, wait, 0.0, now < self._short_until, not self._tasks_coming,
                     paced=requests - stock if paced else 0, start=start, rate=r.bucket.rate if paced and r else 0.0)

    def give_back(self, holder: str, requests: int, tokens: int) -> None:
        """``holder`` is done; what it has in hand and will not spend goes back to the others (a reservation
        not yet usable is given up, not back: see `HeldBucket.release`)."""
        for unit, n in self._units(requests, tokens):
            unit.release(holder, n)
        self._heard.pop(holder, None)
        self.granted_requests -= requests if self.requests else 0
        self.granted_tokens -= tokens if self.tokens else 0

    def tasks_coming(self, coming: bool) -> None:
        """The driver says whether more tasks will follow those running (until it says otherwise, they do).
        When none will and the rate binds, what processes between tasks kept goes back to the others (each
        learns it at its next task's first call: `Lease.reclaimed`)."""
        self._tasks_coming = coming
        if not coming and self._binds():
            for holder, (requests, tokens) in self._kept.items():
                if any(unit.held.get(holder) for unit, _ in self._units(0, 0)):
                    self.give_back(holder, requests, tokens)
                    self._reclaimed.add(holder)
            self._kept.clear()

    def leave(self, holder: str, requests: int, tokens: int, in_hand_requests: int, in_hand_tokens: int) -> bool:
        """``holder``'s task ends holding ``requests`` and ``tokens`` (``in_hand_*`` of them usable now). It
        keeps them for the next task in its process (True: reported, as a lease would) while more tasks are
        coming or the rate does not bind (so a later stage's task in the process needs no lease); otherwise,
        or while a 429 pauses every worker, it gives them back (False): held, they would leave no room for
        the stocks of the next stage's processes."""
        if (not self._tasks_coming and self._binds()) or self.paused_for() > 0:
            self.give_back(holder, in_hand_requests, in_hand_tokens)
            return False
        self.lease(holder, requests, tokens, 0, 0)
        self._kept[holder] = (in_hand_requests, in_hand_tokens)
        return True

    def _room(self, requests: int, tokens: int) -> float | None:
        """None when ``requests`` and ``tokens`` fit beside what holders hold (reservations included) in the
        bank's one second; else how long to wait before asking again. A reservation is timed by the refill
        it waits for, and the bank refills only up to ``capacity - held``: were more held than the capacity,
        the refill would stop short and reservations already timed would be spent before they were earned."""
        short = [n / unit.bucket.rate for unit, n in self._units(requests, tokens)
                 if n > 0 and sum(unit.held.values()) + n > unit.room() + 1e-9]
        return max(short) if short else None

    def _binds(self) -> bool:
        return self._clock() < self._short_until

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

    def pause_state(self) -> tuple[float, int]:
        """How long every worker is still paused, and how many pauses there were."""
        return self.paused_for(), self.pauses

    def stats(self) -> dict[str, int]:
        return {"leases": self.leases, "leased_requests": self.granted_requests,
                "leased_tokens": self.granted_tokens, "global_pauses": self.pauses, "holder_reports": self.reports,
                "holders": len(self._holders)}
