"""The resolver of one decision batch: its nodes' profiles and the few attributes the decisions read, read
from the node tables; and the owners' clusters ("Marley" in "Ghost of Marley"), which are the whole graph's:
each batch's first-round clusters are collected by name form into owner tables, and a batch naming an owned
thing reads there the clusters of the names it compares."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from ....graph.resolution.names import read_name
from ....graph.resolution.profiles import corpus_words
from ....graph.resolution.resolve import Resolver, first_round
from ..partitions import node_partition
from ..stage_files import dump, load
from .decision_batches import batch_pairs
from .node_tables import NodeTables, write_table
from .word_tables import corpus_of

OWNERS = "owners"  # the owner tables' name
_READ = ("type", "frequency")  # what the decisions read of a node's attributes (its card, the name kept)


class BatchFacts:
    """`resolve.NodeFacts` of a batch: its nodes' type and frequency; the neighbours' names and degrees are
    read from the node tables when a question shows them."""

    def __init__(self, tables: NodeTables, datas: dict[str, dict[str, Any]]) -> None:
        self.tables, self.datas = tables, datas
        self._seen: dict[str, tuple[str, int]] = {}  # neighbour -> (name, degree)

    def data(self, node: str) -> Mapping[str, Any]:
        return self.datas[node]

    def _neighbour(self, key: str) -> tuple[str, int]:
        if key not in self._seen:
            data, _, degree, *_ = self.tables.row(key)
            self._seen[key] = (str(data.get("name") or key), degree)
        return self._seen[key]

    def related(self, node: str) -> list[str]:
        # a graph lists neighbours in key order: the sort by degree keeps it among equals
        neighbours = self.tables.row(node)[1].neighbours
        best = sorted(sorted(neighbours), key=lambda n: -self._neighbour(n)[1])[:4]
        return [self._neighbour(n)[0] for n in best]


def batch_resolver(k: int, folder: Path, documents: int, tables: NodeTables
                   ) -> tuple[Resolver, list[tuple[int, int]], list[tuple[int, int, float]]]:
    """Batch ``k``'s resolver, candidate pairs and pairs of close embeddings (as index pairs, ascending); the
    corpus is the graph's (``documents`` nodes) as far as the batch's words go."""
    kept, similar = batch_pairs(folder, k)
    nodes = sorted({x for pair in kept for x in pair} | {x for a, b, _ in similar for x in (a, b)})
    index = {x: i for i, x in enumerate(nodes)}
    found = tables.found(nodes)
    rows = [found[x] for x in nodes]
    datas = {x: {a: row[0][a] for a in _READ if a in row[0]} for x, row in zip(nodes, rows)}
    profiles = [row[1] for row in rows]
    corpus = corpus_of(corpus_words(profiles), documents, folder, tables)
    r = Resolver(nodes, profiles, corpus, BatchFacts(tables, datas))
    return (r, [(index[a], index[b]) for a, b in kept],
            [(index[a], index[b], cosine) for a, b, cosine in similar])


def resolver_path(k: int, folder: Path) -> Path:
    return folder / f"resolver-{k:05d}.pkl"


def kept_or_built(k: int, folder: Path, documents: int, tables: NodeTables
                  ) -> tuple[Resolver, list[tuple[int, int]], list[tuple[int, int, float]]]:
    """`batch_resolver`, or what the owners' step kept of it (`write_owner_entries` builds each batch's first).
    A kept resolver reads node tables of its own: close ``r.facts.tables`` too."""
    path = resolver_path(k, folder)
    return load(path) if path.exists() else batch_resolver(k, folder, documents, tables)


# -- the owners' clusters ----------------------------------------------------------------------------------

def write_owner_entries(k: int, folder: Path, documents: int, tables: NodeTables, partitions: int) -> None:
    """Batch ``k``'s first-round clusters, as name form -> root node, by the form's key partition; its resolver
    kept for its decisions (`kept_or_built`)."""
    r, pairs, similar = batch_resolver(k, folder, documents, tables)
    dump((r, pairs, similar), resolver_path(k, folder))
    out: list[dict[str, str]] = [{} for _ in range(partitions)]
    for form, root in r.owner_clusters(first_round(r, pairs)).items():
        out[node_partition(form, partitions)][form] = root
    for q, part in enumerate(out):
        dump(part, folder / f"owners-{k:05d}-{q:04d}.pkl")


def owner_table(q: int, batches: int, folder: Path) -> None:
    """Name forms of key partition ``q`` -> the root of their cluster. A form in several clusters takes the
    one whose root is listed last, as `Resolver.owner_clusters` does over the whole graph."""
    found: dict[str, str] = {}
    for k in range(batches):
        for form, root in load(folder / f"owners-{k:05d}-{q:04d}.pkl").items():
            if root > found.get(form, ""):
                found[form] = root
    write_table(NodeTables.path(folder, q, OWNERS), sorted(found.items()))


def owners_read(r: Resolver, partitions: int, folder: Path) -> dict[str, str]:
    """The owner tables' entries for every name ``r``'s rules may look up (`Evidence._owners`): the owners of
    its owned things and all its names."""
    wanted = {read_name(f.owner).key for p in r.profiles for f in p.forms if f.head}
    wanted |= {read_name(f.surface).key for p in r.profiles for f in p.forms}
    tables = NodeTables(folder, partitions, OWNERS)
    try:
        return tables.found(wanted)
    finally:
        tables.close()

