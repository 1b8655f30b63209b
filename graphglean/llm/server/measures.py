"""`ServerMeasures`: what the client sees of how its server serves requests at once, measured, nothing decided.

Each answer is judged against the least time seen for its size (`Envelope`): its first token against its
prompt's tokens (where answers stream over time, so that the first token is the prompt and the queue, not the
whole answer), a whole answer (not streamed, or streamed all at once) against its tokens. Twice that least time
plus some slack, and it waited for something besides its own work: a slot. Each judgment goes to the deciding
side (`ConcurrencyRule`) as (seconds waited beyond its own work, 0 for none; answers the server was serving
at once): for streamed answers those streaming now, for whole ones those the server finished within one
answer's own time (the count in service, by Little's law).
"""

from __future__ import annotations

import math
from collections import deque
from itertools import islice
from typing import Any, Callable

import trio

from ..http.watch import AttemptWatch, WaitingLine

TRICKLE_S = 0.2  # an answer streamed over longer than this trickles: its first token is not its end
QUEUE_SLACK_S = 1.0  # at most this much of a wait is taken for this machine's and the network's delays
_KEPT = 4096  # waits kept for the report
_LOOKED_AT = 8  # requests waiting for their first token looked at, oldest first, for a streamed one

Seen = tuple[float, int]  # (seconds waited beyond the request's own work, answers served at once)


class Envelope:
    """The least time seen for work of a size: ``max(least time, size x least time per unit)``. A server that
    keeps nothing waiting takes about ``a + b x size``, never more than twice this (``a`` is at most the least
    time, ``b`` at most the least time per unit), so a constant latency is never read as a queue."""

    __slots__ = ("least", "per_unit")

    def __init__(self) -> None:
        self.least = math.inf
        self.per_unit = math.inf

    def add(self, seconds: float, size: int) -> None:
        if seconds < self.least:
            self.least = seconds
        if size > 0 and seconds / size < self.per_unit:
            self.per_unit = seconds / size

    def expected(self, size: int) -> float | None:
        if self.least == math.inf:
            return None
        return max(self.least, size * self.per_unit) if self.per_unit < math.inf else self.least


