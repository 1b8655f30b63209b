"""`AttemptWatch`: the clock of one attempt on the wire, fed every piece of the answer as it arrives; `WaitingLine`:
the attempts of one client that wait for their answer's first byte, in the order they were sent.

Until the first event of a streamed answer (its first token) the attempt may wait ``llm.first_token_timeout_s``:
the server's queue and the prompt. From then on every byte renews ``llm.timeout_s``, the longest silence, so
an answer whose tokens flow is never given up, however long it takes; ``llm.total_timeout_s``, when set, caps
the whole. An answer that is not streamed sends nothing until it is whole: it has the first-token allowance.

A request queued behind others is not given up while the server works through the queue ahead of it: its
first-token allowance counts from the last time a request sent before it received something (its first token,
more of a flowing answer, its whole answer), not from its own sending (`WaitingLine`).
"""

from __future__ import annotations

import math
from typing import Callable

import trio

_DATA = b"data:"
_DONE = b"[DONE]"


class AttemptWatch:
    """Deadlines of one attempt, applied to its ``scope`` (`start`), and what arrived: the time of the first
    event, the last byte, and the events (about one token each)."""

    __slots__ = ("scope", "sent_at", "first_at", "last_at", "events", "silence_s", "first_s", "total_s", "_cap",
                 "on_first", "on_last", "tag", "owner", "line", "seq", "size")

    def __init__(self, first_s: float, silence_s: float, total_s: float = 0.0,
                 on_first: Callable[["AttemptWatch"], None] | None = None) -> None:
        self.first_s, self.silence_s, self.total_s = first_s, silence_s, total_s
        self.on_first = on_first
        self.on_last: Callable[["AttemptWatch"], None] | None = None  # told when the stream's end arrives
        self.tag: object = None  # the client's note (what it learns from it)
        self.owner: object = None  # whose call it is (the accounts it counts in)
        self.line: WaitingLine | None = None  # the client's line of attempts waiting for a first byte
        self.seq = 0  # its place in the order sent (given by the line)
        self.size = 0  # the prompt's tokens, about (what its first token's wait is measured against)
        self.scope = trio.CancelScope()
        self.sent_at = self.last_at = 0.0
        self.first_at: float | None = None
        self.events = 0
        self._cap = math.inf

    def start(self) -> trio.CancelScope:
        """The attempt starts now: its scope, with the first deadline (enter it around the attempt, and call
        `ended` after it)."""
        now = self.sent_at = self.last_at = trio.current_time()
        self._cap = now + self.total_s if self.total_s else math.inf
        self.scope.deadline = min(now + self.first_s, self._cap)
        if self.line is not None:
            self.line.join(self)
        return self.scope

    def heard(self, data: bytes | bytearray) -> None:
        """Bytes of the answer arrived (head or body)."""
        now = self.last_at = trio.current_time()
        n = data.count(_DATA)
        if n:
            self.events += n
            if self.first_at is None:
                self.first_at = now
                if self.on_first is not None:
                    self.on_first(self)
                if self.line is not None:
                    self.line.leave(self)
                    self.line.moved(self, now)
            if self.on_last is not None and _DONE in data:
                self.on_last(self)
        if self.first_at is not None:
            self.scope.deadline = min(now + self.silence_s, self._cap)
            line = self.line
            if line is not None and now >= line.review_at:  # a flowing answer: the line ahead moves
                line.moved(self, now)

    def ended(self, answered: bool) -> None:
        """The attempt is over; ``answered``: its answer came (the line behind it moved)."""
        line = self.line
        if line is not None:
            line.leave(self)
            if answered:
                line.moved(self, trio.current_time())

    def wait_longer(self, now: float) -> None:
        """The line ahead moved at ``now``: the first-token allowance counts from now (never beyond the cap)."""
        deadline = min(now + self.first_s, self._cap)
        if deadline > self.scope.deadline:
            self.scope.deadline = deadline

    @property
    def tokens(self) -> int:
        """Tokens received so far, about (the events less the opening and closing ones)."""
        return max(0, self.events - 2)

    def why(self) -> str:
        """Why the deadline ended the attempt, naming the setting."""
        now = trio.current_time()
        if self._cap <= now + 1e-6 and self.total_s:
            return f"no complete answer within llm.total_timeout_s ({self.total_s:g} s)"
        if self.first_at is None:
            return (f"no answer within llm.first_token_timeout_s ({self.first_s:g} s) (the server's queue and "
                    "the prompt; an answer not streamed must be whole by then; counted from when the requests "
                    "sent before it last received anything)")
        return (f"the server went silent for llm.timeout_s ({self.silence_s:g} s) after {self.tokens} tokens "
                f"in {now - self.sent_at:.0f} s")


