"""`ExactFormat`: answers written exactly as the extraction prompt asks, read with one pattern a record.

Most answers of a good model are exactly the asked tuple format: records of plain fields, the record delimiter
between them, then the completion delimiter. Those are read here at a fifth of the general reading's cost;
anything else (a field holding a character the general reading treats as structure, any other shape) is
left to `RecordParser`'s general reading, which reads such answers alike (tests/test_parser.py checks it).
"""

from __future__ import annotations

import re

import attrs

from .fields import CLOSERS, OPENERS

# Characters a field may hold for the exact reading: none of those the general reading treats as structure
# (delimiters and their corruptions, brackets, quotes around kinds, headings, fences, tags, pipes, line breaks).
_STRUCTURE = frozenset("<>|#()[]{}*`\"\\~\n\r\t\u25c1\u25b7\uff1c\uff1e\uff5c" + OPENERS + CLOSERS)
# a field that is only a kind: the general reading takes it for records glued by the field delimiter
_KIND_FIELD = re.compile(r"[ \t]*(?:entity|relation|relationship)[ \t]*", re.I)


@attrs.frozen
class ExactFormat:
    tuple_delimiter: str
    record_delimiter: str
    completion_delimiter: str
    record: re.Pattern[str]  # one record, and what separates it from the next

    @classmethod
    def of(cls, tuple_delimiter: str, record_delimiter: str, completion_delimiter: str) -> "ExactFormat | None":
        """The exact format of these delimiters; None when they hold characters a field may hold."""
        if not (tuple_delimiter and record_delimiter and completion_delimiter) or not (
                set(tuple_delimiter) <= _STRUCTURE and set(record_delimiter) <= _STRUCTURE
                and set(completion_delimiter) & _STRUCTURE):
            return None
        field = "[^" + re.escape("".join(sorted(_STRUCTURE))) + "]*"
        record = re.compile(rf'\("(entity|relationship)"((?:{re.escape(tuple_delimiter)}{field})+)\)'
                            rf"(?:[ \n]*{re.escape(record_delimiter)})?[ \n]*")
        return cls(tuple_delimiter, record_delimiter, completion_delimiter, record)

    @property
    def probe(self) -> str:
        """An answer in this format, to check that the general reading reads it as `records` does."""
        t, r = self.tuple_delimiter, self.record_delimiter
        return (f'("entity"{t}A{t}person{t}A is.){r}\n("relationship"{t}A{t}B{t}near.{t}2)\n'
                f"{self.completion_delimiter}")

    def records(self, text: str) -> list[tuple[str, str, list[str]]] | None:
        """(kind, record, raw fields) of each record when ``text`` is exactly in this format; None otherwise."""
        body = text.rstrip(" \n")
        if not body.endswith(self.completion_delimiter):
            return None
        end = len(body) - len(self.completion_delimiter)
        pos = len(body) - len(body.lstrip(" \n"))
        records = []
        while pos < end:
            m = self.record.match(body, pos, end)
            if m is None:
                return None
            fields = m.group(2).split(self.tuple_delimiter)
            if any(_KIND_FIELD.fullmatch(f) for f in fields):
                return None
            fields[0] = m.group(1)
            records.append((m.group(1), body[m.start():m.end(2) + 1], fields))
            pos = m.end()
        return records if records else None
