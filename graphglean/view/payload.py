"""What the page draws: a graph and its chunk texts as one JSON-ready dict.

Nodes come in order of degree (highest first), so the layout starts with hubs in the middle and a size limit
keeps the best-connected ones. Each node's mentions are resolved here to sentences of its chunks, so the page
only highlights ranges and never guesses sentence boundaries itself.
"""

from __future__ import annotations

import bisect
import re
from typing import Any, Iterable, Mapping

import attrs
import networkx as nx

from ..text.sentences import Sentences

UNGROUNDED, TYPE_CONFLICT, OFF_SCHEMA = 1, 2, 4  # node flag bits (OFF_SCHEMA: the node or an edge of it)
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


@attrs.frozen
class ChunkText:
    """A chunk's text and where it sits in its document (spans are document offsets)."""

    id: str
    doc_id: str
    index: int
    start: int
    text: str

    @classmethod
    def from_json(cls, row: Mapping[str, Any]) -> "ChunkText":
        return cls(str(row["id"]), str(row.get("doc_id", "")), int(row.get("index", 0)), int(row.get("start", 0)),
                   str(row["text"]))


class _Sentences(Sentences):
    """Sentence boundaries of one chunk's text, found once, and its offsets as the page counts them."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        # characters beyond U+FFFF (emoji, rare CJK) are two UTF-16 units in JavaScript strings
        self.astral = [m.start() for m in _ASTRAL.finditer(text)] if not text.isascii() else []

    def utf16(self, offsets: Iterable[int]) -> list[int]:
        """Code-point offsets into the text as JavaScript's string indices."""
        return [i + bisect.bisect_left(self.astral, i) for i in offsets] if self.astral else list(offsets)


def _top_nodes(graph: nx.Graph, limit: int) -> list[Any]:
    degree = dict(graph.degree())
    order = sorted(graph.nodes, key=lambda n: (-degree[n], str(n)))
    return order[:limit] if limit > 0 else order


def _as_list(value: Any) -> list[str]:
    if isinstance(value, (list, tuple)):
        return [str(v) for v in value if v not in (None, "")]
    return [str(value)] if value not in (None, "") else []


def _node_flags(data: Mapping[str, Any]) -> int:
    flags = 0
    if data.get("grounded") is False:
        flags |= UNGROUNDED
    if data.get("type_conflict"):
        flags |= TYPE_CONFLICT
    if data.get("off_schema"):
        flags |= OFF_SCHEMA
    return flags


class _Mentions:
    """Maps provenance spans to (chunk, sentence, name) ranges, collecting the chunks the page needs."""

    def __init__(self, chunks: Mapping[str, ChunkText]) -> None:
        self.chunks = chunks
        self.used: dict[str, int] = {}
        self._sentences: dict[str, _Sentences] = {}

    def _chunk_index(self, cid: str) -> int:
        if cid not in self.used:
            self.used[cid] = len(self.used)
        return self.used[cid]

    def of(self, data: Mapping[str, Any]) -> list[list[Any]]:
        """[[chunk number, [sentence start, sentence end, name start, name end, ...]], ...] per source chunk, as
        JavaScript string indices (UTF-16); a source chunk without spans in it comes with an empty list."""
        by_chunk: dict[str, list[int]] = {cid: [] for cid in _as_list(data.get("source_ids")) if cid in self.chunks}
        for span in data.get("spans") or []:
            if not isinstance(span, (list, tuple)) or len(span) != 3:
                continue
            cid, start, end = str(span[0]), span[1], span[2]
            chunk = self.chunks.get(cid)
            if chunk is None or not isinstance(start, int) or not isinstance(end, int):
                continue
            a, b = start - chunk.start, end - chunk.start
            if not 0 <= a < b <= len(chunk.text):
                continue
            sentences = self._sentences.get(cid)
            if sentences is None:
                sentences = self._sentences[cid] = _Sentences(chunk.text)
            by_chunk.setdefault(cid, []).extend(sentences.utf16((*sentences.around(a, b), a, b)))
        return [[self._chunk_index(cid), ranges] for cid, ranges in by_chunk.items()]


def build_payload(graph: nx.Graph, chunks: Iterable[ChunkText] = (), *, max_nodes: int = 0,
                  title: str = "graph") -> dict[str, Any]:
    """The page's data: the top ``max_nodes`` nodes by degree (0 = all), the edges between them, and the text
    of every chunk they cite."""
    keep = _top_nodes(graph, max_nodes)
    number = {n: i for i, n in enumerate(keep)}
    degree = dict(graph.degree(keep))
    type_counts: dict[str, int] = {}
    for n in keep:
        t = str(graph.nodes[n].get("type") or "unknown")
        type_counts[t] = type_counts.get(t, 0) + 1
    types = sorted(type_counts, key=lambda t: (-type_counts[t], t))
    type_number = {t: i for i, t in enumerate(types)}
    mentions = _Mentions({c.id: c for c in chunks})
    nodes = []
    for n in keep:
        d = graph.nodes[n]
        node: dict[str, Any] = {"id": str(n), "name": str(d.get("name") or n),
                                "type": type_number[str(d.get("type") or "unknown")], "deg": degree[n],
                                "desc": str(d.get("description") or ""), "flags": _node_flags(d),
                                "src": mentions.of(d)}
        aliases = _as_list(d.get("aliases"))
        if aliases:
            node["aliases"] = aliases
        if d.get("type_conflict"):
            node["types"] = _as_list(d.get("types"))
        freq = d.get("frequency")
        if isinstance(freq, (int, float)) and not isinstance(freq, bool) and freq == freq and abs(freq) != float("inf"):
            node["freq"] = freq
        nodes.append(node)
    edges = [{"s": number[a], "t": number[b], "w": _weight(d.get("weight")), "desc": str(d.get("description") or ""),
              "kw": _as_list(d.get("keywords")), **_typed(d)}
             for a, b, d in graph.edges(data=True) if a in number and b in number]
    for e in edges:  # the filter of nodes outside the schema shows the ends of edges outside it too
        if e.get("off"):
            nodes[e["s"]]["flags"] |= OFF_SCHEMA
            nodes[e["t"]]["flags"] |= OFF_SCHEMA
    used = sorted(mentions.used, key=mentions.used.__getitem__)
    schema = {"schema": True} if any("off_schema" in d for _, d in graph.nodes(data=True)) else {}
    return {"title": title, "directed": graph.is_directed(), "types": [[t, type_counts[t]] for t in types], **schema,
            "total": {"nodes": graph.number_of_nodes(), "edges": graph.number_of_edges()},
            "limit": max_nodes, "nodes": nodes, "edges": edges,
            "chunks": [{"id": c.id, "doc": c.doc_id, "index": c.index, "text": c.text}
                       for c in (mentions.chunks[cid] for cid in used)],
            "chunks_known": bool(mentions.chunks)}


def _typed(data: Mapping[str, Any]) -> dict[str, Any]:
    """An edge's relation (under a schema) and whether it is outside the schema (flag mode)."""
    out: dict[str, Any] = {"rel": str(data["relation"])} if data.get("relation") else {}
    if data.get("off_schema"):
        out["off"] = 1
    return out


def _weight(value: Any) -> float:
    try:
        w = float(value)
    except (TypeError, ValueError):
        return 1.0
    return w if w == w and w not in (float("inf"), float("-inf")) else 1.0
