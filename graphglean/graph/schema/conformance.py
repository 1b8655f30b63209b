"""Holding records and the graph to a `Schema`.

Every mode spells the types and relations a model wrote as the schema does, when they are the schema's
(case-insensitively, singular or plural). ``open`` checks nothing more. ``flag`` marks the nodes and edges
outside the schema ``off_schema: true`` (the others ``false``). ``strict`` leaves them out of the graph: records
of a type or relation the schema lacks, relationships whose types fit none of its patterns or whose ends are
left out, then nodes whose merged type is none of the schema's (entities only ever named in relationships,
whose type is unknown) and the edges around them. What is left out is kept, as rows of
``off_schema_records.jsonl``, and counted."""

from __future__ import annotations

from typing import Any, Callable, Iterable

import attrs
import networkx as nx

from ..building.merge import normalize_name
from ..records import ParseResult, RelationshipRecord
from .ontology import Schema


def conform_records(result: ParseResult, schema: Schema, chunk_id: str, directed: bool) -> None:
    """One chunk's records held to ``schema`` (in place): spelled as the schema spells them; in strict mode the
    records outside it moved to ``result.off_schema``."""
    strict = schema.mode == "strict"
    declared: dict[str, set[str]] = {}  # name key -> the schema types the chunk gives it
    off_names: set[str] = set()
    entities = []
    for e in result.entities:
        spelled = schema.entity_type(e.type)
        key = normalize_name(e.name)
        if spelled is None:
            if strict:
                result.off_schema.append(_row("entity", chunk_id, f"type {e.type or '(none)'} is not in the schema",
                                              name=e.name, type=e.type, description=e.description))
                off_names.add(key)
                continue
        else:
            declared.setdefault(key, set()).add(spelled)
            e = e if spelled == e.type else attrs.evolve(e, type=spelled)
        entities.append(e)
    off_names -= set(declared)  # typed in the schema elsewhere in the chunk: that record stands
    relationships = []
    for r in result.relationships:
        spelled = schema.relation(r.relation) if r.relation else None
        if spelled is not None and spelled != r.relation:
            r = attrs.evolve(r, relation=spelled)
        why = _left_out(r, spelled, schema, declared, off_names, directed) if strict else None
        if why is not None:
            result.off_schema.append(_row("relationship", chunk_id, why, source=r.source_name, target=r.target_name,
                                          relation=r.relation, description=r.description))
            continue
        relationships.append(r)
    result.entities, result.relationships = entities, relationships


def _left_out(r: RelationshipRecord, relation: str | None, schema: Schema, declared: dict[str, set[str]],
              off_names: set[str], directed: bool) -> str | None:
    """Why strict mode leaves a relationship out, or None."""
    if schema.typed_relationships and relation is None:
        return f"relation {r.relation} is not in the schema" if r.relation else "no relation written"
    ends = (normalize_name(r.source_name), normalize_name(r.target_name))
    if any(k in off_names for k in ends):
        return "an end is an entity outside the schema"
    if relation is not None and all(k in declared for k in ends) and not any(
            schema.fits(a, relation, b, directed) for a in declared[ends[0]] for b in declared[ends[1]]):
        return f"no pattern of the schema relates these types by {relation}"
    return None


def conform_graph(graph: nx.Graph, schema: Schema) -> list[dict[str, Any]]:
    """A merged graph held to ``schema`` (in place, see the module docstring); the rows of what strict mode left
    out. Edges are checked where the graph has them (the Ray engine's node partitions have none: its edge
    partitions call `conform_edges`)."""
    strict, flag = schema.mode == "strict", schema.mode == "flag"
    rows: list[dict[str, Any]] = []
    off_nodes = []
    for n, data in graph.nodes(data=True):
        spelled = schema.entity_type(str(data.get("type") or ""))
        if spelled is not None:
            data["type"] = spelled
        if isinstance(data.get("types"), list):
            data["types"] = [schema.entity_type(t) or t for t in data["types"]]
        if flag:
            data["off_schema"] = spelled is None
        elif strict and spelled is None:
            off_nodes.append(n)
            rows.append(_row("node", ",".join(data.get("source_ids") or []), f"type {data.get('type')} is not in "
                             "the schema", id=str(n), name=str(data.get("name") or n),
                             type=str(data.get("type") or "")))
    name = lambda n: str(graph.nodes[n].get("name") or n)  # noqa: E731
    rows += edges_around(_incident(graph, off_nodes), name)
    graph.remove_nodes_from(off_nodes)
    off_edges, edge_rows = conform_edges(graph.edges(data=True), lambda n: str(graph.nodes[n].get("type") or ""),
                                         name, schema, graph.is_directed())
    graph.remove_edges_from(off_edges)
    return rows + edge_rows


