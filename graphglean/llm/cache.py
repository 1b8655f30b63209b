"""A persistent response cache on SQLite: a re-run of the same work makes no HTTP call.

One connection, WAL journal, every statement off the trio thread and one at a time. Only complete
answers are stored; the caller decides what is complete.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import trio

MODES = ("off", "read", "write", "readwrite")


class ResponseCache:
    def __init__(self, path: str | Path, mode: str = "readwrite") -> None:
        if mode not in MODES:
            raise ValueError(f"cache mode must be one of {MODES}, got {mode!r}")
        self.path = Path(path)
        self.mode = mode
        self.reads = mode in ("read", "readwrite")
        self.writes = mode in ("write", "readwrite")
        self._db: sqlite3.Connection | None = None
        self._one_at_a_time = trio.CapacityLimiter(1)

    def _connect(self) -> sqlite3.Connection:
        if self._db is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=30)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute("CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, kind TEXT, value TEXT)")
            self._db = db
        return self._db

    async def _run(self, fn: Any, *args: Any) -> Any:
        return await trio.to_thread.run_sync(fn, *args, limiter=self._one_at_a_time)

    def _get_many(self, keys: list[str]) -> list[Any]:
        found: dict[str, Any] = {}
        for start in range(0, len(keys), 500):  # SQLite caps the parameters of one statement
            part = keys[start:start + 500]
            rows = self._connect().execute(
                f"SELECT key, value FROM responses WHERE key IN ({','.join('?' * len(part))})", part).fetchall()
            found.update((k, json.loads(v)) for k, v in rows)
        return [found.get(k) for k in keys]

    def _put_many(self, rows: list[tuple[str, str, str]]) -> None:
        db = self._connect()
        db.execute("BEGIN")
        db.executemany("INSERT OR REPLACE INTO responses (key, kind, value) VALUES (?, ?, ?)", rows)
        db.execute("COMMIT")

    async def get(self, key: str) -> Any:
        return (await self.get_many([key]))[0]

    async def get_many(self, keys: list[str]) -> list[Any]:
        """Values for ``keys`` in order (None where absent), in one trip to the database thread."""
        if not self.reads or not keys:
            return [None] * len(keys)
        return await self._run(self._get_many, keys)

    async def put(self, key: str, value: Any, kind: str = "chat") -> None:
        await self.put_many([(key, value)], kind)

    async def put_many(self, items: list[tuple[str, Any]], kind: str = "chat") -> None:
        if self.writes and items:
            rows = [(k, kind, json.dumps(v, ensure_ascii=False)) for k, v in items]
            await self._run(self._put_many, rows)

    def count(self) -> int:
        return self._connect().execute("SELECT COUNT(*) FROM responses").fetchone()[0]

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None
