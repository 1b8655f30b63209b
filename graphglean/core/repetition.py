"""Whether an answer is a model repeating itself: the lines or sentences of its second half mostly said
before, as a looping model fills a cut answer (one record, one prose line, one sentence hundreds of times).
Asking such a model for more buys more of the same."""

from __future__ import annotations

import re

_SEGMENT = re.compile(r"[^\n.!?\u3002\uff01\uff1f]+[.!?\u3002\uff01\uff1f]*")  # a line, or a sentence of one
_SHORTEST = 24  # characters: shorter segments ("<|>5)", "Yes.") repeat in any long answer
_TAIL_SHARE = 0.6  # of the second half's segment characters, said before
_REPEATS = 3


def is_loop(text: str) -> bool:
    """Whether at least three segments repeat earlier ones, and those repeats are most of the text's second
    half (a model that repeated a line or two and went on is not looping)."""
    seen: set[str] = set()
    repeats = tail = repeated_tail = 0
    half = len(text) // 2
    for m in _SEGMENT.finditer(text):
        segment = " ".join(m.group().split()).casefold()
        if len(segment) < _SHORTEST:
            continue
        again = segment in seen
        seen.add(segment)
        repeats += again
        if m.start() >= half:
            tail += len(segment)
            repeated_tail += len(segment) if again else 0
    return repeats >= _REPEATS and repeated_tail >= _TAIL_SHARE * tail > 0
