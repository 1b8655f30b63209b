"""Records written as JSON, wherever an answer holds them: the whole answer (the structured format,
``{"entities": [...], "relationships": [...]}``), JSON after a lead-in or in a fence, JSON a lenient repair makes
readable (json-repair), and JSON cut short (its whole items read, the rest kept as cut or malformed text).

One reader for every path (the tuple parser's, `SchemaParser`'s, the JSON gleaning loop's), so the same records
give the same graph whichever way they came. Keys are read by role (`blocks.role`: GraphRAG's
``source_entity``, LightRAG's ``src_id``, ``head``/``tail``, a ``relation``), each item through
`RecordReader.by_role`, as table rows and ``key: value`` blocks are. A value counts as records only when it has
their shape (a list keyed ``entities``/``relationships``, or items naming an entity or a pair): a tuple answer
that opens with ``[`` is no JSON reading. Inside the record lists, an item naming no entity or pair is kept as
malformed text, never dropped."""

from __future__ import annotations

import json
import os
import re
from typing import Any, Iterator

import json_repair

from ...core.answers import NOT_JSON, close_truncated, strip_reasoning
from ...text.surrogates import whole_characters
from .blocks import role
from .record_reader import RecordReader

_OPENING = re.compile(r"\{(?=\s*[\"'])|\[(?=\s*\{)")
_BRACKET = re.compile(r"[{\[]")
_AT_START = re.compile(r"\A\s*(?:```[\w-]*\s*)?(?=[{\[])")
_RECORD_LISTS = frozenset({"entities", "nodes", "entity", "relationships", "relations", "edges", "relationship",
                           "relation"})
ATTEMPTS = 32  # openings tried that hold no JSON, at most


def read_json(text: str, read: RecordReader, truncated: bool = False) -> str:
    """Read the records of every JSON value in ``text`` into ``read``'s result; ``text`` with those values blanked
    out (line breaks and positions kept), for the other readings. ``truncated``: the answer was cut by the
    completion cap, so what follows the last whole item of a cut value is its cut text (a continuation may
    bring it), not malformed text."""
    if not any(c in text for c in "{["):
        return text
    chunks, pos = [], 0
    for start, end, value, rest in _values(text):
        rows, malformed = [], []
        if not _collect(value, rows, malformed):
            continue
        for row, item in rows:
            read.by_role(row, _text(item))
        read.result.malformed += malformed
        if rest:
            (read.result.cut if truncated else read.result.malformed).append(rest)
        chunks += [text[pos:start], re.sub(r"[^\n]", " ", text[start:end])]
        pos = end
    return "".join(chunks) + text[pos:] if chunks else text


def looks_like_json(text: str) -> bool:
    """Whether an answer opens (reasoning and a fence aside) with ``{`` or ``[``, whatever follows."""
    return _AT_START.match(strip_reasoning(text)) is not None


def opens_with_json(text: str) -> bool:
    """Whether an answer is written as JSON records: it opens (reasoning and a fence aside) with a JSON value of
    their shape, not with records of the tuple format (which may open with ``[`` too)."""
    body = strip_reasoning(text)
    m = _AT_START.match(body)
    if m is None:
        return False
    found = next(_values(body[m.end():], at_start=True), None)
    return found is not None and _collect(found[2], [], [])


def _values(text: str, at_start: bool = False) -> Iterator[tuple[int, int, Any, str]]:
    """(start, end, value, the unread rest of a cut value) of each JSON value that opens an object with a
    string key or an array of objects; ``at_start``: only the one at the start of ``text``."""
    decoder = json.JSONDecoder()
    pos, attempts = 0, ATTEMPTS
    while attempts > 0:
        m = _BRACKET.match(text) if at_start else _OPENING.search(text, pos)
        if m is None:
            return
        attempts -= 1
        start = m.start()
        try:
            value, end = decoder.raw_decode(text, start)
            rest = ""
        except NOT_JSON:
            end = _closing(text, start)
            value, rest = _cut(text[start:]) if end is None else (_repaired(text[start:end]), "")
            end = len(text) if end is None else end
        if value is not None:
            yield start, end, value, rest
        if at_start:
            return
        pos = end if value is not None else m.end()


def _closing(text: str, start: int) -> int | None:
    """Where the value opening at ``start`` ends (strings skipped), or None when it is never closed."""
    depth, in_string, escaped = 0, False, False
    for i in range(start, len(text)):
        ch = text[i]
        if in_string:
            escaped, in_string = (False, True) if escaped else (ch == "\\", ch != '"')
        elif ch == '"':
            in_string = True
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
            if depth == 0:
                return i + 1
    return None


def _repaired(body: str) -> Any:
    try:
        value = json_repair.loads(body)
    except NOT_JSON:
        return None
    return _whole(value) if isinstance(value, (dict, list)) and value else None


def _whole(value: Any) -> Any:
    """``value`` with whole characters in its strings: json_repair decodes an escaped surrogate pair
    ("\\ud800\\udc00") as two lone halves, which no writer takes; a lone half becomes U+FFFD."""
    if isinstance(value, str):
        return whole_characters(value)
    if isinstance(value, dict):
        return {_whole(k): _whole(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_whole(v) for v in value]
    return value


def _cut(body: str) -> tuple[Any, str]:
    """The whole items of a value that stops midway (a half-written item is not read half), and what follows
    the last of them."""
    closed = close_truncated(body)
    if closed is None:
        return _repaired(body), body[-200:].strip()
    try:
        value = json.loads(closed)
    except NOT_JSON:
        value = _repaired(closed)
    rest = body[len(os.path.commonprefix([closed, body])):].strip(" \t\n,")
    return value, rest


def _collect(value: Any, rows: list[tuple[dict[str, str], Any]], malformed: list[str]) -> bool:
    """The record items of ``value`` (as rows by role) into ``rows``, what its record lists hold besides into
    ``malformed``; whether it has the shape of records at all."""
    if isinstance(value, list):
        found = False
        for item in value:
            found = _collect(item, rows, malformed) or found
        return found
    if not isinstance(value, dict):
        return False
    lists = [k for k, v in value.items() if isinstance(v, list) and str(k).casefold() in _RECORD_LISTS]
    if lists:  # the structured format: every item of its lists is a record, or kept as text
        for key in lists:
            for item in value[key]:
                if not _collect(item, rows, malformed):
                    malformed.append(_text(item))
        malformed += [_text(v) for k, v in value.items() if k not in lists and v not in ([], {}, "", None)]
        return True
    row = _row(value)
    if row is not None:
        rows.append((row, value))
    found = row is not None
    for v in value.values():
        if isinstance(v, (list, dict)):
            found = _collect(v, rows, malformed) or found
    return found


def _row(item: dict[str, Any]) -> dict[str, str] | None:
    """An item's values by role when it names an entity or a pair, else None."""
    row = {r: str(v) for k, v in item.items()
           if isinstance(v, (str, int, float)) and not isinstance(v, bool) and (r := role(str(k)))}
    if row.get("source", "").strip() and row.get("target", "").strip() or row.get("name", "").strip():
        return row
    return None


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
