"""What a word is, in every script: a run of letters, combining marks and digits. A Devanagari virama, a Tamil
vowel sign and a Thai vowel above its consonant are marks, parts of their word; Python's ``re`` reads ``\\w``
without them and cuts व्यक्ति into व, यक, त (``regex`` is a dependency already, for its Unicode properties)."""

from __future__ import annotations

import regex

LETTERS = r"\p{L}\p{M}"  # inside a character class: a letter, or a mark on one
WORD = regex.compile(rf"[{LETTERS}\p{{N}}]+")


def words(text: str) -> list[str]:
    """The words of ``text``, in order."""
    return WORD.findall(text)
