"""A model saying again what it said: whether an answer is a loop (the lines or sentences of its second half
nearly all said before, as a looping model fills a cut answer with one record, one prose line, one sentence
hundreds of times: asking it for more buys more of the same), where the loop starts, and how much of a
continuation repeats the end of the answer it continues."""

from __future__ import annotations

import re

_SEGMENT = re.compile(r"[^\n.!?\u3002\uff01\uff1f]+[.!?\u3002\uff01\uff1f]*")  # a line, or a sentence of one
_SHORTEST = 16  # UTF-8 bytes (5 CJK characters): shorter segments ("<|>5)", "Yes.") repeat in any long answer
_TAIL_SHARE = 0.9  # of the second half's segments, said before
_LEAST_WORD = 3  # letters or digits a segment needs to count
_REPEATS = 3
_LEAST_OVERLAP = 8  # characters a continuation must repeat of an answer's end to count as a repeat, not text
_MOST_OVERLAP = 2000


def is_loop(text: str) -> bool:
    """Whether at least three lines or sentences repeat earlier ones, and nearly every segment of the text's
    second half does: a model that repeated a line or two and went on is not looping, nor is a list whose
    entries share lines ("Type: Person") but each name something new."""
    seen: set[str] = set()
    repeats = tail = repeated_tail = 0
    half = len(text) // 2
    for m in _SEGMENT.finditer(text):
        segment = " ".join(m.group().split()).casefold()
        if sum(map(str.isalnum, segment)) < _LEAST_WORD:  # punctuation, an initial ("J."): neither new nor said
            continue
        again = segment in seen
        seen.add(segment)
        repeats += again and len(segment.encode("utf-8", "surrogatepass")) >= _SHORTEST
        if m.start() >= half:
            tail += 1
            repeated_tail += again
    return repeats >= _REPEATS and repeated_tail >= _TAIL_SHARE * tail > 0


def loop_start(text: str) -> int:
    """Where the first segment that repeats an earlier one begins (``len(text)`` when none does): what is
    before it is the answer without the loop."""
    seen: set[str] = set()
    for m in _SEGMENT.finditer(text):
        segment = " ".join(m.group().split()).casefold()
        if len(segment.encode("utf-8", "surrogatepass")) < _SHORTEST:
            continue
        if segment in seen:
            return m.start()
        seen.add(segment)
    return len(text)


def overlap(text: str, more: str) -> int:
    """The length of the longest start of ``more`` that ``text`` ends with: what a continuation of ``text``
    said again (0 below `_LEAST_OVERLAP` characters, where a match is as likely to be new text)."""
    for k in range(min(len(text), len(more), _MOST_OVERLAP), _LEAST_OVERLAP - 1, -1):
        if text.endswith(more[:k]):
            return k
    return 0
