"""Sentence boundaries of a text, found once: the sentence around a span (a name's mention), for the view's
highlights and the sentences a query cites."""

from __future__ import annotations

import bisect
import re

# a sentence ends at . ! ? (and any closing quotes or brackets) before whitespace, or at a blank line
SENTENCE_END = re.compile(r"[.!?\u2026\u3002\uff01\uff1f]+[\"'\u201d\u2019)\]]*(?=\s)|[\u3002\uff01\uff1f]|\n\s*\n")


class Sentences:
    def __init__(self, text: str) -> None:
        self.text = text
        self.ends = [m.end() for m in SENTENCE_END.finditer(text)]

    def around(self, start: int, end: int) -> tuple[int, int]:
        """The sentence holding text[start:end], without surrounding whitespace."""
        i = bisect.bisect_right(self.ends, start)
        first = self.ends[i - 1] if i else 0
        j = bisect.bisect_left(self.ends, end)
        last = self.ends[j] if j < len(self.ends) else len(self.text)
        while first < start and self.text[first].isspace():
            first += 1
        while last > end and self.text[last - 1].isspace():
            last -= 1
        return first, last
