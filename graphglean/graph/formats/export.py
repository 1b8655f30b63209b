"""Graph exports: GraphML that Gephi reads, node-link JSON, and JSONL tables of entities and relationships."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import networkx as nx

from ...core.atomic import atomic_open

# Characters XML 1.0 forbids even as references: C0 controls but tab, line feed and carriage return (ANSI
# colour codes, the form feeds pdftotext writes), lone surrogates, U+FFFE and U+FFFF.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
# graph attributes of a GraphML file: which node and edge attributes hold JSON text (lists, objects)
JSON_NODE_KEYS, JSON_EDGE_KEYS = "graphglean_json_node_keys", "graphglean_json_edge_keys"


def xml_text(text: str) -> str:
    """``text`` without the characters XML cannot hold."""
    return _NOT_XML.sub("", text) if _NOT_XML.search(text) else text


class _Flat:
    """Attribute values as GraphML holds them: lists and objects as JSON text (their keys noted), no None,
    and strings without the characters XML forbids."""

    def __init__(self) -> None:
        self.json_keys: set[str] = set()

    def attrs(self, data: dict[str, Any]) -> dict[str, Any]:
        return {xml_text(str(k)): self.value(k, v) for k, v in data.items()}

    def value(self, key: str, value: Any) -> Any:
        if isinstance(value, (list, tuple, dict)):
            self.json_keys.add(xml_text(str(key)))
            return xml_text(json.dumps(value, ensure_ascii=False))
        if value is None:
            return ""
        return xml_text(value) if isinstance(value, str) else value


def _xml_ids(graph: nx.Graph) -> dict[Any, Any]:
    """Node ids GraphML can hold: string ids without forbidden characters, kept apart when two become equal."""
    ids: dict[Any, Any] = {}
    taken = {n for n in graph.nodes if not isinstance(n, str) or not _NOT_XML.search(n)}
    for n in graph.nodes:
        if isinstance(n, str) and _NOT_XML.search(n):
            clean = xml_text(n)
            while clean in taken:
                clean += "\ufffd"
            taken.add(clean)
            ids[n] = clean
    return ids


def write_graphml(graph: nx.Graph, path: str | Path) -> None:
    """GraphML with list attributes serialized as JSON strings (GraphML has no list type; the graph attributes
    ``graphglean_json_node_keys`` and ``..._edge_keys`` name them) and without the characters XML forbids."""
    flat, nodes, edges = graph.__class__(), _Flat(), _Flat()
    ids = _xml_ids(graph)
    flat.add_nodes_from((ids.get(n, n), nodes.attrs(d)) for n, d in graph.nodes(data=True))
    flat.add_edges_from((ids.get(a, a), ids.get(b, b), edges.attrs(d)) for a, b, d in graph.edges(data=True))
    flat.graph[JSON_NODE_KEYS] = json.dumps(sorted(nodes.json_keys))
    flat.graph[JSON_EDGE_KEYS] = json.dumps(sorted(edges.json_keys))
    with atomic_open(path, "wb") as f:
        nx.write_graphml(flat, f)


def write_node_link(graph: nx.Graph, path: str | Path) -> None:
    data = nx.node_link_data(graph, edges="edges")
    with atomic_open(path) as f:
        json.dump(data, f, ensure_ascii=False, indent=1)


def entity_rows(graph: nx.Graph) -> list[dict[str, Any]]:
    return [{"id": n, **d} for n, d in graph.nodes(data=True)]


def relationship_rows(graph: nx.Graph) -> list[dict[str, Any]]:
    """One row per edge; a directed graph's rows say so (``"directed": true``), so that reading the table back
    keeps a→b and b→a apart."""
    if graph.is_directed():
        return [{"source": a, "target": b, "directed": True, **d} for a, b, d in graph.edges(data=True)]
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
