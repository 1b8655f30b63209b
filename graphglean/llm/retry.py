"""When to retry an LLM request, and how long to wait before the next attempt."""

from __future__ import annotations

import email.utils
import random
import re
import time
from typing import Mapping

import attrs

RETRYABLE_STATUS = frozenset({408, 409, 429})


def is_retryable_status(status: int) -> bool:
    return status in RETRYABLE_STATUS or 500 <= status <= 599


@attrs.frozen
class RetryPolicy:
    """Exponential backoff with full jitter, capped, honouring the server's Retry-After."""

    max_retries: int = 6
    base_s: float = 0.5
    cap_s: float = 30.0
    deadline_s: float | None = None  # give up when the next wait would pass this much time since the first attempt
    max_waited_turns: int = 100  # 429s met while the endpoint answers other requests (see `RetryBudget`)

    def backoff(self, retry: int, retry_after: float | None = None, rng: random.Random | None = None) -> float:
        """Seconds to wait before retry number ``retry`` (0-based)."""
        rng = rng or random
        jitter = rng.uniform(0, min(self.cap_s, self.base_s * (2 ** retry)))
        # Retry-After is a lower bound, not the whole wait: a server that says "in 10 ms" to every one of a
        # burst of 429s would otherwise get the whole burst back 10 ms later, and again, and again.
        return jitter if retry_after is None else retry_after + jitter


@attrs.define
class RetryBudget:
    """What one request has spent of its `RetryPolicy`.

    A fault (5xx, timeout, broken answer, or a 429 while nothing gets through) uses one of ``max_retries``.
    A 429 met while the endpoint keeps answering other requests is the request waiting its turn under a rate
    limit, not a fault: those count against ``max_waited_turns`` instead, and ``deadline_s`` bounds both.
    """

    policy: RetryPolicy
    started: float
    faults: int = 0
    waited_turns: int = 0

    def spend(self, waited_turn: bool) -> None:
        if waited_turn and self.waited_turns < self.policy.max_waited_turns:
            self.waited_turns += 1
        else:
            self.faults += 1

    def next_wait(self, retry_after: float | None, rng: random.Random | None = None) -> float:
        return self.policy.backoff(max(0, self.faults - 1), retry_after, rng)

    def exhausted(self, now: float, wait: float) -> bool:
        deadline = self.policy.deadline_s
        return self.faults > self.policy.max_retries or (deadline is not None and now + wait - self.started > deadline)


_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ms|h|m|s)")


def parse_duration(text: str) -> float | None:
    """OpenAI's reset durations: ``1s``, ``6m0s``, ``120ms``, ``1h2m3.5s``."""
    parts = _DURATION.findall(text.strip())
    if not parts:
        return None
    scale = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}
    return sum(float(n) * scale[u] for n, u in parts)


def parse_retry_after(headers: Mapping[str, str]) -> float | None:
    """Seconds from ``retry-after-ms`` or ``retry-after`` (seconds or an HTTP date)."""
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return max(0.0, float(ms) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())
