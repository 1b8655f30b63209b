"""A persistent response cache on SQLite: a re-run of the same work makes no HTTP call.

One connection, WAL journal, every statement off the trio thread and one at a time (reads, and writes, queued
while one runs go together in the next: `Batched`, `Transactions`). Only complete
answers are stored; the caller decides what is complete. The same class, on a table of the run store and on
its connection, is the run's journal of paid answers (see `graphglean.pipeline.runstore`): there its writes share the
run store's transactions, and its statements run in the trio thread.

A failed write (disk full, read-only file, a lock held too long) is rolled back, so the connection is never
left inside an open transaction, and reported once as a warning: the answer itself still reaches the caller.
"""

from __future__ import annotations

import json
import sqlite3
import warnings
from pathlib import Path
from typing import Any

import trio

from ..core.batched import Batched
from ..core.sqlite_writes import Transactions, write_ahead

MODES = ("off", "read", "write", "readwrite")


class StoredJSON(str):
    """A value that is JSON text already (an answer as its server wrote it): stored as it is, not encoded again."""


class _KeysWritten:
    """Which keys may have been written since the table was found empty: a Bloom filter of fixed size (2 MB),
    so a read of a key never written needs no trip to the database. It may say "maybe" wrongly, then the
    database answers; never "no" wrongly."""

    BITS = 1 << 24

    def __init__(self) -> None:
        self._bits = bytearray(self.BITS // 8)

    def _positions(self, key: str) -> tuple[int, int]:
        h = hash(key)
        return h & (self.BITS - 1), (h >> 24) & (self.BITS - 1)

    def add(self, key: str) -> None:
        for p in self._positions(key):
            self._bits[p >> 3] |= 1 << (p & 7)

    def __contains__(self, key: str) -> bool:
        return all(self._bits[p >> 3] & (1 << (p & 7)) for p in self._positions(key))


class CacheWriteWarning(UserWarning):
    """An answer could not be stored; it is used for this run but will be asked again next time."""


class ResponseCache:
    """``sole_writer``: no other connection writes this table while it is open (the run store's journal): when
    it is empty at first use, reads of keys not written since are answered without the database.
    ``shared``: the connection (and its writes) of an owner that closes it; this cache's statements then run
    where the owner's do (in the trio thread, or in its worker thread), its writes in the owner's
    transactions."""

    def __init__(self, path: str | Path, mode: str = "readwrite", table: str = "responses",
                 sole_writer: bool = False, shared: Transactions | None = None) -> None:
        if mode not in MODES:
            raise ValueError(f"cache mode must be one of {MODES}, got {mode!r}")
        if not table.isidentifier():
            raise ValueError(f"not a table name: {table!r}")
        self.path = Path(path)
        self.mode = mode
        self.table = table
        self.reads = mode in ("read", "readwrite")
        self.writes = mode in ("write", "readwrite")
        self.write_errors = 0
        self._sole_writer = sole_writer
        self._written: _KeysWritten | None = None
        self._db: sqlite3.Connection | None = None
        self._shared = shared
        self._one_at_a_time = shared.limiter if shared is not None else trio.CapacityLimiter(1)
        self._reads = Batched(self._get_many, self._one_at_a_time)
        self._writes = shared
        if shared is not None:
            self._prepare(shared.db)

    def _connect(self) -> sqlite3.Connection:
        if self._db is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=30)
            write_ahead(db)  # with other processes opening it at once
            db.execute("PRAGMA synchronous=NORMAL")
            self._writes = Transactions(db, self._one_at_a_time)
            self._prepare(db)
        return self._db  # type: ignore[return-value]

    def _prepare(self, db: sqlite3.Connection) -> None:
        db.execute(f"CREATE TABLE IF NOT EXISTS {self.table} (key TEXT PRIMARY KEY, kind TEXT, value TEXT)")
        if self._sole_writer and db.execute(f"SELECT 1 FROM {self.table} LIMIT 1").fetchone() is None:
            self._written = _KeysWritten()
        self._db = db

    async def _connect_off_loop(self) -> None:
        """`_connect` in the database thread: opening the file may wait on another writer's lock."""
        await trio.to_thread.run_sync(self._connect, limiter=self._one_at_a_time)

    def _get_many(self, keys: list[str]) -> list[Any]:
        found: dict[str, Any] = {}
        for start in range(0, len(keys), 500):  # SQLite caps the parameters of one statement
            part = keys[start:start + 500]
            rows = self._connect().execute(
                f"SELECT key, value FROM {self.table} WHERE key IN ({','.join('?' * len(part))})", part).fetchall()
            found.update((k, json.loads(v)) for k, v in rows)
        return [found.get(k) for k in keys]

    async def get(self, key: str) -> Any:
        return (await self.get_many([key]))[0]

    async def get_many(self, keys: list[str]) -> list[Any]:
        """Values for ``keys`` in order (None where absent), in one trip to the database thread."""
        if not self.reads or not keys:
            return [None] * len(keys)
        if self._sole_writer and self._db is None:
            await self._connect_off_loop()  # finds whether the table is empty
        written = self._written
        if written is not None and not any(k in written for k in keys):
            return [None] * len(keys)
        return list(await self._reads(keys))

    async def put(self, key: str, value: Any, kind: str = "chat") -> bool:
        return await self.put_many([(key, value)], kind)

    async def put_many(self, items: list[tuple[str, Any]], kind: str = "chat") -> bool:
        """Store ``items``; False when the database refused the write (warned once per cache)."""
        if not (self.writes and items):
            return False
        rows = [(k, kind, v if isinstance(v, StoredJSON) else json.dumps(v, ensure_ascii=False)) for k, v in items]
        if self._db is None:
            await self._connect_off_loop()  # (finds whether the table is empty)
        if self._written is not None:
            for k, _ in items:
                self._written.add(k)
        try:
            assert self._writes is not None
            await self._writes(f"INSERT OR REPLACE INTO {self.table} (key, kind, value) VALUES (?, ?, ?)", rows)
        except sqlite3.Error as e:
            self.write_errors += 1
            if self.write_errors == 1:
                warnings.warn(f"{self.path}: cannot store answers ({e}); they are used but not kept",
                              CacheWriteWarning, stacklevel=2)
            return False
        return True

    def count(self) -> int:
        return self._connect().execute(f"SELECT COUNT(*) FROM {self.table}").fetchone()[0]

    def clear(self) -> None:
        self._connect().execute(f"DELETE FROM {self.table}")
        if self._sole_writer:
            self._written = _KeysWritten()

    def close(self) -> None:
        if self._db is not None and self._shared is None:
            if self._writes is not None:
                self._writes.close()
            self._db.close()
            self._db = None
