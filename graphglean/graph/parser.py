"""`RecordParser`: entity and relationship records out of whatever a real model returns.

It reads the exact tuple format and what models write instead: newlines for ``##``, ``##`` glued to the
completion marker, code fences, numbered or bulleted lines, preambles, quoted fields, any case for the kind,
missing parentheses or completion marker, LightRAG's keywords field and its newer line format
(``entity<|#|>...``, ``relation<|#|>...``), and common delimiter corruptions (``<||>``, ``<|#>``, ``|>``).
What cannot be read is kept as text and counted, never dropped.
"""

from __future__ import annotations

import re

from ..answers import strip_reasoning
from .records import EntityRecord, ParseResult, Provenance, RelationshipRecord

_FENCE = re.compile(r"^[ \t]*```[\w-]*[ \t]*$", re.M)
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)")
_QUOTES = "\"'\u201c\u201d\u2018\u2019`*"
_KINDS = {"entity": "entity", "relationship": "relationship", "relation": "relation",
          "content_keywords": "keywords", "high_level_keywords": "keywords"}


class RecordParser:
    def __init__(self, tuple_delimiter: str = "<|>", record_delimiter: str = "##",
                 completion_delimiter: str = "<|COMPLETE|>",
                 entity_types: tuple[str, ...] = ("organization", "person", "geo", "event")) -> None:
        tuples = [tuple_delimiter, "<|#|>", "<||>", "<|#>", "<#|>", "<|>", "|>"]
        alternatives = sorted({re.escape(t) for t in tuples}, key=len, reverse=True)
        self._tuple = re.compile("|".join(alternatives))
        self._types = {t.lower() for t in entity_types}
        q, tup = "[" + re.escape(_QUOTES) + "]", "(?:" + "|".join(alternatives) + ")"
        kinds = "|".join(sorted(_KINDS, key=len, reverse=True))
        typed = "|".join(re.escape(t) for t in sorted(self._types, key=len, reverse=True)) or "(?!)"
        # A record starts where a quoted, parenthesized kind stands anywhere ("(\"entity\"<|>"), or where a bare
        # kind opens a line or follows a delimiter ("entity<|#|>"). A bare "relationship<|>" inside a
        # description ("a caring relationship<|>10") is not a record.
        self._start = re.compile(
            rf"\([ \t]*{q}(?P<quoted>{kinds}|{typed}){q}[ \t]*{tup}"
            rf"|(?:^|(?<=#)|(?<=\)))[ \t]*(?:(?:[-*\u2022]|\d+[.)])[ \t]*)?[(\[]?[ \t]*{q}?(?P<bare>{kinds}){q}?[ \t]*{tup}",
            re.I | re.M)
        self.record_delimiter = record_delimiter
        self._completion = re.compile(re.escape(completion_delimiter) + r"|<\|?complete\|?>", re.I)

    def parse(self, text: str, source: Provenance | None = None, first_position: int = 0) -> ParseResult:
        """Every record in ``text``; ``source`` stamps provenance, positions counting from ``first_position``."""
        result = ParseResult()
        text = _FENCE.sub("", strip_reasoning(text))
        text = self._completion.sub("\n", text)
        starts = list(self._start.finditer(text))
        preamble = text[: starts[0].start()] if starts else text
        self._check_leftover(preamble, result)
        for i, m in enumerate(starts):
            end = starts[i + 1].start() if i + 1 < len(starts) else len(text)
            body, leftover = self._cut(text[m.start():end])
            self._check_leftover(leftover, result)
            position = first_position + i
            src = None if source is None else Provenance(source.doc_id, source.chunk_index, source.chunk_id,
                                                           position)
            kind = (m.group("quoted") or m.group("bare")).lower()
            self._record(_KINDS.get(kind, "typed:" + kind), body, src, result)
        return result

    def _cut(self, raw: str) -> tuple[str, str]:
        """The record's own text, and what follows it on other lines (junk or a malformed record)."""
        head, _, tail = raw.partition(self.record_delimiter) if self.record_delimiter else (raw, "", "")
        lines = head.strip().split("\n")
        body, rest = lines[0], lines[1:]
        # a record may run over lines, up to the line that closes its parenthesis
        if body.lstrip().startswith(("(", "[")) and not body.rstrip().endswith((")", "]")):
            close = next((j for j, line in enumerate(rest) if line.rstrip().endswith((")", "]"))), None)
            if close is not None:
                body = " ".join([body, *(line.strip() for line in rest[: close + 1])])
                rest = rest[close + 1:]
        return body, "\n".join(rest) + "\n" + tail

    def _check_leftover(self, text: str, result: ParseResult) -> None:
        for line in text.split("\n"):
            if self._tuple.search(line):
                result.malformed.append(line.strip())

    def _fields(self, body: str) -> list[str]:
        body = body.strip().rstrip(self.record_delimiter).strip()
        body = body.lstrip("([").strip()
        while body.endswith((")", "]")):
            body = body[:-1].rstrip()
        return [f.strip().strip(_QUOTES).strip() for f in self._tuple.split(body)]

    def _record(self, kind: str, body: str, src: Provenance | None, result: ParseResult) -> None:
        fields = self._fields(body)
        rest = fields[1:]
        if kind == "keywords":
            result.keywords += [k.strip() for k in ",".join(rest).split(",") if k.strip()]
            return
        if kind.startswith("typed:") and len(rest) >= 2 and rest[0]:
            # ("event"<|>NAME<|>EVENT<|>DESCRIPTION): a model that wrote the type where the kind goes
            kind, rest = "entity", rest if rest[1].lower() in self._types else [rest[0], kind[6:], *rest[1:]]
        if kind == "entity":
            if len(rest) < 2 or not rest[0]:
                result.malformed.append(body.strip())
                return
            result.entities.append(EntityRecord(rest[0], rest[1], " ".join(r for r in rest[2:] if r), src))
            return
        if kind.startswith("typed:"):
            result.malformed.append(body.strip())
            return
        if len(rest) < 3 or not rest[0] or not rest[1]:
            result.malformed.append(body.strip())
            return
        self._relationship(kind, rest, src, result)

    def _relationship(self, kind: str, rest: list[str], src: Provenance | None, result: ParseResult) -> None:
        source, target = rest[0], rest[1]
        numeric = _NUMBER.fullmatch(rest[-1]) is not None and len(rest) >= 4
        values = rest[2:-1] if numeric else rest[2:]
        if kind == "relation":  # newer line format: keywords, then description
            keywords, description = (values[0], " ".join(values[1:])) if len(values) > 1 else ("", values[0])
        else:  # tuple format: description, then LightRAG's keywords when present
            description, keywords = values[0], " ".join(values[1:])
        if numeric:
            weight = float(rest[-1])
        else:
            weight = 1.0
            if kind == "relationship":
                result.default_strengths += 1
        kw = tuple(k.strip() for k in keywords.split(",") if k.strip())
        result.relationships.append(RelationshipRecord(source, target, description, weight, kw, src))
