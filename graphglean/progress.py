"""Progress per pass: one redrawn line per pass on a terminal, plain log lines otherwise."""

from __future__ import annotations

import sys
import time
from typing import TextIO

from .llm.accounting import CallAccount


class ConsoleProgress:
    def __init__(self, stream: TextIO | None = None, interval_s: float = 2.0) -> None:
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self.interval_s = interval_s
        self.totals: dict[str, int] = {}
        self.done: dict[str, int] = {}
        self.failed: dict[str, int] = {}
        self._last = 0.0

    def start(self, pass_name: str, total: int) -> None:
        self.totals[pass_name] = self.totals.get(pass_name, 0) + total
        self.done.setdefault(pass_name, 0)
        self.failed.setdefault(pass_name, 0)

    def _line(self, name: str, account: CallAccount) -> str:
        return (f"{name}: {self.done[name]}/{self.totals[name]} items, {account.calls} calls, "
                f"{account.cache_hits} cached, {account.prompt_tokens + account.completion_tokens} tokens, "
                f"{self.failed[name]} errors")

    def advance(self, pass_name: str, account: CallAccount, failed: bool) -> None:
        self.done[pass_name] += 1
        self.failed[pass_name] += int(failed)
        now = time.monotonic()
        final = self.done[pass_name] == self.totals[pass_name]
        if self.tty:
            if final or now - self._last >= 0.1:
                self._last = now
                self.stream.write("\r\x1b[K" + self._line(pass_name, account))
                self.stream.flush()
        elif final or now - self._last >= self.interval_s:
            self._last = now
            print(self._line(pass_name, account), file=self.stream, flush=True)

    def finish(self, pass_name: str) -> None:
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()
