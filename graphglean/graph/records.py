"""Entity and relationship records, each carrying where it came from."""

from __future__ import annotations

import attrs


@attrs.frozen
class Provenance:
    """Orders records by where they appear, so merging in any order gives the same result."""

    doc_id: str
    chunk_index: int
    chunk_id: str
    position: int  # the record's place in its chunk's responses

    @property
    def key(self) -> tuple[str, int, str, int]:
        return (self.doc_id, self.chunk_index, self.chunk_id, self.position)


@attrs.frozen
class EntityRecord:
    name: str
    type: str
    description: str
    source: Provenance | None = None


@attrs.frozen
class RelationshipRecord:
    source_name: str
    target_name: str
    description: str
    weight: float = 1.0
    keywords: tuple[str, ...] = ()
    source: Provenance | None = None
    relation: str = ""  # its type (``WORKS_FOR``), asked for under a schema with relationship patterns


@attrs.define
class ParseResult:
    entities: list[EntityRecord] = attrs.field(factory=list)
    relationships: list[RelationshipRecord] = attrs.field(factory=list)
    malformed: list[str] = attrs.field(factory=list)  # records that could not be parsed, kept as text
    default_strengths: int = 0  # relationships whose strength was not a number
    keywords: list[str] = attrs.field(factory=list)  # chunk-level content keywords, when a model writes them
    cut: list[str] = attrs.field(factory=list)  # the unfinished end of an answer cut by the completion cap
    repeated: int = 0  # records an answer gave more than once (a model stuck in a loop), kept once
    placeholders: int = 0  # rows copied from the prompt's format line (``Entity1``, ``<source_entity>``)
    reasoning_records: int = 0  # records found inside a reasoning block (kept)
    repaired_names: int = 0  # names whose ends held pieces of the format that the text does not hold (cut off)
    examined: int = 0  # records looked at, kept or not: the next record's position
    off_schema: list[dict[str, str]] = attrs.field(factory=list)  # records outside graph.schema, left out (strict)
    echoed: int = 0  # names echoing the prompt's examples or a placeholder that the chunk does not hold (left out)

    @property
    def records(self) -> int:
        return len(self.entities) + len(self.relationships)

    def names(self) -> set[str]:
        """Every name the records give: entities' and relationships' ends."""
        return {e.name for e in self.entities} | {n for r in self.relationships for n in (r.source_name,
                                                                                         r.target_name)}

    def rename(self, renamed: dict[str, str], loops: bool = True) -> None:
        """Each name ``renamed`` holds, as it says, in every record; ``loops`` False: a relationship whose ends
        would become one keeps its names."""
        self.entities = [attrs.evolve(e, name=renamed.get(e.name, e.name)) for e in self.entities]
        self.relationships = [
            attrs.evolve(r, source_name=a, target_name=b) if loops or a != b else r for r in self.relationships
            for a, b in [(renamed.get(r.source_name, r.source_name), renamed.get(r.target_name, r.target_name))]]

    def extend(self, other: "ParseResult") -> None:
        self.entities += other.entities
        self.relationships += other.relationships
        self.malformed += other.malformed
        self.default_strengths += other.default_strengths
        self.keywords += other.keywords
        self.cut += other.cut
        self.repeated += other.repeated
        self.placeholders += other.placeholders
        self.reasoning_records += other.reasoning_records
        self.repaired_names += other.repaired_names
        self.examined += other.examined
        self.off_schema += other.off_schema
        self.echoed += other.echoed
