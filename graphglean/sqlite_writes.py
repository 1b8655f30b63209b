"""`Transactions`: one SQLite connection's writes, grouped: the rows queued while a trip runs are written
together in the next, in one transaction, whatever table each goes to (see `Batched`).

A failed trip is rolled back, so the connection is never left inside an open transaction, and its error
reaches every caller whose rows were in it."""

from __future__ import annotations

import sqlite3
from itertools import groupby
from operator import itemgetter
from pathlib import Path
from typing import Any, Sequence

import trio

from .batched import Batched

CHECKPOINT_ROWS = 2000  # rows written between two checkpoints of trips made in the trio thread


class Transactions:
    """``await transactions(statement, rows)`` returns once ``rows`` are committed. ``limiter``: trips run one
    at a time in a worker thread; None: in the trio thread (a connection no other process writes, whose
    writes are short: a trip to a thread and back costs more CPU than a small transaction). Then the WAL is
    copied into the database (a checkpoint, which waits on the disk) in a worker thread on a connection of its
    own, every `CHECKPOINT_ROWS` rows, instead of by SQLite inside a commit."""

    def __init__(self, db: sqlite3.Connection, limiter: trio.CapacityLimiter | None) -> None:
        self.db = db
        self._trips = Batched(self._write, limiter)
        self._inline = limiter is None
        self._unchecked = 0  # rows written since the last checkpoint
        self._checkpointer: sqlite3.Connection | None = None
        self._checkpointing = False
        if self._inline:
            db.execute("PRAGMA wal_autocheckpoint=0")

    async def __call__(self, statement: str, rows: Sequence[Sequence[Any]]) -> None:
        if not rows:
            return
        await self._trips([(statement, row) for row in rows])
        if self._inline and self._unchecked >= CHECKPOINT_ROWS and not self._checkpointing:
            self._unchecked, self._checkpointing = 0, True
            try:
                await trio.to_thread.run_sync(self._checkpoint)
            finally:
                self._checkpointing = False

    def _write(self, items: list[tuple[str, Sequence[Any]]]) -> list[None]:
        db = self.db
        try:
            db.execute("BEGIN")
            for statement, group in groupby(items, key=itemgetter(0)):
                db.executemany(statement, [row for _, row in group])
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise
        self._unchecked += len(items)
        return [None] * len(items)

    def _checkpoint(self) -> None:
        """A passive checkpoint: the trips made meanwhile go on (into the WAL's frames past those it copies)."""
        if self._checkpointer is None:
            path = self.db.execute("PRAGMA database_list").fetchone()[2]
            self._checkpointer = sqlite3.connect(Path(path), check_same_thread=False, isolation_level=None,
                                                 timeout=30)
        self._checkpointer.execute("PRAGMA wal_checkpoint(PASSIVE)")

    def close(self) -> None:
        """Close the checkpoints' connection (the owner closes ``db``)."""
        if self._checkpointer is not None:
            self._checkpointer.close()
            self._checkpointer = None
