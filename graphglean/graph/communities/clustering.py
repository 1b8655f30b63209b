"""Hierarchical Leiden on a graph's weighted edges (graspologic-native, the Rust implementation GraphRAG uses).

Level 0 clusters the whole graph; a community larger than ``max_cluster_size`` is clustered again on its own
edges, one level down, until none is (or ``levels`` are made). A node without edges belongs to no community.
Each run starts from the previous run's communities (``start``), and a sub-network whose edges are unchanged
keeps its previous split without running Leiden: a change in one part of the graph moves only that part."""

from __future__ import annotations

import hashlib
from typing import Any, Callable, Iterable, Mapping

import attrs

from ...core.errors import ConfigError
from .network import Network

Edge = tuple[str, str, float]


@attrs.define
class Cluster:
    """A community before it has an id: its level, members (node labels, sorted), parent (an index), and the
    digest of its own edges when it was split into children (what the next run recognizes it by)."""

    level: int
    members: list[str]
    parent: int | None = None
    digest: str = ""


def weighted_edges(network: Network) -> tuple[list[Edge], dict[str, Any]]:
    """The network's edges as (label, label, weight), both directions of a directed pair summed, self-loops left
    out, sorted; and each label's node. A weight that is not a positive number counts as 1."""
    label = _labels(network.nodes)
    weights: dict[tuple[str, str], float] = {}
    for a, b, w, _ in network.edges:
        if a == b:
            continue
        x, y = label[a], label[b]
        if y < x:
            x, y = y, x
        weights[(x, y)] = weights.get((x, y), 0.0) + _weight(w)
    return [(a, b, w) for (a, b), w in sorted(weights.items())], {v: k for k, v in label.items()}


def _labels(nodes: Iterable[Any]) -> dict[Any, str]:
    """Each node's label: its id as text (its repr where two ids read the same)."""
    label = {n: n if type(n) is str else str(n) for n in nodes}
    if len(set(label.values())) < len(label):
        label = {n: repr(n) for n in label}
    return label


def _weight(value: Any) -> float:
    try:
        w = float(value)
    except (TypeError, ValueError):
        return 1.0
    return w if 0 < w < float("inf") else 1.0


def _leiden() -> Callable[..., Any]:
    try:
        from graspologic_native import leiden
    except ImportError:  # a platform without its wheel
        raise ConfigError("graph.communities: needs graspologic-native (pip install graspologic-native)") from None
    return leiden


def _edge_hash(edge: Edge) -> int:
    a, b, w = edge
    return int.from_bytes(hashlib.blake2b(f"{a}\x1f{b}\x1f{w!r}".encode("utf-8", "surrogatepass"),
                                          digest_size=8).digest(), "little")


def _digest(edges: list[Edge], hashes: dict[tuple[str, str], int]) -> str:
    """An edge list's digest: the sum of its edges' hashes (order-free, so a sub-network's costs additions)."""
    total = 0
    for a, b, _ in edges:
        total += hashes[(a, b)]
    return f"{len(edges)}:{total & 0xFFFFFFFFFFFFFFFF:016x}"


@attrs.define
class Previous:
    """What the last run left for this one to start from: each node's community at each level (any integer
    labels), and the split each network it clustered was given, by the digest of its edges."""

    labels: Mapping[int, Mapping[str, int]] = attrs.field(factory=dict)  # level -> label -> community
    splits: Mapping[str, list[list[str]]] = attrs.field(factory=dict)  # edges' digest -> clusters
    adjacency: Mapping[str, str] = attrs.field(factory=dict)  # label -> digest of its edges


def adjacency_digests(edges: list[Edge], hashes: dict[tuple[str, str], int]) -> dict[str, str]:
    """Each node's digest of its edges (their ends and weights): a node whose digest is unchanged was not
    touched."""
    around: dict[str, int] = {}
    count: dict[str, int] = {}
    for a, b, _ in edges:
        h = hashes[(a, b)]
        for n in (a, b):
            around[n] = around.get(n, 0) + h
            count[n] = count.get(n, 0) + 1
    return {n: f"{count[n]}:{h & 0xFFFFFFFFFFFFFFFF:016x}" for n, h in around.items()}


