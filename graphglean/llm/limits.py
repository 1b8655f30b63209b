"""Client-side rate limits: requests and tokens per minute as token buckets, and the rate learned from 429s.

A 429 pauses every request of the client until the server's Retry-After has passed and teaches (or lowers) a
request rate: the one the server's ``x-ratelimit-*-requests`` headers state where it sends them (`stated_rate`),
else what was being sent, capped by one request per Retry-After (the requests allowed in flight are
`server.in_flight`'s); the rate comes back within seconds once answers flow again. So a burst of 429s slows the
whole client down instead of turning into a retry storm, and one stray 429 costs seconds, not the rest of the
run. A wait of more than `RateLimiter.LONG_WAIT_S` for a limit is said in one line (``tell``): why, how long.
"""

from __future__ import annotations

import math
from collections import deque
from typing import Callable, Mapping

import trio

from .retry import parse_duration


class TokenBucket:
    """``rate_per_minute`` units per minute, at most one second's worth banked. Debt is allowed, so a
    request larger than the bucket still goes through (and the next ones wait it off)."""

    def __init__(self, rate_per_minute: float, clock: Callable[[], float]) -> None:
        self.rate = rate_per_minute / 60.0
        self.capacity = max(1.0, self.rate)
        self.level = self.capacity
        self._clock = clock
        self._stamp = clock()

    def _refill(self) -> None:
        now = self._clock()
        self.level = min(self.capacity, self.level + (now - self._stamp) * self.rate)
        self._stamp = now

    def wait_time(self, amount: float) -> float:
        self._refill()
        need = min(amount, self.capacity)
        shortfall = need - self.level
        return 0.0 if shortfall <= 1e-9 else shortfall / self.rate  # float dust must not spin forever

    def take(self, amount: float) -> None:
        self._refill()
        self.level -= amount

    def give_back(self, amount: float) -> None:
        self._refill()
        self.level = min(self.capacity, self.level + amount)

    def drain(self) -> None:
        self._refill()
        self.level = min(self.level, 0.0)

    def set_rate(self, per_second: float, capacity: float) -> None:
        """Change the rate from now on (time already passed is credited at the old rate)."""
        self._refill()
        self.rate, self.capacity = per_second, capacity
        self.level = min(self.level, capacity)


class LearnedRate:
    """The request rate an endpoint takes, learned from its 429s.

    A 429 lowers the ceiling to what was being sent (or what the server's hints allow) and cuts the rate to
    80% of it; over the next few seconds (``recovery_s``: longer at rates so low that a few seconds hold no
    request) the rate climbs back to the ceiling, holds there, then probes 10% above it. A probe that held a
    whole period becomes the ceiling, so a limit that was raised, or guessed low, is found again. A probe that
    meets a 429 returns to the ceiling with no cut, and the hold before the next probe doubles (up to 32
    periods), so an endpoint with no slack above its limit sees a probe's 429 rarely. Floor: 1 request a minute.
    """

    FLOOR = 1 / 60
    CUT = 0.8
    HOLD = 2.0  # periods at the ceiling before probing above it
    MAX_HOLD = 32.0
    PROBE = 0.1

    def __init__(self, ceiling: float, clock: Callable[[], float]) -> None:
        self._clock = clock
        self.ceiling = max(self.FLOOR, ceiling)
        self._cut_at = clock()
        self._hold = self.HOLD
        self._probe_sends = 0
        self.cuts = 0  # 429s taken (`RateLimiter.repace`)
        self.bucket = TokenBucket(60 * self.CUT * self.ceiling, clock)
        self.bucket.level = 1.0  # one request may go as soon as the server's pause is over
        self.refresh()

    @property
    def recovery_s(self) -> float:
        return max(2.0, 3.0 / self.ceiling)

    def _periods(self, now: float) -> float:
        return (now - self._cut_at) / self.recovery_s

    def rate(self, now: float | None = None) -> float:
        """Requests per second allowed at ``now``."""
        x = self._periods(self._clock() if now is None else now)
        if x < 1.0:
            return self.ceiling * (self.CUT + (1.0 - self.CUT) * x)
        return self.ceiling * (1.0 + self.PROBE * min(1.0, max(0.0, x - self._hold)))

    def cut(self, estimate: float, got_through: float = 0.0, retry_after: float | None = None) -> None:
        """A 429. The rejected request's token comes back: the server did not count it."""
        now = self._clock()
        rate = self.rate(now)
        if self._periods(now) > self._hold and estimate >= self.ceiling:  # a probe too far: back to the ceiling
            self._hold = min(self.MAX_HOLD, 2 * self._hold)
            self._cut_at = now - self.recovery_s
        else:  # the ceiling is too high: down to what is allowed now or estimated, never below what got through
            # requests spaced further apart by the wait the server asked for (at most 5% lower: with slack in
            # the server's bucket, the wait is for one token, not for the whole spacing)
            spaced = max(0.95 * rate, 1.0 / (1.0 / rate + retry_after)) if retry_after else rate
            self.ceiling = max(self.FLOOR, got_through, min(self.ceiling, spaced, estimate))
            self._cut_at = now
        self._probe_sends = 0
        self.cuts += 1
        self.refresh()
        self.bucket.give_back(1.0)

    def refresh(self) -> None:
        """Bring the bucket to the rate of the moment. A probe that held a whole period, with requests sent at
        (about) its pace, is the new ceiling; one the client did not use teaches nothing and starts again."""
        now = self._clock()
        if self._periods(now) >= self._hold + 1.0:
            if self._probe_sends >= 0.8 * self.ceiling * self.recovery_s:
                self.ceiling *= 1.0 + self.PROBE
            self._cut_at = now - self._hold * self.recovery_s
            self._probe_sends = 0
        rate = self.rate(now)
        self.bucket.set_rate(rate, max(1.0, 0.2 * rate))

    def take(self) -> None:
        self.bucket.take(1.0)
        if self._periods(self._clock()) >= self._hold:
            self._probe_sends += 1


