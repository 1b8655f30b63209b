"""Text in Unicode's composed form (NFC) for matching, and the way back to the original text's offsets.

Decomposed text (NFD, as macOS file names and many PDF extractors give it: "e" and a combining accent for "é")
never matches a composed name character for character. Matching reads the NFC form; what it finds is mapped
back to the text as it was, so offsets and spans keep pointing into the original.
"""

from __future__ import annotations

import bisect
import re
import unicodedata

_NON_ASCII = re.compile(r"[^\x00-\x7f]+")


def nfc(text: str) -> str:
    """``text`` in NFC (itself, when it already is)."""
    return text if unicodedata.is_normalized("NFC", text) else unicodedata.normalize("NFC", text)


class Composed:
    """``text`` (NFC) and, for each of its pieces, where the piece was in the original. Pieces are runs that
    normalize on their own; one that NFC changed maps as a whole (a span that starts or ends inside it takes in
    all of it: such a piece is one character and its marks), every other maps character for character."""

    def __init__(self, original: str) -> None:
        self.original = original
        pieces = list(_pieces(original))  # (original start, original end, its NFC form)
        self.text = "".join(p[2] for p in pieces)
        self._at: list[int] = []  # NFC offset where each piece starts
        self._pieces: list[tuple[int, int, bool]] = []  # (original start, original end, NFC left it as it was)
        at = 0
        for start, end, form in pieces:
            self._at.append(at)
            self._pieces.append((start, end, form == original[start:end]))
            at += len(form)

    @classmethod
    def of(cls, text: str) -> "Composed | None":
        """The NFC view of ``text``, or None when ``text`` is NFC already (offsets are its own)."""
        return None if unicodedata.is_normalized("NFC", text) else cls(text)

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The original offsets of ``self.text[start:end]``."""
        return self._start(start), self._end(end)

    def at(self, pos: int) -> int:
        """The original offset of what starts at ``self.text[pos]``."""
        return self._start(pos)

    def _start(self, pos: int) -> int:
        i = bisect.bisect_right(self._at, pos) - 1
        if i < 0:
            return 0
        a, b, same = self._pieces[i]
        return a + (pos - self._at[i]) if same else a

    def _end(self, pos: int) -> int:
        i = bisect.bisect_left(self._at, pos) - 1
        if i < 0:
            return 0
        a, b, same = self._pieces[i]
        return a + (pos - self._at[i]) if same else b


def _pieces(text: str):
    """(start, end, NFC form) of consecutive runs of ``text`` whose NFC forms, joined, are the NFC of the whole.
    No character combines with an ASCII one before it, so a run may begin at any ASCII character; a run of
    other characters NFC changes is cut further before starters (characters whose decomposition starts
    with one), greedily, where the two sides normalize on their own."""
    pos = 0
    for m in _NON_ASCII.finditer(text):
        start = m.start() - 1 if m.start() > pos else m.start()  # the ASCII letter an accent may combine with
        if start > pos:
            yield pos, start, text[pos:start]
        run = text[start:m.end()]
        if unicodedata.is_normalized("NFC", run):
            yield start, m.end(), run
        else:
            yield from _split(run, start)
        pos = m.end()
    if pos < len(text):
        yield pos, len(text), text[pos:]


def _split(run: str, offset: int):
    cut = 0
    for i in range(1, len(run) + 1):
        if i < len(run) and unicodedata.combining(unicodedata.normalize("NFD", run[i])[0]):
            continue  # a mark, or a character that decomposes into one: it may reorder with those before
        left = unicodedata.normalize("NFC", run[cut:i])
        if i < len(run) and unicodedata.normalize("NFC", run[cut:i + 1]) != left + unicodedata.normalize(
                "NFC", run[i]):
            continue  # run[i] combines with what came before it
        yield offset + cut, offset + i, left
        cut = i
