"""One process at a time writes an output folder: an OS lock (``flock``) on a file in it, held while a run (or
``view``) writes there. The OS releases it when the process ends, however it ends, so a ``kill -9`` leaves no
stale lock. Whoever holds it writes who they are into the file: the process refused reads that to say who."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import sys
import time
from pathlib import Path
from typing import Iterator

from ..core.errors import InputError, OutputFolderInUseError
from ..llm.credentials import redact

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]
    import msvcrt

LOCK_FILE = ".graphglean.lock"
_WINDOWS_BYTE = 1 << 30  # msvcrt locks a byte range: one far past the holder's note, which stays readable
_taken: set[Path] = set()  # the folders this process held


def has_held(out_dir: str | Path) -> bool:
    """Whether this process has held ``out_dir``'s lock (it may write there: the run was not refused)."""
    return Path(out_dir).resolve() in _taken


@contextlib.contextmanager
def output_folder_lock(out_dir: str | Path, task: str) -> Iterator[None]:
    """Hold ``out_dir``'s lock for the block; `OutputFolderInUseError` at once when another process (or another
    block of this one) holds it. ``task`` is what the holder does ("run", "view"), for the refusal's message."""
    out = Path(out_dir)
    path = out / LOCK_FILE
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as e:
        why = e.strerror or type(e).__name__
        raise InputError(f"{path}: cannot open the output folder's lock file ({why})") from None
    try:
        if not _try_lock(fd):
            raise OutputFolderInUseError(f"output folder {out.resolve()} is in use by {_holder(fd)}; wait for it "
                                         "to end, or write to another folder")
        note = {"pid": os.getpid(), "host": socket.gethostname(), "task": task, "command": _command(),
                "started": time.strftime("%Y-%m-%d %H:%M:%S")}
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps(note).encode(), 0)
        _taken.add(out.resolve())
        try:
            yield
        finally:
            os.ftruncate(fd, 0)  # the note names a live holder only
            _unlock(fd)
    finally:
        os.close(fd)


def _try_lock(fd: int) -> bool:
    try:
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        else:
            os.lseek(fd, _WINDOWS_BYTE, os.SEEK_SET)
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
    except OSError:
        return False
    return True


def _unlock(fd: int) -> None:
    if fcntl is not None:
        fcntl.flock(fd, fcntl.LOCK_UN)
    else:
        os.lseek(fd, _WINDOWS_BYTE, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)


def _holder(fd: int) -> str:
    """Who holds the lock, from their note (written just after they took it: read again for a moment)."""
    for _ in range(25):
        try:
            note = json.loads(os.pread(fd, 4096, 0))
            break
        except ValueError:
            time.sleep(0.01)
    else:
        return "another graphglean process"
    where = f"pid {note.get('pid')}"
    if note.get("host") != socket.gethostname():
        where += f" on {note.get('host')}"
    return (f"graphglean {note.get('task', 'run')} ({where}, started {note.get('started', '?')}: "
            f"{note.get('command', '?')})")


def _command() -> str:
    """This process's command line, short, without anything that looks like a key."""
    argv = list(sys.argv) or ["python"]
    program = Path(argv[0])
    argv[0] = {"__main__.py": program.parent.name, "-c": "python -c"}.get(program.name, program.name)  # -m, -c
    line = redact(" ".join(argv))
    return line if len(line) <= 160 else line[:159] + "…"
