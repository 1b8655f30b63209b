"""The permits one worker process holds at the bucket, kept from one task to the next."""

from __future__ import annotations

import math
import uuid

import attrs

from .bucket import STALE_S
from .pace import Pace


@attrs.define
class Holding:
    """The permits one worker holds, under one holder name at the bucket. A process keeps its holding from one
    task to the next (`process_holding`), so a task ending does not waste a lease; when the rate binds and no
    more tasks are coming, a task gives back what it did not spend, so no permit idles while others wait."""

    holder: str = attrs.field(factory=lambda: uuid.uuid4().hex)
    requests: float = 0.0
    tokens: float = 0.0  # below 0: a debt (requests cost more tokens than estimated), paid by the next lease
    pending: tuple[int, int] = (0, 0)  # requests and tokens of a reservation, usable at ``usable_at``
    usable_at: float = -math.inf
    reported_at: float = -math.inf  # when the last call the bucket answered was sent
    busy: bool = False
    binding: bool = False  # the bucket said at the last lease that the rate binds: others need what is left
    last: bool = False  # and that no more tasks are coming to spend what this task leaves
    round_trip_s: float = 0.0  # a moving mean of the round trips to the bucket
    round_trips: int = 0  # how many it is the mean of
    leased: tuple[int, int] = (0, 0)  # the batch (requests, tokens) the last lease filled the stock to
    tokens_per_request: float = 0.0  # a moving mean of the tokens a request is estimated at
    pace: Pace | None = None  # request permits scheduled by the last lease (not held: see `Pace`)
    told: tuple[int, int] = (0, 0)  # what the bucket last heard it holds (less, since: spent, not yet told)
    pauses_seen: bool = False  # a 429 paused this process or the bucket: the endpoint pushes back

    def heard_round_trip(self, seconds: float) -> None:
        self.round_trip_s = _moved(self.round_trip_s, seconds, 4)
        self.round_trips += 1

    def heard_tokens(self, tokens: int) -> None:
        self.tokens_per_request = _moved(self.tokens_per_request, tokens, 16)

    def drop(self) -> None:
        self.requests, self.tokens, self.pending, self.pace = 0.0, min(self.tokens, 0.0), (0, 0), None
        self.told = (0, 0)

    def drop_if_stale(self, now: float) -> None:
        """The bucket forgets a holder silent for STALE_S; its permits go with it (a debt stays)."""
        if now - self.reported_at > STALE_S:
            self.drop()

    def in_hand(self) -> tuple[int, int]:
        """What it holds and may spend now."""
        return math.ceil(max(0.0, self.requests)), math.ceil(max(0.0, self.tokens))

    def pace_usable(self, now: float) -> int:
        return self.pace.usable(now) if self.pace is not None else 0

    def pace_next_at(self) -> float | None:
        """When the schedule's next permit is earned (None: no schedule, or nothing left in it)."""
        return self.pace.next_at() if self.pace is not None else None

    def report(self) -> tuple[int, int]:
        """What it holds, a reservation included (the bucket counts it from the grant)."""
        requests, tokens = self.in_hand()
        return requests + self.pending[0], tokens + self.pending[1]


def _moved(mean: float, sample: float, weight: int) -> float:
    """A moving mean that gives ``sample`` 1 / ``weight`` of the say (all of it, at first)."""
    return sample if not mean else mean + (sample - mean) / weight


_process_holdings: dict[str, Holding] = {}


def process_holding(bucket_name: str) -> Holding | None:
    """This process's holding at the bucket ``bucket_name``; None while a task here uses it."""
    global _process_holdings
    holding = _process_holdings.get(bucket_name)
    if holding is None:
        holding = Holding()
        _process_holdings = {bucket_name: holding}  # holdings at the buckets of past runs are of no use
    return None if holding.busy else holding
