"""Sentence boundaries of a text, found once: the sentence around a span (a name's mention), for the view's
highlights and the sentences a query cites."""

from __future__ import annotations

import bisect
import re

# marks that only ever end a sentence, in scripts where the next one may follow without a space: CJK 。！？｡,
# Arabic ؟, Urdu ۔, Devanagari and Bengali । ॥, Ethiopic ። ፧, Myanmar ။, Tibetan ། ༎, Armenian ։, Khmer ។ ៕
_OWN_ENDS = "\u3002\uff01\uff1f\uff61\u061f\u06d4\u0964\u0965\u1362\u1367\u104b\u0f0d\u0f0e\u0589\u17d4\u17d5"
# quotes and brackets closed after the end: " ' ” ’ ) ] » 」 』 ） 】
_CLOSERS = "\"'\u201d\u2019)\\]\u00bb\u300d\u300f\uff09\u3011"
# a sentence ends at . ! ? … (and any closers) before whitespace, at one of its own marks anywhere, or at a
# blank line
SENTENCE_END = re.compile(rf"[.!?\u2026{_OWN_ENDS}]+[{_CLOSERS}]*(?=\s)|[{_OWN_ENDS}]+[{_CLOSERS}]*|\n\s*\n")


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
