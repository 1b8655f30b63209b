"""`RunStore`: every finished item x pass of a run, in SQLite in the output folder, written the moment it
finishes. A run started again with the same command reads it and repeats no finished LLM work."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import trio

FILENAME = "run.sqlite"


class RunStore:
    def __init__(self, out_dir: str | Path, fresh: bool = False) -> None:
        self.path = Path(out_dir) / FILENAME
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if fresh:
            for suffix in ("", "-wal", "-shm"):
                Path(str(self.path) + suffix).unlink(missing_ok=True)
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=30)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS results (pass TEXT, item TEXT, value TEXT, PRIMARY KEY (pass, item))")
        self._db.execute("CREATE TABLE IF NOT EXISTS passes (pass TEXT PRIMARY KEY, fingerprint TEXT)")
        self._one_at_a_time = trio.CapacityLimiter(1)

    def open_pass(self, name: str, fingerprint: str) -> bool:
        """Start (or continue) pass ``name``. Stored results made under another fingerprint (another model,
        prompt or setting) are discarded; returns whether any were."""
        row = self._db.execute("SELECT fingerprint FROM passes WHERE pass = ?", (name,)).fetchone()
        stale = row is not None and row[0] != fingerprint
        if stale:
            self._db.execute("DELETE FROM results WHERE pass = ?", (name,))
        self._db.execute("INSERT OR REPLACE INTO passes (pass, fingerprint) VALUES (?, ?)", (name, fingerprint))
        return stale

    def load(self, name: str) -> dict[str, Any]:
        rows = self._db.execute("SELECT item, value FROM results WHERE pass = ?", (name,)).fetchall()
        return {item: json.loads(value) for item, value in rows}

    def _save(self, name: str, item: str, value: str) -> None:
        self._db.execute("INSERT OR REPLACE INTO results (pass, item, value) VALUES (?, ?, ?)", (name, item, value))

    async def save(self, name: str, item: str, value: Any) -> None:
        await trio.to_thread.run_sync(self._save, name, item, json.dumps(value, ensure_ascii=False),
                                      limiter=self._one_at_a_time)

    def close(self) -> None:
        self._db.close()
