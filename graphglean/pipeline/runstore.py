"""`RunStore`: every finished item x pass of a run, in SQLite in the output folder, written the moment it
finishes. A run started again with the same command reads it and repeats no finished LLM work.

It also holds the run's *journal*: every paid answer, kept (by the client, before the request's slot is
released) whatever the response cache's mode, so the finished steps of items that were half done when the
run was killed are replayed, not paid for again. A run that ends with nothing failed clears it. And its
*invocations* (`Invocations`): each process that worked on the folder and what its calls took, as they accrue.

A run's file is its own (no other process writes it), and its writes are short: they are made in the
trio thread, the journal's and the results' queued meanwhile in one transaction (a trip to a worker thread
and back cost more CPU than the write); a file that other processes write too is opened ``shared``."""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime
from pathlib import Path
from typing import Any, Awaitable, Callable, Sequence

import trio

from ..core.atomic import remove_database
from ..core.sqlite_writes import Transactions
from ..llm.batch.ledger import WaveLedger
from ..llm.cache import ResponseCache

FILENAME = "run.sqlite"
INVOCATIONS = "invocations"
_encode = json.JSONEncoder(ensure_ascii=False).encode  # json.dumps(v, ensure_ascii=False), made once


def now_iso() -> str:
    """The time now, local, with its UTC offset, to the second: how report.json and run.log write times."""
    return datetime.now().astimezone().isoformat(timespec="seconds")


Writes = Callable[[str, Sequence[Sequence[Any]]], Awaitable[None]]


class Invocations:
    """The ``invocations`` table of a run store's connection ``db``; ``writes`` queues a statement with the
    store's other writes (`Transactions`), so an account's row goes in the same transaction as the answers it
    counts."""

    def __init__(self, db: sqlite3.Connection, writes: Writes) -> None:
        self._db, self._writes = db, writes
        db.execute(f"CREATE TABLE IF NOT EXISTS {INVOCATIONS} (id INTEGER PRIMARY KEY AUTOINCREMENT, "
                   "started TEXT, finished TEXT, wall_s REAL, accounts TEXT)")
        self.id: int | None = None

    def begin(self, started: str) -> int:
        """Record this invocation's start; its accounts are empty until the first `record`."""
        cur = self._db.execute(f"INSERT INTO {INVOCATIONS} (started, finished, wall_s, accounts) "
                               "VALUES (?, ?, 0, '{}')", (started, started))
        self.id = int(cur.lastrowid or 0)
        return self.id

    _UPDATE = f"UPDATE {INVOCATIONS} SET finished = ?, wall_s = ?, accounts = ? WHERE id = ?"

    def _row(self, accounts: dict[str, dict[str, Any]], wall_s: float) -> tuple[Any, ...]:
        return now_iso(), round(wall_s, 3), json.dumps(accounts, sort_keys=True), self.id

    async def record(self, accounts: dict[str, dict[str, Any]], wall_s: float) -> None:
        """This invocation's accounts so far (account name -> counts and costs), with the time now."""
        await self._writes(self._UPDATE, [self._row(accounts, wall_s)])

    def record_now(self, accounts: dict[str, dict[str, Any]], wall_s: float) -> None:
        """`record`, at once, outside the store's queue (once its writes are over: the run's end)."""
        self._db.execute(self._UPDATE, self._row(accounts, wall_s))

    def all(self) -> list[dict[str, Any]]:
        """Every invocation of the run, first first: id, started, finished, wall_s, accounts."""
        rows = self._db.execute(f"SELECT id, started, finished, wall_s, accounts FROM {INVOCATIONS} "
                                "ORDER BY id").fetchall()
        return [{"id": i, "started": s, "finished": f, "wall_s": w or 0.0, "accounts": json.loads(a or "{}")}
                for i, s, f, w, a in rows]


