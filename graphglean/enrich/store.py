"""`MemoryStore`: messages, summaries, their enrichment and vectors in one SQLite file; no server.

Messages are written before anything else happens to them, so a crash loses no stored message. Each
enrichment step of each message has its own row (done or failed), which is how unfinished work is found
again on the next start. Synchronous methods run on the caller's thread; the enricher calls them through
``trio.to_thread``.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import uuid as uuidlib
from pathlib import Path
from typing import Any, Iterable

import attrs
import numpy as np

from ..core.atomic import remove_database

SCHEMA = """
CREATE TABLE IF NOT EXISTS messages (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, uuid TEXT UNIQUE NOT NULL, session_id TEXT NOT NULL,
    created_at TEXT, role TEXT, content TEXT, metadata TEXT, token_count INTEGER, embedding BLOB);
CREATE INDEX IF NOT EXISTS messages_session ON messages (session_id, seq);
CREATE TABLE IF NOT EXISTS summaries (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, uuid TEXT UNIQUE NOT NULL, session_id TEXT NOT NULL,
    content TEXT, message_uuid TEXT, metadata TEXT, token_count INTEGER, embedding BLOB);
CREATE TABLE IF NOT EXISTS steps (
    uuid TEXT NOT NULL, step TEXT NOT NULL, state TEXT NOT NULL, error TEXT, attempts INTEGER DEFAULT 0,
    PRIMARY KEY (uuid, step));
