"""Request permits granted as a schedule while the rate binds: they cannot be hoarded, so they need no room in
the bank's second."""

from __future__ import annotations

import math

import attrs

EXPIRY_S = 0.2  # a scheduled permit is usable this long once earned (from when the lease was asked), then void
PACE_S = 4.0  # a scheduled lease covers at most this long a stretch of one worker's share of the rate


@attrs.define
class Pace:
    """``count`` request permits the bucket earns one after the other at ``rate`` a second: the j-th (from 1)
    ``(j - start) / rate`` after the grant (``start`` < 1: the bank had less than one permit, or a debt of
    ones granted before). The worker spends the j-th no earlier than that after the reply came and no later
    than EXPIRY_S after that counted from when it asked, so every permit goes within EXPIRY_S of the moment
    the bucket earned it, whatever the worker does: it cannot save them up for a burst."""

    count: int
    start: float
    rate: float
    asked_at: float
    arrived_at: float
    spent: int = 0  # spent or void
    void: int = 0

    def _earned(self, since: float, now: float) -> int:
        return min(self.count, max(0, math.floor(self.start + self.rate * (now - since) + 1e-9)))

    def usable(self, now: float) -> int:
        """Permits usable now (earned ones left unspent past their time are void from now on)."""
        expired = self._earned(self.asked_at, now - EXPIRY_S)
        if expired > self.spent:
            self.void += expired - self.spent
            self.spent = expired
        return max(0, self._earned(self.arrived_at, now) - self.spent)

    def next_at(self) -> float | None:
        """When the next permit not yet spent is earned (None: all are spent or void)."""
        j = self.spent + 1
        return None if j > self.count else self.arrived_at + (j - self.start) / self.rate

    def spend(self) -> None:
        self.spent += 1
