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

    def _get(self, key: str) -> Any:
        row = self._connect().execute("SELECT value FROM responses WHERE key = ?", (key,)).fetchone()
        return None if row is None else json.loads(row[0])

    def _put(self, key: str, kind: str, value: str) -> None:
        self._connect().execute("INSERT OR REPLACE INTO responses (key, kind, value) VALUES (?, ?, ?)",
                                (key, kind, value))

    async def get(self, key: str) -> Any:
        if not self.reads:
            return None
        return await self._run(self._get, key)

    async def put(self, key: str, value: Any, kind: str = "chat") -> None:
        if self.writes:
            await self._run(self._put, key, kind, json.dumps(value, ensure_ascii=False))

    def count(self) -> int:
        return self._connect().execute("SELECT COUNT(*) FROM responses").fetchone()[0]

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None
