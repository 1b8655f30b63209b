"""The node table of a partitioned resolution: what every later step reads about a node, by key, from one
SQLite file per key partition (and other tables of that form)."""

from __future__ import annotations

import pickle
import sqlite3
from pathlib import Path
from typing import Any, Iterable, Iterator

from ..partitions import node_partition
from ..stage_files import read_only


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
            db = self._dbs[p] = read_only(self.path(self.folder, p, self.name))
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

    def found(self, keys: Iterable[str]) -> dict[str, Any]:
        """The rows of those of ``keys`` the tables have (in key order), one statement per partition and 500
        keys."""
        by_partition: dict[int, list[str]] = {}
        for key in sorted(set(keys)):
            by_partition.setdefault(node_partition(key, self.partitions), []).append(key)
        out: dict[str, Any] = {}
        for p, ks in by_partition.items():
            db = self._db(p)
            for start in range(0, len(ks), 500):  # SQLite caps the parameters of one statement
                part = ks[start:start + 500]
                out.update((key, pickle.loads(value)) for key, value in db.execute(
                    f"SELECT key, value FROM nodes WHERE key IN ({','.join('?' * len(part))})", part))
        return dict(sorted(out.items()))

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
