"""What a peer index is made of, seen as one engine names things: entities, relationships, documents and
their text units. graphglean's own outputs are untouched; this is the view the writers read.

Two graphglean nodes that one engine names alike (GraphRAG upper-cases: the engine would have merged them) are
one entity of that engine's view: descriptions and text units joined, aliases kept, their edges joined. Names
an entity was also known by (entity resolution's aliases) go into its description, the one field both
engines search, so a search by an alias finds it.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

import attrs
import networkx as nx

from ....text.chunking import Chunk


@attrs.define
class Entity:
    name: str  # as the engine names it
    type: str
    description: str
    chunk_ids: list[str]
    frequency: int
    keys: list[str]  # graphglean's node keys it stands for
    degree: int = 0


@attrs.define
class Relationship:
    source: str  # entity names
    target: str
    description: str
    keywords: list[str]
    weight: float
    chunk_ids: list[str]


@attrs.frozen
class Document:
    id: str
    title: str
    text: str
    chunk_ids: tuple[str, ...]


@attrs.define
class EngineGraph:
    """One engine's view of the graph; ``names`` maps each graphglean node key to its entity's name."""

    entities: list[Entity]
    relationships: list[Relationship]
    names: dict[str, str]
    merged_edges: int = 0  # edges between two nodes that became one entity (no place for them)


def documents_of(documents: Iterable[Any], chunks: list[Chunk]) -> list[Document]:
    """The input documents (``id``, ``text``, ``metadata``: `text.inputs.Document`) with their chunks' ids, in
    chunk order; a document's title is its metadata's ``title``, else its id."""
    by_doc: dict[str, list[Chunk]] = {}
    for c in chunks:
        by_doc.setdefault(c.doc_id, []).append(c)
    found = []
    for d in documents:
        own = sorted(by_doc.get(d.id, []), key=lambda c: c.index)
        title = (d.metadata or {}).get("title") if isinstance(getattr(d, "metadata", None), dict) else None
        found.append(Document(d.id, str(title or d.id), d.text, tuple(c.id for c in own)))
    return found


def _aliases(data: dict[str, Any]) -> list[str]:
    names = [data.get("name") or ""] + list(data.get("aliases") or [])
    return [n for n in dict.fromkeys(str(n) for n in names) if n]


def with_aliases(description: str, name: str, aliases: list[str], name_of: Callable[[str], str]) -> str:
    """``description`` and, on a line of its own, the aliases that the engine would not find by ``name``."""
    others = [a for a in aliases if name_of(a) != name]
    if not others:
        return description
    also = "Also known as: " + ", ".join(others) + "."
    return f"{description}\n{also}" if description else also


def engine_graph(graph: nx.Graph, name_of: Callable[[str], str], type_of: Callable[[str], str],
                 undirected_pairs: bool = False) -> EngineGraph:
    """``graph`` as an engine that names entities ``name_of(display name)`` and types ``type_of(type)`` sees it;
    ``undirected_pairs``: a relationship's ends in sorted order (LightRAG), else as the graph has them."""
    groups: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for key, data in graph.nodes(data=True):
        groups.setdefault(name_of(str(data.get("name") or key)), []).append((str(key), data))
    entities, names = [], {}
    for name, members in groups.items():
        members.sort(key=lambda m: -int(m[1].get("frequency") or 0))
        aliases = [a for _, d in members for a in _aliases(d)]
        descriptions = list(dict.fromkeys(str(d.get("description") or "").strip() for _, d in members))
        description = with_aliases("\n".join(t for t in descriptions if t), name, list(dict.fromkeys(aliases)), name_of)
        chunk_ids = list(dict.fromkeys(c for _, d in members for c in d.get("source_ids") or []))
        entities.append(Entity(name, type_of(str(members[0][1].get("type") or "unknown")), description, chunk_ids,
                               sum(int(d.get("frequency") or 0) for _, d in members), [k for k, _ in members]))
        names.update((k, name) for k, _ in members)
    view = EngineGraph(entities, [], names)
    _add_relationships(view, graph, undirected_pairs)
    degree: dict[str, int] = {}
    for r in view.relationships:
        degree[r.source] = degree.get(r.source, 0) + 1
        degree[r.target] = degree.get(r.target, 0) + 1
    for e in view.entities:
        e.degree = degree.get(e.name, 0)
    return view


def _add_relationships(view: EngineGraph, graph: nx.Graph, undirected_pairs: bool) -> None:
    pairs: dict[tuple[str, str], Relationship] = {}
    directed = graph.is_directed()
    for a, b, data in graph.edges(data=True):
        source, target = view.names[str(a)], view.names[str(b)]
        if source == target:
            view.merged_edges += a != b
            if a != b:
                continue
        if undirected_pairs or not directed:
            key = tuple(sorted((source, target)))
            if undirected_pairs:
                source, target = key
        else:
            key = (source, target)
        description = str(data.get("description") or "").strip()
        # a schema's relation types lead the keywords (what LightRAG's keyword search matches relationships by)
        keywords = list(dict.fromkeys([*map(str, data.get("relations") or []), *map(str, data.get("keywords") or [])]))
        chunk_ids = [str(c) for c in data.get("source_ids") or []]
        found = pairs.get(key)  # type: ignore[arg-type]
        if found is None:
            pairs[key] = Relationship(source, target, description, keywords,  # type: ignore[index]
                                      float(data.get("weight") or 1.0), chunk_ids)
            continue
        if description and description not in found.description.split("\n"):
            found.description = f"{found.description}\n{description}" if found.description else description
        found.keywords = list(dict.fromkeys(found.keywords + keywords))
        found.weight += float(data.get("weight") or 1.0)
        found.chunk_ids = list(dict.fromkeys(found.chunk_ids + chunk_ids))
    view.relationships = list(pairs.values())
