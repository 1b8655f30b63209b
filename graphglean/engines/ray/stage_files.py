"""The files the steps of a partitioned merge hand each other: pickles written by this run's own tasks in its
output folder (trusted like run.sqlite), and row tables each row of which carries its place in the local
engine's order, merged into one table by streaming."""

from __future__ import annotations

import heapq
import json
import pickle
import sqlite3
from pathlib import Path
from typing import Any, Iterable, Iterator

from ...core.atomic import atomic_open


def dump(obj: Any, path: Path) -> None:
    with atomic_open(path, "wb") as f:
        pickle.dump(obj, f, protocol=pickle.HIGHEST_PROTOCOL)


def load(path: Path) -> Any:
    with path.open("rb") as f:
        return pickle.load(f)


def read_only(path: Path) -> sqlite3.Connection:
    """A finished table of the run, opened for reading only and memory-mapped: a merge task looks rows up at
    random in many such files, and mapped pages cost no read call each. Usable from one thread at a time
    (grounding reads in a worker thread)."""
    db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, check_same_thread=False)
    db.execute("PRAGMA mmap_size = 1073741824")
    return db


def write_ordered(rows: list[tuple[Any, dict[str, Any]]], path: Path) -> None:
    """``(order, row)`` pairs, written in order."""
    with atomic_open(path) as f:
        for order, row in sorted(rows, key=lambda t: t[0]):
            f.write(json.dumps([order, row], ensure_ascii=False) + "\n")


def read_ordered(path: Path) -> Iterator[tuple[Any, dict[str, Any]]]:
    with path.open(encoding="utf-8") as f:
        for line in f:
            order, row = json.loads(line)
            yield order, row


def ordered_table(paths: list[Path], out: Path) -> int:
    """The rows of ``paths`` (each written by `write_ordered`) merged in order into ``out``, streaming;
    returns the row count."""
    count = 0
    with atomic_open(out) as f:
        for _, row in heapq.merge(*(read_ordered(p) for p in paths), key=lambda t: t[0]):
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
            count += 1
    return count


def dump_sections(sections: Iterable[Any], path: Path) -> None:
    """Pickles in one file, each loadable alone by its number (`load_section`): one file, and one sync, for
    what would be a file each (a shard's part of every partition). The file ends with each section's offset,
    then their count, in 8 bytes each, so a reader seeks straight to one."""
    offsets = []
    with atomic_open(path, "wb") as f:
        for obj in sections:
            offsets.append(f.tell())
            pickle.dump(obj, f, protocol=pickle.HIGHEST_PROTOCOL)
        f.write(b"".join(at.to_bytes(8, "little") for at in (*offsets, len(offsets))))


def load_section(path: Path, number: int) -> Any:
    """Section ``number`` (from 0) of a file `dump_sections` wrote."""
    with path.open("rb") as f:
        f.seek(-8, 2)
        count = int.from_bytes(f.read(8), "little")
        if not 0 <= number < count:
            raise IndexError(f"{path} holds {count} sections, not section {number}")
        f.seek(-8 * (count + 1 - number), 2)
        f.seek(int.from_bytes(f.read(8), "little"))
        return pickle.load(f)
