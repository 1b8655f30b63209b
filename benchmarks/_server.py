"""Start the fake LLM server in its own process for a benchmark, so it does not share the client's CPU."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Iterator


def _cores() -> tuple[set[int], set[int]]:
    """(the client's cores, the server's core): each process on cores of its own when there are two or more.
    Unpinned, the scheduler often wakes the server on the client's core (they talk over loopback), and the two
    single-threaded processes then share one core while the other idles."""
    cores = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    if len(cores) < 2:
        return set(cores), set(cores)
    return set(cores[:-1]), {cores[-1]}


@contextlib.contextmanager
def fake_server(*args: str) -> Iterator[str]:
    """Yields the base URL of the fake server command (`python -m graphglean.testing.serve`) started with
    ``args``; this process and the server run on separate cores while it lives."""
    client_cores, server_cores = _cores()
    pin = hasattr(os, "sched_setaffinity") and client_cores != server_cores
    with tempfile.TemporaryDirectory() as tmp:
        port_file = Path(tmp) / "port"
        proc = subprocess.Popen([sys.executable, "-m", "graphglean.testing.serve", "--port-file", str(port_file),
                                 *args], stdout=subprocess.DEVNULL,
                                preexec_fn=(lambda: os.sched_setaffinity(0, server_cores)) if pin else None)
        all_cores = client_cores | server_cores
        if pin:
            os.sched_setaffinity(0, client_cores)
        try:
            deadline = time.monotonic() + 20
            while not port_file.exists():
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise RuntimeError("the fake server did not start")
                time.sleep(0.05)
            yield f"http://127.0.0.1:{port_file.read_text()}/v1"
        finally:
            if pin:
                os.sched_setaffinity(0, all_cores)
            proc.terminate()
            proc.wait(10)


def server_stats(base_url: str) -> dict:
    return _post(base_url + "/stats")


def server_log(base_url: str) -> list[dict]:
    """The server's request log: a row per chat request (when read and answered, tokens, conversation)."""
    return _post(base_url + "/log")


def _post(url: str):
    req = urllib.request.Request(url, data=b"{}", method="POST")
    with urllib.request.urlopen(req, timeout=30) as resp:
        return json.loads(resp.read())


def help_only(doc: str | None) -> None:
    """For a benchmark that reads its arguments itself: with ``-h`` or ``--help``, print its usage (``doc``, its
    docstring) and exit, never running it."""
    if any(a in ("-h", "--help") for a in sys.argv[1:]):
        print((doc or "").strip())
        raise SystemExit(0)


def table(rows: list[dict], columns: list[str]) -> str:
    cells = [columns] + [[str(r.get(c, "")) for c in columns] for r in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(columns))]
    out = ["  ".join(c.rjust(w) for c, w in zip(row, widths)) for row in cells]
    out.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(out)