class RateLimiter:
    """Requests-per-minute and tokens-per-minute limits shared by every request of one client.

    Beside the configured limits it learns one from the server (`LearnedRate`), from the 429s that come
    while other requests still get through. So an endpoint whose limit nobody configured, from 1 RPM up, is
    met at close to its rate instead of being hammered.
    """

    SENT_WINDOW_S = 10.0
    ANSWERED_WINDOW_S = 60.0
    LONG_WAIT_S = 10.0  # a wait longer than this is said, in one line (`tell`), with why and how long

    def __init__(self, requests_per_minute: int = 0, tokens_per_minute: int = 0,
                 clock: Callable[[], float] | None = None) -> None:
        self._clock = clock or trio.current_time
        self.requests = TokenBucket(requests_per_minute, self._clock) if requests_per_minute else None
        self.tokens = TokenBucket(tokens_per_minute, self._clock) if tokens_per_minute else None
        self.learned: LearnedRate | None = None
        self._sent: deque[float] = deque()
        self._answered: deque[float] = deque()
        self.last_answer_at = -math.inf
        self._last_cut = -math.inf
        self._resume_at = 0.0
        self._lock = trio.Lock()  # FIFO: waiters are served in the order they arrived
        self._changed = trio.Event()  # wakes the waiter at the head early when a 429 gives a token back
        self.configured = (requests_per_minute, tokens_per_minute)
        self.tell: Callable[[str], None] | None = None  # hears of long waits
        self._headers: Mapping[str, str] = {}  # the last answer's (a 429's too)
        self._retry_after: float | None = None  # the last 429's
        self._told_until = -math.inf  # the end of the last wait said

    @property
    def limits_tokens(self) -> bool:
        return self.tokens is not None

    def _buckets(self, estimated_tokens: int) -> list[tuple[TokenBucket, float]]:
        if self.requests is None and self.tokens is None:  # no configured limit: the common case, once a call
            return []
        pairs = ((self.requests, 1), (self.tokens, estimated_tokens))
        return [(bucket, amount) for bucket, amount in pairs if bucket is not None]

    def _wait(self, estimated_tokens: int, configured: bool = True) -> float:
        """Seconds until a request of ``estimated_tokens`` may go (<= 0: now); not ``configured``: by the pause
        and the learned rate alone."""
        wait = self._resume_at - self._clock()
        for bucket, amount in self._buckets(estimated_tokens) if configured else ():
            wait = max(wait, bucket.wait_time(amount))
        if self.learned is not None:
            self.learned.refresh()
            wait = max(wait, self.learned.bucket.wait_time(1))
        return wait

    def _take(self, estimated_tokens: int) -> None:
        for bucket, amount in self._buckets(estimated_tokens):
            bucket.take(amount)
        if self.learned is not None:
            self.learned.take()
        now = self._clock()
        self._sent.append(now)
        _forget_before(self._sent, now - self.SENT_WINDOW_S)

    def acquire_nowait(self, estimated_tokens: int = 0) -> bool:
        """Take a request's turn if it is free now (nobody waits, no limit holds it back), without yielding;
        False otherwise, and nothing is taken."""
        if self._lock.locked() or self._wait(estimated_tokens) > 0:
            return False
        self._take(estimated_tokens)
        return True

    async def acquire(self, estimated_tokens: int = 0) -> None:
        async with self._lock:
            await self._wait_turn(estimated_tokens)
            self._take(estimated_tokens)

    def turn_taken(self) -> tuple[LearnedRate | None, int]:
        """What the turn just taken was paced by: the learned rate, if any, and its cuts so far (`repace`)."""
        return self.learned, self.learned.cuts if self.learned is not None else 0

    async def repace(self, since: tuple[LearnedRate | None, int]) -> None:
        """A turn taken at ``since`` (`turn_taken`), before a rate was learned or cut, is taken again at the
        learned rate (requests that waited for a slot meanwhile would all go at once). The configured limits
        were charged already; the learned rate's charge at its old pace is given back first."""
        learned, cuts = since
        if self.learned is None or (learned is self.learned and cuts == learned.cuts):
            return
        if learned is not None:
            learned.bucket.give_back(1.0)
        async with self._lock:
            await self._wait_turn(0, configured=False)
            self.learned.take()

    async def _wait_turn(self, estimated_tokens: int, configured: bool = True) -> None:
        while (wait := self._wait(estimated_tokens, configured)) > 0:
            if wait > self.LONG_WAIT_S:
                self._tell_wait(wait, self._why(estimated_tokens, configured))
            with trio.move_on_after(wait):
                await self._changed.wait()

    def _why(self, estimated_tokens: int, configured: bool = True) -> str:
        """What holds a request back longest (a long wait's reason)."""
        rpm, tpm = self.configured
        reasons = [(self._resume_at - self._clock(), "the endpoint's rate limit (it said to wait)")]
        for bucket, amount, why in ((self.requests, 1, f"llm.requests_per_minute ({rpm})"),
                                    (self.tokens, estimated_tokens, f"llm.tokens_per_minute ({tpm})")):
            if bucket is not None and configured:
                reasons.append((bucket.wait_time(amount), why))
        if self.learned is not None:
            reasons.append((self.learned.bucket.wait_time(1), "the request rate learned from the endpoint's 429s "
                            f"(about {60 * self.learned.ceiling:.3g} a minute; llm.requests_per_minute sets it)"))
        return max(reasons)[1]

    def _tell_wait(self, wait: float, why: str) -> None:
        now = self._clock()
        if self.tell is not None and now >= self._told_until:
            self._told_until = now + wait
            self.tell(f"llm: requests wait {wait:.0f} s for {why}")

    def on_success(self) -> None:
        now = self.last_answer_at = self._clock()
        self._answered.append(now)
        _forget_before(self._answered, now - self.ANSWERED_WINDOW_S)

    def answered_since(self, moment: float) -> bool:
        """Whether any request of this client was answered after ``moment``."""
        return self.last_answer_at > moment

    def on_rate_limited(self, sent_at: float | None = None, retry_after: float | None = None) -> None:
        """A 429 for a request sent at ``sent_at``: learn (or lower) the request rate the server will take.

        The 429s of requests sent before the last cut are answers to the old rate, not news. While nothing gets
        through at all there is nothing to learn: the pause and the backoff do the waiting."""
        now = self._clock()
        sent_at = now if sent_at is None else sent_at
        self._retry_after = retry_after
        _forget_before(self._answered, now - self.ANSWERED_WINDOW_S)
        if sent_at < self._last_cut or not self._answered:
            return
        self._last_cut = now
        got_through = len(self._answered) / self.ANSWERED_WINDOW_S
        estimate = max(self._estimate(now, retry_after, got_through), got_through)
        if self.learned is None:
            self.learned = LearnedRate(estimate, self._clock)
        else:
            self.learned.cut(estimate, got_through, retry_after)
        self._changed.set()
        self._changed = trio.Event()

    def found_rate_limit(self, why: str) -> str:
        """The endpoint's 429s are found to be a rate limit's (``why``, `server.in_flight`): where their rate was
        not learned (they came before any answer), it is now, from what was being sent and the last Retry-After.
        The line that says so."""
        now = self._clock()
        if self.learned is None and self._answered:
            got_through = len(self._answered) / self.ANSWERED_WINDOW_S
            self.learned = LearnedRate(max(self._estimate(now, self._retry_after, got_through), got_through),
                                       self._clock)
        rate = f" (about {60 * self.learned.ceiling:.3g} a minute so far)" if self.learned is not None else ""
        return (f"llm: the endpoint limits its request rate ({why}): the rate is learned from its 429s{rate}; "
                "llm.requests_per_minute sets it")

    def _estimate(self, now: float, retry_after: float | None, fallback: float) -> float:
        """Requests per second the server takes: what its rate-limit headers state (`stated_rate`), else what it
        seems to take: no more than was being sent, nor than one per Retry-After (a token bucket's wait for its
        next token)."""
        if (stated := stated_rate(self._headers)) is not None:
            return stated
        _forget_before(self._sent, now - self.SENT_WINDOW_S)
        bounds = []
        if len(self._sent) >= 3 and now > self._sent[0]:
            bounds.append(len(self._sent) / (now - self._sent[0]))
        if retry_after:
            bounds.append(1.0 / retry_after)
        return min(bounds, default=fallback)

    def settle(self, estimated_tokens: int, actual_tokens: int) -> None:
        """Correct the token bucket once ``usage`` says what a request really cost."""
        if self.tokens is not None and actual_tokens != estimated_tokens:
            if actual_tokens < estimated_tokens:
                self.tokens.give_back(estimated_tokens - actual_tokens)
            else:
                self.tokens.take(actual_tokens - estimated_tokens)

    def pause(self, seconds: float, why: str = "") -> None:
        """Hold every request for ``seconds`` (a 429 or an exhausted ``x-ratelimit-remaining-*``: ``why``, said
        when the wait is long)."""
        self._resume_at = max(self._resume_at, self._clock() + seconds)
        for bucket in (self.requests, self.tokens):
            if bucket is not None:
                bucket.drain()
        if seconds > self.LONG_WAIT_S and why:
            self._tell_wait(seconds, why)

    def observe_headers(self, headers: Mapping[str, str]) -> None:
        """Pause on an exhausted ``x-ratelimit-remaining-*`` until its reset, unless the server says its limit
        is 0: that is a server (or proxy) with no limit, reporting zeros."""
        self._headers = headers
        for remaining_name, limit_name, reset_name in _QUOTA_HEADERS:
            remaining = _number(headers.get(remaining_name))
            if remaining is None or not remaining <= 0:  # (not "> 0": a NaN is no exhausted quota)
                continue
            limit = _number(headers.get(limit_name))
            if limit is None or limit > 0:
                reset = parse_duration(headers.get(reset_name, "") or "")
                self.pause(reset if reset is not None else 1.0, f"the endpoint's rate limit ({remaining_name} 0, "
                           f"{reset_name} {headers.get(reset_name, '')})")


