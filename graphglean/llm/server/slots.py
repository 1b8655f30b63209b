"""`ServerSlots`: how many requests the server runs at once, and so how many the client keeps in flight.

A local server runs a few requests at once (its slots) and queues the rest; a queued request waits, silent,
behind minutes of work it cannot see, and its wait counts against its timeout. So the client keeps the slots
busy plus a small queue (`queue_for`), never more. The slots are configured (``llm.server_concurrency``),
reported (llama.cpp's ``/props`` or ``/slots``: `reports`), or learned here from streamed answers:

- It starts at two requests; each answer whose first token came at once lets one more go.
- A first token that came only after a wait its prompt does not explain (twice the prompt's time, and a
  quarter of a typical answer's: `_slack`) shows the server full, with as many generating as the most ever seen
  at once: those are its slots.
- Where answers take time to stream, each one's pace (its tokens over its time, which the delays of reading
  single pieces do not bend) is kept by how many streamed at once with it, on average: times that number,
  the tokens a second of all of them. More at once is allowed only up to twice a number that proved faster
  than every smaller one; a number that brings less than 10% more (`PLATEAU`) than the best smaller one sets
  the slots there: a server that runs more at once but no faster is held where more stopped helping.

OpenAI and Azure get ``llm.max_concurrency``.
"""

from __future__ import annotations

import math
from collections import deque
from typing import Any, Callable

import trio

from ..http.watch import AttemptWatch
from ..limits import AdaptiveConcurrency

