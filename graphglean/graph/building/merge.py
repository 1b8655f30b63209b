"""`merge_records`: entity and relationship records into one NetworkX graph.

Merging is associative and order-independent: every choice (display name, type, description order) is made
from counts and from the records' provenance, never from the order records arrived in. So the graphs of
shards merged together equal the graph of one run over everything.
"""

from __future__ import annotations

from typing import Any, Iterable

import attrs
import networkx as nx

from ..extraction.debris import ELIDED_START
from ..records import EntityRecord, ParseResult, Provenance, RelationshipRecord

Key = tuple[str, int, str, int]
_NOWHERE: Key = ("", -1, "", -1)
_QUOTES = "\"'\u201c\u201d\u2018\u2019`*<>"
_ELISION = "'\u2019"
_CORNER_PAIRS = ("\u300c\u300d", "\u300e\u300f")  # 「」『』
_CORNERS = frozenset("\u300c\u300d\u300e\u300f")


def normalize_name(name: str) -> str:
    """The node key: quotes and surrounding whitespace stripped, inner whitespace collapsed, case-folded."""
    return clean_name(name).casefold()


def clean_name(name: str) -> str:
    """``name`` without the quotes around it (corner brackets too) and its blanks collapsed; an apostrophe
    opening it that stands for letters left out ("'s-Hertogenbosch", "'t Hooft": before a small letter, no quote
    closing the name) stays."""
    stripped = name.strip()
    cleaned = stripped.strip(_QUOTES)
    if stripped[:1] in _ELISION and ELIDED_START.match(cleaned) and stripped[-1:] not in _QUOTES:
        cleaned = stripped[0] + cleaned
    if len(cleaned) > 2 and cleaned[0] + cleaned[-1] in _CORNER_PAIRS and not _CORNERS & set(cleaned[1:-1]):
        cleaned = cleaned[1:-1]  # 「しらせ」: Japanese quotes a name so, as others write "Shirase"
    return " ".join(cleaned.split())


def _key(src: Provenance | None) -> Key:
    return src.key if src is not None else _NOWHERE


def _first_seen(into: dict[str, Key], value: str, key: Key) -> None:
    if value and (value not in into or key < into[value]):
        into[value] = key


def _merge_first_seen(mine: dict[str, Key], theirs: dict[str, Key]) -> None:
    """``theirs`` into ``mine``, the earliest place of each value kept (values are never empty here)."""
    if not mine:
        mine.update(theirs)
        return
    get = mine.get
    for value, key in theirs.items():
        seen = get(value)
        if seen is None or key < seen:
            mine[value] = key


def _add_counts(mine: dict[str, int], theirs: dict[str, int]) -> None:
    if not mine:
        mine.update(theirs)
        return
    get = mine.get
    for value, count in theirs.items():
        mine[value] = get(value, 0) + count


def _ranked(counts: dict[str, int], first: dict[str, Key]) -> list[str]:
    """Most frequent first; ties go to the earliest seen, then to the name itself."""
    return sorted(counts, key=lambda v: (-counts[v], first.get(v, _NOWHERE), v))


def _in_order(first: dict[str, Key]) -> list[str]:
    if len(first) < 2:  # most of a large graph's edges: one description, keyword and source each
        return list(first)
    return sorted(first, key=lambda v: (first[v], v))


def in_found_order(first: dict[str, Key]) -> list[tuple[str, Key]]:
    """Values with where each was first found, in the order the graph lists them."""
    return sorted(first.items(), key=lambda kv: (kv[1], kv[0]))


