"""Atomic file writes: a temporary file beside the target, then a rename. A killed run leaves either the
old file or the new one, never half of one."""

from __future__ import annotations

import os
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Iterator

# read once (setting it is the only way to read it, and threads may write files later)
_UMASK = os.umask(0o022)
os.umask(_UMASK)


@contextmanager
def atomic_open(path: str | Path, mode: str = "w") -> Iterator[IO]:
    """The file has the permissions ``open`` would give it (the temporary file's owner-only ones would make
    outputs unreadable to a web server or the neo4j user); a file replaced keeps its own."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        try:
            os.fchmod(fd, path.stat().st_mode & 0o7777)
        except FileNotFoundError:
            os.fchmod(fd, 0o666 & ~_UMASK)
        with os.fdopen(fd, mode, **({} if "b" in mode else {"encoding": "utf-8"})) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_text(path: str | Path, text: str) -> None:
    with atomic_open(path) as f:
        f.write(text)


def remove_database(path: str | Path) -> None:
    """Delete a SQLite database with its WAL and shared-memory files (a start from scratch)."""
    for suffix in ("", "-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)
