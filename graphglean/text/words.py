"""What a word is, in every script: a run of letters, combining marks and digits. A Devanagari virama, a Tamil
vowel sign and a Thai vowel above its consonant are marks, parts of their word; Python's ``re`` reads ``\\w``
without them and cuts व्यक्ति into व, यक, त (``regex`` is a dependency already, for its Unicode properties).
Accents are dropped only where they are accents (Latin, Greek, Cyrillic) or optional vowel points (Hebrew,
Arabic): "मोदी" is no "मद"."""

from __future__ import annotations

import unicodedata

import regex

LETTERS = r"\p{L}\p{M}"  # inside a character class: a letter, or a mark on one
WORD = regex.compile(rf"[{LETTERS}\p{{N}}]+")


def words(text: str) -> list[str]:
    """The words of ``text``, in order."""
    return WORD.findall(text)


def strip_accents(text: str) -> str:
    """``text`` without the accents of Latin, Greek and Cyrillic letters and the vowel points of Hebrew and
    Arabic; a letter with a stroke is its base letter ("Łódź" is "Lodz"); the marks of other scripts stay."""
    out: list[str] = []
    base = 0
    for c in unicodedata.normalize("NFKD", text.translate(_STROKES)):
        if not unicodedata.combining(c):
            base = ord(c)
            out.append(c)
        elif not any(lo <= base <= hi for lo, hi in _ACCENTED):
            out.append(c)
    return unicodedata.normalize("NFC", "".join(out))


# letters whose mark is part of the glyph, not a combining accent that NFKD takes off
_STROKES = str.maketrans({"ł": "l", "Ł": "L", "ø": "o", "Ø": "O", "đ": "d", "Đ": "D", "ħ": "h", "Ħ": "H",
                          "ŧ": "t", "Ŧ": "T", "ı": "i", "ƒ": "f", "ß": "ss", "æ": "ae", "Æ": "AE", "œ": "oe",
                          "Œ": "OE", "þ": "th", "Þ": "Th", "ð": "d", "Ð": "D"})
# letters whose marks are accents or optional vowel points: Latin, Greek, Cyrillic, Hebrew, Arabic
_ACCENTED = ((0x41, 0x24F), (0x1E00, 0x1EFF), (0x370, 0x52F), (0x1F00, 0x1FFF), (0x590, 0x6FF), (0x750, 0x77F),
             (0x8A0, 0x8FF))


def unspaced(text: str) -> bool:
    """Written in a script that puts no spaces between words or names (Chinese, Japanese kana and kanji)."""
    return bool(text) and all("\u3040" <= c <= "\u30ff" or "\u3400" <= c <= "\u9fff" or "\uf900" <= c <= "\ufaff"
                              for c in text)
