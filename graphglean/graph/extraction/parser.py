"""`RecordParser`: entity and relationship records out of whatever a real model returns.

It reads the exact tuple format and what models write instead: newlines for ``##``, ``##`` glued to the
completion marker, records after the completion marker, code fences, numbered or bulleted lines, bold or
quoted kinds in any case, preambles, reasoning blocks (an unclosed one as the answer; a closed one only where
the answer outside it holds no record), missing parentheses or completion marker, LightRAG's keywords field and
its newer line format (``entity<|#|>...``, ``relation<|#|>...``), corrupted delimiters (``<||>``, ``<|#>``,
``|>``, ``<<|>``, ``<|"``, full-width bars), pipe rows, type-first records, markdown tables with a header row,
YAML-like ``key: value`` blocks, JSON (`json_records`), XML and CSV/TSV (`shapes`), records wrapped over lines
and runaway repetition. Rows copied from the prompt's format line are not entities. What cannot be read is
kept as text and counted, never dropped: whatever no reading takes but chatter (`shapes.leftovers`).
"""

from __future__ import annotations

import bisect
import re
from typing import Callable

from ...core.answers import reasoning_spans
from ..records import ParseResult, Provenance
from .blocks import (LIST_LINE, details_below, heading_type, key_value_blocks, list_records, marked_item, tables,
                     titled_item, unlabelled)
from .exact_format import ExactFormat
from .fields import ARROW, CLOSERS, GENERIC_DELIMITER, OPENERS, PIPE, QUOTES, clean_field, is_known_type, strip_closers
from .json_records import read_json
from .record_reader import RecordReader
from .shapes.delimited import read_rows
from .shapes.leftovers import unread
from .shapes.markup import blanked, read_markup

_FENCE = re.compile(r"^[ \t]*(?:```|~~~)[\w-]*[ \t]*$", re.M)
# chat-template tokens that leak into answers from local servers
_SPECIAL = re.compile(r"<\|(?:im_end|im_start|eot_id|eom_id|end_of_text|endoftext|end|start_header_id|end_header_id|"
                      r"assistant|user|system)\|>|</s>|<eos>|<(?:end|start)_of_turn>|"
                      r"<\uff5c(?:end|begin)\u2581of\u2581sentence\uff5c>", re.I)
_KINDS = {"entity": "entity", "entities": "entity", "relationship": "relationship",
          "relationships": "relationship", "relation": "relation", "relations": "relation",
          "content_keywords": "keywords", "high_level_keywords": "keywords", "low_level_keywords": "keywords",
          "实体": "entity", "實體": "entity", "엔티티": "entity", "개체": "entity", "entitas": "entity",
          "关系": "relationship", "關係": "relationship", "관계": "relationship", "hubungan": "relationship",
          "relasi": "relationship"}
_TYPED = frozenset({"person", "organization", "organisation", "geo", "location", "event", "place", "category",
                    "concept", "technology", "product"})  # types a model may write where the kind goes
_Q = "[" + re.escape(QUOTES) + "]"
_OPEN = "[" + re.escape(OPENERS) + "]"
_BULLET = r"(?:[-*+\u2022]|\d+[.)]|\(\d+\))"
# <|COMPLETE|> as models garble it: <| COMPLETE |>, <COMPLETE>, [COMPLETE], |COMPLETE|, **<|complete|>**
_ANY_COMPLETION = (r"\*{0,2}(?:[<\[\uff1c][|\uff5c]?|[|\uff5c])[ \t]*complete[ \t]*[|\uff5c]?[>\]\uff1e]\*{0,2}"
                   r"(?=\s|$|[#(\[<])")
_AFTER_CLOSER = re.compile(r"(?<=[" + re.escape(CLOSERS) + r"])[\s,;.*`]+$")  # "(...)," "(...)**" "(...)`"
_LIST_MARK = re.compile(rf"^[ \t]*(?:{PIPE}[ \t]*)?(?:{_BULLET}[ \t]+)?")
# a line that is a heading, a rule or a list marker: never part of a record that wrapped onto it
_NOT_CONTINUATION = re.compile(r"^\s*(?:#|---|\*\*\*|___|[|\uff5c]|" + _BULLET + r"\s|$)")
_SENTENCE_END = ".!?\u3002\uff01\uff1f\"'\u201d" + CLOSERS
_ARROWS = re.compile(rf"(?<!\s)\s*(?:{ARROW})\s*")  # from a run's start only: not once per blank of it


