"""`ConcurrencyRule`: how many requests the client keeps in flight, decided from what `ServerMeasures` saw.

The rule (never more than ``llm.max_concurrency``):

1. Slots configured (``llm.server_concurrency``) or reported (llama.cpp's ``/props`` or ``/slots``): those
   slots plus a queue of a quarter of them (at least one), for the whole run.
2. A server seen twice ending the answer it streams when another request came: one at a time, none waiting.
3. Otherwise all of ``llm.max_concurrency``, until a request is seen waiting for a slot (its first token, or
   its whole answer, later than twice the least time its size took, plus slack, while others were served; or
   a ``/metrics`` with requests waiting). Then the most answers the server was seen serving at once (S) plus
   a queue of S/4 (at least one). A later count above S raises S, and the limit with it: a quarter more for
   each round of answers that all started at once.
4. Apart from these, 429s, 503s and timeouts halve the requests in flight for a few seconds
   (`AdaptiveConcurrency`).
"""

from __future__ import annotations

from typing import Any, Callable

from .in_flight import AdaptiveConcurrency


def queue_for(slots: int) -> int:
    """Requests kept waiting at the server beyond its slots: enough to start the next answer at once."""
    return max(1, slots // 4)


class ConcurrencyRule:
    """The server's slots, where known, and the limit they give ``concurrency``. ``tell`` hears, once, that the
    rule holds the run below ``llm.max_concurrency`` (a line for the progress display)."""

    def __init__(self, concurrency: AdaptiveConcurrency, configured: int = 0, hosted: bool = False) -> None:
        self.concurrency = concurrency
        self.slots: int | None = None
        self.fixed = hosted  # rules 1 and 2: nothing measured changes the slots
        self.held = False  # rule 3 holds back
        self.seen = 0  # the most the server was seen serving at once
        self.source = ("hosted endpoint: llm.max_concurrency" if hosted else
                       "llm.max_concurrency: no request has waited for a slot")
        self.tell: Callable[[str], None] | None = None
        self._told = False
        if configured:
            self.fix(configured, "llm.server_concurrency")

    def fix(self, slots: int, source: str, queue: bool = True) -> None:
        """Rules 1 and 2: ``slots`` (and a queue, unless not ``queue``) for the rest of the run."""
        self.fixed, self.held, self.slots, self.source = True, False, max(1, slots), source
        self.concurrency.set_ceiling(self.slots + (queue_for(self.slots) if queue else 0), source)

    def served(self, at_once: int) -> None:
        """The server was seen serving ``at_once`` answers without a wait."""
        if at_once > self.seen:
            self.seen = at_once
            if self.held:
                self._hold(f"{at_once} served at once")

    def waited(self, at_once: int, why: str) -> None:
        """A request waited for a slot (``why``) while the server served ``at_once``."""
        if self.fixed:
            return
        self.seen = max(self.seen, at_once, 1)
        if not self.held or self.slots != self.seen:
            self.held = True
            self._hold(why)

    def _hold(self, why: str) -> None:
        self.slots = self.seen
        self.source = f"inferred: {why}"
        limit = self.slots + queue_for(self.slots)
        self.concurrency.set_ceiling(limit, self.source)
        if limit < self.concurrency.maximum and not self._told and self.tell is not None:
            self._told = True
            self.tell(f"llm: the server keeps requests waiting ({why}): {limit} in flight ({self.slots} "
                      f"answered at once, {limit - self.slots} waiting); llm.server_concurrency sets it")

    def summary(self) -> dict[str, Any]:
        return {"server_slots": self.slots, "in_flight_limit": self.concurrency.allowed, "source": self.source}
