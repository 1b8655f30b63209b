"""Client-side rate limits: requests and tokens per minute as token buckets, plus adaptive concurrency.

A 429 pauses every request of the client until the server's Retry-After has passed and halves the number
of requests allowed in flight; successes win it back one request at a time. So a burst of 429s slows the
whole client down instead of turning into a retry storm.
"""

from __future__ import annotations

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


class RateLimiter:
    """Requests-per-minute and tokens-per-minute limits shared by every request of one client.

    Beside the configured limits it learns one from the server: the first 429 sets a request rate a little
    under what was just getting through, which grows back slowly (+2% a second) while answers keep coming
    and is cut again (x0.7) by further 429s. So an endpoint whose limit nobody configured is still met at
    close to its rate instead of being hammered.
    """

    def __init__(self, requests_per_minute: int = 0, tokens_per_minute: int = 0,
                 clock: Callable[[], float] | None = None) -> None:
        self._clock = clock or trio.current_time
        self.requests = TokenBucket(requests_per_minute, self._clock) if requests_per_minute else None
        self.tokens = TokenBucket(tokens_per_minute, self._clock) if tokens_per_minute else None
        self.learned: TokenBucket | None = None
        self._successes: deque[float] = deque()
        self._last_cut = -1e9
        self._resume_at = 0.0
        self._lock = trio.Lock()  # FIFO: waiters are served in the order they arrived

    @property
    def limits_tokens(self) -> bool:
        return self.tokens is not None

    async def acquire(self, estimated_tokens: int = 0) -> None:
        async with self._lock:
            while True:
                wait = self._resume_at - self._clock()
                for bucket, amount in ((self.requests, 1), (self.learned, 1), (self.tokens, estimated_tokens)):
                    if bucket is not None:
                        wait = max(wait, bucket.wait_time(amount))
                if wait <= 0:
                    break
                await trio.sleep(wait)
            for bucket, amount in ((self.requests, 1), (self.learned, 1), (self.tokens, estimated_tokens)):
                if bucket is not None:
                    bucket.take(amount)

    def on_success(self) -> None:
        now = self._clock()
        self._successes.append(now)
        while self._successes and self._successes[0] < now - 2.0:
            self._successes.popleft()
        if self.learned is not None:
            rate = self.learned.rate
            self.learned.rate = rate + 0.02 + 0.5 / max(rate, 1.0)  # +2% of the rate (and a little) per second

    def on_rate_limited(self) -> None:
        """A 429: learn (or lower) the request rate the server will take."""
        now = self._clock()
        if now - self._last_cut < 0.5:  # one burst of 429s is one signal
            return
        self._last_cut = now
        got_through = sum(1 for t in self._successes if t >= now - 2.0) / 2.0
        if self.learned is None:
            if got_through < 1.0:  # nothing to learn from yet: the pause and the backoff will do
                return
            self.learned = TokenBucket(60.0, self._clock)
            self.learned.rate = 0.9 * got_through
        else:
            self.learned.rate = max(0.5, 0.7 * self.learned.rate)
        self.learned.capacity = max(1.0, self.learned.rate * 0.2)
        self.learned.drain()

    def settle(self, estimated_tokens: int, actual_tokens: int) -> None:
        """Correct the token bucket once ``usage`` says what a request really cost."""
        if self.tokens is not None and actual_tokens != estimated_tokens:
            if actual_tokens < estimated_tokens:
                self.tokens.give_back(estimated_tokens - actual_tokens)
            else:
                self.tokens.take(actual_tokens - estimated_tokens)

    def pause(self, seconds: float) -> None:
        """Hold every request for ``seconds`` (a 429 or an exhausted ``x-ratelimit-remaining-*``)."""
        self._resume_at = max(self._resume_at, self._clock() + seconds)
        for bucket in (self.requests, self.tokens):
            if bucket is not None:
                bucket.drain()

    def observe_headers(self, headers: Mapping[str, str]) -> None:
        for kind in ("requests", "tokens"):
            remaining = headers.get(f"x-ratelimit-remaining-{kind}")
            if remaining is not None and remaining.strip() in ("0", "0.0"):
                reset = parse_duration(headers.get(f"x-ratelimit-reset-{kind}", "") or "")
                self.pause(reset if reset is not None else 1.0)


class AdaptiveConcurrency:
    """A CapacityLimiter whose size halves on a 429 (at most once per second) and grows back by one per
    success, up to the configured maximum."""

    def __init__(self, maximum: int, clock: Callable[[], float] | None = None) -> None:
        self.maximum = maximum
        self.limiter = trio.CapacityLimiter(maximum)
        self._clock = clock or trio.current_time
        self._last_cut = -1e9
        self._successes = 0

    def on_rate_limited(self) -> None:
        now = self._clock()
        if now - self._last_cut >= 1.0:
            self._last_cut = now
            self.limiter.total_tokens = max(1, int(self.limiter.total_tokens) // 2)

    def on_success(self) -> None:
        total = int(self.limiter.total_tokens)
        if total < self.maximum:
            self._successes += 1
            if self._successes >= total:  # one more slot per window of successes: additive increase
                self._successes = 0
                self.limiter.total_tokens = total + 1
