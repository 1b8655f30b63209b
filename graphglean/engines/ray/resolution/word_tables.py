"""The graph-wide statistics the rules read (`evidence.Corpus`) of a partitioned graph: the counts the driver
sums (nodes, embeddings), and the word statistics (in how many descriptions, written in lower case, in a
personal name) as tables by word partition, of which each task reads only its own words."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any, Iterable

import attrs

from ....graph.resolution.profiles import Corpus, Profile
from ..partitions import node_partition
from ..stage_files import dump, load
from .node_tables import NodeTables, TableDegrees, write_table

WORDS = "words"  # the word tables' name
WordStats = tuple[int, bool, bool]  # descriptions it is in, written in lower case, in a personal name


@attrs.define
class CorpusCounts:
    """What the driver sums of the corpus statistics (the words are in the word tables, the degrees in the
    node tables)."""

    nodes: int = 0
    vectors: int = 0  # nodes embedded, and the lengths of their embeddings: pairs of close embeddings are
    dims: set[int] = attrs.field(factory=set)  # looked for only among two or more of one length (as locally)

    @property
    def comparable_vectors(self) -> bool:
        return self.vectors >= 2 and len(self.dims) == 1

    def add(self, other: "CorpusCounts") -> "CorpusCounts":
        self.nodes += other.nodes
        self.vectors += other.vectors
        self.dims |= other.dims
        return self


def write_word_parts(profiles: list[Profile], p: int, partitions: int, folder: Path) -> None:
    """Key partition ``p``'s word statistics, by word partition."""
    corpus = Corpus.of(None, profiles)
    out: list[dict[str, WordStats]] = [{} for _ in range(partitions)]
    for w in corpus.df.keys() | corpus.lowercase | corpus.person_words:
        out[node_partition(w, partitions)][w] = (corpus.df.get(w, 0), w in corpus.lowercase, w in corpus.person_words)
    for q, part in enumerate(out):
        dump(part, folder / f"words-{p:04d}-{q:04d}.pkl")


def word_table(q: int, partitions: int, folder: Path) -> None:
    """Word partition ``q``'s statistics summed over the key partitions."""
    found: dict[str, WordStats] = {}
    for p in range(partitions):
        for w, (df, lower, person) in load(folder / f"words-{p:04d}-{q:04d}.pkl").items():
            was = found.get(w, (0, False, False))
            found[w] = (was[0] + df, was[1] or lower, was[2] or person)
    write_table(NodeTables.path(folder, q, WORDS), sorted(found.items()))


def word_stats(words: Iterable[str], folder: Path, partitions: int) -> dict[str, WordStats]:
    """The statistics of those of ``words`` the graph has."""
    tables = NodeTables(folder, partitions, WORDS)
    try:
        return tables.found(words)
    finally:
        tables.close()


def corpus_of(words: Iterable[str], documents: int, folder: Path, tables: NodeTables) -> Corpus:
    """The graph-wide `Corpus` (``documents`` nodes; degrees from the node ``tables``) as far as ``words`` go:
    all that rules comparing nodes with those words read of it (`evidence.corpus_words`)."""
    degrees: Any = TableDegrees(tables)  # read as Corpus.degree is: .get(key, 0)
    corpus = Corpus(documents, Counter(), set(), set(), degrees)
    for w, (df, lower, person) in word_stats(words, folder, tables.partitions).items():
        if df:
            corpus.df[w] = df
        if lower:
            corpus.lowercase.add(w)
        if person:
            corpus.person_words.add(w)
    return corpus