class ServerMeasures:
    """Answers streaming now, the most at once, first-token and whole-answer times against their envelopes, the
    waits those do not explain, the pace of answers; requests waiting for a first token are ``line``'s."""

    def __init__(self, line: WaitingLine) -> None:
        self.line = line
        self.live: set[AttemptWatch] = set()  # answers streaming now (their end not arrived)
        self.peak = 0  # the most streaming at once
        self.first_token_s: deque[float] = deque(maxlen=_KEPT)
        self.queued_s: deque[float] = deque(maxlen=_KEPT)  # waits for a slot (beyond the request's own work)
        self.abandoned = 0
        self.to_first = Envelope()  # a trickling answer's first token, against its prompt's tokens
        self.to_whole = Envelope()  # a whole answer, against its tokens
        self._trickled: set[AttemptWatch] = set()  # live answers already in `to_first`
        self._answer_s: deque[float] = deque(maxlen=256)  # recent answers' time, first token to last
        self._typical_s: float | None = None  # their median
        self._rates: deque[float] = deque(maxlen=256)  # tokens a second of recent answers
        self._tokens = 0
        self._answers = 0
        self._ends: deque[float] = deque(maxlen=_KEPT)  # when whole answers came
        self._began = 0.0  # when the first of them was sent
        self._ended_at = -math.inf  # when a streamed answer last ended (freeing a slot)

    def slack(self) -> float:
        """A wait for a slot is a good part of an answer: a quarter of a typical one's time, at most a second."""
        if self._typical_s is None or self._typical_s <= TRICKLE_S:
            return QUEUE_SLACK_S
        return min(QUEUE_SLACK_S, max(TRICKLE_S, 0.25 * self._typical_s))

    def _beyond(self, envelope: Envelope, seconds: float, size: int) -> float:
        """Seconds of ``seconds`` that its size does not explain, when more than twice what it does plus slack."""
        expected = envelope.expected(size)
        if expected is None or seconds <= 2 * expected + self.slack():
            return 0.0
        return seconds - expected

    # -- streamed answers -------------------------------------------------------------------------------

    def first_token(self, watch: AttemptWatch) -> Seen:
        """A streamed answer's first event arrived: did it wait for a slot (it got one when another ended)?"""
        self.live.add(watch)
        at_once = len(self.live)
        if at_once > self.peak:
            self.peak = at_once
        assert watch.first_at is not None
        wait = watch.first_at - watch.sent_at
        self.first_token_s.append(wait)
        waited = self._beyond(self.to_first, wait, watch.size) if self._ended_at > watch.sent_at else 0.0
        if waited:
            self.queued_s.append(waited)
        return waited, at_once

    def last_event(self, watch: AttemptWatch) -> None:
        """A streamed answer's end arrived: it no longer holds a slot (its attempt ends soon after)."""
        self.live.discard(watch)

    def stuck(self, now: float) -> Seen | None:
        """The oldest request still waiting for its first token, when it waited longer than its prompt explains
        while others stream: (its wait beyond its prompt's time, answers streaming now)."""
        if not self.live:
            return None
        for watch in self.live:  # answers that trickle tell the time a prompt takes before they end
            if watch not in self._trickled and watch.first_at is not None and watch.last_at - watch.first_at > TRICKLE_S:
                self._trickled.add(watch)
                self.to_first.add(watch.first_at - watch.sent_at, watch.size)
        for watch in islice(self.line.waiting, _LOOKED_AT):
            if watch.on_first is not None:  # streamed
                waited = self._beyond(self.to_first, now - watch.sent_at, watch.size)
                return (waited, len(self.live)) if waited else None
        return None

    # -- every answer -----------------------------------------------------------------------------------

    def answered(self, watch: AttemptWatch, latency: float, tokens: int | None, count: bool = False) -> Seen:
        """A good answer of ``tokens`` came in ``latency`` (None: not a chat answer). One that did not trickle
        is a whole answer: did it wait for a slot? Where answers are never streamed, the answers served at
        once are counted where it waited, or where ``count`` asks (a walk over the answers of the last few
        answer times); where they are, the count is the streams' (0 here)."""
        if tokens is None or (watch.first_at is not None and watch.last_at - watch.first_at > TRICKLE_S):
            return 0.0, 0
        now = trio.current_time()
        if not self._ends:
            self._began = watch.sent_at
        self._ends.append(now)
        self.to_whole.add(latency, tokens)
        waited = self._beyond(self.to_whole, latency, tokens)
        if waited:
            self.queued_s.append(waited)
        counted = (waited or count) and not self.peak
        return waited, self.in_service(now, latency - waited) if counted else 0

    def in_service(self, now: float, seconds: float) -> int:
        """Whole answers the server serves at once, where each takes ``seconds`` (Little's law: the rate they
        came at over the last four such times, or since the first was sent, times ``seconds``)."""
        span = min(4 * seconds, now - self._began)
        if span <= 0:
            return 0
        count = 0
        for at in reversed(self._ends):
            if at <= now - span:
                break
            count += 1
        return max(1, round(count * seconds / span))

    def finished(self, watch: AttemptWatch, abandoned: bool) -> None:
        """An attempt ended (answered, failed or given up)."""
        self.abandoned += abandoned
        if watch.first_at is None:
            return
        self.live.discard(watch)
        self._ended_at = trio.current_time()
        trickled = watch in self._trickled
        self._trickled.discard(watch)
        if abandoned:
            return
        tokens, seconds = watch.tokens, watch.last_at - watch.first_at
        if seconds > TRICKLE_S and not trickled:
            self.to_first.add(watch.first_at - watch.sent_at, watch.size)
        self._answer_s.append(seconds)
        if self._answers < 16 or self._answers % 16 == 0:  # a sort of 256 times: now and then
            self._typical_s = sorted(self._answer_s)[len(self._answer_s) // 2]
        self._tokens += tokens
        self._answers += 1
        if tokens >= 8 and seconds > 0:
            self._rates.append(tokens / seconds)

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
        return {"most_generating_at_once": self.peak, "time_to_first_token_s": _stats(self.first_token_s),
                "queue_wait_s": _stats(self.queued_s), "abandoned_attempts": self.abandoned,
                "tokens_per_s_per_answer": round(self.rate(), 2)}


def _stats(values: deque[float]) -> dict[str, float]:
    if not values:
        return {"count": 0}
    ordered = sorted(values)

    def pick(p: float) -> float:
        return round(ordered[min(len(ordered) - 1, int(math.floor(p * (len(ordered) - 1) + 0.5)))], 3)

    return {"count": len(ordered), "p50": pick(0.5), "p95": pick(0.95), "max": round(ordered[-1], 3)}
