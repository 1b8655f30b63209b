"""The global buckets a cluster's workers lease from (on Ray: one named actor)."""

from __future__ import annotations

import math
import time
from typing import Callable

import attrs

from ...llm.limits import TokenBucket

STALE_S = 10.0  # a holder not heard of for this long is presumed dead: what it held goes back to the bank


@attrs.frozen
class Lease:
    requests: int
    tokens: int
    wait_s: float  # the permits are usable only after this long (the bucket was short: a reservation)
    pause_s: float  # the endpoint said 429: every worker holds off this long and drops what it holds
    binds: bool = False  # a lease waited on the rate within the bank's second: others are short too
    last: bool = False  # no more tasks are coming: what a task does not spend, no later task will


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
            return Lease(0, 0, 0.0, 0.0, self._binds(), not self._tasks_coming)
        room = self._room(requests, tokens)
        if room is not None:  # no reservation fits: ask again once that much could have been spent
            return Lease(0, 0, room, 0.0, True, not self._tasks_coming)
        wait = max([unit.reserve(holder, n) for unit, n in self._units(requests, tokens) if n > 0] + [0.0])
        if wait > 0:  # the rate binds until the reservation is earned, and for the bank's second after it
            self._short_until = max(self._short_until, now + wait + 1.0)
        got_r, got_t = requests if self.requests else 0, tokens if self.tokens else 0
        self.leases += 1
        self._holders.add(holder)
        self.granted_requests += got_r
        self.granted_tokens += got_t
        return Lease(got_r, got_t, wait, 0.0, now < self._short_until, not self._tasks_coming)

    def give_back(self, holder: str, requests: int, tokens: int) -> None:
        """``holder`` is done; what it has in hand and will not spend goes back to the others (a reservation
        not yet usable is given up, not back: see `HeldBucket.release`)."""
        for unit, n in self._units(requests, tokens):
            unit.release(holder, n)
        self._heard.pop(holder, None)
        self.granted_requests -= requests if self.requests else 0
        self.granted_tokens -= tokens if self.tokens else 0

    def tasks_coming(self, coming: bool) -> None:
        """The driver says whether more tasks will follow those running (until it says otherwise, they do)."""
        self._tasks_coming = coming

    def leave(self, holder: str, requests: int, tokens: int, in_hand_requests: int, in_hand_tokens: int) -> bool:
        """``holder``'s task ends holding ``requests`` and ``tokens`` (``in_hand_*`` of them usable now). It
        keeps them for the next task in its process (True: reported, as a lease would) while more tasks are
        coming; otherwise, or while a 429 pauses every worker, it gives them back (False): held, they would
        leave no room for the stocks of the next stage's processes."""
        if not self._tasks_coming or self.paused_for() > 0:
            self.give_back(holder, in_hand_requests, in_hand_tokens)
            return False
        self.lease(holder, requests, tokens, 0, 0)
        return True

    def _room(self, requests: int, tokens: int) -> float | None:
        """None when ``requests`` and ``tokens`` fit beside what holders hold (reservations included) in the
        bank's one second; else how long to wait before asking again. A reservation is timed by the refill
        it waits for, and the bank refills only up to ``capacity - held``: were more held than the capacity,
        the refill would stop short and reservations already timed would be spent before they were earned."""
        short = [n / unit.bucket.rate for unit, n in self._units(requests, tokens)
                 if n > 0 and sum(unit.held.values()) + n > unit.bucket.capacity + 1e-9]
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

    def stats(self) -> dict[str, int]:
        return {"leases": self.leases, "leased_requests": self.granted_requests,
                "leased_tokens": self.granted_tokens, "global_pauses": self.pauses, "holder_reports": self.reports,
                "holders": len(self._holders)}
