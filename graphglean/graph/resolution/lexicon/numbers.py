"""How names write numbers: Roman numerals ("Louis XIV"), ordinals ("2nd", "second"), number words, digits."""

from __future__ import annotations

import re
import unicodedata

from . import ARTICLES, CARDINALS, ORDINALS

_ROMAN = re.compile(r"M{0,3}(?:CM|CD|D?C{0,3})(?:XC|XL|L?X{0,3})(?:IX|IV|V?I{0,3})")
_ROMAN_DIGITS = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}
_ROMAN_TOKEN = re.compile(r"[^\W\d_]+\.?")
_DIGITS = re.compile(r"\d\w*")
_ORDINAL = re.compile(r"(\d+)(?:st|nd|rd|th|er|e|re|eme)")


def roman_words(surface: str) -> dict[str, int]:
    """Roman numerals after the first word, written in capitals ("Louis XIV", "World War I"): folded word ->
    value. Those without I, V or X ("CD", "MD") are taken for acronyms, a lone letter followed by a dot for an
    initial, and in a name all in capitals only I, V and X are numerals."""
    tokens = _ROMAN_TOKEN.findall(unicodedata.normalize("NFKC", surface))
    capitals = surface.upper() == surface
    found = {}
    for tok in tokens[1:]:
        t = tok.rstrip(".")
        if not t or not t.isupper() or not _ROMAN.fullmatch(t) or not set(t) & set("IVX"):
            continue
        if (len(t) == 1 and tok.endswith(".")) or ((len(t) == 1 or capitals) and not set(t) <= set("IVX")):
            continue
        found[t.casefold()] = _roman_value(t)
    return found


def _roman_value(text: str) -> int:
    values = [_ROMAN_DIGITS[c] for c in text]
    return sum(-v if i + 1 < len(values) and v < values[i + 1] else v for i, v in enumerate(values))


def number_of(word: str, romans: dict[str, int]) -> str:
    """The number a word writes, as digits ("", if none): digits from the first one on ("s23": "23", "4o"),
    an ordinal's suffix dropped ("2nd"), Roman numerals, and the English number words."""
    if word in romans:
        return str(romans[word])
    m = _DIGITS.search(word)
    if m:
        ordinal = _ORDINAL.fullmatch(m.group())
        digits = ordinal.group(1) if ordinal else m.group()
        return str(int(digits)) if digits.isdigit() else digits
    value = ORDINALS.get(word, CARDINALS.get(word))
    return "" if value is None else str(value)


def numbering(ws: list[str], romans: dict[str, int]) -> tuple[tuple[str, ...], str]:
    """The numbers among key words ``ws`` (sorted), and the key with each as digits ("henry the eighth":
    "henry 8")."""
    out: list[str] = []
    found: list[str] = []
    for i, w in enumerate(ws):
        n = number_of(w, romans) if i or len(ws) == 1 or w in romans else number_of(w, {})
        if n:
            found.append(n)
            if out and out[-1] in ARTICLES:
                out.pop()
        out.append(n or w)
    if len(out) > 1 and found and (ws[0] in ORDINALS or _ORDINAL.fullmatch(ws[0])):  # "second world war"
        out = out[1:] + out[:1]  # "world war 2", as "World War II" is
    return tuple(sorted(found)), " ".join(out)
