"""What an output folder holds of earlier runs, as the dry run reads it (without writing a byte there): the run
store's results under the fingerprints a run would check (the run store's own reading API, so a pass's resume
code reads it unchanged), the last clustering, and the last graph's nodes and the names they go by."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path
from typing import Any, Iterable

import attrs

from ..runstore import FILENAME

_WORD = re.compile(r"\w+")  # apostrophes and hyphens split words alike in names and text (Marley's)
MAX_NAME_WORDS = 5  # a stored name longer than this many words is looked for by its first five


def read_only(path: Path, table: str) -> sqlite3.Connection | None:
    """SQLite file ``path`` opened to read, writing nothing beside it; None when it is missing or has no
    ``table``. A clean file is read as it is; one with a write-ahead log (a killed or live run) through it."""
    if not path.is_file():
        return None
    wal = path.with_name(path.name + "-wal")
    mode = "mode=ro" if wal.is_file() and wal.stat().st_size else "immutable=1"
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?{mode}", uri=True)
        db.execute(f"SELECT 1 FROM {table} LIMIT 1")
        return db
    except sqlite3.Error:
        return None


class StoredRun:
    """The run stores of ``out_dir`` read only: its own, and those of a Ray run's shards and driver stages
    (``shards/*/``), each pass's results taken from the stores whose fingerprint for it is the one a run would
    check. None when ``use`` is false (a ``--fresh`` run forgets them)."""

    def __init__(self, out_dir: str | Path, use: bool = True) -> None:
        out = Path(out_dir)
        paths = [out / FILENAME, *sorted(out.glob(f"shards/*/{FILENAME}"))] if use else []
        self._dbs = [db for db in (read_only(p, "passes") for p in paths) if db is not None]
        self._asked: dict[str, str] = {}

    @staticmethod
    def _fingerprint(db: sqlite3.Connection, name: str) -> str | None:
        row = db.execute("SELECT fingerprint FROM passes WHERE pass = ?", (name,)).fetchone()
        return None if row is None else row[0]

    def open_pass(self, name: str, fingerprint: str) -> bool:
        """As `RunStore.open_pass` (whether stored results of pass ``name`` would be discarded), discarding none."""
        self._asked[name] = fingerprint
        return any((stored := self._fingerprint(db, name)) is not None and stored != fingerprint for db in self._dbs)

    def _current(self, name: str) -> list[sqlite3.Connection]:
        """The stores whose results of pass ``name`` a run would use."""
        found = []
        for db in self._dbs:
            stored = self._fingerprint(db, name)
            if stored is not None and stored == self._asked.get(name, stored):
                found.append(db)
        return found

    def load(self, name: str) -> dict[str, Any]:
        return {item: json.loads(value) for db in self._current(name)
                for item, value in db.execute("SELECT item, value FROM results WHERE pass = ?", (name,))}

    def get(self, name: str, item: str) -> Any | None:
        for db in self._current(name):
            row = db.execute("SELECT value FROM results WHERE pass = ? AND item = ?", (name, item)).fetchone()
            if row is not None:
                return json.loads(row[0])
        return None

    def keys(self, name: str) -> set[str]:
        """The items of pass ``name`` a run would find stored (their values unread)."""
        return {row[0] for db in self._current(name) for row in db.execute("SELECT item FROM results WHERE pass = ?",
                                                                          (name,))}

    def known(self, name: str, items: list[str]) -> set[str]:
        """As `RunStore.known`: which of ``items`` pass ``name`` has stored."""
        found: set[str] = set()
        for db in self._current(name):
            for start in range(0, len(items), 500):
                part = items[start:start + 500]
                found |= {row[0] for row in db.execute(
                    f"SELECT item FROM results WHERE pass = ? AND item IN ({','.join('?' * len(part))})",
                    (name, *part))}
        return found

    def get_many(self, name: str, items: list[str]) -> dict[str, Any]:
        """As `RunStore.get_many` (the dry run reads no value of them: only `known`)."""
        return {item: self.get(name, item) for item in self.known(name, items)}

    def close(self) -> None:
        for db in self._dbs:
            db.close()


@attrs.define
class StoredNode:
    id: str
    names: tuple[str, ...]  # its name and aliases, lower case
    mentions: int  # descriptions it was built from
    description_tokens: int  # their length, in words
    sources: tuple[str, ...] = ()  # the chunks it was found in


def last_graph(out_dir: str | Path) -> list[StoredNode] | None:
    """The nodes of the graph the last run wrote (``entities.jsonl``, else ``graph.json``); None when it wrote
    neither."""
    out = Path(out_dir)
    rows: Iterable[dict[str, Any]]
    try:
        if (out / "entities.jsonl").is_file():
            with (out / "entities.jsonl").open(encoding="utf-8") as f:
                rows = [json.loads(line) for line in f if line.strip()]
        elif (out / "graph.json").is_file():
            rows = json.loads((out / "graph.json").read_text(encoding="utf-8")).get("nodes", [])
        else:
            return None
    except (OSError, ValueError):  # a half-written or foreign file: as if there were none
        return None
    nodes = []
    for r in rows:
        names = {str(n).lower() for n in [r.get("id", ""), r.get("name", ""), *(r.get("aliases") or [])] if n}
        descriptions = r.get("descriptions") or [r.get("description") or ""]
        nodes.append(StoredNode(str(r.get("id", "")), tuple(sorted(names)), max(1, int(r.get("frequency") or 1)),
                                sum(len(str(d).split()) for d in descriptions),
                                tuple(str(c) for c in r.get("source_ids") or ())))
    return nodes


def mentioned(nodes: list[StoredNode], texts: Iterable[str]) -> list[StoredNode]:
    """The nodes one of whose names occurs, as whole words, in one of ``texts`` (case aside)."""
    grams: set[str] = set()
    for text in texts:
        words = _WORD.findall(text.lower())
        for n in range(1, MAX_NAME_WORDS + 1):
            grams.update(" ".join(words[i:i + n]) for i in range(len(words) - n + 1))

    def key(name: str) -> str:
        return " ".join(_WORD.findall(name)[:MAX_NAME_WORDS])

    return [node for node in nodes if any(key(name) in grams for name in node.names if key(name))]
