"""`ConcurrencyRule`: how many requests the client keeps in flight, decided from what `ServerMeasures` saw.

The rule (never more than ``llm.max_concurrency``):

1. Slots configured (``llm.server_concurrency``) or reported (llama.cpp's ``/props`` or ``/slots``): those
   slots plus a queue of a quarter of them (at least one), for the whole run.
2. A server that ends the answers it streams when another request of ours waits, and was never seen streaming
   two at once: one at a time, none waiting.
3. Otherwise all of ``llm.max_concurrency`` until requests sent one after another keep waiting for a slot
   (as `ServerMeasures` judges): of `WINDOW`, `WAITS` for their first token, or `WHOLE_WAITS` for their
   whole answer (a whole answer's time has more causes); or a ``/metrics`` has requests waiting. Then
   S + S/4 (at least S + 1), S being the most answers the server was seen serving at once (the streams at
   once, or Little's law), counted again after each round of requests (as many as the limit): a round that
   all went at once, none waiting, makes them all S, a quarter more each round.
4. Apart from these, 429s, 503s and timeouts halve the requests in flight for a few seconds, and 429s that
   come again set a ceiling, unless they are found to be a rate limit's (`AdaptiveConcurrency`).
"""

from __future__ import annotations

from collections import deque
from typing import Any, Callable

from .in_flight import AdaptiveConcurrency

WINDOW = 16  # requests sent one after another
WAITS = 4  # of which this many waited for their first token: a queue, not a few slow answers
WHOLE_WAITS = 12  # or this many for their whole answer (a waiting first token counts for three)


def queue_for(slots: int) -> int:
    """Requests kept waiting at the server beyond its slots: enough to start the next answer at once."""
    return max(1, slots // 4)


class ConcurrencyRule:
    """The server's slots, where known, and the limit they give ``concurrency``. ``count`` says how many
    answers the server serves at once (the measures'); ``tell`` hears, once, that the rule holds the run below
    ``llm.max_concurrency`` (a line for the progress display)."""

    def __init__(self, concurrency: AdaptiveConcurrency, configured: int = 0, hosted: bool = False) -> None:
        self.concurrency = concurrency
        self.fixed = hosted  # rules 1 and 2: nothing measured changes the slots
        self.held = False  # rule 3 holds back
        self.seen = 0  # the most the server was seen serving at once while requests waited
        self.source = ("hosted endpoint: llm.max_concurrency" if hosted else
                       "llm.max_concurrency: no request has waited for a slot")
        self.count: Callable[[], int] = lambda: 1
        self.tell: Callable[[str], None] | None = None
        self._told = False
        self._fixed_slots: int | None = None
        self._waited: deque[tuple[int, int]] = deque(maxlen=WHOLE_WAITS)  # the latest waits: (place sent, weight)
        self._left = 0  # requests to judge before served at once is counted again
        if configured:
            self.fix(configured, "llm.server_concurrency")

    @property
    def slots(self) -> int | None:
        """The server's slots: configured, reported, or the most seen served at once while requests waited."""
        return self._fixed_slots if self.fixed else self.seen if self.held else None

    def fix(self, slots: int, source: str, queue: bool = True) -> None:
        """Rules 1 and 2: ``slots`` (and a queue, unless not ``queue``) for the rest of the run."""
        self.fixed, self.held, self._fixed_slots, self.source = True, False, max(1, slots), source
        self.concurrency.set_ceiling(self._fixed_slots + (queue_for(self._fixed_slots) if queue else 0), source)

    def judged(self, waited: bool, seq: int, whole: bool = False) -> None:
        """A request, the ``seq``-th sent, was judged by its first token or, ``whole``, by its whole answer: it
        ``waited`` for a slot, or not."""
        if self.fixed:
            return
        if not self.held:
            if waited:
                self._waited.append((seq, 1 if whole else WHOLE_WAITS // WAITS))
                newest = max(s for s, _ in self._waited)
                if sum(weight for s, weight in self._waited if s > newest - WINDOW) >= WHOLE_WAITS:
                    self.hold(self.count(), f"of {WINDOW} requests sent one after another, {WAITS} waited for their "
                              f"first token or {WHOLE_WAITS} for their whole answer")
            return
        self._left -= 1
        if self._left <= 0:  # a round: served at once counted again (all of the limit, none waiting: S rises)
            at_once = self.count()
            if at_once > self.seen:
                self._limit(at_once, "inferred: a round of requests served more at once")
            self._left = self.concurrency.allowed

    def hold(self, at_once: int, why: str) -> None:
        """Rule 3: requests wait for a slot (``why``) while the server serves ``at_once``."""
        if self.fixed:
            return
        self.held, self.source = True, f"inferred: {why}"
        limit = self._limit(at_once, "inferred: requests waited for a slot")
        if limit < self.concurrency.maximum and not self._told and self.tell is not None:
            self._told = True
            self.tell(f"llm: the server keeps requests waiting ({why}): {limit} in flight ({self.seen} "
                      f"answered at once, {limit - self.seen} waiting); llm.server_concurrency sets it")

    def _limit(self, at_once: int, reason: str) -> int:
        """S (the most served at once) raised to ``at_once``; the limit to S + S/4, for a round."""
        self.seen = max(self.seen, at_once, 1)
        limit = self.seen + queue_for(self.seen)
        self.concurrency.set_ceiling(limit, f"{reason} ({self.seen})")
        self._left = self.concurrency.allowed
        return limit

    def summary(self) -> dict[str, Any]:
        return {"server_slots": self.slots, "in_flight_limit": self.concurrency.allowed, "source": self.source}
