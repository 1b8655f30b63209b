"""`Transactions`: one SQLite connection's writes, grouped: the rows queued while a trip runs are written
together in the next, in one transaction, whatever table each goes to (see `Batched`).

A failed trip is rolled back, so the connection is never left inside an open transaction, and its error
reaches every caller whose rows were in it."""

from __future__ import annotations

import sqlite3
import time
import warnings
from itertools import groupby
from operator import itemgetter
from typing import Any, Sequence

import trio

from .batched import Batched

CHECKPOINT_ROWS = 2000  # rows written between two checkpoints of trips made in the trio thread


def write_ahead(db: sqlite3.Connection, wait_s: float = 30.0) -> None:
    """Put ``db`` in write-ahead-log mode. Processes opening a new shared file at once (the workers of a Ray run
    and their response cache) may each be refused the lock this takes, at once and not after the busy timeout
    (SQLite's rule against deadlocks): tried again, with growing pauses, for up to ``wait_s``. Call it in a
    worker thread."""
    deadline, pause = time.monotonic() + wait_s, 0.01
    while True:
        try:
            row = db.execute("PRAGMA journal_mode=WAL").fetchone()
            if row is None or str(row[0]).lower() in ("wal", "memory") or time.monotonic() > deadline:
                return  # (a mode SQLite could not change yet is returned unchanged: tried again)
        except sqlite3.OperationalError as e:
            if "locked" not in str(e) or time.monotonic() > deadline:
                raise
        time.sleep(pause)
        pause = min(0.5, pause * 2)


class CheckpointWarning(UserWarning):
    """A checkpoint of a store's write-ahead log failed (its rows are still in the log)."""


class Transactions:
    """``await transactions(statement, rows)`` returns once ``rows`` are committed. ``limiter``: trips run one
    at a time in a worker thread; None: in the trio thread (a connection no other process writes, whose
    writes are short: a trip to a thread and back costs more CPU than a small transaction). Then the WAL is
    copied into the database (a checkpoint, which waits on the disk) in a worker thread on a connection of its
    own, every `CHECKPOINT_ROWS` rows, instead of by SQLite inside a commit."""

    def __init__(self, db: sqlite3.Connection, limiter: trio.CapacityLimiter | None) -> None:
        self.db, self.limiter = db, limiter
        self._trips = Batched(self._write, limiter)
        self._inline = limiter is None
        self._unchecked = 0  # rows written since the last checkpoint
        self._checkpointer: sqlite3.Connection | None = None
        self._checkpointing = False
        self._path = db.execute("PRAGMA database_list").fetchone()[2]  # read here: the trio thread's connection
        if self._inline:
            db.execute("PRAGMA wal_autocheckpoint=0")

    async def __call__(self, statement: str, rows: Sequence[Sequence[Any]]) -> None:
        if not rows:
            return
        await self._trips([(statement, row) for row in rows])
        if self._inline and self._unchecked >= CHECKPOINT_ROWS and not self._checkpointing:
            self._unchecked, self._checkpointing = 0, True
            try:
                # no trip meanwhile: a checkpoint that copies every frame lets the next write start the WAL
                # again from its beginning (with writes going on beside it, it never caught up: the WAL grew
                # for the whole run, 150 MB for 20000 chunks)
                async with self._trips.paused():
                    await trio.to_thread.run_sync(self._checkpoint)
            finally:
                self._checkpointing = False

    def queue(self, statement: str, rows: Sequence[Sequence[Any]]) -> None:
        """``rows``, written in the next transaction without waiting for it (`Batched.queue`): with the rows of
        the next caller that waits, or by `flush`."""
        self._trips.queue([(statement, row) for row in rows])

    async def settle(self) -> None:
        """Return once the rows queued so far are written (in a trip of their own if no caller comes)."""
        if self._trips.queued:
            await self._trips([])

    def flush(self) -> None:
        """Write what is queued now, in this thread (an owner closing, its tasks done)."""
        self._trips.flush()

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
        """A checkpoint on a connection of its own. One that fails loses nothing (the rows stay in the WAL,
        and the next checkpoint, or closing, copies them): a warning, not the callers' error."""
        try:
            if self._checkpointer is None:
                self._checkpointer = sqlite3.connect(self._path, check_same_thread=False, isolation_level=None,
                                                     timeout=30)
            self._checkpointer.execute("PRAGMA wal_checkpoint(PASSIVE)")
        except sqlite3.Error as e:
            warnings.warn(f"{self._path}: a checkpoint of the write-ahead log failed ({e}); its rows are kept "
                          "in the log", CheckpointWarning, stacklevel=2)

    def close(self) -> None:
        """Close the checkpoints' connection (the owner closes ``db``)."""
        if self._checkpointer is not None:
            self._checkpointer.close()
            self._checkpointer = None
