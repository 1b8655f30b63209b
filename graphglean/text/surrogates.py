"""Lone surrogates in JSON input, replaced before the JSON is decoded.

``"\\ud83d"`` (a text cut in the middle of an emoji, common in scraped and JavaScript data) is valid JSON, but
decodes to a code point that no UTF-8 file, SQLite database or spaCy pipeline takes. Each such escape is
replaced with ``\\ufffd`` in the JSON text itself, so every string read from it (texts, ids, metadata) is clean,
and each replacement is known by its line. Escaped pairs (``"\\ud83d\\ude00"``, a whole emoji) are kept.
"""

from __future__ import annotations

import re

import attrs

from .notes import InputWarning, warn

# every escape, so that an escaped backslash ("\\\\ud83d" is a backslash and the letters ud83d) is never
# taken for the start of one
_ESCAPE = re.compile(r"\\(?:u([0-9a-fA-F]{4})|.)", re.S)
_HINT = re.compile(r"\\u[dD][89a-fA-F]")  # a surrogate's escape, paired or not
REPLACEMENT = "\\ufffd"


@attrs.define
class Repairs:
    """What the readers changed so that the input can be written; ``report.json`` counts it."""

    lone_surrogates: int = 0
    warn: bool = True  # False: count only (a second reading of lines already warned about)


def _surrogate(m: re.Match[str]) -> int:
    """The escape's code point when it is a surrogate's, else 0."""
    digits = m.group(1)
    code = int(digits, 16) if digits else 0
    return code if 0xD800 <= code <= 0xDFFF else 0


def lone_surrogates(text: str) -> list[tuple[int, int]]:
    """(start, end) of each escape in JSON ``text`` that decodes to a lone surrogate."""
    if "\\u" not in text or not _HINT.search(text):
        return []
    escapes = list(_ESCAPE.finditer(text))
    lone, i = [], 0
    while i < len(escapes):
        m, code = escapes[i], _surrogate(escapes[i])
        if code and code < 0xDC00 and i + 1 < len(escapes) and escapes[i + 1].start() == m.end() \
                and _surrogate(escapes[i + 1]) >= 0xDC00:
            i += 2  # a high and a low surrogate: one character
            continue
        if code:
            lone.append(m.span())
        i += 1
    return lone


def repair_json(text: str) -> tuple[str, list[int]]:
    """``text`` with every lone surrogate escape replaced by ``\\ufffd``, and where each was (offsets)."""
    spans = lone_surrogates(text)
    if not spans:
        return text, []
    parts, pos = [], 0
    for start, end in spans:
        parts += [text[pos:start], REPLACEMENT]
        pos = end
    parts.append(text[pos:])
    return "".join(parts), [start for start, _ in spans]


_SURROGATE = re.compile("[\ud800-\udfff]")


def whole_characters(text: str) -> str:
    """An answer's text as UTF-8 can hold it. JSON may escape half a character (``"\\ud83d"``: a server that
    cut an emoji at a token, or a stream whose events split a pair): a pair split over two events is joined
    into its character, a lone half becomes U+FFFD, as the JSON readers here do. Left in, it
    made the run store, the outputs and every writer raise after the answer was paid for."""
    if not _SURROGATE.search(text):
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def repaired_line(line: str, name: str, lineno: int, repairs: Repairs | None) -> str:
    """A JSON line with its lone surrogates replaced; one warning names the file and line."""
    fixed, found = repair_json(line)
    if found:
        _note(repairs, len(found), f"{name}:{lineno}")
    return fixed


def repaired_text(text: str, name: str, repairs: Repairs | None) -> str:
    """A whole JSON file with its lone surrogates replaced; one warning per line that held any."""
    fixed, found = repair_json(text)
    lines: dict[int, int] = {}
    lineno, pos = 1, 0
    for offset in found:  # in order
        lineno, pos = lineno + text.count("\n", pos, offset), offset
        lines[lineno] = lines.get(lineno, 0) + 1
    for lineno, count in lines.items():
        _note(repairs, count, f"{name}:{lineno}")
    return fixed


def _note(repairs: Repairs | None, count: int, where: str) -> None:
    if repairs is not None:
        repairs.lone_surrogates += count
    if repairs is None or repairs.warn:
        what = "a lone surrogate escape" if count == 1 else f"{count} lone surrogate escapes"
        warn(InputWarning(f"{where}: {what} (text cut inside a character, e.g. an emoji) replaced with U+FFFD"),
             stacklevel=3)
