"""Provenance spans: where each node's name occurs in the source text of its chunks."""

from __future__ import annotations

import re
from typing import Any, Mapping, NamedTuple

import networkx as nx

from ..chunking import Chunk
from .evidence import aliases_of

BLOCK_SOURCES = 5_000  # a block's nodes cite about this many chunks, fetched together (and then let go)


class Placed(NamedTuple):
    """All grounding reads of a chunk: its text and where it starts in its document."""

    text: str
    start: int


def ground(graph: nx.Graph, chunks: Mapping[str, Chunk], drop_ungrounded: bool = False) -> int:
    """Set ``spans`` ([chunk id, start, end] in document offsets) and ``grounded`` on every node.
    Returns how many nodes are ungrounded (and were dropped, when asked). ``chunks`` with a ``get_many(ids)``
    (chunks kept on disk; it gives the `Placed` texts of those it knows) are asked for the chunks of a block of
    nodes at a time."""
    ungrounded: list[Any] = []
    block: list[tuple[Any, dict[str, Any]]] = []
    cited = 0
    for node, data in graph.nodes(data=True):
        block.append((node, data))
        cited += len(data.get("source_ids", []))
        if cited >= BLOCK_SOURCES:
            _ground_block(block, chunks, ungrounded)
            block, cited = [], 0
    _ground_block(block, chunks, ungrounded)
    if drop_ungrounded:
        graph.remove_nodes_from(ungrounded)
    return len(ungrounded)


def _ground_block(block: list[tuple[Any, dict[str, Any]]], chunks: Mapping[str, Chunk],
                  ungrounded: list[Any]) -> None:
    get_many = getattr(chunks, "get_many", None)
    found = get_many({cid for _, data in block for cid in data.get("source_ids", [])}) if get_many else chunks
    for node, data in block:
        data["spans"] = _spans(node, data, found)
        data["grounded"] = bool(data["spans"])
        if not data["spans"]:
            ungrounded.append(node)


def _spans(node: Any, data: dict[str, Any], chunks: Mapping[str, Chunk | Placed]) -> list[list[Any]]:
    names = dict.fromkeys([str(data.get("name") or node), *aliases_of(data)])  # a resolved node: every name
    patterns = [p for p in map(_name_pattern, names) if p is not None]
    spans = []
    for cid in data.get("source_ids", []):
        chunk = chunks.get(cid)
        if chunk is None:
            continue
        at = chunk.start
        if len(patterns) == 1:  # one pattern's matches neither overlap nor repeat, and come in order
            spans += [[cid, at + m.start(), at + m.end()] for m in patterns[0].finditer(chunk.text)]
            continue
        found = {(m.start(), m.end()) for p in patterns for m in p.finditer(chunk.text)}
        spans += [[cid, at + a, at + b] for a, b in _outermost(found)]
    return spans


def _outermost(found: set[tuple[int, int]]) -> list[tuple[int, int]]:
    """The spans not inside another: "Scrooge" within "Ebenezer Scrooge" is one mention, not two."""
    kept: list[tuple[int, int]] = []
    for start, end in sorted(found, key=lambda s: (s[0], -s[1])):
        if not kept or start >= kept[-1][1]:
            kept.append((start, end))
    return kept


def _name_pattern(name: str) -> re.Pattern[str] | None:
    words = name.split()
    if not words:
        return None
    # any whitespace between words (names wrap across lines), whole words only ("_" of _italics_ is not part
    # of a word), any case
    return re.compile(r"(?<![^\W_])" + r"\s+".join(map(re.escape, words)) + r"(?![^\W_])", re.I)
