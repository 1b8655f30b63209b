"""A graph read back from an output folder: graph.json, else entities.jsonl + relationships.jsonl, else
graph.graphml (whose list attributes are JSON text). Direction and every relationship are kept: a table's rows
of a directed graph say ``"directed": true`` (a table from before that flag is directed when it holds a pair
both ways), and GraphML says it itself."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Iterator, TypeVar

import networkx as nx

from ...core.errors import InputError
from .export import JSON_EDGE_KEYS, JSON_NODE_KEYS

# the attributes graphglean writes as lists, decoded from a GraphML file that does not name its JSON attributes
_LIST_KEYS = frozenset({"types", "descriptions", "source_ids", "aliases", "spans", "keywords", "merged_from"})
SOURCES = ("graph.json", "entities.jsonl", "graph.graphml")
T = TypeVar("T")


def read_graph(out_dir: str | Path) -> nx.Graph:
    """The graph a run wrote to ``out_dir``; `InputError` naming the folder or file when there is none."""
    out = Path(out_dir)
    if not out.is_dir():
        raise InputError(f"{out}: {'not a folder' if out.exists() else 'no such folder'}")
    if (out / "graph.json").is_file():
        return _node_link(out / "graph.json")
    if (out / "entities.jsonl").is_file():
        return _tables(out / "entities.jsonl", out / "relationships.jsonl")
    if (out / "graph.graphml").is_file():
        return _graphml(out / "graph.graphml")
    raise InputError(f"{out}: no graph here (none of {', '.join(SOURCES)}); is it a graphglean output folder?")


def _node_link(path: Path) -> nx.Graph:
    try:
        return nx.node_link_graph(json.loads(path.read_text(encoding="utf-8")), edges="edges")
    except (ValueError, KeyError, TypeError) as e:
        raise InputError(f"{path}: not a node-link graph ({type(e).__name__}: {e})") from None


def json_rows(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """The JSON objects of a JSONL file with their line numbers; blank lines skipped, anything else an
    `InputError` naming the file and line."""
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except ValueError as e:
                raise InputError(f"{path}:{number}: not JSON ({e})") from None
            if not isinstance(row, dict):
                raise InputError(f"{path}:{number}: expected a JSON object")
            yield number, row


def json_records(path: Path, read: Callable[[dict[str, Any]], T], what: str) -> list[T] | None:
    """Each line of a JSONL file read by ``read`` (None when there is no such file); a line it cannot read
    (KeyError, TypeError, ValueError) is an `InputError` naming the file, the line and ``what`` it is not."""
    if not path.is_file():
        return None
    found = []
    for number, row in json_rows(path):
        try:
            found.append(read(row))
        except (KeyError, TypeError, ValueError) as e:
            raise InputError(f"{path}:{number}: not {what} ({type(e).__name__}: {e})") from None
    return found


def _tables(entities: Path, relationships: Path) -> nx.Graph:
    nodes = []
    for number, row in json_rows(entities):
        if "id" not in row:
            raise InputError(f"{entities}:{number}: no id")
        nodes.append((row.pop("id"), row))
    edges = []
    if relationships.is_file():
        for number, row in json_rows(relationships):
            if "source" not in row or "target" not in row:
                raise InputError(f"{relationships}:{number}: needs source and target")
            edges.append((row.pop("source"), row.pop("target"), row))
    flagged = [row.pop("directed", False) is True for *_, row in edges]
    pairs = {(a, b) for a, b, _ in edges}
    directed = any(flagged) or any((b, a) in pairs for a, b in pairs if a != b)
    graph: nx.Graph = nx.DiGraph() if directed else nx.Graph()
    graph.add_nodes_from(nodes)
    graph.add_edges_from(edges)
    return graph


def _decoded(value: Any) -> Any:
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except ValueError:
        return value


def _graphml(path: Path) -> nx.Graph:
    try:
        g = nx.read_graphml(path)
    except Exception as e:  # the XML parser's and networkx's own errors: both mean "not readable GraphML"
        raise InputError(f"{path}: not readable GraphML ({type(e).__name__}: {e})") from None
    node_keys, edge_keys = _json_keys(g, JSON_NODE_KEYS), _json_keys(g, JSON_EDGE_KEYS)
    for _, data in g.nodes(data=True):
        data.update({k: _decoded(v) for k, v in data.items() if k in node_keys})
    for _, _, data in g.edges(data=True):
        data.update({k: _decoded(v) for k, v in data.items() if k in edge_keys})
    return g


def _json_keys(graph: nx.Graph, name: str) -> frozenset[str]:
    """The attributes a GraphML file holds as JSON text: as it names them, or graphglean's list attributes."""
    named = graph.graph.pop(name, None)
    try:
        keys = json.loads(named) if isinstance(named, str) else None
    except ValueError:
        keys = None
    return frozenset(map(str, keys)) if isinstance(keys, list) else _LIST_KEYS