class RunStore:
    """``shared``: other processes write the file too (the resolution's store, which concurrent Ray tasks
    open): its writes are made in a worker thread, where waiting for another's lock does not stall trio."""

    def __init__(self, out_dir: str | Path, fresh: bool = False, shared: bool = False) -> None:
        self.path = Path(out_dir) / FILENAME
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if fresh:
            remove_database(self.path)
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=30)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS results (pass TEXT, item TEXT, value TEXT, PRIMARY KEY (pass, item))")
        self._db.execute("CREATE TABLE IF NOT EXISTS passes (pass TEXT PRIMARY KEY, fingerprint TEXT)")
        self._writes = Transactions(self._db, trio.CapacityLimiter(1) if shared else None)
        self._journal: ResponseCache | None = None
        self._ledger: WaveLedger | None = None
        self._invocations: Invocations | None = None
        self._reader: sqlite3.Connection | None = None

    def journal(self) -> ResponseCache:
        """The run's journal of paid answers (a table of this file), for `ChatClient`'s ``journal``."""
        if self._journal is None:
            self._journal = ResponseCache(self.path, "readwrite", table="journal", sole_writer=True,
                                          shared=self._writes)
        return self._journal

    def clear_journal(self) -> None:
        self._writes.flush()  # results still queued are written before the answers they were made of go
        self.journal().clear()

    def invocations(self) -> Invocations:
        """The run's invocations and their accounts (a table of this file)."""
        if self._invocations is None:
            self._invocations = Invocations(self._db, self._writes)
        return self._invocations

    def batch_ledger(self) -> WaveLedger:
        """The run's batches in flight (batch mode), in tables of this file: a run started again finds them."""
        if self._ledger is None:
            self._ledger = WaveLedger(self.path)
        return self._ledger

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

    def get(self, name: str, item: str) -> Any | None:
        """One stored item of pass ``name`` (None when there is none)."""
        row = self._db.execute("SELECT value FROM results WHERE pass = ? AND item = ?", (name, item)).fetchone()
        return None if row is None else json.loads(row[0])

    def known(self, name: str, items: list[str]) -> set[str]:
        """Which of ``items`` pass ``name`` has stored (read on a connection of its own: from any thread)."""
        return {item for item, in self._read_many("item", name, items)}

    def get_many(self, name: str, items: list[str]) -> dict[str, Any]:
        """The stored values of those of ``items`` that pass ``name`` has, 500 a statement (on a connection of
        its own, so a worker thread reads them while the trio thread writes: a pass's large results, such as
        vectors, are read a part at a time instead of `load`-ed whole)."""
        return {item: json.loads(value) for item, value in self._read_many("item, value", name, items)}

    def _read_many(self, columns: str, name: str, items: list[str]) -> list[tuple[Any, ...]]:
        if self._reader is None:
            self._reader = sqlite3.connect(self.path, check_same_thread=False, timeout=30)
        found = []
        for start in range(0, len(items), 500):  # SQLite caps the parameters of one statement
            part = items[start:start + 500]
            found += self._reader.execute(f"SELECT {columns} FROM results WHERE pass = ? AND item IN "
                                          f"({','.join('?' * len(part))})", (name, *part)).fetchall()
        return found

    async def save(self, name: str, item: str, value: Any) -> None:
        """Store one finished item; saves queued while one is written are written together."""
        await self.save_many(name, {item: value})

    async def save_many(self, name: str, values: dict[str, Any]) -> None:
        """Store finished items (item -> value) in one transaction, with any saves queued meanwhile."""
        await self._writes("INSERT OR REPLACE INTO results (pass, item, value) VALUES (?, ?, ?)",
                           [(name, item, _encode(value)) for item, value in values.items()])

    def queue_save(self, name: str, item: str, value: Any) -> None:
        """`save` without waiting: written with the store's next transaction (whoever waits for it; `settle`),
        and at the latest when the journal is cleared or the store closed. Only for results made of answers
        already kept (in the journal or the response cache): a process killed before they are written lost no
        paid answer, its next run reads them from there."""
        self._writes.queue("INSERT OR REPLACE INTO results (pass, item, value) VALUES (?, ?, ?)",
                           [(name, item, _encode(value))])

    async def settle(self) -> None:
        """Return once the results queued so far (`queue_save`) are written."""
        await self._writes.settle()

    async def forget_others(self, name: str, keep: set[str]) -> int:
        """Drop the stored items of pass ``name`` not in ``keep`` (results no output uses any more); returns how
        many."""
        items = [row[0] for row in self._db.execute("SELECT item FROM results WHERE pass = ?", (name,))]
        stale = [(name, item) for item in items if item not in keep]
        if stale:
            await self._writes("DELETE FROM results WHERE pass = ? AND item = ?", stale)
        return len(stale)

    def close(self) -> None:
        try:
            self._writes.flush()
        finally:
            self._close()

    def _close(self) -> None:
        if self._journal is not None:
            self._journal.close()
        if self._ledger is not None:
            self._ledger.close()
        if self._reader is not None:
            self._reader.close()
        self._writes.close()
        self._db.close()