class WaitingLine:
    """The attempts of one client waiting for the first byte of their answer, in the order sent.

    When an attempt receives something (its first token, its whole answer, or, at most every `REVIEW_S` (a
    quarter of the first-token allowance, if less), more of a flowing answer), the line ahead of every attempt
    sent after it moved: their first-token allowance counts from then. So requests queued at a server that
    works through its queue wait as long as it takes, while one that nothing ahead of it moves for is given up
    after ``llm.first_token_timeout_s``. The walk over the waiting attempts that pushes their deadlines is made
    at most every `WALK_S` (an eighth of the allowance, if less), and only once the oldest has used a quarter
    of its allowance: the fast path costs a dict insert and delete per attempt, and a move while the oldest
    has three quarters of its allowance left is not counted (the queue must move within three quarters of the
    allowance). ``on_review(now)`` is told each time the line moves (the client's check for requests stuck in
    a queue)."""

    REVIEW_S = 1.0
    WALK_S = 1.0

    def __init__(self, on_review: Callable[[float], None] | None = None) -> None:
        self.waiting: dict[AttemptWatch, None] = {}  # in the order sent
        self.review_at = -math.inf  # a flowing answer's bytes count as the line moving from then on
        self.on_review = on_review
        self._sent = 0
        self._walk_at = -math.inf
        self._ahead_seq = math.inf  # the earliest sent of the attempts that moved since the last walk
        self._ahead_at = 0.0  # and when it last moved

    def join(self, watch: AttemptWatch) -> None:
        watch.seq = self._sent
        self._sent += 1
        self.waiting[watch] = None

    def leave(self, watch: AttemptWatch) -> None:
        self.waiting.pop(watch, None)

    def queued(self, watch: AttemptWatch, behind: int, most: int) -> bool:
        """Whether ``watch`` waits (or waited) as in a queue, in the order sent: at least ``behind`` attempts sent
        after it still wait for their first byte, and at most ``most`` of those sent after it left the line
        before it (had their first byte, or ended). (The walk to find its place stops where the answer is
        known.)"""
        after = self._sent - 1 - watch.seq
        if after < behind:
            return False
        last = len(self.waiting) - 1
        for ahead, other in enumerate(self.waiting):
            if after - (last - ahead) > most or last - ahead < behind:
                return False
            if other is watch:
                return True
        return False

    def moved(self, mover: AttemptWatch, now: float) -> None:
        """``mover`` received something at ``now``."""
        self.review_at = now + min(self.REVIEW_S, mover.first_s / 4)
        if mover.seq <= self._ahead_seq:
            self._ahead_seq, self._ahead_at = mover.seq, now
        if now >= self._walk_at:
            self._walk(now)
        if self.on_review is not None:
            self.on_review(now)

    def _walk(self, now: float) -> None:
        oldest = next(iter(self.waiting), None)
        if oldest is not None and oldest.scope.deadline - now < 0.75 * oldest.first_s:
            for watch in self.waiting:
                if watch.seq > self._ahead_seq:
                    watch.wait_longer(self._ahead_at)
            self._walk_at = now + min(self.WALK_S, oldest.first_s / 8)
        self._ahead_seq = math.inf
