"""Records written as markdown tables (with a header row) or as YAML-like ``key: value`` blocks, as small local
models often write them instead of the asked format. Each row or block becomes a mapping of roles (name, type,
description, source, target, relation, keywords, strength) to values; `RecordParser` turns those into records."""

from __future__ import annotations

import re
from typing import Iterator

from .fields import clean_field

_ROLES = {
    "name": "name", "entity": "name", "entity name": "name", "entity_name": "name", "title": "name",
    "名称": "name", "实体": "name", "實體": "name", "实体名称": "name", "이름": "name", "엔티티": "name",
    "개체": "name", "nama": "name", "entitas": "name", "பெயர்": "name",
    "type": "type", "entity type": "type", "category": "type", "kind": "type", "类型": "type", "類型": "type",
    "유형": "type", "타입": "type", "tipe": "type", "jenis": "type", "வகை": "type",
    "description": "description", "entity description": "description", "desc": "description",
    "relationship description": "description", "details": "description", "描述": "description",
    "설명": "description", "deskripsi": "description", "keterangan": "description", "விளக்கம்": "description",
    # a relationship's label: its relation under a schema with relations, else its description or keywords
    "relationship": "relation", "relation": "relation", "relation type": "relation", "relationship type": "relation",
    "predicate": "relation", "关系": "relation", "관계": "relation", "hubungan": "relation",
    "source": "source", "source entity": "source", "src id": "source", "from": "source", "head": "source",
    "subject": "source", "entity 1": "source", "entity1": "source", "源实体": "source", "源": "source",
    "소스": "source", "출발": "source", "sumber": "source",
    "target": "target", "target entity": "target", "tgt id": "target", "to": "target", "tail": "target",
    "object": "target", "entity 2": "target", "entity2": "target", "目标实体": "target", "目标": "target",
    "대상": "target", "타겟": "target", "tujuan": "target", "sasaran": "target",
    "keywords": "keywords", "relationship keywords": "keywords", "关键词": "keywords", "키워드": "keywords",
    "kata kunci": "keywords",
    "strength": "strength", "relationship strength": "strength", "weight": "strength", "score": "strength",
    "强度": "strength", "강도": "strength", "kekuatan": "strength",
}
_SEPARATOR_ROW = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$")
_KEY_VALUE = re.compile(r"^[ \t]*(?:[-*\u2022][ \t]+)?(?:\*\*|__)?(?P<key>[^:：\n]{1,40}?)(?:\*\*|__)?[ \t]*[:：]"
                        r"(?:\*\*|__)?[ \t]*(?P<value>.*?)[ \t]*$")


def role(key: str) -> str | None:
    k = clean_field(key).lower().replace("_", " ").strip()
    return _ROLES.get(k) or _ROLES.get(k.replace(" ", ""))


def _cells(line: str) -> list[str]:
    s = line.strip()
    s = s[1:] if s.startswith(("|", "\uff5c")) else s
    s = s[:-1] if s.endswith(("|", "\uff5c")) else s
    return [c.strip() for c in re.split(r"[|\uff5c]", s)]


def tables(lines: list[str]) -> Iterator[tuple[int, int, list[dict[str, str]] | None]]:
    """(first line, end line, rows) of each markdown table; rows is None when the header names no known role
    (the caller counts such rows as malformed)."""
    i = 0
    while i < len(lines):
        if i + 1 < len(lines) and lines[i].lstrip().startswith(("|", "\uff5c")) and _SEPARATOR_ROW.match(lines[i + 1]):
            header = [role(c) for c in _cells(lines[i])]
            end = i + 2
            while end < len(lines) and lines[end].lstrip().startswith(("|", "\uff5c")):
                end += 1
            known = "name" in header or ("source" in header and "target" in header)
            rows = [{r: v for r, v in zip(header, _cells(line)) if r} for line in lines[i + 2: end]] if known else None
            yield i, end, rows
            i = end
        else:
            i += 1


def key_value_blocks(lines: list[str]) -> Iterator[tuple[int, int, dict[str, str]]]:
    """(first line, end line, roles) of each run of ``key: value`` lines that names an entity or a pair. A
    block ends at a blank line, a line that is not ``key: value``, a repeated role or a new list item."""
    i = 0
    while i < len(lines):
        block: dict[str, str] = {}
        start = j = i
        while j < len(lines):
            m = _KEY_VALUE.match(lines[j])
            r = role(m.group("key")) if m else None
            if r is None or r in block or (block and lines[j].lstrip().startswith(("- ", "* ", "\u2022 "))):
                break
            block[r] = m.group("value").rstrip(",").strip()  # type: ignore[union-attr]  # JSON lines too
            j += 1
        if "name" in block or ("source" in block and "target" in block):
            yield start, j, block
            i = j
        else:
            i = max(j, i + 1)