def _incident(graph: nx.Graph, nodes: list[Any]) -> list[tuple[Any, Any, dict[str, Any]]]:
    """The edges of ``nodes``, each once, as the graph lists them (an undirected edge from the end the outputs
    report it from)."""
    leaving = set(nodes)
    return [(a, b, d) for a, b, d in graph.edges(data=True) if a in leaving or b in leaving] if leaving else []


def edges_around(edges: Iterable[tuple[Any, Any, dict[str, Any]]], name: Callable[[Any], str]) -> list[dict[str, Any]]:
    """The rows of ``edges``, left out with a node outside the schema (``name``: a node's display name)."""
    return [_row("edge", ",".join(data.get("source_ids") or []), "an end is a node outside the schema",
                 source=name(a), target=name(b), relation=str(data.get("relation") or "")) for a, b, data in edges]


def conform_edges(edges: Iterable[tuple[Any, Any, dict[str, Any]]], type_of: Callable[[Any], str],
                  name: Callable[[Any], str], schema: Schema,
                  directed: bool) -> tuple[list[tuple[Any, Any]], list[dict[str, Any]]]:
    """Edges held to ``schema`` (their data in place: relations spelled as the schema's, flagged in flag mode),
    their ends' types given by ``type_of``; the pairs strict mode leaves out, and their rows."""
    strict, flag = schema.mode == "strict", schema.mode == "flag"
    off, rows = [], []
    for a, b, data in edges:
        why = _edge_off((type_of(a), type_of(b)), data, schema, directed)
        if flag:
            data["off_schema"] = why is not None
        elif strict and why is not None:
            off.append((a, b))
            rows.append(_row("edge", ",".join(data.get("source_ids") or []), why, source=name(a), target=name(b),
                             relation=str(data.get("relation") or "")))
    return off, rows


def conform_edges_apart(edges: Iterable[tuple[Any, Any, dict[str, Any]]], dropped: set[Any],
                        left_out: dict[Any, str], names: Callable[[set[Any]], dict[Any, str]],
                        types: Callable[[set[Any]], dict[Any, str]], schema: Schema,
                        directed: bool) -> tuple[list[tuple[Any, Any, dict[str, Any]]], list[dict[str, Any]]]:
    """Edges whose nodes were finished elsewhere (the Ray engine's edge partitions), as `conform_graph` holds a
    whole graph's once its echoes and ungrounded nodes went: those of ``dropped`` nodes go, with a row each where
    an end is one strict mode left out (``left_out``: key -> name) and none went before; the others are held
    to the schema by their ends' types. ``names`` and ``types`` look up the kept nodes' names and types by key.
    The edges kept, and the rows."""
    edges, gone_before = list(edges), dropped - set(left_out)
    kept = [e for e in edges if e[0] not in dropped and e[1] not in dropped]
    around = [e for e in edges if (e[0] in left_out or e[1] in left_out) and not (
        e[0] in gone_before or e[1] in gone_before)]
    ends = {k for a, b, _ in kept + around for k in (a, b)}
    name_of, type_of = {**names(ends - set(left_out)), **left_out}, types(ends - dropped)
    name = lambda n: name_of.get(n, str(n))  # noqa: E731
    rows = edges_around(around, name)
    off, more = conform_edges(kept, lambda n: type_of.get(n, ""), name, schema, directed)
    if off:
        leaving = set(off)
        kept = [e for e in kept if (e[0], e[1]) not in leaving]
    return kept, rows + more


def _edge_off(types: tuple[str, str], data: dict[str, Any], schema: Schema, directed: bool) -> str | None:
    relations = [schema.relation(r) or r for r in _as_list(data.get("relations"))]
    if relations:
        data["relations"] = relations
        data["relation"] = relations[0]
    if not schema.typed_relationships:
        return None
    relation = data.get("relation")
    if not relation or schema.relation(str(relation)) is None:
        return f"relation {relation} is not in the schema" if relation else "no relation"
    if any(schema.fits(types[0], r, types[1], directed) for r in relations):
        return None
    return f"no pattern of the schema is {types[0]} {relation} {types[1]}"


def _as_list(value: Any) -> list[str]:
    return [str(v) for v in value] if isinstance(value, (list, tuple)) else []


def _row(kind: str, where: str, why: str, **fields: str) -> dict[str, Any]:
    return {"kind": kind, "chunk_id" if kind in ("entity", "relationship") else "source_ids": where, **fields,
            "why": why}


def count_flagged(graph: nx.Graph) -> int:
    """Nodes and edges flagged ``off_schema``."""
    return sum(1 for _, off in graph.nodes(data="off_schema") if off) + sum(
        1 for _, _, off in graph.edges(data="off_schema") if off)
