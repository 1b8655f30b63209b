"""The node table of a partitioned resolution: what every later step reads about a node, by key, from one
SQLite file per key partition; and the graph-wide statistics the rules read (`evidence.Corpus`), summed over
the partitions."""

from __future__ import annotations

import pickle
import sqlite3
from collections import Counter
from pathlib import Path
from typing import Any, Iterable, Iterator

import attrs

from ..graph.evidence import Corpus
from .partitions import node_partition

CORPUS = "corpus.sqlite"  # the word statistics of `CorpusCounts`, by word


class NodeTables:
    """Rows of the node tables of every partition, read on demand: (attributes, profile, degree, chunk
    folders by chunk id, embedding or None). ``name`` names other tables of that form (key -> pickled value).
    Pickled, it keeps where the tables are and opens them again."""

    def __init__(self, folder: Path, partitions: int, name: str = "table") -> None:
        self.folder, self.partitions, self.name = folder, partitions, name
        self._dbs: dict[int, sqlite3.Connection] = {}

    @staticmethod
    def path(folder: Path, p: int, name: str = "table") -> Path:
        return folder / f"{name}-{p:04d}.sqlite"

    def _db(self, p: int) -> sqlite3.Connection:
        db = self._dbs.get(p)
        if db is None:
            db = self._dbs[p] = sqlite3.connect(self.path(self.folder, p, self.name), check_same_thread=False)
        return db

    def __getstate__(self) -> tuple[Path, int, str]:
        return self.folder, self.partitions, self.name

    def __setstate__(self, state: tuple[Path, int, str]) -> None:
        self.__init__(*state)  # type: ignore[misc]

    def row(self, key: str) -> tuple[Any, ...]:
        found = self._db(node_partition(key, self.partitions)).execute(
            "SELECT value FROM nodes WHERE key = ?", (key,)).fetchone()
        if found is None:
            raise KeyError(key)
        return pickle.loads(found[0])

    def rows(self, p: int) -> Iterator[tuple[str, tuple[Any, ...]]]:
        """Partition ``p``'s rows in key order."""
        for key, value in self._db(p).execute("SELECT key, value FROM nodes ORDER BY key"):
            yield key, pickle.loads(value)

    def close(self) -> None:
        for db in self._dbs.values():
            db.close()


def write_table(path: Path, rows: Iterable[tuple[str, Any]]) -> None:
    """A key -> value table (values pickled), replacing any earlier one."""
    path.unlink(missing_ok=True)
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE nodes (key TEXT PRIMARY KEY, value BLOB)")
    db.executemany("INSERT INTO nodes VALUES (?, ?)",
                   ((k, pickle.dumps(v, protocol=pickle.HIGHEST_PROTOCOL)) for k, v in rows))
    db.commit()
    db.close()


class TableDegrees:
    """A node's number of neighbours (`Corpus.degree`), read from the node tables."""

    def __init__(self, tables: NodeTables) -> None:
        self.tables, self.known = tables, {}

    def get(self, key: str, default: int = 0) -> int:
        if key not in self.known:
            try:
                self.known[key] = len(self.tables.row(key)[1].neighbours)
            except KeyError:
                self.known[key] = default
        return self.known[key]


@attrs.define
class CorpusCounts:
    """The graph-wide statistics of `evidence.Corpus`, summed over partitions (the degrees stay in the tables)."""

    nodes: int = 0
    df: Counter[str] = attrs.field(factory=Counter)
    lowercase: set[str] = attrs.field(factory=set)
    person_words: set[str] = attrs.field(factory=set)
    vectors: int = 0  # nodes embedded, and the lengths of their embeddings: pairs of close embeddings are
    dims: set[int] = attrs.field(factory=set)  # looked for only among two or more of one length (as locally)

    @property
    def comparable_vectors(self) -> bool:
        return self.vectors >= 2 and len(self.dims) == 1

    def add(self, other: "CorpusCounts") -> "CorpusCounts":
        self.nodes += other.nodes
        self.vectors += other.vectors
        self.dims |= other.dims
        self.df.update(other.df)
        self.lowercase |= other.lowercase
        self.person_words |= other.person_words
        return self

    def corpus(self, tables: NodeTables) -> Corpus:
        degrees: Any = TableDegrees(tables)  # read as Corpus.degree is: .get(key, 0)
        return Corpus(self.nodes, self.df, self.lowercase, self.person_words, degrees)

    def write_words(self, folder: Path) -> None:
        """The word statistics as a table (`corpus_of` reads a part of it)."""
        path = folder / CORPUS
        path.unlink(missing_ok=True)
        db = sqlite3.connect(path)
        db.execute("CREATE TABLE words (word TEXT PRIMARY KEY, df INTEGER, lower INTEGER, person INTEGER)")
        words = sorted(self.df.keys() | self.lowercase | self.person_words)
        db.executemany("INSERT INTO words VALUES (?, ?, ?, ?)", ((w, self.df.get(w, 0), w in self.lowercase,
                                                                   w in self.person_words) for w in words))
        db.commit()
        db.close()


def corpus_of(words: Iterable[str], documents: int, folder: Path, tables: NodeTables) -> Corpus:
    """The graph-wide `Corpus` as far as ``words`` go (`CorpusCounts.write_words`; degrees from ``tables``):
    all that rules comparing nodes with those words read of it (`evidence.corpus_words`)."""
    degrees: Any = TableDegrees(tables)
    corpus = Corpus(documents, Counter(), set(), set(), degrees)
    wanted = sorted(words)
    db = sqlite3.connect(folder / CORPUS)
    try:
        for start in range(0, len(wanted), 500):
            part = wanted[start:start + 500]
            for word, df, lower, person in db.execute(
                    f"SELECT word, df, lower, person FROM words WHERE word IN ({','.join('?' * len(part))})", part):
                if df:
                    corpus.df[word] = df
                if lower:
                    corpus.lowercase.add(word)
                if person:
                    corpus.person_words.add(word)
    finally:
        db.close()
    return corpus