START = 2  # requests in flight at first, where nothing is known
QUEUE_SLACK_S = 1.0  # at most this much of a first token's wait is taken for prompt and network
PLATEAU = 1.1  # more at once must bring at least 10% more tokens per second
TRICKLE_S = 0.2  # answers that stream for longer than this can be measured
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
        self.live: set[AttemptWatch] = set()  # answers streaming now
        self.first_token_s: deque[float] = deque(maxlen=_KEPT)
        self.queued_s: deque[float] = deque(maxlen=_KEPT)  # waits for a slot (beyond the prompt's time)
        self.abandoned = 0
        self._prompt_rate = 0.0  # prompt tokens a second, the fastest first token seen (that one did not wait)
        self._answer_s: deque[float] = deque(maxlen=256)  # the time of recent answers, first token to last
        self._typical_s: float | None = None  # their median
        self._rates: deque[float] = deque(maxlen=256)  # tokens a second of recent answers
        self._tokens = 0
        self._answers = 0
        self._levels: dict[int, list[float]] = {}  # answers at once -> tokens a second of answers streamed so
        self._lives: dict[AttemptWatch, float] = {}  # answer streaming -> its seconds times the answers at once
        self._since = 0.0  # when ``generating`` last changed
        self._proven = START  # the most at once that measured faster than fewer
        self._ended_at = -math.inf  # when an answer last ended (freeing a slot)
        self._plateau = False  # the slots are where more stopped helping (not where requests had to wait)
        self._interrupts = 0  # streams of ours the server ended early while another was in flight
        if configured:
            self.set_slots(configured, "llm.server_concurrency")
        elif not hosted:
            concurrency.set_ceiling(START)

    @property
    def limit(self) -> int:
        return self.concurrency.allowed

    def set_slots(self, slots: int, source: str, learning: bool = False, queue: bool = True) -> None:
        self.slots, self.source, self.learning = max(1, slots), source, learning
        self.concurrency.set_ceiling(self.slots + (queue_for(self.slots) if queue else 0))

    def interrupted(self) -> None:
        """A stream of ours ended early while another was in flight: twice, and it is a server that stops the
        answer it generates when a request comes (llama-cpp-python's ``interrupt_requests``, on by default).
        Only one at a time then, and none waiting: a waiting one would stop it too."""
        self._interrupts += 1
        if self.learning and self._interrupts >= 2 and (self.slots != 1 or self.concurrency.ceiling != 1):
            self.set_slots(1, "inferred: the server stops an answer when another request comes (llama-cpp-python: "
                           "--interrupt_requests False lets requests wait instead); one at a time, no queue",
                           queue=False)

    # -- what the client tells it ---------------------------------------------------------------------

    def first_token(self, watch: AttemptWatch, prompt_tokens: int) -> None:
        """A streamed answer's first event arrived."""
        self._changing()
        self.generating += 1
        self.peak = max(self.peak, self.generating)
        self.live.add(watch)
        watch.tag = self.generating
        assert watch.first_at is not None
        wait = watch.first_at - watch.sent_at
        self.first_token_s.append(wait)
        expected = prompt_tokens / self._prompt_rate if self._prompt_rate else None
        # queued: it waited long, and got its slot when another answer ended (a slot freed); where answers come
        # whole there is no telling (their first token is their end), and their waits are short anyway
        trickle = self._typical_s is not None and self._typical_s > TRICKLE_S
        if trickle and expected is not None and wait > 2 * expected + self._slack() and self._ended_at > watch.sent_at:
            self.queued_s.append(wait - expected)
            if self.learning and (self.slots is None or self.peak > self.slots) and not self._plateau:
                self.set_slots(self.peak, f"inferred: a request waited {wait:.1f} s for a slot while "
                               f"{self.peak} generated", learning=True)
            return
        if wait > 0:
            self._prompt_rate = max(self._prompt_rate, max(prompt_tokens, 1) / wait)
        if self.learning and self.slots is None:
            self._grow(self._typical_s is not None and self._typical_s <= TRICKLE_S)
        elif self.learning and not self._plateau and self.peak > self.slots:  # type: ignore[operator]
            self.set_slots(self.peak, f"inferred: {self.peak} generated at once", learning=True)  # it has more

    def whole_answer(self, seconds: float) -> None:
        """An answer that was not streamed came (in ``seconds``): one more may go, as after a first token that
        did not wait (a quick one says nothing of a queue: the first tokens' waits, if any, guard)."""
        if self.learning and self.slots is None:
            self._grow(seconds <= QUEUE_SLACK_S and (self._typical_s is None or self._typical_s <= TRICKLE_S))

    def _grow(self, fast: bool) -> None:
        """One more in flight: up to the maximum where answers come whole at once (nothing to measure), else
        up to twice the most at once that proved faster than fewer."""
        cap = self.concurrency.maximum if fast else 2 * self._proven
        grown = min(self.concurrency.maximum, cap, self.concurrency.ceiling + 1)
        if grown > self.concurrency.ceiling:
            self.concurrency.set_ceiling(grown)

    def finished(self, watch: AttemptWatch, abandoned: bool) -> None:
        """An attempt ended (answered, failed or given up)."""
        self.abandoned += abandoned
        if watch.first_at is None:
            return
        self._changing()
        self.live.discard(watch)
        self.generating = max(0, self.generating - 1)
        self._ended_at = trio.current_time()
        if abandoned:
            self._lives.pop(watch, None)
            return
        tokens, seconds = watch.tokens, watch.last_at - watch.first_at
        self._answer_s.append(seconds)
        if self._answers < 16 or self._answers % 16 == 0:  # a sort of 256 times: now and then
            self._typical_s = _median(self._answer_s)
        self._tokens += tokens
        self._answers += 1
        if tokens >= 8 and seconds > 0:
            self._rates.append(tokens / seconds)
        self._measure(watch, tokens, seconds)

    # -- learning -------------------------------------------------------------------------------------

    def _slack(self) -> float:
        """A wait for a slot is a good part of an answer: a quarter of a typical one's time, at most a second.
        Answers that come whole (nothing to stream) are short: a wait for one of their slots is too, and not
        told from a busy machine's delays: a second."""
        if self._typical_s is None or self._typical_s <= TRICKLE_S:
            return QUEUE_SLACK_S
        return min(QUEUE_SLACK_S, max(TRICKLE_S, 0.25 * self._typical_s))

    def _changing(self) -> None:
        """``generating`` is about to change: each answer streaming lived the time since at its old value (kept
        only while learning from answers that trickle: a walk over every answer streaming, per change)."""
        if not self.learning or self._typical_s is None or self._typical_s <= TRICKLE_S:
            return
        now = trio.current_time()
        if self.generating and self._since:
            lived = (now - self._since) * self.generating
            for watch in self.live:
                self._lives[watch] = self._lives.get(watch, 0.0) + lived
        self._since = now

    def _measure(self, watch: AttemptWatch, tokens: int, seconds: float) -> None:
        """An answer streamed ``tokens`` in ``seconds`` with (on average) so many at once: the pace of the
        server at that number, whatever the delays of this machine's reading of single pieces."""
        lived = self._lives.pop(watch, 0.0)
        # only where answers trickle: an answer that came whole but was read in pieces says nothing of a pace
        if tokens < 8 or seconds <= TRICKLE_S or self._typical_s is None or self._typical_s <= TRICKLE_S:
            return
        at_once = max(1, round(lived / seconds))
        self._levels.setdefault(at_once, []).append(tokens / seconds)
        if self.learning:
            self._judge_levels()

    def _measured(self, n: int) -> float | None:
        """Tokens a second of all the answers together with ``n`` at once, once two answers tell it."""
        rates = self._levels.get(n, ())
        return n * sum(rates) / len(rates) if len(rates) >= 2 else None

    def _judge_levels(self) -> None:
        """A number at once proves itself by beating every smaller one by `PLATEAU`; one that does not sets the
        slots where the best of those was (over an inferred number of slots too: it may be one too many)."""
        best: tuple[int, float] | None = None
        for n in sorted(self._levels):
            rate = self._measured(n)
            if rate is None:
                continue
            if best is not None and rate < PLATEAU * best[1]:
                if self.slots is None or best[0] < self.slots:
                    self._plateau = True
                    self.set_slots(best[0], f"inferred: more than {best[0]} at once gave no more tokens per second",
                                   learning=True)
                return
            self._proven = max(self._proven, n)
            best = (n, rate) if best is None or rate > best[1] else best

    # -- what it tells ----------------------------------------------------------------------------------

    def streaming(self, owned: Callable[[object], bool]) -> tuple[int, int, float]:
        """(answers streaming now, their tokens so far, their tokens a second) of the calls ``owned`` picks."""
        now = trio.current_time()
        mine = [w for w in self.live if owned(w.owner)]
        rate = sum(w.tokens / (now - w.first_at) for w in mine if w.first_at is not None and now > w.first_at)
        return len(mine), sum(w.tokens for w in mine), rate

    def rate(self) -> float:
        """Tokens a second of one answer, on average (0 before any)."""
        return sum(self._rates) / len(self._rates) if self._rates else 0.0

    def answer_tokens(self) -> float:
        """Tokens of an answer, on average (0 before any)."""
        return self._tokens / self._answers if self._answers else 0.0

    def summary(self) -> dict[str, Any]:
        """What report.json says of the server's concurrency and the time requests waited."""
        measured = {n: round(r, 1) for n in sorted(self._levels) if (r := self._measured(n)) is not None}
        return {"server_slots": self.slots, "in_flight_limit": self.limit, "source": self.source,
                "most_generating_at_once": self.peak, "time_to_first_token_s": _stats(self.first_token_s),
                "queue_wait_s": _stats(self.queued_s), "abandoned_attempts": self.abandoned,
                "tokens_per_s_per_answer": round(self.rate(), 2), "tokens_per_s_by_answers_at_once": measured}


def _median(values: deque[float]) -> float:
    return sorted(values)[len(values) // 2]


def _stats(values: deque[float]) -> dict[str, float]:
    if not values:
        return {"count": 0}
    ordered = sorted(values)

    def pick(p: float) -> float:
        return round(ordered[min(len(ordered) - 1, int(math.floor(p * (len(ordered) - 1) + 0.5)))], 3)

    return {"count": len(ordered), "p50": pick(0.5), "p95": pick(0.95), "max": round(ordered[-1], 3)}
