"""What an output folder holds of earlier runs, as the dry run reads it (without writing a byte there): the run
store's results under the fingerprints a run would check (the run store's own reading API, so a pass's resume
code reads it unchanged), the last clustering, and the last graph's nodes and the names they go by."""

from __future__ import annotations

import contextlib
import json
import re
import shutil
import sqlite3
import tempfile
import weakref
from pathlib import Path
from typing import Any, Iterable, Mapping

import attrs

from ...graph.extraction.workload import named_words
from ...text.chunking import Chunk
from ..runstore import FILENAME

_WORD = re.compile(r"\w+")  # apostrophes and hyphens split words alike in names and text (Marley's)
MAX_NAME_WORDS = 5  # a stored name longer than this many words is looked for by its first five


class _Copy(sqlite3.Connection):
    """A connection to a copy in a folder of its own, which goes when the connection closes (or is collected)."""

    folder = ""

    def close(self) -> None:
        super().close()
        shutil.rmtree(self.folder, ignore_errors=True)


def read_only(path: Path, table: str) -> sqlite3.Connection | None:
    """SQLite file ``path`` opened to read, writing nothing beside it, not even SQLite's own files; None when it
    is missing or has no ``table``. With no write-ahead log beside it, no writer has it open: it is read as it
    is (``immutable``). With one (a run writing it, or one killed), a copy of the file and its log is read, in
    a temporary folder where SQLite may apply the log: reading the file itself would rebuild its index of the
    log (``-shm``) beside it."""
    if not path.is_file():
        return None
    wal = path.with_name(path.name + "-wal")
    try:
        if wal.exists():
            folder = tempfile.mkdtemp(prefix="graphglean-dry-run-")
            copy = Path(folder) / path.name
            shutil.copyfile(path, copy)
            with contextlib.suppress(FileNotFoundError):  # the writer closed it meanwhile: all in the file
                shutil.copyfile(wal, copy.with_name(copy.name + "-wal"))
            db = sqlite3.connect(copy, factory=_Copy)
            db.folder = folder
            weakref.finalize(db, shutil.rmtree, folder, True)
        else:
            db = sqlite3.connect(f"{path.resolve().as_uri()}?immutable=1", uri=True)
        db.execute(f"SELECT 1 FROM {table} LIMIT 1")
        return db
    except (sqlite3.Error, OSError):
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


class StoredAnswers:
    """The response cache at ``path``, read only: which of some keys it holds (none where it does not
    ``replay`` its answers, or is absent)."""

    def __init__(self, path: str, replays: bool) -> None:
        self._db = read_only(Path(path), "responses") if replays and path else None

    def held(self, keys: list[str]) -> set[str]:
        found: set[str] = set()
        for i in range(0, len(keys) if self._db is not None else 0, 500):
            part = keys[i:i + 500]
            found.update(row[0] for row in self._db.execute(  # type: ignore[union-attr]
                f"SELECT key FROM responses WHERE key IN ({','.join('?' * len(part))})", part))
        return found

    def close(self) -> None:
        if self._db is not None:
            self._db.close()


@attrs.define
class StoredNode:
    id: str
    names: tuple[str, ...]  # its name and aliases, lower case
    mentions: int  # descriptions it was built from
    description_tokens: int  # their length, in words
    sources: tuple[str, ...] = ()  # the chunks it was found in
    capitals: float | None = None  # the share of its spans its sources write with a capital; None: none read


def last_graph(out_dir: str | Path, chunks: Mapping[str, Chunk] | None = None) -> list[StoredNode] | None:
    """The nodes of the graph the last run wrote (``entities.jsonl``, else ``graph.json``); None when it wrote
    neither. ``chunks`` (by id): the texts a node's spans are read in, for its `StoredNode.capitals`."""
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
                                tuple(str(c) for c in r.get("source_ids") or ()), _capitals(r.get("spans"), chunks)))
    return nodes


def _capitals(spans: Any, chunks: Mapping[str, Chunk] | None) -> float | None:
    """The share of a node's spans ([chunk id, start, end] in document offsets) whose text in ``chunks`` holds a
    capital letter; None when none is read."""
    read = capital = 0
    for span in spans if chunks and isinstance(spans, list) else ():
        try:
            chunk = chunks.get(str(span[0]))  # type: ignore[union-attr]
            if chunk is not None and chunk.start <= int(span[1]) < int(span[2]) <= chunk.end:
                form = chunk.text[int(span[1]) - chunk.start:int(span[2]) - chunk.start]
                read, capital = read + 1, capital + (form != form.lower())
        except (TypeError, ValueError, IndexError):  # a foreign row: its names alone
            continue
    return capital / read if read else None


def mentioned(nodes: list[StoredNode], texts: Iterable[str]) -> list[StoredNode]:
    """The nodes a model reading ``texts`` would write a record for: one of their names occurs there as whole
    words (case aside), where no longer name of another node holds that occurrence ("Christmas" in "Christmas
    Eve", where a node is named so: a record names the longer), and, for a node its sources mostly write
    with a capital ("Uncle", "the Ghost"), not all in lower case ("his uncle", "a ghost": a common word, not
    that name), unless the text capitalizes no name at all (a chat written in lower case)."""
    named: dict[str, list[int]] = {}  # a name's first five words -> the nodes it names
    for k, node in enumerate(nodes):
        for name in node.names:
            if key := " ".join(_WORD.findall(name)[:MAX_NAME_WORDS]):
                named.setdefault(key, []).append(k)
    capitalized = [n.capitals is not None and n.capitals > 0.5 for n in nodes]
    found: set[int] = set()
    for text in texts:
        words = _WORD.findall(text)
        lower = [w.lower() for w in words]
        cased = named_words(text) > 0
        longest: dict[int, int] = {}  # an occurrence's first word -> its longest occurrence's end
        hits = []
        for i in range(len(words)):
            for n in range(1, min(MAX_NAME_WORDS, len(words) - i) + 1):
                for k in named.get(" ".join(lower[i:i + n]), ()):
                    if not (cased and capitalized[k] and words[i:i + n] == lower[i:i + n]):
                        hits.append((i, i + n, k))
                        longest[i] = i + n
        found.update(k for a, b, k in hits if not any(
            longest.get(c, 0) >= b and longest[c] - c > b - a for c in range(a - MAX_NAME_WORDS + 1, a + 1)))
    return [node for k, node in enumerate(nodes) if k in found]
