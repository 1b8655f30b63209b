"""`Transactions`: one SQLite connection's writes, grouped: the rows queued while a trip runs are written
together in the next, in one transaction, whatever table each goes to (see `Batched`).

A failed trip is rolled back, so the connection is never left inside an open transaction, and its error
reaches every caller whose rows were in it."""

from __future__ import annotations

import sqlite3
from itertools import groupby
from operator import itemgetter
from typing import Any, Sequence

import trio

from .batched import Batched


class Transactions:
    """``await transactions(statement, rows)`` returns once ``rows`` are committed. ``limiter``: trips run one
    at a time in a worker thread; None: in the trio thread (a connection no other process writes, whose
    writes are short: a trip to a thread and back costs more CPU than a small transaction)."""

    def __init__(self, db: sqlite3.Connection, limiter: trio.CapacityLimiter | None) -> None:
        self.db = db
        self._trips = Batched(self._write, limiter)

    async def __call__(self, statement: str, rows: Sequence[Sequence[Any]]) -> None:
        if rows:
            await self._trips([(statement, row) for row in rows])

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
        return [None] * len(items)
