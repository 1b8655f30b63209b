"""`core.sqlite_writes.write_ahead`: a shared file's switch to write-ahead logging, refused at once while other
processes open it (SQLite does not wait on the busy timeout there), is tried again instead of failing the items
whose cache read opened it (seen as "database is locked" on a Ray run's chunks)."""

from __future__ import annotations

import sqlite3

import pytest

from graphglean.core.sqlite_writes import write_ahead


class Refusing:
    """A connection whose journal-mode switch is refused ``times`` times with ``error``."""

    def __init__(self, times: int, error: str = "database is locked") -> None:
        self.times, self.error, self.calls = times, error, 0

    def execute(self, statement: str):
        self.calls += 1
        if self.calls <= self.times:
            raise sqlite3.OperationalError(self.error)
        assert statement == "PRAGMA journal_mode=WAL"
        return self

    def fetchone(self):
        return ("wal",)


class Unchanged(Refusing):
    """A connection whose mode stays "delete" ``times`` times (another holds the file), then becomes WAL."""

    def execute(self, statement: str):
        self.calls += 1
        self.mode = "delete" if self.calls <= self.times else "wal"
        return self

    def fetchone(self):
        return (self.mode,)


def test_a_refused_switch_is_tried_again():
    db = Refusing(3)
    write_ahead(db)  # type: ignore[arg-type]
    assert db.calls == 4


def test_another_error_or_a_lock_held_too_long_is_raised():
    with pytest.raises(sqlite3.OperationalError, match="disk I/O"):
        write_ahead(Refusing(1, "disk I/O error"))  # type: ignore[arg-type]
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        write_ahead(Refusing(10**6), wait_s=0.05)  # type: ignore[arg-type]


def test_a_real_file_is_put_in_wal_mode(tmp_path):
    db = sqlite3.connect(tmp_path / "c.sqlite", isolation_level=None)
    write_ahead(db)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_a_mode_returned_unchanged_is_asked_again():
    db = Unchanged(2)
    write_ahead(db)  # type: ignore[arg-type]
    assert db.calls == 3
