"""A graph read back from an output folder: graph.json, else entities.jsonl + relationships.jsonl, else
graph.graphml (whose list attributes are JSON text)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

import networkx as nx

from ...core.errors import InputError

SOURCES = ("graph.json", "entities.jsonl", "graph.graphml")


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


def _tables(entities: Path, relationships: Path) -> nx.Graph:
    graph = nx.Graph()
    for number, row in json_rows(entities):
        if "id" not in row:
            raise InputError(f"{entities}:{number}: no id")
        graph.add_node(row.pop("id"), **row)
    if relationships.is_file():
        for number, row in json_rows(relationships):
            if "source" not in row or "target" not in row:
                raise InputError(f"{relationships}:{number}: needs source and target")
            graph.add_edge(row.pop("source"), row.pop("target"), **row)
    return graph


def _decoded(value: Any) -> Any:
    if isinstance(value, str) and value.startswith("["):
        try:
            parsed = json.loads(value)
        except ValueError:
            return value
        return parsed if isinstance(parsed, list) else value
    return value


def _graphml(path: Path) -> nx.Graph:
    try:
        g = nx.read_graphml(path)
    except Exception as e:  # the XML parser's and networkx's own errors: both mean "not readable GraphML"
        raise InputError(f"{path}: not readable GraphML ({type(e).__name__}: {e})") from None
    for _, data in g.nodes(data=True):
        data.update({k: _decoded(v) for k, v in data.items()})
    for _, _, data in g.edges(data=True):
        data.update({k: _decoded(v) for k, v in data.items()})
    return g
