"""Stable community ids: a new clustering is matched, level by level, to the previous run's by member overlap;
a community keeps the id of the previous one it shares at least half of the smaller's members with (largest
overlaps first, one to one), and the others get ids never used before. Its ``changed_run`` moves only when its
fingerprint (members' ids, names, types and descriptions; its relationships' ids and descriptions, not their
weights or degrees, which only order them) changed."""

from __future__ import annotations

import hashlib
from typing import Any

from .clustering import Cluster, Previous
from .network import Network
from .records import Communities, Community, relationship_id


def previous_of(state: Communities | None) -> Previous:
    """Where this run's clustering starts from: the last run's communities and splits."""
    if state is None:
        return Previous()
    labels: dict[int, dict[str, int]] = {}
    by_id = state.by_id()
    splits: dict[str, list[list[str]]] = {}
    for c in state.items:
        level = labels.setdefault(c.level, {})
        level.update((str(e), c.id) for e in c.entities)
        if c.digest and c.children:
            splits[c.digest] = _parts(by_id[k].entities for k in c.children if k in by_id)
    if state.digest:
        splits[state.digest] = _parts(c.entities for c in state.items if c.level == 0)
    return Previous(labels, splits, state.adjacency)


def _parts(groups: Any) -> list[list[str]]:
    return sorted((sorted(str(e) for e in g) for g in groups), key=lambda g: g[0])


def assign_ids(network: Network, clusters: list[Cluster], nodes: dict[str, Any], digest: str,
               previous: Communities | None) -> Communities:
    """The communities of ``clusters`` (members as labels, ``nodes`` maps them to node ids) with stable ids,
    parents, children, relationships, fingerprints and the run each last changed in."""
    run = previous.run + 1 if previous is not None else 1
    next_id = previous.next_id if previous is not None else 0
    members = [[nodes[m] for m in c.members] for c in clusters]
    ids = _matched(clusters, members, previous)
    order = sorted(range(len(clusters)), key=lambda i: (clusters[i].level, -len(members[i]), clusters[i].members[0]))
    for i in order:
        if ids[i] is None:
            ids[i], next_id = next_id, next_id + 1
    next_id = max([next_id, *(k + 1 for k in ids if k is not None)])
    relationships, prints = _contents(network, clusters, members)
    old = previous.by_id() if previous is not None else {}
    children: dict[int, list[int]] = {}
    for k, c in enumerate(clusters):
        if c.parent is not None:
            children.setdefault(c.parent, []).append(ids[k])  # type: ignore[arg-type]
    items = []
    for i, c in enumerate(clusters):
        cid = ids[i]
        assert cid is not None
        item = Community(cid, c.level, members[i], relationships[i], None if c.parent is None else ids[c.parent],
                         children.get(i, []), prints[i], run, c.digest)
        before = old.get(cid)
        if before is not None and before.fingerprint == item.fingerprint:
            item.changed_run = before.changed_run
        items.append(item)
    return Communities(items, run, next_id, digest)


def _matched(clusters: list[Cluster], members: list[list[Any]], previous: Communities | None) -> list[int | None]:
    ids: list[int | None] = [None] * len(clusters)
    if previous is None:
        return ids
    for level in sorted({c.level for c in clusters}):
        olds = [c for c in previous.items if c.level == level]
        where = {e: c.id for c in olds for e in c.entities}
        size = {c.id: c.size for c in olds}
        pairs = []
        for i, c in enumerate(clusters):
            if c.level != level:
                continue
            shared: dict[int, int] = {}
            for e in members[i]:
                k = where.get(e)
                if k is not None:
                    shared[k] = shared.get(k, 0) + 1
            for k, n in shared.items():
                if 2 * n >= min(len(members[i]), size[k]):
                    union = len(members[i]) + size[k] - n
                    pairs.append((-n, -n / union, k, i))
        taken: set[int] = set()
        for _, _, k, i in sorted(pairs):
            if ids[i] is None and k not in taken:
                ids[i] = k
                taken.add(k)
    return ids


def _contents(network: Network, clusters: list[Cluster],
              members: list[list[Any]]) -> tuple[list[list[str]], list[str]]:
    """Each cluster's inner relationship ids (both ends in it, in the graph's order) and its `fingerprint`: one
    pass over the edges, each node and edge hashed once. Clusters nest, so two ends share a cluster at each
    level down to the first where they part."""
    path: dict[Any, list[int]] = {}  # node -> its cluster at each level, coarsest first
    for i in sorted(range(len(clusters)), key=lambda i: clusters[i].level):
        for n in members[i]:
            path.setdefault(n, []).append(i)
    node_hash = {n: _hash(str(n), *network.nodes[n][:3]) for n in path}
    found: list[list[str]] = [[] for _ in clusters]
    inner: list[list[str]] = [[] for _ in clusters]
    directed = network.directed
    get = path.get
    for a, b, _, description in network.edges:
        at, bt = get(a), get(b)
        if at is None or bt is None or a == b or at[0] != bt[0]:
            continue
        rid = relationship_id(a, b, directed)
        h = _hash(rid, description)
        for i, j in zip(at, bt):
            if i != j:
                break
            found[i].append(rid)
            inner[i].append(h)
    prints = [_hash(*sorted(node_hash[n] for n in members[i]), "|", *sorted(inner[i])) for i in range(len(clusters))]
    return found, prints


def _hash(*parts: Any) -> str:
    text = "\x1f".join("" if p is None else str(p) for p in parts)
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()
