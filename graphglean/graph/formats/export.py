"""Graph exports: GraphML that Gephi reads, node-link JSON, and JSONL tables of entities and relationships."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import networkx as nx

from ...core.atomic import atomic_open


def _graphml_value(value: Any) -> Any:
    if isinstance(value, (list, tuple, dict)):
        return json.dumps(value, ensure_ascii=False)
    if value is None:
        return ""
    return value


def write_graphml(graph: nx.Graph, path: str | Path) -> None:
    """GraphML with list attributes serialized as JSON strings (GraphML has no list type)."""
    flat = graph.__class__()
    flat.add_nodes_from((n, {k: _graphml_value(v) for k, v in d.items()}) for n, d in graph.nodes(data=True))
    flat.add_edges_from((a, b, {k: _graphml_value(v) for k, v in d.items()}) for a, b, d in graph.edges(data=True))
    with atomic_open(path, "wb") as f:
        nx.write_graphml(flat, f)


def write_node_link(graph: nx.Graph, path: str | Path) -> None:
    data = nx.node_link_data(graph, edges="edges")
    with atomic_open(path) as f:
        json.dump(data, f, ensure_ascii=False, indent=1)


def entity_rows(graph: nx.Graph) -> list[dict[str, Any]]:
    return [{"id": n, **d} for n, d in graph.nodes(data=True)]


def relationship_rows(graph: nx.Graph) -> list[dict[str, Any]]:
    return [{"source": a, "target": b, **d} for a, b, d in graph.edges(data=True)]


def write_jsonl(rows: list[dict[str, Any]], path: str | Path) -> None:
    with atomic_open(path) as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")


def write_graph(graph: nx.Graph, out_dir: str | Path) -> list[Path]:
    """All four exports into ``out_dir``; returns the paths written."""
    out = Path(out_dir)
    paths = [out / "graph.graphml", out / "graph.json", out / "entities.jsonl", out / "relationships.jsonl"]
    write_graphml(graph, paths[0])
    write_node_link(graph, paths[1])
    write_jsonl(entity_rows(graph), paths[2])
    write_jsonl(relationship_rows(graph), paths[3])
    return paths
