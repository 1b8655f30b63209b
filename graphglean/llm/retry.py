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

    def backoff(self, retry: int, retry_after: float | None = None, rng: random.Random | None = None) -> float:
        """Seconds to wait before retry number ``retry`` (0-based)."""
        rng = rng or random
        jitter = rng.uniform(0, min(self.cap_s, self.base_s * (2 ** retry)))
        # Retry-After is a lower bound, not the whole wait: a server that says "in 10 ms" to every one of a
        # burst of 429s would otherwise get the whole burst back 10 ms later, and again, and again.
        return jitter if retry_after is None else retry_after + jitter


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
