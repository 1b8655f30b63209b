"""The graph after a partitioned resolution, partition by partition: each cluster combined under its kept key
as the local engine combines it, then grounded and summarized; the edges re-keyed by the alias map, merged
where the merge joined them, and finished. Rows are written with their place in the local graph's order."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Iterable

import networkx as nx

from ....core.config import Config
from ....core.tokens import Tokenizer
from ....graph.extract import GraphStats, finish_graph
from ....graph.formats.export import entity_rows, relationship_rows, write_jsonl
from ....graph.resolution.combine import combined_node, merged_edge
from ....scheduling.scheduler import Scheduler
from ..partitions import ShardChunks, edge_partition, finish_edge_descriptions, name_rows, names_of
from ..schema_parts import schema_edges
from ..stage_files import dump, load, write_ordered
from .decision_tables import Decisions
from .node_tables import NodeTables

Pair = tuple[str, str]


# -- nodes of key partition p combined and finished; edges of pair partition p re-keyed --------------------

async def finish_nodes(p: int, cfg: Config, folder: Path, merge_dir: Path, scheduler: Scheduler | None,
                       tokenizer: Tokenizer, stats: GraphStats) -> None:
    """The nodes whose kept key is in partition ``p``: each cluster combined as the local engine combines it,
    then grounded and summarized; rows (with their rank) in rank order, names and dropped keys as
    `partitions` writes them. Then pair partition ``p``'s edges re-keyed to their new pair partitions."""
    P = cfg.runtime.graph_partitions
    decisions = Decisions(folder, P)
    tables = NodeTables(folder, P)
    graph: nx.Graph = nx.DiGraph() if cfg.graph.directed else nx.Graph()
    where: dict[str, Path] = {}
    try:
        combined = []
        for key, row in tables.rows(p):
            if decisions.kept(key) != key:
                continue  # merged into a node kept elsewhere (or later in this partition)
            members = decisions.members(key)
            rows = [tables.row(m) for m in members] if len(members) > 1 else [row]
            for r in rows:
                where.update((c, Path(f)) for c, f in r[3].items())
            node = combined_node(members, [r[0] for r in rows], [r[1].name for r in rows])
            combined.append((decisions.rank(key), key, node))
    finally:
        tables.close()
    graph.add_nodes_from((key, data) for _, key, data in sorted(combined, key=lambda t: t[0]))
    chunks = ShardChunks(where)
    try:
        before = set(graph.nodes)
        await finish_graph(graph, chunks, cfg, scheduler, tokenizer, stats, offline=scheduler is None)
    finally:
        chunks.close()
    rank = {n: decisions.rank(n) for n in graph.nodes}
    write_ordered([(rank[row["id"]], row) for row in entity_rows(graph)], merge_dir / f"nodes-{p:04d}.jsonl")
    write_jsonl(list(name_rows(graph)), merge_dir / f"names-{p:04d}.jsonl")
    (merge_dir / f"dropped-{p:04d}.json").write_text(json.dumps(sorted(before - set(graph.nodes)),
                                                               ensure_ascii=False), encoding="utf-8")
    try:
        _rekey_edges(p, decisions, cfg, folder)
    finally:
        decisions.close()


def new_pair(a: str, b: str, kept: Callable[[str], str], rank: Callable[[str], str],
             directed: bool) -> tuple[str, str] | None:
    """Edge (a, b) between the nodes ``kept`` in their place, as the local engine reports it (an undirected
    edge from its endpoint listed first, by ``rank``); None for a self-loop only the merge made."""
    ca, cb = kept(a), kept(b)
    if ca == cb and a != b:
        return None
    if directed or rank(ca) <= rank(cb):
        return ca, cb
    return cb, ca


def _rekey_edges(q: int, decisions: Decisions, cfg: Config, folder: Path) -> None:
    P = cfg.runtime.graph_partitions
    out: list[list[Any]] = [[] for _ in range(P)]
    for (a, b), data in load(folder / f"edges-{q:04d}.pkl"):
        pair = new_pair(a, b, decisions.kept, decisions.rank, cfg.graph.directed)
        if pair is not None:
            out[edge_partition(pair, P)].append((pair, (a, b), data))
    for r, part in enumerate(out):
        dump(part, folder / f"rekeyed-{q:04d}-{r:04d}.pkl")


# -- edges of new pair partition r merged and finished ----------------------------------------------------

def merged_edges(entries: Iterable[tuple[Pair, Pair, dict[str, Any]]],
                 rank: Callable[[str], str]) -> list[tuple[tuple[str, str, str], Pair, dict[str, Any]]]:
    """Re-keyed edges merged in the order the local graph lists the original edges (pair order); each with
    its place in the local graph's edge order: (rank of its first endpoint, first original pair)."""
    merged: dict[Pair, list[Any]] = {}
    for pair, original, data in sorted(entries, key=lambda e: e[1]):
        if pair in merged:
            merged[pair][1] = merged_edge(merged[pair][1], data)
        else:
            merged[pair] = [original, dict(data)]
    return sorted(((rank(pair[0]), *first), pair, data) for pair, (first, data) in merged.items())


async def finish_edges(r: int, cfg: Config, folder: Path, merge_dir: Path, scheduler: Scheduler | None,
                       tokenizer: Tokenizer, stats: GraphStats) -> None:
    P = cfg.runtime.graph_partitions
    decisions = Decisions(folder, P)
    rank = decisions.rank
    entries = [e for q in range(P) for e in load(folder / f"rekeyed-{q:04d}-{r:04d}.pkl")]
    try:
        edges = merged_edges(entries, rank)
        nodes = sorted({n for _, pair, _ in edges for n in pair}, key=rank)
    finally:
        decisions.close()
    dropped: set[str] = set()
    for q in range(P):
        dropped.update(json.loads((merge_dir / f"dropped-{q:04d}.json").read_text(encoding="utf-8")))
    graph: nx.Graph = nx.DiGraph() if cfg.graph.directed else nx.Graph()
    # nodes in the local graph's order, edges in its edge order: so each is reported as the local graph does
    graph.add_nodes_from(nodes)
    graph.add_edges_from((a, b, data) for _, (a, b), data in edges)
    kept = {(a, b) for a, b, _ in schema_edges(list(graph.edges(data=True)), dropped, cfg, merge_dir, stats)}
    graph.remove_edges_from([(a, b) for a, b in list(graph.edges) if (a, b) not in kept])
    graph.remove_nodes_from([n for n in list(graph.nodes) if n in dropped])
    position = {n: i for i, n in enumerate(nodes)}
    await finish_edge_descriptions(list(graph.edges(data=True)), names_of(merge_dir, P), cfg, scheduler, tokenizer,
                                   stats, position.__getitem__)
    place = {pair: order for order, pair, _ in edges}
    write_ordered([(place[(row["source"], row["target"])], row) for row in relationship_rows(graph)],
                   merge_dir / f"edges-{r:04d}.jsonl")
