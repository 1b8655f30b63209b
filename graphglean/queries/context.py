"""What a query shows the model, and cites: numbered sources (entities, relationships, source sentences,
community reports) written into one context text within a token budget. A source's label (``E1``, ``R2``,
``S3``, ``C4``) is its place in the context, so the same graph and question always make the same text."""

from __future__ import annotations

import re
from typing import Any, Callable

import attrs

ENTITY, RELATIONSHIP, SENTENCE, COMMUNITY = "entity", "relationship", "sentence", "community"
PREFIX = {ENTITY: "E", RELATIONSHIP: "R", SENTENCE: "S", COMMUNITY: "C"}


@attrs.frozen
class Source:
    """One numbered piece of the context. ``name``: the entity (or ``A — B``, a report's title); a sentence's
    ``chunk``, ``document`` and document ``offset``; a community's ``community`` id and ``entities``."""

    label: str
    kind: str
    text: str
    name: str = ""
    chunk: str = ""
    document: str = ""
    offset: int = -1
    community: int = -1
    entities: tuple[str, ...] = ()

    def cited(self) -> str:
        """The source as the answer's list of sources shows it."""
        if self.kind == SENTENCE:
            return f"[{self.label}] {self.document}, {self.chunk} (offset {self.offset}): \"{self.text}\""
        if self.kind == COMMUNITY:
            members = f": {', '.join(self.entities[:8])}{', ...' if len(self.entities) > 8 else ''}" \
                if self.entities else ""
            return f"[{self.label}] community {self.community}, \"{self.name}\"{members}"
        return f"[{self.label}] {self.name}"

    def to_json(self) -> dict[str, Any]:
        row: dict[str, Any] = {"label": self.label, "kind": self.kind, "name": self.name}
        if self.kind == SENTENCE:
            row.update(chunk=self.chunk, document=self.document, offset=self.offset, text=self.text)
        if self.kind == COMMUNITY:
            row.update(community=self.community, entities=list(self.entities))
        return row


@attrs.define
class Context:
    """The context text and its sources by label."""

    sections: list[tuple[str, list[str]]] = attrs.field(factory=list)  # (heading, lines)
    sources: dict[str, Source] = attrs.field(factory=dict)
    tokens: int = 0

    @property
    def text(self) -> str:
        return "\n\n".join(f"{heading}:\n" + "\n".join(lines) for heading, lines in self.sections if lines)

    def __bool__(self) -> bool:
        return bool(self.sources)


class Budget:
    """Adds lines to a `Context` while its tokens stay within ``limit``; each section gets at most ``share`` of
    what is left when it starts (the rest flows to the sections after it)."""

    def __init__(self, context: Context, limit: int, count: Callable[[str], int]) -> None:
        self.context, self.limit, self.count = context, limit, count
        self.numbers: dict[str, int] = {}

    def section(self, heading: str, share: float) -> "_Section":
        lines: list[str] = []
        self.context.sections.append((heading, lines))
        return _Section(self, lines, self.context.tokens + int((self.limit - self.context.tokens) * share))

    def label(self, kind: str) -> str:
        self.numbers[kind] = self.numbers.get(kind, 0) + 1
        return f"{PREFIX[kind]}{self.numbers[kind]}"


class _Section:
    def __init__(self, budget: Budget, lines: list[str], ceiling: int) -> None:
        self.budget, self.lines, self.ceiling = budget, lines, min(ceiling, budget.limit)

    def add(self, kind: str, line: Callable[[str], str], **source: Any) -> Source | None:
        """Add the line ``line(label)`` and its source, unless it would pass the section's ceiling (its first
        line: the whole budget's, so the best entity, relationship and sentence are never left out for a share)."""
        budget = self.budget
        label = f"{PREFIX[kind]}{budget.numbers.get(kind, 0) + 1}"
        text = line(label)
        tokens = budget.count(text) + 1
        if budget.context.tokens + tokens > (self.ceiling if self.lines else budget.limit):
            return None
        budget.label(kind)
        self.lines.append(text)
        budget.context.tokens += tokens
        added = Source(label, kind, **source)
        budget.context.sources[label] = added
        return added


_BRACKETS = re.compile(r"\[([^\[\]\n]{1,200})\]")
_LABEL = re.compile(r"\b([ERSC])\s?(\d+)\b")


def cited(answer: str, sources: dict[str, Source]) -> list[Source]:
    """The sources an answer cites in brackets (``[E1][S3]``, ``[E1, S3]``, ``[Data: C2, C5]``), in the order
    first cited; labels the context did not hold are left out."""
    found: dict[str, Source] = {}
    for group in _BRACKETS.findall(answer):
        for prefix, number in _LABEL.findall(group):
            label = f"{prefix}{int(number)}"
            if label in sources and label not in found:
                found[label] = sources[label]
    return list(found.values())
