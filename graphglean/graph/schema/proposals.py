"""A schema proposed from a sample of the corpus (``graphglean tune``): each sampled chunk's answer (the types it
names, the relations between them, example names) read and grounded in the chunk (an example the chunk does
not write is dropped: no invented names), then counted over the sample into the schema file the user edits.
Types and relations are counted by chunk, matched as the schema matches them (`type_key`)."""

from __future__ import annotations

import json
import math
import re
from typing import Any, Iterable

import attrs

from ...core.answers import parse_json_output
from ...core.prompts import load_template, render
from ...text.words import words
from .ontology import type_key

TEMPLATE = "schema_tune"
MOST_TYPES, MOST_PATTERNS, EXAMPLES = 12, 24, 3


@attrs.define
class Proposal:
    """What one chunk's answer proposes, grounded: types (name, description, example names) and patterns
    (source type, relation, target type, example pair or None)."""

    chunk_id: str
    types: list[tuple[str, str, list[str]]] = attrs.field(factory=list)
    patterns: list[tuple[str, str, str, tuple[str, str] | None]] = attrs.field(factory=list)
    invented: int = 0  # example names the chunk does not write (dropped)


def tune_prompt(passage: str, language: str) -> str:
    return render(load_template(TEMPLATE), language=language, input_text=passage)


def identifier(name: str) -> str:
    """A type or relation name as a schema writes it: its words in capitals, joined by ``_``."""
    return "_".join(words(name)).upper()


def read_proposal(answer: str, chunk_id: str, text: str) -> Proposal:
    """A chunk's answer, its examples checked against the chunk's ``text`` (``chunk_id``: how the file names the
    chunk); ValueError when it holds no JSON."""
    value = parse_json_output(answer)
    proposal = Proposal(chunk_id)
    if not isinstance(value, dict):
        return proposal
    folded = text.casefold()

    def grounded(name: Any) -> str | None:
        name = " ".join(str(name or "").split())
        if name and name.casefold() in folded:
            return name
        proposal.invented += bool(name)
        return None

    for item in _dicts(value.get("entity_types")):
        kind = identifier(str(item.get("type") or ""))
        if kind:
            examples = [g for e in item.get("examples") or [] if (g := grounded(e)) is not None]
            proposal.types.append((kind, " ".join(str(item.get("description") or "").split()), examples))
    for item in _dicts(value.get("relationships")):
        ends = identifier(str(item.get("source_type") or "")), identifier(str(item.get("target_type") or ""))
        relation = identifier(str(item.get("relation") or ""))
        if all(ends) and relation:
            example = item.get("example") if isinstance(item.get("example"), dict) else {}
            pair = grounded(example.get("source")), grounded(example.get("target"))
            proposal.patterns.append((ends[0], relation, ends[1], pair if None not in pair else None))  # type: ignore
    return proposal


def _dicts(value: Any) -> list[dict[str, Any]]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


@attrs.define
class Tally:
    name: str  # as first written
    chunks: set[str] = attrs.field(factory=set)
    descriptions: dict[str, int] = attrs.field(factory=dict)
    examples: dict[str, str] = attrs.field(factory=dict)  # name -> the chunk it was drawn from

    def add(self, chunk_id: str, description: str, examples: Iterable[str]) -> None:
        self.chunks.add(chunk_id)
        if description:
            self.descriptions[description] = self.descriptions.get(description, 0) + 1
        for e in examples:
            self.examples.setdefault(e, chunk_id)

    @property
    def description(self) -> str:
        return min(self.descriptions, key=lambda d: (-self.descriptions[d], len(d)), default="")


@attrs.frozen
class ProposedSchema:
    types: list[Tally]
    patterns: list[tuple[Tally, str, Tally, Tally]]  # source type, relation, target type, the pattern's tally
    answered: int
    invented: int


def aggregate(proposals: list[Proposal]) -> ProposedSchema:
    """The types named in at least a tenth of the answered sample (at most `MOST_TYPES`, most often named
    first) and the patterns between them (at most `MOST_PATTERNS`)."""
    types: dict[str, Tally] = {}
    patterns: dict[tuple[str, str, str], Tally] = {}
    for p in proposals:
        for kind, description, examples in p.types:
            types.setdefault(type_key(kind), Tally(kind)).add(p.chunk_id, description, examples)
        for source, relation, target, pair in p.patterns:
            key = (type_key(source), type_key(relation), type_key(target))
            patterns.setdefault(key, Tally(relation)).add(p.chunk_id, "", [" -> ".join(pair)] if pair else [])
    floor = max(1, math.ceil(0.1 * len(proposals)))
    kept = sorted((t for t in types.values() if len(t.chunks) >= floor), key=lambda t: (-len(t.chunks), t.name))
    kept = kept[:MOST_TYPES]
    by_key = {type_key(t.name): t for t in kept}
    found = [(by_key[s], tally.name, by_key[t], tally) for (s, _, t), tally in patterns.items()
             if s in by_key and t in by_key]
    found.sort(key=lambda p: (-len(p[3].chunks), p[0].name, p[1], p[2].name))
    return ProposedSchema(kept, found[:MOST_PATTERNS], len(proposals), sum(p.invented for p in proposals))


def schema_yaml(proposed: ProposedSchema, header: list[str]) -> str:
    """The schema file: ``entities`` and ``relationships`` as `graph.schema` reads them, ``mode: open``, each
    line commented with its count and grounded examples (the chunk each came from)."""
    lines = [f"# {h}" for h in header]
    lines.append("entities:")
    for t in proposed.types:
        lines.append(f"  {_scalar(t.name)}: {_scalar(t.description)}")
        lines.append(f"  # named in {len(t.chunks)} of {proposed.answered} sampled chunks" + _examples(t))
    lines.append("relationships:" + ("" if proposed.patterns else " []"))
    for source, relation, target, tally in proposed.patterns:
        lines.append(f"  - [{_scalar(source.name)}, {_scalar(relation)}, {_scalar(target.name)}]")
        lines.append(f"  # in {len(tally.chunks)} of {proposed.answered} sampled chunks" + _examples(tally))
    lines += ["mode: open                 # open | flag | strict (docs/schema.md)", ""]
    return "\n".join(lines)


def _examples(tally: Tally) -> str:
    shown = list(tally.examples.items())[:EXAMPLES]
    return "; e.g. " + ", ".join(f"{name} ({chunk})" for name, chunk in shown) if shown else ""


def _scalar(text: str) -> str:
    """A YAML scalar holding ``text`` as it is (JSON's double-quoted strings are YAML's)."""
    return text if re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", text) and text.lower() not in _YAML_WORDS else json.dumps(
        text, ensure_ascii=False)


_YAML_WORDS = {"yes", "no", "on", "off", "true", "false", "null", "y", "n"}
