"""Names that still hold pieces of the answer's format once read: delimiter fragments (``<|``, ``|>``, ``||``),
arrows (``->``) and stray quotes that the chunk's own text does not hold. A name that is the rest once such pieces
are cut from its ends keeps that rest (counted as repaired); any other such record is set aside as malformed
text. The parser reads what it can; this is the check, per chunk, that nothing of the format became a node."""

from __future__ import annotations

import re

from ..records import EntityRecord, ParseResult, RelationshipRecord
from .fields import clean_field, is_header_word

FRAGMENTS = ("|", "\uff5c", "<|", "->", "=>", "\u2192")  # a bar alone too: "Government|Offeror|evaluates"
_JUNK = r"[\s<>|#\\\-=\u2192\uff1c\uff1e\uff5c\"'`*\u201c\u201d]"  # what a format leaves at a name's edge
_EDGES = re.compile(rf"^{_JUNK}+|{_JUNK}+$")
_STRAIGHT, _CURLY = '"', "\u201c\u201d"


def _stray_quotes(name: str) -> bool:
    """A quote without its partner (``Naval Base "Norfolk``); a nickname in quotes is whole."""
    return name.count(_STRAIGHT) % 2 == 1 or name.count(_CURLY[0]) != name.count(_CURLY[1])


def _piece(run: str) -> bool:
    """Whether an edge of a name is a piece of the format (a fragment or a quote), not a "#" or "-" of its own."""
    return any(f in run for f in FRAGMENTS) or any(q in run for q in _STRAIGHT + _CURLY)


def foreign(name: str, text: str) -> bool:
    """Whether ``name`` holds a piece of a format (or a stray quote) and ``text`` does not hold the name as
    written (in any case, its words wrapped anyhow)."""
    if not (any(f in name for f in FRAGMENTS) or _stray_quotes(name)):
        return False
    words = name.split()
    return not words or re.search(r"\s+".join(map(re.escape, words)), text, re.I) is None


def _trimmed(name: str, text: str) -> str | None:
    """``name`` with foreign pieces cut from its ends and stray quotes dropped; None when pieces remain inside."""
    fixed = clean_field(_EDGES.sub(lambda m: "" if _piece(m.group()) else m.group(), name))
    if foreign(fixed, text) and _stray_quotes(fixed):
        fixed = clean_field(fixed.translate({ord(q): None for q in _STRAIGHT + _CURLY}))
    return None if not fixed or foreign(fixed, text) else fixed


def clean_names(result: ParseResult, text: str) -> None:
    """Check every name of ``result`` (the records of one chunk) against the chunk's ``text``, in place."""
    names = [e.name for e in result.entities] + [n for r in result.relationships for n in (r.source_name,
                                                                                            r.target_name)]
    if not any(foreign(n, text) for n in names):
        return
    entities: list[EntityRecord] = []
    for e in result.entities:
        name = _checked(e.name, text, result)
        if name is None:
            result.malformed.append(" | ".join(("entity", e.name, e.type, e.description)))
        elif name:
            entities.append(e if name == e.name else EntityRecord(name, e.type, e.description, e.source))
    relationships: list[RelationshipRecord] = []
    for r in result.relationships:
        source, target = _checked(r.source_name, text, result), _checked(r.target_name, text, result)
        if source is None or target is None:
            result.malformed.append(" | ".join(("relationship", r.source_name, r.target_name, r.description)))
        elif source and target:
            relationships.append(r if (source, target) == (r.source_name, r.target_name) else RelationshipRecord(
                source, target, r.description, r.weight, r.keywords, r.source, r.relation))
    result.entities, result.relationships = entities, relationships


def _checked(name: str, text: str, result: ParseResult) -> str | None:
    """The name to keep: as it is, repaired (counted), "" for a placeholder it turned out to be (counted), or
    None when it cannot be repaired."""
    if not foreign(name, text):
        return name
    fixed = _trimmed(name, text)
    if fixed is not None and is_header_word(fixed):  # -> "target_entity": the prompt's format line
        result.placeholders += 1
        return ""
    if fixed is not None:
        result.repaired_names += 1
    return fixed
