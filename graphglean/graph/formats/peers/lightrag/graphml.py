"""``graph_chunk_entity_relation.graphml``: LightRAG 1.5's graph (`NetworkXStorage`), nodes keyed by entity name
with ``entity_id``, ``entity_type``, ``description``, ``source_id`` and ``file_path`` (``<SEP>``-joined, at most
LightRAG's limits, earliest kept, as its default ``KEEP`` method), ``created_at`` and ``truncate``; edges with
``weight``, ``description``, ``keywords`` (comma-joined), ``source_id``, ``file_path``, ``created_at`` and
``truncate``."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any, Iterable
from xml.etree.ElementTree import _escape_attrib, _escape_cdata  # type: ignore[attr-defined]

from .....core.atomic import atomic_open
from .stores import SEP

FILENAME = "graph_chunk_entity_relation.graphml"
MAX_SOURCE_IDS = 200  # DEFAULT_MAX_SOURCE_IDS_PER_ENTITY and _PER_RELATION
MAX_FILE_PATHS = 75  # DEFAULT_MAX_FILE_PATHS
KEPT = "KEEP Old"  # what `truncate` says when source ids were cut by the KEEP method


def limited(chunk_keys: list[str], file_of: dict[str, str]) -> tuple[str, str, str]:
    """(source_id, file_path, truncate) of a node or edge found in ``chunk_keys``."""
    kept = chunk_keys[:MAX_SOURCE_IDS]
    files = list(dict.fromkeys(file_of[k] for k in kept))
    if len(files) > MAX_FILE_PATHS:
        files = files[:MAX_FILE_PATHS] + [f"...truncated...({KEPT})"]
    return SEP.join(kept), SEP.join(files), KEPT if len(kept) < len(chunk_keys) else ""


NODE_KEYS = (("entity_id", "string"), ("entity_type", "string"), ("description", "string"), ("source_id", "string"),
             ("file_path", "string"), ("created_at", "long"), ("truncate", "string"))
EDGE_KEYS = (("weight", "double"), ("description", "string"), ("keywords", "string"), ("source_id", "string"),
             ("file_path", "string"), ("created_at", "long"), ("truncate", "string"))
_HEAD = ("<?xml version='1.0' encoding='utf-8'?>\n<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\" "
         "xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" xsi:schemaLocation=\"http://graphml.graphdrawing.org/"
         "xmlns http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd\">\n")


def write_lightrag_graphml(path: Path, nodes: Iterable[tuple[str, dict[str, Any]]],
                           edges: Iterable[tuple[str, str, dict[str, Any]]]) -> Path:
    """The graph of ``nodes`` (name, attributes of `NODE_KEYS`) and ``edges`` (ends, attributes of `EDGE_KEYS`),
    each written as it comes: the file networkx's writer makes of the same graph, without the whole graph and
    its XML tree in memory (they took gigabytes at 200,000 entities)."""
    nodes, edges = iter(nodes), iter(edges)
    first_node, first_edge = next(nodes, None), next(edges, None)
    keys = [(name, kind, "node") for name, kind in NODE_KEYS] if first_node is not None else []
    keys += [(name, kind, "edge") for name, kind in EDGE_KEYS] if first_edge is not None else []
    ids = {(name, scope): f"d{k}" for k, (name, _, scope) in enumerate(keys)}
    with atomic_open(path) as f:
        f.write(_HEAD)
        for k, (name, kind, scope) in reversed(list(enumerate(keys))):  # networkx puts each new key first
            f.write(f'  <key id="d{k}" for="{scope}" attr.name="{name}" attr.type="{kind}" />\n')
        f.write('  <graph edgedefault="undirected">\n')
        for name, data in itertools.chain([first_node] if first_node else [], nodes):
            f.write(_element(f'node id="{_escape_attrib(name)}"', "node", data, ids))
        for a, b, data in itertools.chain([first_edge] if first_edge else [], edges):
            f.write(_element(f'edge source="{_escape_attrib(a)}" target="{_escape_attrib(b)}"', "edge", data, ids))
        f.write("  </graph>\n</graphml>\n")
    return path


def _element(head: str, scope: str, data: dict[str, Any], ids: dict[tuple[str, str], str]) -> str:
    if not data:
        return f"    <{head} />\n"
    lines = [f"    <{head}>"]
    for name, value in data.items():
        text = str(value)
        key = ids[(name, scope)]
        lines.append(f'      <data key="{key}">{_escape_cdata(text)}</data>' if text else f'      <data key="{key}" />')
    lines.append(f"    </{scope}>\n")
    return "\n".join(lines)
