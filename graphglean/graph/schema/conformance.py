"""Holding records and the graph to a `Schema`.

Every mode spells the types and relations a model wrote as the schema does, when they are the schema's
(case-insensitively, singular or plural). ``open`` checks nothing more. ``flag`` marks the nodes and edges
outside the schema ``off_schema: true`` (the others ``false``). ``strict`` leaves them out of the graph: records
of a type or relation the schema lacks, relationships whose types fit none of its patterns or whose ends are
left out, then nodes whose merged type is none of the schema's (entities only ever named in relationships,
whose type is unknown) and the edges around them. What is left out is kept, as rows of
``off_schema_records.jsonl``, and counted."""

from __future__ import annotations

from typing import Any

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
    out. Edges are checked where the graph has them (a node partition of the Ray engine has none)."""
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
                             "the schema", name=str(data.get("name") or n), type=str(data.get("type") or "")))
    rows += _edges_around(graph, off_nodes)
    graph.remove_nodes_from(off_nodes)
    off_edges = []
    for a, b, data in graph.edges(data=True):
        why = _edge_off(graph, a, b, data, schema)
        if flag:
            data["off_schema"] = why is not None
        elif strict and why is not None:
            off_edges.append((a, b))
            rows.append(_row("edge", ",".join(data.get("source_ids") or []), why,
                             source=str(graph.nodes[a].get("name") or a), target=str(graph.nodes[b].get("name") or b),
                             relation=str(data.get("relation") or "")))
    graph.remove_edges_from(off_edges)
    return rows


def _edges_around(graph: nx.Graph, nodes: list[Any]) -> list[dict[str, Any]]:
    """The rows of the edges that leave the graph with ``nodes`` (each edge once)."""
    rows, seen = [], set()
    edges = [*graph.out_edges(nodes, data=True), *graph.in_edges(nodes, data=True)] if graph.is_directed() else \
        graph.edges(nodes, data=True)
    for a, b, data in edges:
        key = (a, b) if graph.is_directed() else frozenset((a, b))
        if key in seen:
            continue
        seen.add(key)
        rows.append(_row("edge", ",".join(data.get("source_ids") or []), "an end is a node outside the schema",
                         source=str(graph.nodes[a].get("name") or a), target=str(graph.nodes[b].get("name") or b),
                         relation=str(data.get("relation") or "")))
    return rows


def _edge_off(graph: nx.Graph, a: Any, b: Any, data: dict[str, Any], schema: Schema) -> str | None:
    relations = [schema.relation(r) or r for r in _as_list(data.get("relations"))]
    if relations:
        data["relations"] = relations
        data["relation"] = relations[0]
    if not schema.typed_relationships:
        return None
    relation = data.get("relation")
    if not relation or schema.relation(str(relation)) is None:
        return f"relation {relation} is not in the schema" if relation else "no relation"
    types = (str(graph.nodes[a].get("type") or ""), str(graph.nodes[b].get("type") or ""))
    if any(schema.fits(types[0], r, types[1], graph.is_directed()) for r in relations):
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
