"""Progress per pass: a line per pass redrawn in place on a terminal, plain log lines otherwise."""

from __future__ import annotations

import sys
import time
from typing import TextIO

from ..llm.accounting import CallAccount


class ConsoleProgress:
    def __init__(self, stream: TextIO | None = None, interval_s: float = 2.0, quiet_s: float = 30.0) -> None:
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self.interval_s = interval_s
        self.quiet_s = quiet_s  # a log (not a terminal) hears of answers in progress at most this often
        self.live: dict[str, str] = {}  # pass -> its answers in progress, while some stream
        self._told: dict[str, float] = {}
        self.totals: dict[str, int] = {}
        self.done: dict[str, int] = {}
        self.failed: dict[str, int] = {}
        self.lines: dict[str, str] = {}
        self._drawn = 0
        self._last = float("-inf")  # the first update shows at once

    def start(self, pass_name: str, total: int) -> None:
        self.totals[pass_name] = self.totals.get(pass_name, 0) + total
        self.done.setdefault(pass_name, 0)
        self.failed.setdefault(pass_name, 0)

    def _line(self, name: str, account: CallAccount) -> str:
        total = self.totals[name]
        bar = ""
        if self.tty and total:
            filled = int(20 * self.done[name] / total)
            bar = "[" + "#" * filled + "." * (20 - filled) + "] "
        return (f"{name:<15} {bar}{self.done[name]}/{total} items, {account.calls} calls, "
                f"{account.cache_hits} cached, {account.prompt_tokens + account.completion_tokens:,} tokens, "
                f"{self.failed[name]} errors")

    def streaming(self, pass_name: str, answers: int, tokens: int, rate: float) -> None:
        """The pass's answers in progress: "graph 3/40 items, ...; answering 2: 1,240 tokens, 18 tok/s"."""
        if pass_name not in self.totals:
            return
        self.live[pass_name] = f"; answering {answers}: {tokens:,} tokens, {rate:.0f} tok/s" if answers else ""
        line = self.lines.get(pass_name) or (f"{pass_name:<15} {self.done[pass_name]}/{self.totals[pass_name]} "
                                             "items")
        self.lines[pass_name] = line.split("; answering")[0] + self.live[pass_name]
        now = time.monotonic()
        if self.tty:
            self._redraw()
        elif answers and now - self._told.get(pass_name, -float("inf")) >= self.quiet_s:
            self._told[pass_name] = now
            print(self.lines[pass_name], file=self.stream, flush=True)

    def advance(self, pass_name: str, account: CallAccount, failed: bool) -> None:
        self.done[pass_name] += 1
        self.failed[pass_name] += int(failed)
        self.lines[pass_name] = self._line(pass_name, account)
        now = time.monotonic()
        final = self.done[pass_name] == self.totals[pass_name]
        if self.tty:
            if final or now - self._last >= 0.1:
                self._last = now
                self._redraw()
        elif final or now - self._last >= self.interval_s:
            self._last = now
            print(self.lines[pass_name], file=self.stream, flush=True)

    def note(self, key: str, line: str) -> None:
        """A line of its own beside the passes' (a batch's status), shown when it changes; empty: gone."""
        if line:
            self.lines[key] = line
        elif self.lines.pop(key, None) is not None and self.tty and self._drawn:
            self.stream.write(f"\x1b[{self._drawn}F\x1b[J")  # drawn again one line shorter
            self._drawn = 0
        if self.tty:
            self._redraw()
        elif line:
            print(line, file=self.stream, flush=True)

    def _redraw(self) -> None:
        up = f"\x1b[{self._drawn}F" if self._drawn else ""
        self.stream.write(up + "".join(f"\x1b[K{line}\n" for line in self.lines.values()))
        self.stream.flush()
        self._drawn = len(self.lines)

    def finish(self, pass_name: str) -> None:
        if self.tty and pass_name in self.lines:
            self._redraw()
