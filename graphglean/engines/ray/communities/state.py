"""What a Ray run's communities leave for the next run, in ``shards/communities``: the clustering (a pickle of
this run's own tasks, trusted like the other stage files) with the digest of the tables it was made from, and
the reports, kept in ``run.sqlite`` by their community's content (`reporting.report_key`).

An unchanged graph is recognized by its tables' bytes before they are even read as rows; the clustering
itself also carries its network's fingerprint (`Network.fingerprint`), for tables rewritten with the same
content."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path
from typing import Any, Iterator

from ....core.config import CommunitiesConfig
from ....graph.communities.records import Communities
from ....pipeline.communities import STATE
from ....pipeline.runstore import FILENAME as STORE
from ..stage_files import dump, load, read_only

STATE_FILE = "clustering.pkl"
_READ = 1 << 20


def tables_digest(paths: list[Path], cc: CommunitiesConfig, directed: bool) -> str:
    """The tables' bytes and the clustering settings, hashed."""
    h = hashlib.blake2b(digest_size=16)
    h.update(repr((directed, cc.max_cluster_size, cc.seed, cc.levels)).encode())
    for path in paths:
        with path.open("rb") as f:
            while block := f.read(_READ):
                h.update(block)
        h.update(b"\x1e")
    return h.hexdigest()


def load_state(folder: Path) -> tuple[Communities | None, str]:
    """The last run's communities and the digest of its tables (a clustering kept by an older version in the
    store's state row is read too, without a digest)."""
    path = folder / STATE_FILE
    if path.exists():
        kept = load(path)
        return kept["communities"], kept["tables"]
    store = folder / STORE
    if not store.exists():
        return None, ""
    db = read_only(store)
    try:
        row = db.execute("SELECT value FROM results WHERE pass = ? AND item = 'state'", (STATE,)).fetchone()
    except sqlite3.OperationalError:  # no table of results yet
        row = None
    finally:
        db.close()
    return (None if row is None else Communities.from_state(json.loads(row[0]))), ""


def save_state(folder: Path, communities: Communities, tables: str) -> None:
    dump({"communities": communities, "tables": tables}, folder / STATE_FILE)


class StoredReports:
    """The reports the communities' store holds (read by the tasks while the driver writes to it): which keys,
    and a report by its key."""

    def __init__(self, folder: Path, pass_name: str) -> None:
        self.pass_name = pass_name
        path = folder / STORE
        self._db = read_only(path) if path.exists() else None

    def keys(self) -> set[str]:
        if self._db is None:
            return set()
        return {k for (k,) in self._db.execute("SELECT item FROM results WHERE pass = ?", (self.pass_name,))}

    def get(self, key: str) -> dict[str, Any] | None:
        if self._db is None:
            return None
        row = self._db.execute("SELECT value FROM results WHERE pass = ? AND item = ?",
                               (self.pass_name, key)).fetchone()
        return None if row is None else json.loads(row[0])

    def many(self, keys: list[str]) -> Iterator[tuple[str, dict[str, Any]]]:
        """The stored reports of ``keys`` (those there are), 500 keys a statement."""
        if self._db is None:
            return
        for start in range(0, len(keys), 500):
            part = keys[start:start + 500]
            rows = self._db.execute(f"SELECT item, value FROM results WHERE pass = ? AND item IN "
                                    f"({','.join('?' * len(part))})", (self.pass_name, *part)).fetchall()
            for key, value in rows:
                yield key, json.loads(value)

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
