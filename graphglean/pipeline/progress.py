"""What the console shows of a run: a line per pass (redrawn in place on a terminal, plain log lines otherwise),
and `RunLog`, the copy of it all in ``OUTPUT/logs/run.log``."""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path
from typing import Any, Callable, Iterable, TextIO

from ..llm.accounting import CallAccount
from ..llm.credentials import redact, remember
from .runstore import now_iso

LABEL = 20  # the label column: the longest pass or step name ("graph.resolve.embed") and a space
_BAR = re.compile(r"\[[#.]{20}\] ")  # a terminal's progress bar: not in a log


def plural(n: int, word: str, words: str = "") -> str:
    """``1 call``, ``2 calls`` (``words``: a plural that is not ``word`` + s)."""
    return f"{n:,} {word if n == 1 else words or word + 's'}"


def tree_order(names: Iterable[str]) -> list[str]:
    """``names`` with each step right after the pass (or step) it belongs to, ``graph.resolve.embed`` after
    ``graph.resolve``, and otherwise in their first order."""
    first = {name: i for i, name in enumerate(names)}

    def key(name: str) -> list[int]:
        parts = name.split(".")
        prefixes = [".".join(parts[:k]) for k in range(1, len(parts) + 1)]
        # a step of a pass that has no line of its own sorts where its first line was shown
        return [first.get(p, first[name]) for p in prefixes]

    return sorted(first, key=key)


class ConsoleProgress:
    """``log``: also given the lines a log would show (at a log's pace, whatever the stream), for `RunLog`."""

    def __init__(self, stream: TextIO | None = None, interval_s: float = 2.0, quiet_s: float = 30.0,
                 log: Callable[[str], None] | None = None) -> None:
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self.log = log
        self._logged = float("-inf")
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
        return (f"{name:<{LABEL}}{bar}{self.done[name]:,}/{plural(total, 'item')}, {plural(account.calls, 'call')}, "
                f"{account.cache_hits:,} cached, {plural(account.prompt_tokens + account.completion_tokens, 'token')}, "
                f"{plural(self.failed[name], 'error')}")

    def _say(self, line: str, shown: bool = True) -> None:
        """A line as a log shows it: printed when the stream is not a terminal (``shown``), and logged."""
        if shown and not self.tty:
            print(line, file=self.stream, flush=True)
        if self.log is not None:
            self.log(_BAR.sub("", line))

    def streaming(self, pass_name: str, answers: int, tokens: int, rate: float) -> None:
        """The pass's answers in progress: "graph 3/40 items, ...; answering 2: 1,240 tokens, 18 tok/s"."""
        if pass_name not in self.totals:
            return
        self.live[pass_name] = f"; answering {answers}: {plural(tokens, 'token')}, {rate:.0f} tok/s" if answers else ""
        line = self.lines.get(pass_name) or (f"{pass_name:<{LABEL}}{self.done[pass_name]:,}/"
                                             f"{plural(self.totals[pass_name], 'item')}")
        self.lines[pass_name] = line.split("; answering")[0] + self.live[pass_name]
        now = time.monotonic()
        if self.tty:
            self._redraw()
        if answers and now - self._told.get(pass_name, -float("inf")) >= self.quiet_s:
            self._told[pass_name] = now
            self._say(self.lines[pass_name])

    def advance(self, pass_name: str, account: CallAccount, failed: bool) -> None:
        self.done[pass_name] += 1
        self.failed[pass_name] += int(failed)
        self.lines[pass_name] = self._line(pass_name, account)
        now = time.monotonic()
        final = self.done[pass_name] == self.totals[pass_name]
        if self.tty and (final or now - self._last >= 0.1):
            self._last = now
            self._redraw()
        if final or now - self._logged >= self.interval_s:
            self._logged = now
            self._say(self.lines[pass_name])

    def note(self, key: str, line: str) -> None:
        """A line of its own beside the passes' (a batch's status), shown when it changes; empty: gone."""
        if line:
            self.lines[key] = line
        elif self.lines.pop(key, None) is not None and self.tty and self._drawn:
            self.stream.write(f"\x1b[{self._drawn}F\x1b[J")  # drawn again one line shorter
            self._drawn = 0
        if self.tty:
            self._redraw()
        if line:
            self._say(line)

    def _redraw(self) -> None:
        up = f"\x1b[{self._drawn}F" if self._drawn else ""
        self.stream.write(up + "".join(f"\x1b[K{self.lines[key]}\n" for key in tree_order(self.lines)))
        self.stream.flush()
        self._drawn = len(self.lines)

    def finish(self, pass_name: str) -> None:
        if self.tty and pass_name in self.lines:
            self._redraw()


_ESCAPES = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")  # a terminal's cursor moves and erasures


class RunLog:
    """``OUTPUT/logs/run.log``: what the console showed of each invocation of a run, appended, each line with the
    time it was written; the API key and the credentials a URL may carry are never written. Lines wait in
    memory until ``opened()`` says the file may be written (the run has held the output folder): an invocation
    refused because another run holds it writes nothing into that run's log."""

    def __init__(self, path: str | Path, secrets: Iterable[str] = (),
                 opened: Callable[[], bool] = lambda: True) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._opened = opened
        self._file: TextIO | None = None
        self._waiting: list[str] = []
        remember(secrets)

    def write(self, text: str) -> None:
        """Each line of ``text`` (cursor moves taken out, blank lines left out), stamped with the time now."""
        stamp = now_iso()
        lines = [_ESCAPES.sub("", line).rstrip() for line in text.replace("\r", "\n").split("\n")]
        self._waiting.append("".join(f"{stamp} {redact(line)}\n" for line in lines if line.strip()))
        self._flush()

    def _flush(self) -> None:
        if self._file is None and self._opened():
            self._file = self.path.open("a", encoding="utf-8", errors="replace")
        if self._file is not None:
            self._file.write("".join(self._waiting))
            self._file.flush()
            self._waiting.clear()

    def close(self) -> None:
        self._flush()
        if self._file is not None:
            self._file.close()


class Tee:
    """A text stream that writes to ``stream`` and gives each whole line to ``log`` (`RunLog.write`): the
    console's standard streams during a run."""

    def __init__(self, stream: TextIO, log: Callable[[str], None]) -> None:
        self.stream, self.log, self._part = stream, log, ""

    def write(self, text: str) -> int:
        n = self.stream.write(text)
        whole, _, self._part = (self._part + text).rpartition("\n")
        if whole:
            self.log(whole)
        return n if n is not None else len(text)

    def flush(self) -> None:
        self.stream.flush()

    def close_line(self) -> None:
        """Log what is left of an unfinished line."""
        if self._part:
            self.log(self._part)
            self._part = ""

    def __getattr__(self, name: str) -> Any:  # isatty, fileno, encoding, ...: the console's own
        return getattr(self.stream, name)
