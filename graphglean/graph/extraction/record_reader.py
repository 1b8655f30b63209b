"""`RecordReader`: the fields of one answer's records into entity and relationship records, whichever way the
parser found them (positional fields, a table row, a key-value block); placeholders copied from the prompt,
repeats of a looping model and records written inside reasoning are counted here, never kept."""

from __future__ import annotations

import math
import re
from typing import Callable

import regex

from ...text.nfc import nfc
from ...text.words import LETTERS
from ..records import EntityRecord, ParseResult, Provenance, RelationshipRecord
from .fields import (
    arrow_pair,
    clean_field,
    is_header_word,
    is_known_type,
    is_placeholder,
    is_pronoun,
    looks_like_type,
    pipe_fields,
    without_edge_arrows,
    without_sentence_stop,
)

_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:\s*/\s*10)?")
_KEYWORD_SEPARATOR = re.compile(r"[,\uff0c\u3001;]")


class RecordReader:
    """Turns fields into records of one parse: placeholders, repeats and reasoning are counted here."""

    def __init__(self, result: ParseResult, source: Provenance | None, first: int, types: frozenset[str],
                 relations: Callable[[str], bool] | None = None) -> None:
        self.result, self.source, self.first, self.types = result, source, first, types
        # whether a value is one of a schema's relations: relationship records carry a relation after their pair
        self.relations = relations
        self._seen: set[tuple[str, ...]] = set()
        self._titles: set[str] = set()  # pronouns this answer gives as titles ("It", a novel): relationship ends

    def _src(self) -> Provenance | None:
        position = self.first + self.result.examined
        self.result.examined += 1
        s = self.source
        return None if s is None else Provenance(s.doc_id, s.chunk_index, s.chunk_id, position)

    def _fresh(self, key: tuple[str, ...]) -> bool:
        """False for a record this answer already gave (a model stuck repeating itself)."""
        folded = tuple(map(str.casefold, key))
        if folded in self._seen:
            self.result.repeated += 1
            return False
        self._seen.add(folded)
        return True

    def positional(self, kind: str, fields: list[str], body: str, in_reasoning: bool = False) -> None:
        rest = fields[1:]
        if kind == "keywords":
            self.result.keywords += [k.strip() for k in ",".join(rest).split(",") if k.strip()]
            return
        before = self.result.records
        if kind.startswith("typed:") and len(rest) >= 2 and rest[0]:
            # ("event"<|>NAME<|>EVENT<|>DESCRIPTION): a model that wrote the type where the kind goes
            types = self.types
            kind, rest = "entity", rest if is_known_type(rest[1], types) else [rest[0], kind[6:], *rest[1:]]
        if kind == "entity":
            self._entity_fields(rest, body)
        elif kind.startswith("typed:"):
            self.result.malformed.append(body.strip())
        else:
            self._relationship_fields(kind, rest, body)
        if in_reasoning:
            self.result.reasoning_records += self.result.records - before

    def _entity_fields(self, rest: list[str], body: str) -> None:
        types = self.types
        rest = pipe_fields(list(rest), 3)
        if rest and (name := without_edge_arrows(rest[0])) != rest[0]:
            if is_header_word(name):  # ("entity" -> "name" -> ...): the prompt's format line
                self._src()
                self.result.placeholders += 1
                return
            rest[0] = name
        while len(rest) > 2 and not rest[-1]:
            rest.pop()
        if len(rest) >= 2 and is_known_type(rest[0], types) and not is_known_type(rest[1], types):
            rest[0], rest[1] = rest[1], rest[0]  # type first: entity<|#|>Organization<|#|>U.S. Navy<|#|>...
        head, colon, glued = rest[0].replace("\uff1a", ":").rpartition(":") if rest else ("", "", "")
        if colon and head.strip() and is_known_type(glued.strip(), types):
            # "Bilal Ekşi:person<|>THY Genel Müdürü": the type glued to the name, its own field left out
            typed = len(rest) >= 3 and is_known_type(rest[1], types)
            rest = [head.strip(), *(rest[1:] if typed else [glued.strip(), " ".join(r for r in rest[1:] if r)])]
        if len(rest) == 2:
            rest = [rest[0], rest[1], ""] if looks_like_type(rest[1], types) else [rest[0], "", rest[1]]
        if len(rest) < 3 or not rest[0]:
            self.result.malformed.append(body.strip())
            return
        self.entity(rest[0], rest[1], rest[2] if len(rest) == 3 else " ".join(r for r in rest[2:] if r), rest)

    def _relationship_fields(self, kind: str, rest: list[str], body: str) -> None:
        rest = pipe_fields(rest, 4 if kind == "relation" else 3)
        if rest and (pair := arrow_pair(rest[0])) is not None:  # relation<|#|>Navy -> Contractor<|#|>...
            rest = [*pair, *rest[1:]]
        rest = [without_edge_arrows(f) for f in rest[:2]] + rest[2:]
        while len(rest) > 2 and not rest[-1]:
            rest = rest[:-1]
        if len(rest) < 2 or not rest[0] or not rest[1] or (len(rest) == 2 and not looks_like_name(rest[1])):
            self.result.malformed.append(body.strip())
            return
        source, target, values = rest[0], rest[1], rest[2:]
        weight = None
        if values and _NUMBER.fullmatch(values[-1]):
            weight, values = values[-1], values[:-1]
        relation = ""
        if self.relations is not None and kind == "relationship":
            relation, values = relation_field(values, self.relations)
        if kind == "relation" and len(values) > 1:  # newer line format: keywords, then description
            keywords, description = values[0], " ".join(values[1:])
        else:  # tuple format: description, then LightRAG's keywords when present
            description, keywords = (values[0] if values else ""), " ".join(values[1:])
        self.relationship(source, target, description, weight, keywords, rest, default_counted=kind == "relationship",
                          relation=relation)

    def entity(self, name: str, type_: str, description: str, fields: list[str]) -> None:
        src = self._src()
        if is_placeholder(name) or (is_header_word(name) and sum(map(is_header_word, fields)) >= 2):
            self.result.placeholders += 1
            return
        name = without_sentence_stop(name)
        if is_pronoun(name):  # "she": no node (but "It", a novel)
            if is_pronoun(name, type_):
                self.result.malformed.append(" | ".join(("entity", name, type_, description)))
                return
            self._titles.add(name.casefold())
        if self._fresh(("entity", name, type_, description)):  # names in NFC: a decomposed "é" is an "é"
            self.result.entities.append(EntityRecord(nfc(name), nfc(type_), description, src))

    def relationship(self, source: str, target: str, description: str, weight: str | None, keywords: str,
                     fields: list[str], default_counted: bool = True, relation: str = "") -> None:
        src = self._src()
        if any(map(is_placeholder, (source, target))) or sum(map(is_header_word, fields)) >= 3:
            self.result.placeholders += 1
            return
        source, target = without_sentence_stop(source), without_sentence_stop(target)
        if any(is_pronoun(n) and n.casefold() not in self._titles for n in (source, target)):
            self.result.malformed.append(" | ".join(("relationship", source, target, description)))
            return
        if not self._fresh(("relationship", source, target, description, keywords, relation)):
            return
        number = float(weight.split("/")[0]) if weight else 1.0
        if not math.isfinite(number) or abs(number) > 1e15:  # no strength: the prompt asks 1-10; 400 nines is
            weight, number = None, 1.0  # infinity (or sums to it), which JSON, the view and Leiden cannot take
        if weight is None and default_counted:
            self.result.default_strengths += 1
        kw = tuple(k.strip() for k in _KEYWORD_SEPARATOR.split(keywords) if k.strip()) if keywords else ()
        self.result.relationships.append(RelationshipRecord(nfc(source), nfc(target), description, number, kw, src,
                                                            relation))

    def by_role(self, row: dict[str, str], text: str) -> None:
        """A table row, key-value block or JSON item, by the roles its header or keys name."""
        values = {k: clean_field(v) for k, v in row.items()}
        if values.get("source") and values.get("target"):
            strength = values.get("strength", "")
            weight = strength if _NUMBER.fullmatch(strength) else None
            relation, description, keywords = self._labelled(values)
            self.relationship(values["source"], values["target"], description, weight, keywords,
                              list(values.values()), relation=relation)
        elif values.get("name"):
            self.entity(values["name"], values.get("type", ""), values.get("description", ""),
                        list(values.values()))
        elif any(values.values()):
            self.result.malformed.append(text)


    def _labelled(self, values: dict[str, str]) -> tuple[str, str, str]:
        """(relation, description, keywords) of a pair by roles. Its relation (or type) is the relation under a
        schema with relations when it is one of them or reads as one (a label, not a sentence); else, as the
        tuple format has no relation field there, the description where none was given, or a keyword."""
        labels = [v for v in (values.get("relation", ""), values.get("type", "")) if v]
        description, keywords, relation = values.get("description", ""), values.get("keywords", ""), ""
        if self.relations is not None:
            relation = next((v for v in labels if self.relations(v)), "") or next(
                (v for v in labels if _LABEL.fullmatch(v)), "")
        for label in labels:
            if label == relation:
                continue
            if not description:
                description = label
            else:
                keywords = ", ".join(k for k in (keywords, label) if k)
        return relation, description, keywords


def relation_field(values: list[str], relations: Callable[[str], bool]) -> tuple[str, list[str]]:
    """(the relation, the other values) of a typed relationship's values after its pair: the first value when it
    is a relation of the schema or reads as one (a label, not a sentence), else a later one of the schema (a
    model that wrote the description first); "" when none was written."""
    for i, value in enumerate(values):
        if relations(value):
            return value.strip(), values[:i] + values[i + 1:]
    if len(values) > 1 and _LABEL.fullmatch(values[0].strip()):
        return values[0].strip(), values[1:]
    return "", values


# WORKS_FOR, works for, née-à, कार्य_करता; not a sentence
_LABEL = regex.compile(rf"[{LETTERS}][{LETTERS}\p{{N}}_-]*(?:[ _][{LETTERS}\p{{N}}_-]+){{0,3}}")


def looks_like_name(value: str) -> bool:
    """A name rather than a sentence (a relationship missing its target has its description there)."""
    return len(value.split()) <= 8 and not value.rstrip().endswith((".", "\u3002"))