def _kind(word: str) -> str:
    if word in _KINDS:
        return _KINDS[word]
    if "entit" in word:
        return "entity"
    if "relationship" in word:
        return "relationship"
    return "relation" if "relation" in word else "typed:" + word


class RecordParser:
    def __init__(self, tuple_delimiter: str = "<|>", record_delimiter: str = "##",
                 completion_delimiter: str = "<|COMPLETE|>",
                 entity_types: tuple[str, ...] = ("organization", "person", "geo", "event"),
                 relations: Callable[[str], bool] | None = None) -> None:
        self._types = frozenset(t.lower() for t in entity_types)
        self._relations = relations  # a schema's relations: relationship records carry a relation field
        configured = re.escape(tuple_delimiter) + "|" if tuple_delimiter else ""
        delimiter = "(?:" + configured + GENERIC_DELIMITER + ")"
        self._tuple = re.compile(delimiter)
        # also a kind with a schema word glued on ("entity_name", "relationship_type"), as LightRAG accepts
        kinds = r"(?:[a-z]+_)?(?:entit(?:y|ies)|relation(?:ship)?s?)(?:_[a-z]+)?|" + "|".join(
            sorted(map(re.escape, _KINDS), key=len, reverse=True))
        typed = "|".join(re.escape(t) for t in sorted(self._types | _TYPED, key=len, reverse=True))
        # no two runs of blanks side by side (``[ \t]*"*[ \t]*`` tries every way to split a run between them: a
        # line of thousands of blanks, as JSON blanked out leaves, took minutes); the quotes' own run follows them
        quoted = f"[ \\t]*(?:{_Q}+[ \\t]*)?"
        after = f"{quoted}(?:{delimiter}|{PIPE})"
        # ("entity" -> "Navy" -> ...); a delimiter may open the next line ("(\"relationship\"\n<|>A\n<|>B ...")
        arrowed = f"{quoted}(?:\\n[ \\t]*)?(?:{delimiter}|{PIPE}|{ARROW})"
        # A record starts where a parenthesized kind stands anywhere ("(\"entity\"<|>"), where a bare kind opens
        # a line or follows a record delimiter or a closing parenthesis ("entity<|#|>"), or follows a delimiter
        # that ended a full record (records glued with the field delimiter), or stands after any words that open
        # a line ("Here is another entity<|#|>") when no delimiter precedes it there. A bare "relationship<|>"
        # inside a description ("a caring relationship<|>10") is not a record.
        self._start = re.compile(
            rf"{_OPEN}{quoted}(?P<quoted>{kinds}|{typed}){arrowed}"
            rf"|(?:^|(?<=#)|(?<=[{re.escape(CLOSERS)}]))[ \t]*(?:{PIPE}[ \t]*)?(?:{_BULLET}[ \t]*)?(?:{_OPEN}[ \t]*)?"
            rf"(?:{_Q}+[ \t]*)?(?P<bare>{kinds}){arrowed}"
            rf"|{delimiter}[ \t]*(?P<glued>entity|relation|relationship)[ \t]*{delimiter}"
            rf"|^[^\n]*?(?<![^\W_])(?P<lead>{kinds}){after}",
            re.I | re.M)
        self.tuple_delimiter, self.record_delimiter, self.completion_delimiter = (
            tuple_delimiter, record_delimiter, completion_delimiter)
        completion = [re.escape(completion_delimiter)] if completion_delimiter else []
        self._completion = re.compile("|".join([*completion, _ANY_COMPLETION]), re.I)
        self._exact_format: ExactFormat | None = None
        exact = ExactFormat.of(tuple_delimiter, record_delimiter, completion_delimiter)
        probe = exact.records(exact.probe) if exact is not None else None
        if exact is not None and probe is not None and self.parse_any(exact.probe) == self._read_exact(probe):
            self._exact_format = exact  # else delimiters the general reading sees otherwise: it reads them all

    def parse(self, text: str, source: Provenance | None = None, first_position: int = 0,
              truncated: bool = False) -> ParseResult:
        """Every record in ``text``; ``source`` stamps provenance, positions counting from ``first_position``.
        ``truncated``: the answer was cut by the completion cap, so its unfinished last record is not taken."""
        exact = None if truncated else self._exact(text)
        if exact is None:
            return self.parse_any(text, source, first_position, truncated)
        return self._read_exact(exact, source, first_position)

    def _exact(self, text: str) -> list[tuple[str, str, list[str]]] | None:
        """The records of ``text`` when it is exactly the asked format (`ExactFormat`), else None."""
        return None if self._exact_format is None else self._exact_format.records(text)

    def _read_exact(self, records: list[tuple[str, str, list[str]]], source: Provenance | None = None,
                    first_position: int = 0) -> ParseResult:
        result = ParseResult()
        read = RecordReader(result, source, first_position, self._types, self._relations)
        for kind, body, fields in records:
            read.positional(kind, [clean_field(f) for f in fields], body)
        return result

    def parse_any(self, text: str, source: Provenance | None = None, first_position: int = 0,
                  truncated: bool = False) -> ParseResult:
        """`parse` by the general reading, whatever the answer's shape. What a closed reasoning block holds is
        read only where the answer outside it holds no record (a model drafts there, and rejects drafts); an
        unclosed one is read as the answer (the answer is often inside it)."""
        text, reasoning, closed = self._plain(text)
        live = blanked(text, zip(reasoning[::2], reasoning[1::2]))  # what is no reasoning: the safety net's
        if closed:
            result = self._read(blanked(text, closed), live, reasoning, source, first_position, truncated)
            if result.records:
                return result
        result = self._read(text, live, reasoning, source, first_position, truncated)
        if closed:  # none outside: every record is a closed block's
            result.reasoning_records = result.records
        return result

    def _read(self, text: str, live: str, reasoning: list[int], source: Provenance | None, first_position: int,
              truncated: bool) -> ParseResult:
        result = ParseResult()
        read = RecordReader(result, source, first_position, self._types, self._relations)
        text = read_json(text, read, truncated)  # first: cut JSON is closed after its last whole item
        if truncated:
            text = self._cut_tail(text, result)
        text = read_markup(text, read, self._is_type)
        text = self._tables(text, read)
        starts = self._starts(text)
        # list items are read only where the answer holds records of no other shape: else they are its explanation
        lists = not starts and not read.result.records
        first = starts[0][0] if starts else len(text)
        # what opens a record's line ("Here: ", "1. **", "| 1 | ") leads into it: no leftover
        live = blanked(live, ((text.rfind("\n", 0, begin) + 1, begin) for begin, _ in starts))
        self._loose(text[:first], read, live[:first], lists)
        for i, (begin, kind) in enumerate(starts):
            end = starts[i + 1][0] if i + 1 < len(starts) else len(text)
            body, at, leftover = self._cut(text[begin:end])
            in_reasoning = bisect.bisect_right(reasoning, begin) % 2 == 1
            read.positional(_kind(kind), self._fields(body), body, in_reasoning)
            self._loose(leftover, read, live[begin + at:end])
        return result

    def first_record(self, text: str) -> int | None:
        """Where the first record of ``text`` starts, if one does."""
        starts = self._starts(text)
        return starts[0][0] if starts else None

    def _starts(self, text: str) -> list[tuple[int, str]]:
        """(offset, kind) of every record in ``text``."""
        starts: list[tuple[int, str]] = []
        pos = 0
        while (m := self._start.search(text, pos)) is not None:
            pos = m.end()
            begin, kind = m.start(), m.group("quoted") or m.group("bare")
            if m.group("glued"):
                # records glued with the field delimiter: only after a full record on that line
                before = text[max(starts[-1][0] if starts else 0, text.rfind("\n", 0, begin) + 1): begin]
                kind = m.group("glued")
            elif m.group("lead"):
                begin = m.start("lead")
                while begin > m.start() and text[begin - 1] in QUOTES + OPENERS + " \t":
                    begin -= 1
                before = text[m.start():begin]
                kind = m.group("lead")
            if (m.group("glued") and (before[:1] in OPENERS or len(self._tuple.findall(before)) < 3)) or (
                    m.group("lead") and (self._tuple.search(before) or re.search(PIPE, before))):
                pos = m.start() + 1  # not a start; another kind may start later in what it spanned
                continue
            starts.append((begin, kind.lower()))
        return starts

    # -- text before records -----------------------------------------------------------------------------

    def _plain(self, text: str) -> tuple[str, list[int], list[tuple[int, int]]]:
        """The answer with line ends unified, and reasoning tags, fences and completion markers blanked out
        (positions kept); the reasoning blocks' bounds as a flat sorted list; the bounds of those closed."""
        text = text.replace("\r\n", "\n")
        bounds: list[int] = []
        closed: list[tuple[int, int]] = []
        chars = list(text)
        for start, end, inner_start, inner_end in reasoning_spans(text):
            bounds += [inner_start, inner_end]
            if end > inner_end:
                closed.append((inner_start, inner_end))
            for a, b in ((start, inner_start), (inner_end, end)):
                chars[a:b] = "\n" + " " * (b - a - 1) if b > a else ""
        text = "".join(chars)
        blank = lambda m: "\n" + " " * (len(m.group()) - 1)  # noqa: E731
        text = _SPECIAL.sub(blank, self._completion.sub(blank, _FENCE.sub(lambda m: " " * len(m.group()), text)))
        return text, bounds, closed

    def unfinished_at(self, text: str) -> int:
        """Where the unfinished last line of a cut answer begins (from its last record start on that line), or
        ``len(text)`` when the answer ends a line, or its last record is closed by its own parenthesis or
        followed by the record delimiter."""
        body = text.rstrip(" \t")
        if not body or body.endswith("\n"):
            return len(text)
        line_start = body.rfind("\n") + 1
        starts = self._starts(body[line_start:])
        cut_at = line_start + (starts[-1][0] if starts else 0)
        record = body[cut_at:].strip()
        if not record or (self.record_delimiter and record.endswith(self.record_delimiter)):
            return len(text)
        if starts and record[:1] in OPENERS and record[-1:] in CLOSERS and strip_closers(record[1:]) != record[1:]:
            return len(text)
        return cut_at

    def _cut_tail(self, text: str, result: ParseResult) -> str:
        """A cut answer without its unfinished last line (kept as cut text)."""
        at = self.unfinished_at(text)
        if at < len(text):
            result.cut.append(text[at:].strip())
        return text[:at]

    def _cut(self, raw: str) -> tuple[str, int, str]:
        """The record's own text (over several lines when it wrapped), where what follows it starts, and that
        (``raw`` from there, the record delimiter blanked)."""
        head, sep, tail = self._split_record(raw)
        lines = head.rstrip().split("\n")
        body, rest = lines[0].rstrip(), lines[1:]
        taken = 0
        for line in rest:
            if not line.strip() or _NOT_CONTINUATION.match(line) or not self._open(body):
                break
            body, taken = body + " " + line.strip(), taken + 1
        at = len(lines[0]) + sum(len(line) + 1 for line in rest[:taken])
        return body, at, raw[at:len(head)] + re.sub(r"[^\n]", " ", sep) + tail if sep else raw[at:]

    def _split_record(self, raw: str) -> tuple[str, str, str]:
        """``raw`` at its first record delimiter that is not part of a field delimiter (``<|##|>``)."""
        d = self.record_delimiter
        at = raw.find(d) if d else -1
        while at >= 0 and any(m.start() < at + len(d) and at < m.end()
                              for m in self._tuple.finditer(raw, max(0, at - 8), at + len(d) + 8)):
            at = raw.find(d, at + 1)
        return (raw, "", "") if at < 0 else (raw[:at], d, raw[at + len(d):])

    def _open(self, body: str) -> bool:
        """Whether a record line is unfinished: an unclosed parenthesis, a trailing delimiter, too few fields,
        or a last field that stops without ending a sentence."""
        stripped = body.strip()
        if stripped[:1] in OPENERS:
            return strip_closers(stripped[1:]) == stripped[1:]
        if self._tuple.search(stripped[-6:]) or len(self._tuple.findall(stripped)) < 3:
            return True
        return stripped[-1:] not in _SENTENCE_END

    def _fields(self, body: str) -> list[str]:
        body = body.strip()
        if self.record_delimiter and body.endswith(self.record_delimiter):
            body = body[: -len(self.record_delimiter)]
        body = _LIST_MARK.sub("", body)
        lead = self._tuple.match(body)
        body = body[lead.end():] if lead else body  # a record glued to the one before by a field delimiter
        body = body.lstrip(" \t*`")
        body = body.rstrip().rstrip("|\uff5c").rstrip()
        if body[:1] in OPENERS:  # "(...)," "(...)**": what follows the closing bracket is no field
            body = _AFTER_CLOSER.sub("", body[1:])
        body = strip_closers(body)
        if self._tuple.search(body):
            parts = self._tuple.split(body)
        else:  # pipe rows; records whose fields are joined by arrows ("relationship" -> "Navy" -> "Contractor")
            parts = re.split(PIPE, body) if re.search(PIPE, body) else _ARROWS.split(body)
        return [clean_field(p) for p in parts]

    # -- text between records: tables, key-value blocks, malformed lines -------------------------------------

    def _tables(self, text: str, read: RecordReader) -> str:
        """Read markdown tables that have a header row, and blank them out (a header cell "Entity" is no
        record start). Under a header naming no role, rows holding records are left to be read as records;
        the other rows are malformed."""
        lines = text.split("\n")
        found = False
        for start, end, rows in tables(lines):
            found = True
            for row in rows if rows is not None else []:
                read.by_role(row, " | ".join(row.values()))
            for k in range(start, end):
                if rows is None and k >= start + 2 and lines[k].strip():
                    if self._starts(lines[k]):
                        continue
                    read.result.malformed.append(lines[k].strip())
                lines[k] = " " * len(lines[k])
        return "\n".join(lines) if found else text

    def _loose(self, text: str, read: RecordReader, live: str, lists: bool = False) -> None:
        """The records of text between records (key-value blocks, delimited rows, list items); lines holding a
        field delimiter that fit no record, and what no reading takes but chatter (`leftovers`), as malformed
        text. ``live``: ``text`` with reasoning blanked out, which the safety net leaves alone."""
        if not text.strip():
            return
        lines = text.split("\n")
        used = [False] * len(lines)
        for start, end, block in key_value_blocks(lines, self._is_type):
            if not any(used[start:end]):
                for k in range(start, end):
                    used[k] = True
                read.by_role(block, "; ".join(f"{k}: {v}" for k, v in block.items()))
        read_rows(lines, used, read, _kind, self._is_type, lists)
        heading: str | None = None  # the type a heading above names ("### Persons"), for the items under it
        for k, line in enumerate(lines):
            if used[k]:
                continue
            used[k] = True
            if lists and (typed := heading_type(line, self._is_type)) is not None:
                heading = typed
            elif lists and (titled := titled_item(lines, k, self._is_type)) is not None:  # "1. **X**\n   Tipo: ..."
                fields, taken = titled
                used[k:k + taken] = [True] * taken
                read.positional("entity", [clean_field(f) for f in fields], line.strip())
            elif lists and not self._tuple.search(line) and (items := list_records(line, _kind, self._is_type)):
                self._list_item(lines, k, used, items, read)
            elif lists and heading and (item := marked_item(line)) is not None:  # "- **Hu** (author of ...)"
                said = item[1] or unlabelled(self._said_below(lines, k, used))
                read.positional("entity", [clean_field(f) for f in ("entity", item[0], heading, said)], line.strip())
            elif self._tuple.search(line):
                read.result.malformed.append(line.strip())
            else:
                used[k] = False
                if lists and line.strip() and not LIST_LINE.match(line):
                    heading = None  # "### Relationships": the items below are no longer of the type above
        read.result.malformed += unread(lines, used, live.split("\n"), self._explained)

    def _explained(self, line: str) -> bool:
        """A line the list reading takes, left unread on purpose beside records of another shape."""
        return not self._tuple.search(line) and bool(list_records(line, _kind, self._is_type))

    def _list_item(self, lines: list[str], k: int, used: list[bool], items: list[tuple[str, list[str]]],
                   read: RecordReader) -> None:
        """The records of list item ``k``, with what is said of them on the lines under it."""
        if len(items) == 1 and items[0][0] == "entity" and items[0][1][3:4] in ([""], []) and \
                (said := self._said_below(lines, k, used)):  # "1. **X** (Person)\n   - Authors of ..."
            items = [("entity", [*items[0][1][:3], said])]
        elif len(items) == 1 and items[0][0] == "relationship" and not items[0][1][3].strip():
            details, taken = details_below(lines, k)  # "1. **A → B**\n   - *Description*: ...\n   - *Strength*: 7"
            used[k + 1:k + 1 + taken] = [True] * taken
            if not details and (said := self._said_below(lines, k, used)):  # "1. **A** → **B**\n   - A makes ..."
                details = {"description": unlabelled(said)}
            if details:
                items = [("relationship", [*items[0][1][:3], details.get("description", ""),
                                           *([details["strength"]] if "strength" in details else [])])]
        for kind, fields in items:
            if kind == "relationship" and self._is_type(clean_field(fields[1])) and \
                    self._is_type(clean_field(fields[2])):
                continue  # "1. **Organization → Event**": a heading over relationships of those types
            read.positional(kind, [clean_field(f) for f in fields], lines[k].strip())

    def _said_below(self, lines: list[str], k: int, used: list[bool]) -> str:
        """The description a list item's entity is given on the next line, indented under it (marked used)."""
        if k + 1 >= len(lines) or used[k + 1] or not lines[k + 1].strip():
            return ""
        below, line = lines[k + 1], lines[k]
        if len(below) - len(below.lstrip()) <= len(line) - len(line.lstrip()) or \
                list_records(below, _kind, self._is_type) or self._tuple.search(below):
            return ""
        used[k + 1] = True
        return _LIST_MARK.sub("", below).strip()

    def _is_type(self, value: str) -> bool:
        return is_known_type(value, self._types)
