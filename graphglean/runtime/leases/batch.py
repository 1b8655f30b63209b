"""How many permits one lease asks for."""

from __future__ import annotations

import math

import attrs

LEASE_S = 0.25  # a batch is this long a stretch of one worker's share of the rate


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
