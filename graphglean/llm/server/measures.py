"""`ServerMeasures`: what the client sees of how its server serves requests at once, measured, nothing decided.

Each request is judged once, against the least time seen for its size (`Envelope`): its first token against
its prompt's tokens (where answers stream over time, so that the first token is the prompt and the queue, not
the whole answer), a whole answer (not streamed, or streamed all at once) against its tokens and its prompt's.
Twice that least time plus some slack, and it waited for something besides its own work: a slot. A first
token is also held to what a queue looks like: the server streaming the most answers it was ever seen
streaming (its slots full), and requests served in the order sent (one that waited while more than
`OVERTAKEN` sent after it got their first tokens met the server's own spread of first-token times; one with
fewer than `BEHIND` sent after it still waiting, a run's last requests, is not judged: nothing would be held
back). Each judgment goes to the deciding side (`ConcurrencyRule`) as whether the request waited.

What the server serves at once is counted on demand: where answers stream over time, the most seen streaming
at once; where they come whole, by Little's law, the seconds recent answers were served over the time they
took to come, an answer being served at most a quarter longer than the least time seen for its sizes, plus
slack (the rest of its time is a wait, or the server's own spread: counted short, the limit rises again by
rounds).
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
OVERTAKEN = 2  # more requests sent later getting their first token first: no queue kept this one waiting
BEHIND = 2  # fewer requests sent later still waiting behind it: no queue to judge by (a run's last requests)
_KEPT = 4096  # waits kept for the report
_LOOKED_AT = 8  # requests waiting for their first token looked at, oldest first, for stuck ones
_SPAN = 4  # answers served at once are counted over this many times the longest answer's
_OWN = 1.25  # a whole answer is served at most this much longer than the least time seen for its size (+ slack)


class Envelope:
    """The least time seen for work of its sizes (a prompt's tokens, an answer's): ``max(least time, each size x
    the least time per unit of it)``. A server that keeps nothing waiting takes about ``a + b x size``, never
    more than twice this for work of one size (``a`` is at most the least time, ``b`` at most the least time
    per unit), so a constant latency is never read as a queue."""

    __slots__ = ("least", "per_unit")

    def __init__(self, sizes: int = 1) -> None:
        self.least = math.inf
        self.per_unit = [math.inf] * sizes

    def add(self, seconds: float, *sizes: int) -> None:
        if seconds < self.least:
            self.least = seconds
        per_unit = self.per_unit
        for i, size in enumerate(sizes):
            if size > 0 and seconds / size < per_unit[i]:
                per_unit[i] = seconds / size

    def expected(self, *sizes: int) -> float | None:
        if self.least == math.inf:
            return None
        return max(self.least, *(size * unit for size, unit in zip(sizes, self.per_unit) if unit < math.inf))


class ServerMeasures:
    """Answers streaming now, the most at once, first-token and whole-answer times against their envelopes, the
    waits those do not explain, the seconds answers were served; requests waiting for a first token are
    ``line``'s. A judged attempt's ``tag`` says whether it waited (None: not judged)."""

    def __init__(self, line: WaitingLine) -> None:
        self.line = line
        self.live: set[AttemptWatch] = set()  # answers streaming now (their end not arrived)
        self.peak = 0  # the most streaming at once
        self.first_token_s: deque[float] = deque(maxlen=_KEPT)
        self.queued_s: deque[float] = deque(maxlen=_KEPT)  # waits for a slot (beyond the request's own work)
        self.abandoned = 0
        self.to_first = Envelope()  # a trickling answer's first token, against its prompt's tokens
        self.to_whole = Envelope(2)  # a whole answer, against its tokens and its prompt's
        self._trickled: set[AttemptWatch] = set()  # live answers already in `to_first`
        self._answer_s: deque[float] = deque(maxlen=256)  # recent answers' time, first token to last
        self._typical_s: float | None = None  # their median
        self._rates: deque[float] = deque(maxlen=256)  # tokens a second of recent answers
        self._tokens = 0
        self._answers = 0
        self._served: deque[tuple[float, float]] = deque(maxlen=_KEPT)  # (when, seconds served) of answers
        self._began: float | None = None  # when the first answer's request was sent
        self._ended_at = -math.inf  # when a streamed answer last ended (freeing a slot)

    def slack(self) -> float:
        """A wait for a slot is a good part of an answer: a quarter of a typical one's time, at most a second."""
        if self._typical_s is None or self._typical_s <= TRICKLE_S:
            return QUEUE_SLACK_S
        return min(QUEUE_SLACK_S, max(TRICKLE_S, 0.25 * self._typical_s))

    def _beyond(self, envelope: Envelope, seconds: float, *sizes: int) -> float:
        """Seconds of ``seconds`` that its sizes do not explain, when more than twice what they do plus slack."""
        expected = envelope.expected(*sizes)
        if expected is None or seconds <= 2 * expected + self.slack():
            return 0.0
        return seconds - expected

    def _judge(self, watch: AttemptWatch, waited: float) -> bool:
        watch.tag = bool(waited)
        if waited:
            self.queued_s.append(waited)
        return watch.tag

    # -- streamed answers -------------------------------------------------------------------------------

    def first_token(self, watch: AttemptWatch) -> bool | None:
        """A streamed answer's first event arrived: did it wait for a slot (it got one when another ended, in the
        order sent)? None: not judged (judged already, or nothing to judge by)."""
        self.live.add(watch)
        if len(self.live) > self.peak:
            self.peak = len(self.live)
        assert watch.first_at is not None
        wait = watch.first_at - watch.sent_at
        self.first_token_s.append(wait)
        if watch.tag is not None or self.to_first.expected(watch.size) is None:
            return None
        waited = self._beyond(self.to_first, wait, watch.size) if self._ended_at > watch.sent_at else 0.0
        if waited and (len(self.live) < self.peak or not self.line.queued(watch, BEHIND, OVERTAKEN)):
            return None
        return self._judge(watch, waited)

    def last_event(self, watch: AttemptWatch) -> None:
        """A streamed answer's end arrived: it no longer holds a slot (its attempt ends soon after)."""
        self.live.discard(watch)

    def stuck(self, now: float) -> list[int]:
        """Requests waiting for their first token, not judged yet, that waited longer than their prompt explains
        while the most ever seen stream, as in a queue (of the oldest `_LOOKED_AT`): judged; their places in the
        order sent."""
        for watch in self.live:  # answers that trickle tell the time a prompt takes before they end
            if watch not in self._trickled and watch.first_at is not None and \
                    watch.last_at - watch.first_at > TRICKLE_S:
                self._trickled.add(watch)
                self.to_first.add(watch.first_at - watch.sent_at, watch.size)
        if not self.live or len(self.live) + 1 < self.peak:  # fewer stream than it can (one may have just ended)
            return []
        stuck = []
        for watch in islice(self.line.waiting, _LOOKED_AT):
            if watch.on_first is not None and watch.tag is None:  # streamed, not judged
                waited = self._beyond(self.to_first, now - watch.sent_at, watch.size)
                if not waited:
                    break  # those sent after it waited less
                if self.line.queued(watch, BEHIND, OVERTAKEN) and self._judge(watch, waited):
                    stuck.append(watch.seq)
        return stuck

    # -- every answer -----------------------------------------------------------------------------------

    def answered(self, watch: AttemptWatch, latency: float, tokens: int | None) -> bool | None:
        """A good answer of ``tokens`` came in ``latency`` (None: not a chat answer). One not judged at its first
        token, that did not trickle, is a whole answer: did it wait for a slot? (None: not judged here.) The
        seconds it was served are counted."""
        if tokens is None:
            return None
        if self._began is None:
            self._began = watch.sent_at
        if watch.tag is not None or (watch.first_at is not None and watch.last_at - watch.first_at > TRICKLE_S):
            return None
        self.to_whole.add(latency, tokens, watch.size)
        expected = self.to_whole.expected(tokens, watch.size) or latency
        self._served.append((trio.current_time(), min(latency, _OWN * expected + self.slack())))
        return self._judge(watch, self._beyond(self.to_whole, latency, tokens, watch.size))

    def served_at_once(self) -> int:
        """Answers the server served at once: where answers stream over time, the most seen streaming at once;
        otherwise, by Little's law, the seconds served of the whole answers that came over `_SPAN` times the
        longest of the latest (or since the first was sent), over that time."""
        now = trio.current_time()
        recent = [seconds for _, seconds in islice(reversed(self._served), 64)]
        if not recent or self._began is None or self.to_first.least < math.inf:
            return self.peak
        span = min(_SPAN * max(recent), now - self._began)
        if span <= 0:
            return self.peak
        busy = 0.0
        for at, seconds in reversed(self._served):
            if at < now - span:
                break
            busy += seconds
        return int(busy / span)

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

    @property
    def streams_ended(self) -> int:
        """Streamed answers that ended, whole or cut by the server."""
        return self._answers

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