def hierarchical_leiden(edges: list[Edge], max_cluster_size: int, seed: int, levels: int = 0,
                        previous: Previous | None = None) -> tuple[list[Cluster], str, dict[str, str]]:
    """Clusters of every level, coarsest first (a parent before its children), the digest of ``edges`` (the
    whole network's split is level 0), and each node's `adjacency_digests` (for the next run)."""
    previous = previous or Previous()
    clusters: list[Cluster] = []
    hashes = {(a, b): _edge_hash((a, b, w)) for a, b, w in edges}
    top = _digest(edges, hashes)
    adjacency = adjacency_digests(edges, hashes)
    untouched = {n for n, d in adjacency.items() if previous.adjacency.get(n) == d}
    work: list[tuple[int, int | None, list[Edge], str]] = [(0, None, edges, top)] if edges else []
    while work:
        level, parent, sub, digest = work.pop(0)
        parts = previous.splits.get(digest) or _split(sub, seed, previous.labels.get(level, {}), untouched)
        if parent is not None:
            if len(parts) < 2:
                continue  # Leiden keeps it whole: no level below it
            clusters[parent].digest = digest
        by_part = _edges_by_part(sub, parts)
        for members in parts:
            clusters.append(Cluster(level, members, parent))
            if len(members) > max_cluster_size and (levels == 0 or level + 1 < levels):
                own = by_part[members[0]]
                work.append((level + 1, len(clusters) - 1, own, _digest(own, hashes)))
    return clusters, top, adjacency


def _split(edges: list[Edge], seed: int, start: Mapping[str, int], untouched: set[str]) -> list[list[str]]:
    """Leiden's clusters of one (sub-)network, each sorted, in order of their first member; started from the
    previous run's communities where known (new nodes on their own). An ``untouched`` node stays in its previous
    community; the others go where Leiden put them, in the previous community most of the untouched nodes of
    their Leiden cluster come from."""
    nodes = sorted({a for a, _, _ in edges} | {b for _, b, _ in edges})
    fresh = max(start.values(), default=-1) + 1
    initial = {}
    for n in nodes:
        known = start.get(n)
        initial[n] = known if known is not None and known >= 0 else fresh
        if known is None:
            fresh += 1
    _, partition = _leiden()(edges, starting_communities=_compact(initial), seed=seed & 0xFFFFFFFFFFFFFFFF,
                             resolution=1.0, randomness=0.001, use_modularity=True)
    label = {n: ("leiden", partition[n]) for n in nodes}
    kept = [n for n in nodes if n in untouched and n in start]
    if kept:
        votes: dict[int, dict[int, int]] = {}
        for n in kept:
            tally = votes.setdefault(partition[n], {})
            tally[start[n]] = tally.get(start[n], 0) + 1
        where = {k: ("kept", max(t, key=lambda c: (t[c], -c))) for k, t in votes.items()}
        label = {n: ("kept", start[n]) if n in untouched and n in start else where.get(partition[n], label[n])
                 for n in nodes}
    groups: dict[tuple[str, int], list[str]] = {}
    for node in nodes:
        groups.setdefault(label[node], []).append(node)
    return sorted(groups.values(), key=lambda g: g[0])


def _compact(labels: Mapping[str, int]) -> dict[str, int]:
    """The same grouping under labels 0..k-1 (what the library expects of a starting clustering)."""
    seen: dict[int, int] = {}
    return {n: seen.setdefault(c, len(seen)) for n, c in labels.items()}


def _edges_by_part(edges: Iterable[Edge], parts: list[list[str]]) -> dict[str, list[Edge]]:
    """Each part's own edges (both ends inside it), keyed by the part's first member."""
    first = {n: members[0] for members in parts for n in members}
    found: dict[str, list[Edge]] = {members[0]: [] for members in parts}
    for a, b, w in edges:
        if first.get(a) is not None and first.get(a) == first.get(b):
            found[first[a]].append((a, b, w))
    return found
