"""How many permits one lease asks for."""

from __future__ import annotations

import math

import attrs

from .pace import PACE_S

LEASE_S = 0.25  # a batch is at least this long a stretch of one worker's share of the rate
PERMIT_ROUND_TRIP_S = 0.0005  # a lease's round trip costs each permit at most this (half of the 1 ms target:
# the round trip varies from one lease to the next)


@attrs.frozen
class BatchSize:
    """The permits of one lease: ``requests`` and ``tokens`` at least (LEASE_S of a worker's share), grown by
    `grown` up to ``most_requests`` and ``most_tokens``, where a batch and its spare fill the worker's share of
    the bucket's one second (so all stocks together fit in the bank: see `LeaseBucket.lease`)."""

    requests: int
    tokens: int
    most_requests: int = 0
    most_tokens: int = 0
    paced_requests: int = 0  # the most requests of a scheduled lease (`Pace`): PACE_S of the worker's share

    @classmethod
    def of(cls, requests_per_minute: int, tokens_per_minute: int, workers: int) -> "BatchSize":
        def share(per_minute: int) -> int:
            return max(1, math.ceil(per_minute / 60.0 / workers * LEASE_S)) if per_minute else 0

        def most(per_minute: int) -> int:  # b + spare(b) <= the worker's share of one second's worth
            return max(share(per_minute), math.floor(4 * math.floor(max(1.0, per_minute / 60.0) / workers) / 5))
        paced = max(share(requests_per_minute), math.floor(requests_per_minute / 60.0 / workers * PACE_S))
        return cls(share(requests_per_minute), share(tokens_per_minute), most(requests_per_minute),
                   most(tokens_per_minute), paced)

    def grown(self, round_trip_s: float, tokens_per_request: float, callers: int | None = None) -> "BatchSize":
        """The batch whose round trip of ``round_trip_s`` costs each request at most PERMIT_ROUND_TRIP_S (as far
        as the most allows), and no larger than ``callers`` requests spend at once when that is given (the rate
        binds: a lease a task ends without spending went to waste for the others, who waited behind it);
        tokens grow with the requests they pay for. Never below the least."""
        requests = math.ceil(round_trip_s / PERMIT_ROUND_TRIP_S - 1e-9)
        if callers is not None:
            requests = min(requests, callers)

        def sized(least: int, most: int, wanted: float) -> int:
            return least and min(max(least, math.ceil(wanted)), max(least, most))
        return attrs.evolve(self, requests=sized(self.requests, self.most_requests, requests),
                            tokens=sized(self.tokens, self.most_tokens, requests * tokens_per_request))


def spare(batch: int) -> int:
    """Permits left when the next lease is asked for: what is spent while it travels."""
    return math.ceil(batch / 4)
