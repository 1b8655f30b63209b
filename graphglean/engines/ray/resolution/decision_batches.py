"""Decision batches: the kept candidate pairs cut along the connected components of their graph, and the
components packed into batches of about ``nodes ÷ graph_partitions`` nodes, each decided by a task of its
own. No decision joins nodes of two components (a merge, a refusal, a question each name two nodes of a pair
or of clusters of one component), so each batch decides alone what the one resolver over all pairs decides.
A batch is larger only when one component is.

The planning task keeps two 64-bit hashes per node of a kept pair (a union-find), not the nodes' keys: two keys
sharing a hash only put two components into one batch.
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter, defaultdict
from pathlib import Path

import attrs

from ..stage_files import dump, load
from .candidates import KeptPairs, Pair


@attrs.define
class BatchPlan:
    sizes: list[int]  # nodes per batch
    owned: list[bool]  # per batch: it holds a node naming an owned thing (it reads the owners' clusters)
    budget: int  # nodes a batch holds, unless one component is larger
    components: int = 0

    @property
    def batches(self) -> int:
        return len(self.sizes)

    @property
    def any_owned(self) -> bool:
        return any(self.owned)


def _hash(key: str) -> int:
    return int.from_bytes(hashlib.blake2b(key.encode(), digest_size=8).digest(), "little")


class _Components:
    """Union-find over node hashes."""

    def __init__(self) -> None:
        self.parent: dict[int, int] = {}

    def find(self, x: int) -> int:
        parent = self.parent
        root = parent.setdefault(x, x)
        while parent[root] != root:
            root = parent[root]
        while parent[x] != root:
            parent[x], x = root, parent[x]
        return root

    def union(self, a: str, b: str) -> None:
        ra, rb = self.find(_hash(a)), self.find(_hash(b))
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


def _kept(folder: Path, c: int) -> KeptPairs:
    return load(folder / f"kept-{c:04d}.pkl")


def plan_batches(partitions: int, folder: Path, similar: bool) -> BatchPlan:
    """Cut the kept pairs of every pair partition into batches (``similar``: the pairs of close embeddings
    are decided too); writes each batch's pairs by pair partition (``batch-{k}-{c}.pkl``)."""
    uf = _Components()
    for c in range(partitions):
        kept = _kept(folder, c)
        for a, b in kept.pairs:
            uf.union(a, b)
        for a, b, _ in (kept.similar if similar else []):
            uf.union(a, b)
    size = Counter(uf.find(x) for x in list(uf.parent))
    budget = max(1, math.ceil(len(uf.parent) / partitions))
    batch_of: dict[int, int] = {}
    sizes: list[int] = []
    for root in sorted(size):  # first fit in a fixed order: the same batches on a retry
        if not sizes or (sizes[-1] and sizes[-1] + size[root] > budget):
            sizes.append(0)
        batch_of[root] = len(sizes) - 1
        sizes[-1] += size[root]
    owned = [False] * len(sizes)
    for c in range(partitions):
        kept = _kept(folder, c)
        out: dict[int, tuple[list[Pair], list[tuple[str, str, float]]]] = defaultdict(lambda: ([], []))
        for pair in kept.pairs:
            out[batch_of[uf.find(_hash(pair[0]))]][0].append(pair)
        for close in (kept.similar if similar else []):
            out[batch_of[uf.find(_hash(close[0]))]][1].append(close)
        for key in kept.owned:
            if _hash(key) in uf.parent:
                owned[batch_of[uf.find(_hash(key))]] = True
        for k, part in out.items():
            dump(part, folder / f"batch-{k:05d}-{c:04d}.pkl")
    return BatchPlan(sizes, owned, budget, len(size))


def batch_pairs(folder: Path, k: int) -> tuple[list[Pair], list[tuple[str, str, float]]]:
    """Batch ``k``'s candidate pairs (ascending) and pairs of close embeddings."""
    pairs: list[Pair] = []
    similar: list[tuple[str, str, float]] = []
    for path in sorted(folder.glob(f"batch-{k:05d}-*.pkl")):
        found, close = load(path)
        pairs += found
        similar += close
    return sorted(pairs), sorted(similar)
