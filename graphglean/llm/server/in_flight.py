"""`AdaptiveConcurrency`: the requests one client allows in flight, a CapacityLimiter sized to what is allowed, with
its cuts after 429s, 503s and timeouts, and the timeline of its changes (report.json's ``llm.concurrency``)."""

from __future__ import annotations

import math
from typing import Any, Callable

import trio


class AdaptiveConcurrency:
    """A CapacityLimiter sized to what is allowed: the configured maximum, or less, the ``ceiling`` the rule of
    the server's slots sets (`ConcurrencyRule`), and the ceiling 429s set.

    A 429, a 503 or a timeout halves the requests in flight (one cut per round of requests, like the learned
    rate); they grow back to what is allowed over the next ``recovery_s`` seconds while answers come. 429s that
    come again after a cut may be a limit on requests at once (a proxy's, a key's): the ceiling becomes one less
    than the fewest in flight that met a 429 since the cut (while a trial is under way and the 429s say when to
    come back, a rate limiter's way: the requests the server holds and one more), and is probed an eighth
    above (at least one) after ``PROBE_S`` without a 429 (a probe that meets one goes back, and doubles the
    wait before the next).

    A 429 starts a trial, unless one is under way: the requests the server holds then (those on the wire that
    are not refused too). It ends when the first of them is answered. A request sent after the 429 and taken
    meanwhile (on the wire longer than a 429 takes to come back) while all of them went on: the server took
    more than it held when it refused, so its 429s are a rate limit's (`rate_limit`); as are 429s whose own
    headers state a rate limit (``x-ratelimit-*``), and 429s while it held none of ours, until a later trial
    finds a limit on requests at once (other clients of the key held its places). A rate limit's 429s set no
    ceiling here and cut nothing from then on: `limits.LearnedRate` paces the requests (a rate limit refuses
    what comes too soon, at any number in flight: a ceiling learned from such 429s held the run at about half
    the rate, QA's F2). Requests sent after the 429 that were refused until one of those held ended: a limit
    on requests at once, as many as it held (the ceiling, and said in ``timeline``).

    Each change is kept with its reason in ``timeline``: a reason said again soon after is counted in its
    entry; the first `KEPT_FIRST` and the latest entries are kept, `KEPT` in all."""

    KEPT = 64
    KEPT_FIRST = 16
    PROBE_S = 8.0
    MAX_PROBE_S = 256.0

    def __init__(self, maximum: int, clock: Callable[[], float] | None = None, recovery_s: float = 4.0) -> None:
        self.maximum = maximum
        self.ceiling = maximum
        self.start = maximum  # the limit the first request went with (after the server's report of its slots)
        self.limiter = trio.CapacityLimiter(maximum)
        self.recovery_s = recovery_s
        self.clock = clock or _now_or_zero
        self._began = self.clock()  # (a client is made in the run it serves)
        self._last_cut = -math.inf
        self._cut_to = maximum
        self.refused = math.inf  # the ceiling 429s set
        self._refused_least = math.inf  # the fewest in flight that met a 429 since the last cut
        self._refused_rounds = 0  # cuts after 429s
        self._probe_s = self.PROBE_S
        self._probe_at = math.inf
        self.listeners: list[Callable[[], None]] = []  # told when more requests may go (a gate fills its places)
        self.flying: set[Any] = set()  # the client's attempts on the wire (`AttemptWatch`es: their ``sent_at``)
        self.rate_limit = ""  # why the 429s are a rate limit's, once they are known to be
        self._provisional = False  # known only from 429s while the server held none of ours: trials go on
        self.on_rate_limit: Callable[[str], None] | None = None  # told that, once
        self._trial: tuple[float, set[Any]] | None = None  # since when, the requests the server held then
        self._tested = False  # a request sent after the trial began was refused
        self._confirmed = False  # a trial found a limit on requests at once
        self._refusal_s = 0.0  # the longest a 429 took to come back
        self.timeline: list[list[Any]] = [[0.0, maximum, "llm.max_concurrency", 1, 0.0]]
        self.dropped = 0  # changes left out of the timeline (between its first and its latest)

    @property
    def current(self) -> int:
        """Requests allowed in flight now."""
        return int(self.limiter.total_tokens)

    @property
    def allowed(self) -> int:
        return int(max(1, min(self.maximum, self.ceiling, self.refused)))

    def note(self, limit: int, reason: str) -> None:
        """Keep a change of the limit in the timeline (in the entry of the same reason, if one of the last two)."""
        t = round(self.clock() - self._began, 3)
        for entry in self.timeline[-2:]:
            if entry[2] == reason and len(self.timeline) > 1:
                entry[1], entry[3], entry[4] = limit, entry[3] + 1, t
                return
        self.timeline.append([t, limit, reason, 1, t])
        if len(self.timeline) > self.KEPT:
            del self.timeline[self.KEPT_FIRST]
            self.dropped += 1

    def set_ceiling(self, n: int, reason: str = "") -> None:
        """Allow at most ``n`` in flight (the requests in flight keep their places)."""
        self.ceiling = max(1, n)
        self._apply(reason)

    def _apply(self, reason: str) -> None:
        """The limiter to what is allowed now: at once if lower; if higher, once the last cut has recovered."""
        total = int(self.limiter.total_tokens)
        allowed = self.allowed
        if total > allowed:
            self.limiter.total_tokens = allowed
            self.note(allowed, reason)
        elif total < allowed and self.clock() - self._last_cut >= self.recovery_s:
            self.limiter.total_tokens = allowed
            self.note(allowed, reason)
            for wake in self.listeners:
                wake()

    @property
    def at_once(self) -> bool:
        """A trial found the 429s a limit on requests at once (and none found them a rate limit's): they teach
        no rate (one per Retry-After held such a run at a fraction of what it could do)."""
        return self._confirmed and not self.rate_limit

    def answered(self, watch: Any) -> None:
        """``watch``'s attempt was answered: the first of a trial's requests to be is its end (see the class
        docstring)."""
        trial = self._trial
        if trial is None or watch not in trial[1]:
            return
        self._trial, (began, held) = None, trial
        if not held <= self.flying:  # one ended otherwise meanwhile: a place may have been freed
            return
        since = self.clock() - max(0.25, 3 * self._refusal_s)
        if any(began < w.sent_at <= since for w in self.flying):
            self._rated(f"a request sent after a 429 was taken while the {len(held)} held then went on")
        elif self._tested:  # requests sent after it were refused until one of those held ended
            self._confirmed, reason = True, f"429s while the server held {len(held)}: a limit on requests at once"
            if self._provisional:  # those 429s came while others (another client of the key) held its places
                self.rate_limit, self._provisional = "", False
            self._limit_refused(int(min(len(held), self.refused)), reason)
            if self.timeline[-1][2] != reason:
                self.note(self.current, reason)

    def back_off(self, sent_at: float | None = None, reason: str = "a 429", in_flight: int = 0,
                 watch: Any = None, rate_said: bool = False, wait_said: bool = False) -> None:
        """A 429, a 503 or a timeout of a request sent at ``sent_at`` with ``in_flight`` requests in flight (itself
        included; given for 429s, with the request's ``watch``, ``rate_said``: its headers state a rate limit,
        and ``wait_said``: it said when to come back): half as many in flight, unless a cut came after it was
        sent, or it went above the ceiling (it answers the old number, it is no news); 429s again after a cut:
        the ceiling, or while a trial is under way and the 429s say when to come back (a rate limiter's way),
        the requests the server holds and one more, tried. A rate limit's 429s cut nothing (see the class
        docstring)."""
        now = self.clock()
        if in_flight:
            if sent_at is not None:
                self._refusal_s = max(self._refusal_s, now - sent_at)
            if rate_said and (self._provisional or not self.rate_limit):
                self._rated("its 429s carry x-ratelimit headers")
            if self.rate_limit and not self._provisional:
                return
            self._try(watch, now)
            if self.rate_limit:
                return
            self._refused_least = min(self._refused_least, in_flight)
        if (now - self._last_cut < 1.0) if sent_at is None else (sent_at <= self._last_cut or in_flight > self.refused):
            return
        self._last_cut = now
        if in_flight and self._refused_rounds:
            least, self._refused_least = self._refused_least, math.inf
            if wait_said and not self._confirmed and self._trial is not None:
                held = len(self._trial[1] & self.flying)
                self._limit_refused(held + 1, f"429s at {least} in flight: the {held} held, and one more tried")
                return
            if least >= self.refused:  # the probe met a 429: back, and probed again after twice as long
                self._probe_s = min(self.MAX_PROBE_S, 2 * self._probe_s)
            self._limit_refused(int(min(least, self.refused)) - 1, f"429s at {least} in flight")
            return
        self._refused_rounds += bool(in_flight)
        self._refused_least = math.inf
        self._cut_to = max(1, int(self.limiter.total_tokens) // 2)
        self.limiter.total_tokens = self._cut_to
        self.note(self._cut_to, f"halved after {reason}")

    def _try(self, refused: Any, now: float) -> None:
        """A 429 (of ``refused``'s request): a trial begins, of the requests the server holds now, unless one is
        under way (a request sent after its start refused tests it); one whose requests were all refused too (the
        server held none of ours) is over: a rate limit, until a later trial finds a limit on requests at once
        (with a key shared by several clients, the others may hold its places); after one, no rate limit."""
        trial = self._trial
        if trial is not None:
            trial[1].discard(refused)
            if not trial[1] <= self.flying:  # one of them ended otherwise (a 5xx, a timeout): it tells nothing
                trial = None
        if trial is not None and not trial[1] and now - trial[0] > max(0.25, 3 * self._refusal_s):
            if not (self.rate_limit or self._confirmed):
                self._rated("429s while the server held none of ours", firm=False)
                return
            trial = None  # nothing more to learn of it: a trial of those held now
        if trial is None:
            self._trial, self._tested = (now, set(self.flying) - {refused}), False
        elif refused is not None and refused.sent_at > trial[0]:
            self._tested = True

    def _rated(self, why: str, firm: bool = True) -> None:
        """The 429s are a rate limit's (``why``): no ceiling of theirs, and no cut for them from now on; not
        ``firm``: until a trial finds a limit on requests at once."""
        told = bool(self.rate_limit)
        self.rate_limit, self._trial, self._provisional = why, None, not firm
        self.refused = self._probe_at = math.inf
        reason = f"429s of a rate limit ({why}): a rate is learned, not a number at once"
        self._apply(reason)
        if self.timeline[-1][2] != reason:
            self.note(self.current, reason)
        if self.on_rate_limit is not None and not told:
            self.on_rate_limit(why)

    def _limit_refused(self, n: int, reason: str) -> None:
        self.refused, self._probe_at = max(1, n), self.clock() + self._probe_s
        if n >= self.maximum:  # probed up to the maximum: no ceiling of 429s any more
            self.refused = self._probe_at = math.inf
        self._apply(reason)

    def on_success(self) -> None:
        if self.clock() >= self._probe_at:  # no 429 since the ceiling was set: one more may go
            self._limit_refused(int(self.refused) + max(1, int(self.refused) // 8), "probing above the 429s' ceiling")
        total, allowed = int(self.limiter.total_tokens), self.allowed
        if total < allowed:
            back = min(1.0, (self.clock() - self._last_cut) / self.recovery_s)
            target = min(allowed, self._cut_to + math.ceil((allowed - self._cut_to) * back))
            if target > total:
                self.limiter.total_tokens = target
                if target == allowed:
                    self.note(target, "back after the cut")

    def summary(self) -> dict[str, Any]:
        """The limit chosen first, last, and its changes: ``{start, final, timeline: [{t_s, limit, reason}]}``
        (an entry whose reason came again: ``times`` and the ``last_t_s``, with the limit it gave then)."""
        timeline = [{"t_s": t, "limit": limit, "reason": reason, **({"times": n, "last_t_s": last} if n > 1 else {})}
                    for t, limit, reason, n, last in self.timeline]
        return {"start": self.start, "final": self.current, "timeline": timeline,
                **({"timeline_left_out": self.dropped} if self.dropped else {})}


def _now_or_zero() -> float:
    """trio's clock, or 0 outside a run (a client made before its run starts)."""
    try:
        return trio.current_time()
    except RuntimeError:
        return 0.0

