"""`ServerSlots`: how many requests the server runs at once, and so how many the client keeps in flight.

A local server runs a few requests at once (its slots) and queues the rest; a queued request waits, silent,
behind minutes of work it cannot see, and its wait counts against its timeout. So the client keeps the slots
busy plus a small queue (`queue_for`), never more. The slots are configured (``llm.server_concurrency``),
reported (llama.cpp's ``/props`` or ``/slots``: `reports`), or learned here from streamed answers: starting
at two requests, each answer whose first token came without waiting lets one more go; a first token that
came only after a wait no prompt explains (`QUEUE_SLACK_S`) shows the server full, with as many generating as
the most ever seen at once. A server that runs more at once but no faster (tokens per second summed over the
answers stay flat) is held where more stopped helping. OpenAI and Azure get ``llm.max_concurrency``.
"""

from __future__ import annotations

import math
from collections import deque
from typing import Any, Callable

import trio

from ..http.watch import AttemptWatch
from ..limits import AdaptiveConcurrency

START = 2  # requests in flight at first, where nothing is known
QUEUE_SLACK_S = 1.0  # a first token later than twice its prompt's time and this much (or less: `_slack`) waited
PLATEAU = 1.1  # more at once must bring at least 10% more tokens per second
_KEPT = 4096  # waits kept for the report


def queue_for(slots: int) -> int:
    """Requests kept waiting at the server beyond its slots: enough to start the next answer at once."""
    return max(1, slots // 4)


class ServerSlots:
    """The server's slots (configured, reported or learned) and the ceiling they give ``concurrency``."""

    def __init__(self, concurrency: AdaptiveConcurrency, configured: int = 0, hosted: bool = False) -> None:
        self.concurrency = concurrency
        self.slots: int | None = None
        self.source = "hosted endpoint: llm.max_concurrency" if hosted else "learning from the time to first token"
        self.learning = not configured and not hosted
        self.generating = 0
        self.peak = 0
        self.first_token_s: deque[float] = deque(maxlen=_KEPT)
        self.queued_s: deque[float] = deque(maxlen=_KEPT)  # waits for a slot (beyond the prompt's time)
        self.abandoned = 0
        self.live: set[AttemptWatch] = set()  # answers streaming now
        self._prompt_rate = 0.0  # prompt tokens a second, the fastest first token seen (that one did not wait)
        self._rates: dict[int, list[float]] = {}  # tokens a second of answers, by how many generated at once
        self._tokens = 0
        self._answer_s: deque[float] = deque(maxlen=256)  # the time of recent answers, first token to last
        self._answers = 0
        if configured:
            self.set_slots(configured, "llm.server_concurrency")
        elif not hosted:
            concurrency.set_ceiling(START)

    @property
    def limit(self) -> int:
        return self.concurrency.allowed

    def set_slots(self, slots: int, source: str, learning: bool = False) -> None:
        self.slots, self.source, self.learning = max(1, slots), source, learning
        self.concurrency.set_ceiling(self.slots + queue_for(self.slots))

    def first_token(self, watch: AttemptWatch, prompt_tokens: int) -> None:
        """A streamed answer's first event arrived."""
        self.generating += 1
        self.peak = max(self.peak, self.generating)
        self.live.add(watch)
        watch.tag = self.generating
        assert watch.first_at is not None
        wait = watch.first_at - watch.sent_at
        self.first_token_s.append(wait)
        expected = prompt_tokens / self._prompt_rate if self._prompt_rate else None
        if expected is not None and wait > 2 * expected + self._slack():
            self.queued_s.append(wait - expected)
            if self.learning and (self.slots is None or self.peak > self.slots):
                self.set_slots(self.peak, f"inferred: a request waited {wait:.0f} s for a slot while "
                               f"{self.peak} generated", learning=True)
            return
        if wait > 0:
            self._prompt_rate = max(self._prompt_rate, max(prompt_tokens, 1) / wait)
        if self.learning and self.slots is None:
            self.concurrency.set_ceiling(min(self.concurrency.maximum, self.concurrency.ceiling + 1))
        elif self.learning and self.peak > self.slots:  # type: ignore[operator]
            self.set_slots(self.peak, f"inferred: {self.peak} generated at once", learning=True)

    def _slack(self) -> float:
        """A wait for a slot is a good part of an answer: a quarter of a typical one's time, at most a second."""
        if not self._answer_s:
            return QUEUE_SLACK_S
        ordered = sorted(self._answer_s)
        return min(QUEUE_SLACK_S, max(0.05, 0.25 * ordered[len(ordered) // 2]))

    def finished(self, watch: AttemptWatch, abandoned: bool) -> None:
        """An attempt ended (answered, failed or given up)."""
        self.abandoned += abandoned
        if watch.first_at is None:
            return
        self.live.discard(watch)
        at_end = self.generating
        self.generating = max(0, self.generating - 1)
        if abandoned:
            return
        tokens, seconds = watch.tokens, watch.last_at - watch.first_at
        self._answer_s.append(seconds)
        self._tokens += tokens
        self._answers += 1
        if tokens >= 8 and seconds > 0:
            level = max(1, round(((watch.tag if isinstance(watch.tag, int) else at_end) + at_end) / 2))
            self._rates.setdefault(level, []).append(tokens / seconds)
            self._plateau()

    def _plateau(self) -> None:
        """Hold the ceiling where more requests at once stopped adding tokens per second."""
        if not self.learning or self.slots is not None:
            return
        summed = {n: n * sum(r) / len(r) for n, r in self._rates.items() if len(r) >= 2}
        for low in sorted(summed):
            higher = [n for n in summed if n > low]
            if higher and all(summed[n] < PLATEAU * summed[low] for n in higher):
                self.set_slots(low, f"inferred: more than {low} at once gave no more tokens per second",
                               learning=True)
                return

    def streaming(self, owned: Callable[[object], bool]) -> tuple[int, int, float]:
        """(answers streaming now, their tokens so far, their tokens a second) of the calls ``owned`` picks."""
        now = trio.current_time()
        mine = [w for w in self.live if owned(w.owner)]
        rate = sum(w.tokens / (now - w.first_at) for w in mine if w.first_at is not None and now > w.first_at)
        return len(mine), sum(w.tokens for w in mine), rate

    def rate(self) -> float:
        """Tokens a second of one answer, on average (0 before any)."""
        rates = [r for level in self._rates.values() for r in level]
        return sum(rates) / len(rates) if rates else 0.0

    def answer_tokens(self) -> float:
        """Tokens of an answer, on average (0 before any)."""
        return self._tokens / self._answers if self._answers else 0.0

    def summary(self) -> dict[str, Any]:
        """What report.json says of the server's concurrency and the time requests waited."""
        def stats(values: deque[float]) -> dict[str, float]:
            if not values:
                return {"count": 0}
            ordered = sorted(values)
            pick = lambda p: round(ordered[min(len(ordered) - 1, int(math.floor(p * (len(ordered) - 1) + 0.5)))], 3)
            return {"count": len(ordered), "p50": pick(0.5), "p95": pick(0.95), "max": round(ordered[-1], 3)}

        return {"server_slots": self.slots, "in_flight_limit": self.limit, "source": self.source,
                "most_generating_at_once": self.peak, "time_to_first_token_s": stats(self.first_token_s),
                "queue_wait_s": stats(self.queued_s), "abandoned_attempts": self.abandoned,
                "tokens_per_s_per_answer": round(self.rate(), 2)}