# Counts are plain dicts, and a node or edge pickles as the tuple of its fields: the partitioned merge unpickles
# and merges millions of them, where a Counter's rebuild and update (ABC checks per call) cost more than the data.
@attrs.define
class _Node:
    names: dict[str, int] = attrs.field(factory=dict)  # counts
    mentions: dict[str, int] = attrs.field(factory=dict)  # surface forms seen only as relationship endpoints
    types: dict[str, int] = attrs.field(factory=dict)
    first: dict[str, Key] = attrs.field(factory=dict)  # first appearance of each name and type
    descriptions: dict[str, Key] = attrs.field(factory=dict)
    sources: dict[str, Key] = attrs.field(factory=dict)
    frequency: int = 0

    def __reduce__(self) -> tuple[Any, ...]:
        return _Node, (self.names, self.mentions, self.types, self.first, self.descriptions, self.sources,
                       self.frequency)

    def merge(self, other: "_Node") -> None:
        _add_counts(self.names, other.names)
        _add_counts(self.mentions, other.mentions)
        _add_counts(self.types, other.types)
        _merge_first_seen(self.first, other.first)
        _merge_first_seen(self.descriptions, other.descriptions)
        _merge_first_seen(self.sources, other.sources)
        self.frequency += other.frequency


@attrs.define
class _Edge:
    weight: float = 0.0
    descriptions: dict[str, Key] = attrs.field(factory=dict)
    keywords: dict[str, Key] = attrs.field(factory=dict)
    sources: dict[str, Key] = attrs.field(factory=dict)
    frequency: int = 0
    relations: dict[str, int] | None = None  # counts of the relation types its records gave (a schema's)
    first: dict[str, Key] | None = None  # first appearance of each relation

    def __reduce__(self) -> tuple[Any, ...]:
        return _Edge, (self.weight, self.descriptions, self.keywords, self.sources, self.frequency, self.relations,
                       self.first)

    def merge(self, other: "_Edge") -> None:
        self.weight += other.weight
        _merge_first_seen(self.descriptions, other.descriptions)
        _merge_first_seen(self.keywords, other.keywords)
        _merge_first_seen(self.sources, other.sources)
        self.frequency += other.frequency
        if other.relations:
            self.relations, self.first = self.relations or {}, self.first or {}
            _add_counts(self.relations, other.relations)
            _merge_first_seen(self.first, other.first or {})

    def add_relation(self, relation: str, where: Key) -> None:
        if self.relations is None:
            self.relations, self.first = {}, {}
        self.relations[relation] = self.relations.get(relation, 0) + 1
        _first_seen(self.first, relation, where)  # type: ignore[arg-type]