"""
NAMESPACE = uuidlib.UUID("6f1b8a52-2f4e-4c3a-9a57-1d1a3c0b7e21")


@attrs.define
class StoredMessage:
    uuid: str
    session_id: str
    role: str
    content: str
    created_at: str = ""
    metadata: dict[str, Any] = attrs.field(factory=dict)
    token_count: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {"uuid": self.uuid, "session_id": self.session_id, "role": self.role, "content": self.content,
                "created_at": self.created_at, "token_count": self.token_count, "metadata": self.metadata}


@attrs.define
class StoredSummary:
    uuid: str
    session_id: str
    content: str
    message_uuid: str
    metadata: dict[str, Any] = attrs.field(factory=dict)
    token_count: int = 0

    def to_json(self) -> dict[str, Any]:
        return attrs.asdict(self)


def message_uuid(session_id: str, ordinal: int, role: str, content: str) -> str:
    """The identity of the message at position ``ordinal`` of a session, from that position and its content:
    stable across runs, so adding the same input again stores nothing twice."""
    return str(uuidlib.uuid5(NAMESPACE, f"{session_id}\n{ordinal}\n{role}\n{content}"))


def _vector_blob(vector: Iterable[float]) -> bytes:
    return np.asarray(list(vector), dtype=np.float32).tobytes()


class MemoryStore:
    def __init__(self, path: str | Path, fresh: bool = False) -> None:
        """Open (or create) the store at ``path``; ``fresh`` deletes what it held first."""
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if fresh:
            remove_database(self.path)
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=30)
        self._db.executescript(SCHEMA)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._lock = threading.Lock()  # one statement at a time, whichever worker thread runs it
        self.version = 0  # bumped on every vector write, so search indexes know when to reload

    def _exec(self, sql: str, args: Iterable[Any] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            return self._db.execute(sql, tuple(args)).fetchall()

    def close(self) -> None:
        self._db.close()

    # -- messages -----------------------------------------------------------------------------------------

    def add_messages(self, messages: list[StoredMessage]) -> list[str]:
        """Store ``messages`` in one transaction; a uuid already stored is not stored again."""
        with self._lock:
            try:
                self._db.execute("BEGIN")
                for m in messages:
                    self._db.execute("INSERT OR IGNORE INTO messages (uuid, session_id, created_at, role, content, "
                                     "metadata, token_count) VALUES (?, ?, ?, ?, ?, ?, ?)",
                                     (m.uuid, m.session_id, m.created_at, m.role, m.content,
                                      json.dumps(m.metadata, ensure_ascii=False), m.token_count))
                self._db.execute("COMMIT")
            except BaseException:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise
        return [m.uuid for m in messages]

    def _message(self, row: tuple[Any, ...]) -> StoredMessage:
        return StoredMessage(row[0], row[1], row[3], row[4], row[2] or "", json.loads(row[5] or "{}"), row[6])

    _COLUMNS = "uuid, session_id, created_at, role, content, metadata, token_count"

    def messages(self, session_id: str | None = None) -> list[StoredMessage]:
        if session_id is None:
            rows = self._exec(f"SELECT {self._COLUMNS} FROM messages ORDER BY seq")
        else:
            rows = self._exec(f"SELECT {self._COLUMNS} FROM messages WHERE session_id = ? ORDER BY seq",
                              (session_id,))
        return [self._message(r) for r in rows]

    def sessions(self) -> list[str]:
        return [r[0] for r in self._exec("SELECT session_id FROM messages GROUP BY session_id ORDER BY MIN(seq)")]

    def set_system(self, uuid: str, key: str, value: Any, table: str = "messages") -> None:
        """Set ``metadata.system[key]`` of a message (or summary)."""
        with self._lock:
            row = self._db.execute(f"SELECT metadata FROM {table} WHERE uuid = ?", (uuid,)).fetchone()
            meta = json.loads(row[0] or "{}") if row else {}
            meta.setdefault("system", {})[key] = value
            self._db.execute(f"UPDATE {table} SET metadata = ? WHERE uuid = ?", (json.dumps(meta, ensure_ascii=False), uuid))

    def set_token_count(self, uuid: str, count: int) -> None:
        self._exec("UPDATE messages SET token_count = ? WHERE uuid = ?", (count, uuid))

    def set_embedding(self, uuid: str, vector: list[float], table: str = "messages") -> None:
        self._exec(f"UPDATE {table} SET embedding = ? WHERE uuid = ?", (_vector_blob(vector), uuid))
        self.version += 1

    # -- enrichment steps ---------------------------------------------------------------------------------

    def mark(self, uuid: str, step: str, state: str, error: str = "") -> None:
        self._exec("INSERT INTO steps (uuid, step, state, error, attempts) VALUES (?, ?, ?, ?, 1) "
                   "ON CONFLICT (uuid, step) DO UPDATE SET state = excluded.state, error = excluded.error, "
                   "attempts = attempts + 1", (uuid, step, state, error))

    def pending(self, step: str) -> list[StoredMessage]:
        """Messages whose ``step`` is neither done nor failed (failed ones wait for `retry_failed`)."""
        rows = self._exec(f"SELECT {self._COLUMNS} FROM messages m WHERE NOT EXISTS (SELECT 1 FROM steps s "
                          "WHERE s.uuid = m.uuid AND s.step = ?) ORDER BY seq", (step,))
        return [self._message(r) for r in rows]

    def failures(self) -> list[tuple[str, str, str]]:
        return [tuple(r) for r in self._exec("SELECT uuid, step, error FROM steps WHERE state = 'failed'")]  # type: ignore[misc]

    def retry_failed(self) -> int:
        with self._lock:
            return self._db.execute("DELETE FROM steps WHERE state = 'failed'").rowcount

    # -- summaries ----------------------------------------------------------------------------------------

    def add_summary(self, summary: StoredSummary) -> None:
        self._exec("INSERT OR REPLACE INTO summaries (uuid, session_id, content, message_uuid, metadata, "
                   "token_count) VALUES (?, ?, ?, ?, ?, ?)",
                   (summary.uuid, summary.session_id, summary.content, summary.message_uuid,
                    json.dumps(summary.metadata, ensure_ascii=False), summary.token_count))

    def summaries(self, session_id: str | None = None) -> list[StoredSummary]:
        where, args = ("WHERE session_id = ?", (session_id,)) if session_id else ("", ())
        rows = self._exec(f"SELECT uuid, session_id, content, message_uuid, metadata, token_count FROM summaries "
                          f"{where} ORDER BY seq", args)
        return [StoredSummary(r[0], r[1], r[2], r[3], json.loads(r[4] or "{}"), r[5]) for r in rows]

    # -- vectors ------------------------------------------------------------------------------------------

    def vectors(self, session_id: str, table: str = "messages") -> tuple[list[str], np.ndarray]:
        rows = self._exec(f"SELECT uuid, embedding FROM {table} WHERE session_id = ? AND embedding IS NOT NULL "
                          "ORDER BY seq", (session_id,))
        if not rows:
            return [], np.zeros((0, 0), dtype=np.float32)
        return [r[0] for r in rows], np.vstack([np.frombuffer(r[1], dtype=np.float32) for r in rows])

    def get(self, uuids: list[str], table: str = "messages") -> dict[str, Any]:
        out: dict[str, Any] = {}
        for uuid in uuids:
            if table == "messages":
                rows = self._exec(f"SELECT {self._COLUMNS} FROM messages WHERE uuid = ?", (uuid,))
                if rows:
                    out[uuid] = self._message(rows[0])
            else:
                rows = self._exec("SELECT uuid, session_id, content, message_uuid, metadata, token_count "
                                  "FROM summaries WHERE uuid = ?", (uuid,))
                if rows:
                    r = rows[0]
                    out[uuid] = StoredSummary(r[0], r[1], r[2], r[3], json.loads(r[4] or "{}"), r[5])
        return out