def stated_rate(headers: Mapping[str, str]) -> float | None:
    """Requests a second the ``x-ratelimit-*-requests`` headers state: what was used of the limit, over the time
    the server says it takes to give it all back (OpenAI's bucket refills continuously); None without them."""
    limit, remaining = _number(headers.get("x-ratelimit-limit-requests")), _number(headers.get(_REMAINING))
    reset = parse_duration(headers.get("x-ratelimit-reset-requests") or "")
    if limit is None or remaining is None or not reset or not 0 <= remaining < limit:
        return None
    return (limit - remaining) / reset


def states_rate(headers: Mapping[str, str]) -> bool:
    """Whether an answer's headers state a rate limit (``x-ratelimit-limit-*`` or ``-remaining-*`` of requests or
    tokens; a limit of 0 is a server saying it has none)."""
    for remaining_name, limit_name, _ in _QUOTA_HEADERS:
        limit = _number(headers.get(limit_name))
        if (limit or _number(headers.get(remaining_name)) is not None) and limit != 0:
            return True
    return False


_REMAINING = "x-ratelimit-remaining-requests"
_QUOTA_HEADERS = tuple((f"x-ratelimit-remaining-{kind}", f"x-ratelimit-limit-{kind}", f"x-ratelimit-reset-{kind}")
                       for kind in ("requests", "tokens"))


def _forget_before(times: deque[float], moment: float) -> None:
    while times and times[0] < moment:
        times.popleft()


def _number(text: str | None) -> float | None:
    try:
        return float(text) if text is not None else None
    except ValueError:
        return None
