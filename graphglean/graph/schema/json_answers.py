"""Reading an answer in the structured format, ``{"entities": [...], "relationships": [...]}``, into records: whole
JSON, JSON around prose or in a fence, JSON a lenient repair makes readable (json-repair), and JSON the
completion cap cut (its whole items read, the unfinished one kept as cut text). Items that name no entity or
pair are kept as malformed text, never dropped. Each record goes through the same `RecordReader` as the tuple
format's (placeholders, repeats, provenance), so the same records give the same graph in either format."""

from __future__ import annotations

import json
import os
import re
from typing import Any

import json_repair

from ...core.answers import close_truncated, strip_reasoning
from ..extraction.record_reader import RecordReader
from ..records import ParseResult

_OPENING = re.compile(r"\A\s*(?:```[\w-]*\s*)?(?=[{\[])")
_ENTITY_KEYS = ("entities", "nodes", "entity")
_RELATIONSHIP_KEYS = ("relationships", "relations", "edges", "relationship")
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)")


def is_json_answer(text: str) -> bool:
    """Whether an answer is written as JSON (its first character, reasoning and a fence aside, opens an object
    or an array), not as records of the tuple format."""
    return _OPENING.match(strip_reasoning(text)) is not None


def read_json_answer(text: str, read: RecordReader, truncated: bool = False) -> bool:
    """Read the records of a JSON answer into ``read``'s result; False when no JSON value could be read from it
    at all (the caller reads it as the tuple format)."""
    body = _body(text)
    if not body.startswith(("{", "[")):
        return False
    if truncated or not _closed(body):  # cut (by the cap, or by a server's own stop): its whole items
        value = _cut_value(body, read.result if truncated else None, read.result.malformed)
    else:
        value = _whole_value(body)
    if value is None:
        return False
    entities, relationships, others = _lists(value)
    for item in entities:
        _entity(item, read)
    for item in relationships:
        _relationship(item, read)
    read.result.malformed += [_text(v) for v in others]
    return True


def _body(text: str) -> str:
    body = strip_reasoning(text).strip()
    body = re.sub(r"\A```[\w-]*\s*", "", body)
    return re.sub(r"\s*```\s*\Z", "", body)


def _whole_value(body: str) -> Any:
    try:
        return json.loads(body)
    except ValueError:
        pass
    try:  # prose after the JSON
        return json.JSONDecoder().raw_decode(body)[0]
    except ValueError:
        pass
    repaired = json_repair.loads(body)
    return repaired if isinstance(repaired, (dict, list)) and repaired else None


def _closed(body: str) -> bool:
    """Whether every bracket the JSON opens is closed (strings skipped): not an answer that stops midway."""
    depth, in_string, escaped = 0, False, False
    for ch in body:
        if in_string:
            escaped, in_string = (False, True) if escaped else (ch == "\\", ch != '"')
        elif ch == '"':
            in_string = True
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
    return depth <= 0 and not in_string


def _cut_value(body: str, result: ParseResult | None, malformed: list[str]) -> Any:
    """The whole items of an answer that stops midway; what follows the last of them is kept: as the cut text
    of ``result`` (cut by the cap: a continuation may bring it), else as malformed text."""
    kept = result.cut if result is not None else malformed
    closed = close_truncated(body)
    value = None
    if closed is not None:
        try:
            value = json.loads(closed)
        except ValueError:
            pass
    if value is not None:
        rest = body[len(os.path.commonprefix([closed, body])):].strip(" \t\n,")  # type: ignore[list-item]
        if rest:
            kept.append(rest)
        return value
    value = _whole_value(body)
    if value is not None:
        kept.append(body[-200:].strip())
    return value


def _lists(value: Any) -> tuple[list[Any], list[Any], list[Any]]:
    """(entity items, relationship items, other values) of the answer."""
    if isinstance(value, list):
        entities = [v for v in value if isinstance(v, dict) and not _pair(v)]
        return entities, [v for v in value if isinstance(v, dict) and _pair(v)], [
            v for v in value if not isinstance(v, dict)]
    entities = next((value[k] for k in _ENTITY_KEYS if isinstance(value.get(k), list)), [])
    relationships = next((value[k] for k in _RELATIONSHIP_KEYS if isinstance(value.get(k), list)), [])
    others = [v for k, v in value.items() if k not in _ENTITY_KEYS + _RELATIONSHIP_KEYS and v not in ([], "", None)]
    return entities, relationships, others


def _pair(item: dict[str, Any]) -> bool:
    return _field(item, "source", "src", "from", "head") != "" or _field(item, "target", "tgt", "to", "tail") != ""


def _field(item: dict[str, Any], *names: str) -> str:
    for name in names:
        value = item.get(name)
        if isinstance(value, str):
            return value.strip()
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return str(value)
    return ""


def _entity(item: Any, read: RecordReader) -> None:
    name = _field(item, "name", "entity", "entity_name") if isinstance(item, dict) else ""
    if not name:
        read.result.malformed.append(_text(item))
        return
    type_ = _field(item, "type", "entity_type", "category")
    description = _field(item, "description", "desc")
    read.entity(name, type_, description, [name, type_, description])


def _relationship(item: Any, read: RecordReader) -> None:
    if not isinstance(item, dict):
        read.result.malformed.append(_text(item))
        return
    source, target = _field(item, "source", "src", "from", "head"), _field(item, "target", "tgt", "to", "tail")
    if not source or not target:
        read.result.malformed.append(_text(item))
        return
    relation = _field(item, "relation", "relation_type", "type", "predicate")
    description = _field(item, "description", "desc")
    strength = _field(item, "strength", "weight")
    weight = strength if _NUMBER.fullmatch(strength) else None
    read.relationship(source, target, description, weight, "", [source, target, relation, description],
                      relation=relation)


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def records_read(result: ParseResult) -> str:
    """The records of a cut answer already read, as the request for the rest names them."""
    lines = [f"- entity {e.name}" for e in result.entities]
    lines += [f"- relationship {r.source_name} -> {r.target_name}" + (f" ({r.relation})" if r.relation else "")
              for r in result.relationships]
    return "\n".join(lines) or "(none)"
