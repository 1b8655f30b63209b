"""Provenance spans: where each node's name occurs in the source text of its chunks."""

from __future__ import annotations

import re
from typing import Mapping

import networkx as nx

from ..chunking import Chunk


def ground(graph: nx.Graph, chunks: Mapping[str, Chunk], drop_ungrounded: bool = False) -> int:
    """Set ``spans`` ([chunk id, start, end] in document offsets) and ``grounded`` on every node.
    Returns how many nodes are ungrounded (and were dropped, when asked)."""
    ungrounded = []
    for node, data in graph.nodes(data=True):
        pattern = _name_pattern(data.get("name") or node)
        spans = []
        for cid in data.get("source_ids", []):
            chunk = chunks.get(cid)
            if chunk is None or pattern is None:
                continue
            spans += [[cid, chunk.start + m.start(), chunk.start + m.end()] for m in pattern.finditer(chunk.text)]
        data["spans"] = spans
        data["grounded"] = bool(spans)
        if not spans:
            ungrounded.append(node)
    if drop_ungrounded:
        graph.remove_nodes_from(ungrounded)
    return len(ungrounded)


def _name_pattern(name: str) -> re.Pattern[str] | None:
    words = name.split()
    if not words:
        return None
    # any whitespace between words (names wrap across lines), whole words only ("_" of _italics_ is not part
    # of a word), any case
    return re.compile(r"(?<![^\W_])" + r"\s+".join(map(re.escape, words)) + r"(?![^\W_])", re.I)
