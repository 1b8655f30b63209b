"""What the input readers say about what they skipped or changed: `InputWarning`s (each naming the file, and the
line or byte offset), shown as warnings and kept by `noted` for the run's report (report.json's ``warnings``
and ``skipped``)."""

from __future__ import annotations

import warnings
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Iterator, Sequence

import attrs

SHOWN = 5  # things a warning's one line names; its ``details`` name every one


class InputWarning(UserWarning):
    """Something in the input was skipped or changed; the message says what and where. ``details``: one line per
    thing, where the message names only the first `SHOWN` (the CLI writes them to logs/run.log)."""

    def __init__(self, message: str, details: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.details = tuple(details)


class SkippedFiles(InputWarning):
    """Files of an input folder that were not read, each with why (report.json's ``skipped``)."""

    def __init__(self, message: str, files: Sequence[tuple[str, str]] = ()) -> None:
        super().__init__(message, [f"{file} ({why})" if why else file for file, why in files])
        self.files = tuple(files)


def listed(items: Sequence[str]) -> str:
    """``items`` as one line: the first `SHOWN`, and how many more."""
    more = f" and {len(items) - SHOWN} more" if len(items) > SHOWN else ""
    return ", ".join(items[:SHOWN]) + more


@attrs.define
class Notes:
    """The input warnings of one reading, as they were said, and the files skipped (file, reason)."""

    warnings: list[str] = attrs.field(factory=list)
    skipped: list[tuple[str, str]] = attrs.field(factory=list)

    def add(self, warning: InputWarning) -> None:
        self.warnings.append(str(warning))
        if isinstance(warning, SkippedFiles):
            self.skipped += warning.files

    def extend(self, other: "Notes") -> None:
        self.warnings += other.warnings
        self.skipped += other.skipped

    def skipped_rows(self) -> list[dict[str, str]]:
        """report.json's ``skipped``: each file with why."""
        return [{"file": f, "reason": why} for f, why in self.skipped]


_NOTES: ContextVar[Notes | None] = ContextVar("graphglean_input_notes", default=None)


def warn(warning: InputWarning, stacklevel: int = 2) -> None:
    """Say ``warning`` (`warnings.warn`), and keep it in the `noted` reading under way."""
    notes = _NOTES.get()
    if notes is not None:
        notes.add(warning)
    warnings.warn(warning, stacklevel=stacklevel + 1)


@contextmanager
def noted() -> Iterator[Notes]:
    """The input warnings said inside the block (in this thread or task), also handed to an enclosing one."""
    outer = _NOTES.get()
    notes = Notes()
    token = _NOTES.set(notes)
    try:
        yield notes
    finally:
        _NOTES.reset(token)
        if outer is not None:
            outer.extend(notes)
