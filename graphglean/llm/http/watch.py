"""`AttemptWatch`: the clock of one attempt on the wire, fed every piece of the answer as it arrives.

Until the first event of a streamed answer (its first token) the attempt may wait ``llm.first_token_timeout_s``:
the server's queue and the prompt. From then on every byte renews ``llm.timeout_s``, the longest silence, so
an answer whose tokens flow is never given up, however long it takes; ``llm.total_timeout_s``, when set, caps
the whole. An answer that is not streamed sends nothing until it is whole: it has the first-token allowance.
"""

from __future__ import annotations

import math
from typing import Callable

import trio

_DATA = b"data:"


class AttemptWatch:
    """Deadlines of one attempt, applied to its ``scope`` (`start`), and what arrived: the time of the first
    event, the last byte, and the events (about one token each)."""

    __slots__ = ("scope", "sent_at", "first_at", "last_at", "events", "silence_s", "first_s", "total_s", "_cap",
                 "on_first", "tag", "owner")

    def __init__(self, first_s: float, silence_s: float, total_s: float = 0.0,
                 on_first: Callable[["AttemptWatch"], None] | None = None) -> None:
        self.first_s, self.silence_s, self.total_s = first_s, silence_s, total_s
        self.on_first = on_first
        self.tag: object = None  # the client's note (what it learns from it)
        self.owner: object = None  # whose call it is (the accounts it counts in)
        self.scope = trio.CancelScope()
        self.sent_at = self.last_at = 0.0
        self.first_at: float | None = None
        self.events = 0
        self._cap = math.inf

    def start(self) -> trio.CancelScope:
        """The attempt starts now: its scope, with the first deadline (enter it around the attempt)."""
        now = self.sent_at = self.last_at = trio.current_time()
        self._cap = now + self.total_s if self.total_s else math.inf
        self.scope.deadline = min(now + self.first_s, self._cap)
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
        if self.first_at is not None:
            self.scope.deadline = min(now + self.silence_s, self._cap)

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
                    "the prompt; an answer not streamed must be whole by then)")
        return (f"the server went silent for llm.timeout_s ({self.silence_s:g} s) after {self.tokens} tokens "
                f"in {now - self.sent_at:.0f} s")