@attrs.define
class GraphAccumulator:
    """Merged records, not yet a graph. ``a.merge(b)`` is associative and commutative."""

    directed: bool = False
    nodes: dict[str, _Node] = attrs.field(factory=dict)
    edges: dict[tuple[str, str], _Edge] = attrs.field(factory=dict)

    def _node(self, key: str) -> _Node:
        node = self.nodes.get(key)  # not setdefault: building a spare _Node per record is most of the cost
        if node is None:
            node = self.nodes[key] = _Node()
        return node

    def add_entity(self, rec: EntityRecord) -> None:
        name = clean_name(rec.name)
        key = name.casefold()  # normalize_name's
        if not key:
            return
        node = self._node(key)
        where = _key(rec.source)
        node.names[name] = node.names.get(name, 0) + 1
        _first_seen(node.first, name, where)
        kind = clean_name(rec.type).lower()
        if kind:
            node.types[kind] = node.types.get(kind, 0) + 1
            _first_seen(node.first, "type:" + kind, where)
        _first_seen(node.descriptions, rec.description.strip(), where)
        if rec.source is not None:
            _first_seen(node.sources, rec.source.chunk_id, where)
        node.frequency += 1

    def add_relationship(self, rec: RelationshipRecord) -> None:
        source, target = clean_name(rec.source_name), clean_name(rec.target_name)
        a, b = source.casefold(), target.casefold()  # normalize_name's
        if not a or not b:
            return
        where = _key(rec.source)
        for key, surface in ((a, source), (b, target)):
            node = self._node(key)
            node.mentions[surface] = node.mentions.get(surface, 0) + 1
            _first_seen(node.first, surface, where)
        pair = (a, b) if self.directed or a <= b else (b, a)
        edge = self.edges.get(pair)
        if edge is None:
            edge = self.edges[pair] = _Edge()
        edge.weight += rec.weight
        _first_seen(edge.descriptions, rec.description.strip(), where)
        for kw in rec.keywords:
            _first_seen(edge.keywords, kw, where)
        relation = clean_name(rec.relation)
        if relation:
            edge.add_relation(relation, where)
        if rec.source is not None:
            _first_seen(edge.sources, rec.source.chunk_id, where)
        edge.frequency += 1

    def add(self, result: ParseResult) -> "GraphAccumulator":
        for e in result.entities:
            self.add_entity(e)
        for r in result.relationships:
            self.add_relationship(r)
        return self

    def merge(self, other: "GraphAccumulator") -> "GraphAccumulator":
        """A new accumulator holding both (neither input changes)."""
        return GraphAccumulator(self.directed).update(self).update(other)

    def update(self, other: "GraphAccumulator") -> "GraphAccumulator":
        """Merge ``other`` into this accumulator in place (``other`` does not change)."""
        for key, node in other.nodes.items():
            self._node(key).merge(node)
        for pair, edge in other.edges.items():
            mine = self.edges.get(pair)
            if mine is None:
                mine = self.edges[pair] = _Edge()
            mine.merge(edge)
        return self

    def absorb(self, other: "GraphAccumulator") -> "GraphAccumulator":
        """`update` that takes over ``other``'s records instead of copying them: ``other`` is not used after."""
        for key, node in other.nodes.items():
            mine = self.nodes.get(key)
            if mine is None:
                self.nodes[key] = node
            else:
                mine.merge(node)
        for pair, edge in other.edges.items():
            theirs = self.edges.get(pair)
            if theirs is None:
                self.edges[pair] = edge
            else:
                theirs.merge(edge)
        return self

    def to_graph(self) -> nx.Graph:
        graph: nx.Graph = nx.DiGraph() if self.directed else nx.Graph()
        for key in sorted(self.nodes):
            graph.add_node(key, **node_attributes(self.nodes[key]))
        for (a, b) in sorted(self.edges):
            graph.add_edge(a, b, **edge_attrs(self.edges[(a, b)]))
        return graph


def edge_attrs(edge: _Edge) -> dict[str, Any]:
    """An edge's attributes in the graph (shared by to_graph and the partitioned merge)."""
    descriptions = _in_order(edge.descriptions)
    data = {"weight": edge.weight, "descriptions": descriptions, "description": "\n".join(descriptions),
            "keywords": _in_order(edge.keywords), "source_ids": _in_order(edge.sources), "frequency": edge.frequency}
    if edge.relations:  # records typed under a schema: the most frequent relation, and all of them
        relations = _ranked(edge.relations, edge.first or {})
        data["relation"], data["relations"] = relations[0], relations
    return data


def display_name(node: _Node) -> str:
    """The name a node is shown by: its most frequent declared name (a mentioned one if none was declared)."""
    counts = node.names or node.mentions
    return min(counts, key=lambda v: (-counts[v], node.first.get(v, _NOWHERE), v), default="")


def node_attributes(node: _Node) -> dict[str, Any]:
    declared = bool(node.names)
    names = _ranked(node.names if declared else node.mentions, node.first)
    types = _ranked(node.types, {k[5:]: v for k, v in node.first.items() if k.startswith("type:")})
    descriptions = _in_order(node.descriptions)
    return {"name": names[0] if names else "", "type": types[0] if types else "unknown", "types": types,
            "type_conflict": len(types) > 1, "declared": declared, "descriptions": descriptions,
            "description": "\n".join(descriptions), "source_ids": _in_order(node.sources),
            "frequency": node.frequency}


def merge_records(results: Iterable[ParseResult], directed: bool = False) -> GraphAccumulator:
    acc = GraphAccumulator(directed)
    for result in results:
        acc.add(result)
    return acc
