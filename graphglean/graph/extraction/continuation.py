"""A cut answer and the model's continuation of it, joined into the one answer the model would have written
without the cap, so its half-written last record is read once, whole.

Asked to continue exactly where it stopped, a model mostly does, mid-word if need be. Some repeat the last
words first, start the record they were writing over, or open with a line of their own ("Here is the rest:").
So a repeated tail is written once, a continuation that starts a record replaces the unfinished one, and a
line ending in a colon before the first record is left out.
"""

from __future__ import annotations

from ...core.repetition import overlap
from .parser import RecordParser


def _without_preface(more: str, parser: RecordParser) -> str:
    """``more`` without lines of its own before its first record: lines without a field delimiter, the last of
    them ending in a colon."""
    first = parser.first_record(more)
    if not first:
        return more
    lead = more[:first].rstrip(" \t\n")
    if lead.endswith(":") and "\n" in more[:first] and not parser.parse_any(lead).malformed:
        return more[first:]
    return more


def join(text: str, more: str, parser: RecordParser) -> tuple[str, int]:
    """The answer ``text`` (cut by the cap) continued by ``more``, and where what is kept of ``more`` begins."""
    more = _without_preface(more, parser)
    repeated = overlap(text, more)
    if repeated:
        return text + more[repeated:], len(text)
    unfinished = parser.unfinished_at(text)
    if unfinished < len(text) and parser.first_record(more.lstrip()) == 0:
        return text[:unfinished] + more.lstrip(), unfinished  # the unfinished record, started over
    return text + more, len(text)


def progressed(before: str, joined: str, more: str, parser: RecordParser) -> bool:
    """Whether a continuation (``more``, itself cut) took the answer on: it is not a repeat of what was
    written, and it adds a record (or one outside reasoning: a closed block's drafts, read while the answer
    after it held none, are no longer read once it does), or at least writes no whole record that is not new."""
    piece = more.strip()
    if not piece or piece[:200] in before:
        return False
    now, then = parser.parse(joined, truncated=True), parser.parse(before, truncated=True)
    if now.records > then.records or now.records - now.reasoning_records > then.records - then.reasoning_records:
        return True
    return parser.first_record(more) is None  # still inside one long record
