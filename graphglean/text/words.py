"""What a word is, in every script: a run of letters, combining marks and digits. A Devanagari virama, a Tamil
vowel sign and a Thai vowel above its consonant are marks, parts of their word; Python's ``re`` reads ``\\w``
without them and cuts व्यक्ति into व, यक, त (``regex`` is a dependency already, for its Unicode properties).
Accents are dropped only where they are accents (Latin, Greek, Cyrillic) or optional vowel points (Hebrew,
Arabic): "मोदी" is no "मद"."""

from __future__ import annotations

import bisect
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


# Scripts that write no space between words (Thai, Lao, Tibetan, Burmese, Khmer, the Tai scripts, Balinese,
# Javanese, Chinese, Japanese, Yi), and Hangul, whose spaces part phrases: a particle joins the name before it
# ("서울에서"). CJK's symbols, punctuation, enclosed and full-width forms are among them.
_UNSPACED_RANGES = ((0x0E00, 0x0FFF), (0x1000, 0x109F), (0x1100, 0x11FF), (0x1780, 0x17FF), (0x1950, 0x19FF),
                    (0x1A20, 0x1AAF), (0x1B00, 0x1B7F), (0x2E80, 0x2FDF), (0x3000, 0x9FFF), (0xA000, 0xA4CF),
                    (0xA960, 0xA9FF), (0xAA60, 0xAADF), (0xAC00, 0xD7FF), (0xF900, 0xFAFF), (0xFF00, 0xFFEF),
                    (0x16FE0, 0x16FFF), (0x1B000, 0x1B16F), (0x20000, 0x3FFFF))
_UNSPACED_STARTS = [lo for lo, _ in _UNSPACED_RANGES]
UNSPACED = "".join(f"{chr(lo)}-{chr(hi)}" for lo, hi in _UNSPACED_RANGES)  # inside a character class


def joins_words(c: str) -> bool:
    """Whether character ``c`` is of a script that writes words, or a name and what follows it, without a space
    between (`UNSPACED`): a name of it is found in text without a word's edges ("张伟" in "张伟是医生")."""
    code = ord(c)
    return code >= 0x0E00 and code <= _UNSPACED_RANGES[bisect.bisect_right(_UNSPACED_STARTS, code) - 1][1]
