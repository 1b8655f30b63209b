"""`Network`: what clustering reads of a graph, and nothing else: each node's name, type, description and
aliases, and each edge's ends, weight and description, in the graph's order. Made from a networkx graph
(`network_of`) or streamed from the graph's row tables (the Ray engine, which never holds the whole graph as
networkx), so both engines cluster the same data the same way.

Its `fingerprint` is what an unchanged graph is recognized by: a hash of exactly those fields and the
clustering settings, so a run over the same graph carries the last clustering over without redoing it."""

from __future__ import annotations

import hashlib
from typing import Any, Iterable

import attrs
import networkx as nx

from ...core.config import CommunitiesConfig

NodeInfo = tuple[str, str, str, tuple[str, ...]]  # name, type, description, aliases
EdgeInfo = tuple[Any, Any, Any, str]  # source, target, weight (as stored), description
_FINGERPRINT_BLOCK = 4096  # rows hashed at a time


@attrs.define
class Network:
    nodes: dict[Any, NodeInfo]  # in the graph's order
    edges: list[EdgeInfo]  # in the graph's order
    directed: bool = False

    def fingerprint(self, cc: CommunitiesConfig) -> str:
        """The network's content and the settings clustering depends on (``cc``), hashed."""
        h = hashlib.blake2b(digest_size=16)
        h.update(repr((self.directed, cc.max_cluster_size, cc.seed, cc.levels)).encode())
        for rows in (list(self.nodes.items()), self.edges):
            for start in range(0, len(rows), _FINGERPRINT_BLOCK):  # repr of a block: one C call, not one per row
                h.update(repr(rows[start:start + _FINGERPRINT_BLOCK]).encode("utf-8", "surrogatepass"))
            h.update(b"\x1e")
        return h.hexdigest()

    def degrees(self) -> tuple[dict[Any, int], dict[Any, float]]:
        """Each node's degree and weighted degree, as networkx counts them (a self-loop twice; a weight that is
        missing counts 1)."""
        degree = dict.fromkeys(self.nodes, 0)
        strength: dict[Any, float] = dict.fromkeys(self.nodes, 0)
        for a, b, w, _ in self.edges:
            w = 1 if w is None else w
            degree[a] += 1
            degree[b] += 1
            strength[a] += w
            strength[b] += w
        return degree, strength


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def node_info(data: Any) -> NodeInfo:
    aliases = data.get("aliases") or ()
    return (_text(data.get("name")), _text(data.get("type")), _text(data.get("description")),
            tuple(a for a in aliases if isinstance(a, str)) if isinstance(aliases, (list, tuple)) else ())


def edge_info(row: dict[str, Any]) -> EdgeInfo:
    """What clustering reads of a relationship row."""
    return row["source"], row["target"], row.get("weight"), _text(row.get("description"))


def network_of(graph: nx.Graph) -> Network:
    nodes = {n: node_info(d) for n, d in graph.nodes(data=True)}
    edges = [(a, b, d.get("weight"), _text(d.get("description"))) for a, b, d in graph.edges(data=True)]
    return Network(nodes, edges, graph.is_directed())


def network_of_rows(entities: Iterable[dict[str, Any]], relationships: Iterable[dict[str, Any]],
                    directed: bool) -> Network:
    """The network of a graph's entity and relationship rows (``entities.jsonl``, ``relationships.jsonl``)
    in their order, which is the order a graph built from them has."""
    return Network({row["id"]: node_info(row) for row in entities}, [edge_info(row) for row in relationships],
                   directed)
