"""Records written as delimited rows, CSV or TSV (or rows separated by semicolons), with or without a header
row, fields quoted or not: a row opening with its kind (``entity,Daan Visser,person,"A surgeon, at Erasmus"``,
``relationship,Daan Visser,Femke Smit,trained,8``) is read as the tuple format's fields; a row under a header
naming roles (``name,type,description``; ``source,target,description,strength``, in any language a table's
header may be) by those roles; where the answer holds records of no other shape, a row whose second cell is a
type (``Daan Visser,person,A surgeon``) or whose last is a strength (``A,B,trained,8``) by place. A block of rows
is consecutive lines split by one delimiter; a line that reads as none of these ends it (prose with commas
reads as none: its cells are no names, no kind opens it, no header stands over it)."""

from __future__ import annotations

import csv
import re
from typing import Callable

from ..blocks import named, role
from ..fields import clean_field
from ..record_reader import RecordReader

_DELIMITERS = ("\t", ",", ";")
_NUMERIC = re.compile(r"[+-]?\d{1,2}(?:\.\d+)?(?:\s*/\s*10)?")
_KIND_WORDS = frozenset({"kind", "record", "record type", "row type", "entity", "relationship", "relation"})
_RECORDED = ("entity", "relationship", "relation")


def read_rows(lines: list[str], used: list[bool], read: RecordReader, kind_of: Callable[[str], str],
              is_type: Callable[[str], bool], by_place: bool) -> None:
    """Read the delimited rows among ``lines`` not ``used`` yet into ``read``'s result, marking the lines they
    take; ``by_place``: rows without a kind or a header are read by where their type or strength stands."""
    i = 0
    while i < len(lines):
        delimiter = None if used[i] else _delimiter(lines[i])
        if delimiter is None:
            i += 1
            continue
        header: list[str | None] | None = None
        header_at, j = -1, i
        while j < len(lines) and not used[j] and lines[j].strip():
            cells = _cells(lines[j], delimiter)
            if header is None and header_at < 0 and (roles := _header(cells)) is not None:
                header, header_at = roles, j
            elif len(cells) < 2 or not _row(cells, header, lines[j].strip(), read, kind_of, is_type, by_place):
                if j == i and all(c and len(c.split()) <= 4 and not c.endswith((".", "!", "?")) for c in cells):
                    header_at = j  # a header no table of roles knows ("ရင်းမြစ်", "entity_type/target") if rows follow
                else:
                    break
            else:
                used[j] = True
            j += 1
        if header_at >= 0 and any(used[header_at + 1:j]):
            used[header_at] = True  # a header over rows read; alone it is left to what reads the rest
        i = max(j, i + 1)


def _delimiter(line: str) -> str | None:
    """The delimiter that splits ``line`` into the most cells, three at least (a tab before a comma before a
    semicolon), or None."""
    best, most = None, 2
    for d in _DELIMITERS:
        if d in line and (n := len(_cells(line, d))) > most:
            best, most = d, n
    return best


def _cells(line: str, delimiter: str) -> list[str]:
    try:  # a lone carriage return is a line break to csv
        row = next(csv.reader([line.strip().replace("\r", " ")], delimiter=delimiter, skipinitialspace=True), [])
    except csv.Error:
        return []
    return [clean_field(c) for c in row]


def _header(cells: list[str]) -> list[str | None] | None:
    """The roles a header row names, a kind column as no role; None for a row that is no header."""
    words = [c.casefold().replace("_", " ").strip() for c in cells]
    roles = [None if w in _KIND_WORDS and not role(w) else role(w) for w in words]
    if sum(r is not None for r in roles) >= 2 and all(r is not None or w in _KIND_WORDS for r, w in zip(roles, words)):
        return roles
    return None


def _row(cells: list[str], header: list[str | None] | None, text: str, read: RecordReader,
         kind_of: Callable[[str], str], is_type: Callable[[str], bool], by_place: bool) -> bool:
    """Read one row; whether it was a record's."""
    kind = kind_of(cells[0].casefold()) if cells[0].isalpha() else ""  # a kind alone ("Entities: jess" is none)
    if kind in _RECORDED:
        if kind == "entity" and named(cells[1]) and (len(cells) >= 4 or (len(cells) == 3 and is_type(cells[2]))):
            read.positional(kind, cells, text)
            return True
        if kind != "entity" and len(cells) >= 4 and named(cells[1]) and named(cells[2]):
            read.positional(kind, cells, text)
            return True
        return False
    if header is not None:
        row = {r: v for r, v in zip(header, cells) if r and v}
        if row.get("name") or (row.get("source") and row.get("target")):
            read.by_role(row, text)
            return True
        return False
    if not by_place or len(cells) < 3:
        return False
    if is_type(cells[1]) and named(cells[0]):
        read.positional("entity", ["entity", *cells], text)
        return True
    if kind.startswith("typed:") and is_type(cells[0]) and named(cells[1]):  # person,Daan Visser,A surgeon
        read.positional("entity", ["entity", cells[1], cells[0], *cells[2:]], text)
        return True
    if len(cells) >= 4 and _NUMERIC.fullmatch(cells[-1]) and named(cells[0]) and named(cells[1]):
        read.positional("relationship", ["relationship", *cells], text)
        return True
    return False
