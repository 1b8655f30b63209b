"""What communities and their reports are: the records the outputs, the view and the next run read."""

from __future__ import annotations

import hashlib
from typing import Any

import attrs


def relationship_id(source: Any, target: Any, directed: bool = False) -> str:
    """A relationship's id in communities.jsonl and reports: a hash of its endpoints' node ids (an undirected
    edge's in sorted order), the same in every run."""
    a, b = str(source), str(target)
    if not directed and b < a:
        a, b = b, a
    return "r" + hashlib.sha256(f"{a}\x1f{b}".encode("utf-8", "surrogatepass")).hexdigest()[:12]


def edge_id(graph: Any, source: Any, target: Any) -> str:
    """`relationship_id` of an edge of ``graph``."""
    return relationship_id(source, target, graph.is_directed())


@attrs.define
class Community:
    """One community. ``id`` is stable across runs (matched by member overlap); level 0 is the coarsest.
    ``entities`` are node ids, ``relationships`` the ids of the edges inside it (`relationship_id`);
    ``fingerprint`` hashes its members' names, types and descriptions and its relationships' descriptions;
    ``changed_run`` is the run (counted per output folder) in which that last changed; ``digest`` hashes the
    edges it was split by into its children (a next run with the same edges keeps the split)."""

    id: int
    level: int
    entities: list[Any]
    relationships: list[str] = attrs.field(factory=list)
    parent: int | None = None
    children: list[int] = attrs.field(factory=list)
    fingerprint: str = ""
    changed_run: int = 1
    digest: str = ""

    @property
    def size(self) -> int:
        return len(self.entities)

    def to_json(self, names: dict[str, str] | None = None) -> dict[str, Any]:
        """A line of communities.jsonl; ``names`` gives each entity's display name (else its id)."""
        names = names or {}
        return {"id": self.id, "level": self.level, "parent": self.parent, "children": self.children,
                "size": self.size, "entity_ids": self.entities,
                "entities": [names.get(e, str(e)) for e in self.entities], "relationship_ids": self.relationships,
                "changed_run": self.changed_run}

    def state_json(self) -> dict[str, Any]:
        """What the next run reads back (`from_json`): the output line and what tells a change."""
        return {**self.to_json(), "fingerprint": self.fingerprint, "digest": self.digest}

    @classmethod
    def from_json(cls, row: dict[str, Any]) -> "Community":
        return cls(int(row["id"]), int(row["level"]), list(row["entity_ids"]),
                   [str(r) for r in row.get("relationship_ids", [])],
                   None if row.get("parent") is None else int(row["parent"]), [int(c) for c in row.get("children", [])],
                   str(row.get("fingerprint", "")), int(row.get("changed_run", 1)), str(row.get("digest", "")))


@attrs.define
class Finding:
    summary: str
    explanation: str
    entities: list[str] = attrs.field(factory=list)  # node ids it rests on
    relationships: list[str] = attrs.field(factory=list)  # relationship ids it rests on

    def to_json(self) -> dict[str, Any]:
        return {"summary": self.summary, "explanation": self.explanation,
                "references": {"entities": self.entities, "relationships": self.relationships}}

    @classmethod
    def from_json(cls, row: dict[str, Any]) -> "Finding":
        refs = row.get("references") or {}
        return cls(str(row.get("summary", "")), str(row.get("explanation", "")),
                   [str(e) for e in refs.get("entities", [])], [str(r) for r in refs.get("relationships", [])])


@attrs.define
class CommunityReport:
    """The LLM's report on one community, as read from its answer (see `reading`)."""

    community: int
    level: int
    title: str
    summary: str
    rating: float | None
    rating_explanation: str
    findings: list[Finding] = attrs.field(factory=list)
    context_tokens: int = 0
    dropped_references: int = 0  # references to ids or names the community does not hold
    cut: bool = False  # the answer was cut short and read up to its last complete part

    @property
    def full_text(self) -> str:
        """The report as Markdown: title, summary, rating, then each finding."""
        parts = [f"# {self.title}", self.summary]
        if self.rating is not None:
            why = f" ({self.rating_explanation})" if self.rating_explanation else ""
            parts.append(f"Rating: {self.rating:g}{why}")
        parts += [f"## {f.summary}\n\n{f.explanation}" for f in self.findings]
        return "\n\n".join(p for p in parts if p.strip())

    def to_json(self) -> dict[str, Any]:
        return {"community": self.community, "level": self.level, "title": self.title, "summary": self.summary,
                "rating": self.rating, "rating_explanation": self.rating_explanation,
                "findings": [f.to_json() for f in self.findings], "full_text": self.full_text,
                "context_tokens": self.context_tokens, "dropped_references": self.dropped_references,
                "cut": self.cut}

    @classmethod
    def from_json(cls, row: dict[str, Any]) -> "CommunityReport":
        rating = row.get("rating")
        return cls(int(row["community"]), int(row["level"]), str(row.get("title", "")), str(row.get("summary", "")),
                   None if rating is None else float(rating), str(row.get("rating_explanation", "")),
                   [Finding.from_json(f) for f in row.get("findings", [])], int(row.get("context_tokens", 0)),
                   int(row.get("dropped_references", 0)), bool(row.get("cut", False)))


@attrs.define
class Communities:
    """A graph's communities, coarsest level first, with the run they were made in; ``next_id`` is the id the
    next new community gets (ids are never reused), ``digest`` that of the whole graph's edges, ``adjacency``
    what tells the next run which nodes it touched, ``network`` the fingerprint of all it was made from
    (`Network.fingerprint`: a run over the same network carries this clustering over)."""

    items: list[Community] = attrs.field(factory=list)
    run: int = 1
    next_id: int = 0
    digest: str = ""
    adjacency: dict[str, str] = attrs.field(factory=dict)  # each clustered node's digest of its edges
    network: str = ""  # the fingerprint of the network clustered (`Network.fingerprint`)

    def state_json(self) -> dict[str, Any]:
        return {"run": self.run, "next_id": self.next_id, "digest": self.digest, "adjacency": self.adjacency,
                "network": self.network, "communities": [c.state_json() for c in self.items]}

    @classmethod
    def from_state(cls, row: dict[str, Any]) -> "Communities":
        return cls([Community.from_json(c) for c in row["communities"]], int(row["run"]), int(row["next_id"]),
                   str(row.get("digest", "")), dict(row.get("adjacency", {})), str(row.get("network", "")))

    def by_id(self) -> dict[int, Community]:
        return {c.id: c for c in self.items}

    @property
    def levels(self) -> int:
        return 1 + max((c.level for c in self.items), default=-1)

    def of_node(self) -> dict[str, list[int]]:
        """Each clustered node's community id at each level, coarsest first."""
        found: dict[str, list[int]] = {}
        for c in sorted(self.items, key=lambda c: c.level):
            for e in c.entities:
                found.setdefault(e, []).append(c.id)
        return found
