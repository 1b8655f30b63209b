"""`WaveLedger`: the batches a run has in flight, in its run store's file (tables ``batch_waves`` and
``batch_lines``): each one's input file, its batch id once created, and the requests (their cache keys) it
carries. They are written when the file is uploaded, before the batch is created, so a run started again (after
a kill, or days later) finds every batch it made, and asks for none of their requests a second time."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import attrs
import trio


@attrs.frozen
class OpenWave:
    """A batch of an earlier process, not yet collected. ``batch_id`` None: created, or about to be, unknown."""

    wave: str
    number: int
    file_id: str
    batch_id: str | None
    created: float  # time.time() of the upload
    keys: tuple[str, ...]


class WaveLedger:
    """Its own connection to the file (its writes are few and large: made in a worker thread)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=30)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS batch_waves (wave TEXT PRIMARY KEY, number INTEGER, "
                         "file_id TEXT, batch_id TEXT, created REAL)")
        self._db.execute("CREATE TABLE IF NOT EXISTS batch_lines (wave TEXT, position INTEGER, key TEXT, "
                         "PRIMARY KEY (wave, position))")
        self._one_at_a_time = trio.CapacityLimiter(1)

    def open_waves(self) -> list[OpenWave]:
        """The batches not yet collected, oldest first."""
        waves = self._db.execute("SELECT wave, number, file_id, batch_id, created FROM batch_waves "
                                 "ORDER BY number").fetchall()
        out = []
        for wave, number, file_id, batch_id, created in waves:
            keys = [k for (k,) in self._db.execute("SELECT key FROM batch_lines WHERE wave = ? ORDER BY position",
                                                   (wave,))]
            out.append(OpenWave(wave, number, file_id, batch_id, created, tuple(keys)))
        return out

    def next_number(self) -> int:
        (last,) = self._db.execute("SELECT MAX(number) FROM batch_waves").fetchone()
        return (last or 0) + 1

    async def uploaded(self, wave: str, number: int, file_id: str, keys: list[str]) -> None:
        def write() -> None:
            with self._db:
                self._db.execute("BEGIN")
                self._db.execute("INSERT INTO batch_waves VALUES (?, ?, ?, NULL, ?)", (wave, number, file_id,
                                                                                      time.time()))
                self._db.executemany("INSERT INTO batch_lines VALUES (?, ?, ?)",
                                     [(wave, i, k) for i, k in enumerate(keys)])

        await self._write(write)

    async def created(self, wave: str, batch_id: str) -> None:
        await self._write(lambda: self._db.execute("UPDATE batch_waves SET batch_id = ? WHERE wave = ?",
                                                   (batch_id, wave)))

    async def collected(self, wave: str) -> None:
        """Every request of the batch has its answer stored (or its next try in a later batch)."""
        def write() -> None:
            with self._db:
                self._db.execute("BEGIN")
                self._db.execute("DELETE FROM batch_lines WHERE wave = ?", (wave,))
                self._db.execute("DELETE FROM batch_waves WHERE wave = ?", (wave,))

        await self._write(write)

    async def _write(self, fn: object) -> None:
        with trio.CancelScope(shield=True):  # a batch made is recorded even when the run is being stopped
            await trio.to_thread.run_sync(fn, limiter=self._one_at_a_time)  # type: ignore[arg-type]

    def clear(self) -> None:
        with self._db:
            self._db.execute("BEGIN")
            self._db.execute("DELETE FROM batch_lines")
            self._db.execute("DELETE FROM batch_waves")

    def close(self) -> None:
        self._db.close()
