"""The merges a partitioned resolution decided, as tables by key partition: each merged node's kept key and
that key's rank (its smallest member: where the local engine lists the merged node), and each kept key's
members (most informative first). The steps after read them by key, so none holds the whole alias map."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..partitions import node_partition
from ..stage_files import dump, load
from .node_tables import NodeTables, write_table

DECISIONS = "decisions"  # the tables' name


def write_group_parts(k: int, groups: list[list[str]], partitions: int, folder: Path) -> None:
    """Batch ``k``'s merged groups (kept node first) as rows by key partition."""
    out: list[list[tuple[str, Any]]] = [[] for _ in range(partitions)]
    for group in groups:
        kept, rank = group[0], min(group)
        for m in group:
            out[node_partition(m, partitions)].append((m, (kept, rank, group if m == kept else None)))
    for p, part in enumerate(out):
        dump(part, folder / f"groups-{k:05d}-{p:04d}.pkl")


def decision_table(p: int, batches: int, folder: Path) -> None:
    """Key partition ``p``'s table of every batch's rows."""
    rows = [row for k in range(batches) for row in load(folder / f"groups-{k:05d}-{p:04d}.pkl")]
    write_table(NodeTables.path(folder, p, DECISIONS), sorted(rows, key=lambda row: row[0]))


class Decisions:
    """The decision tables, read by key (each key read once)."""

    def __init__(self, folder: Path, partitions: int) -> None:
        self.tables = NodeTables(folder, partitions, DECISIONS)
        self._rows: dict[str, tuple[str, str, list[str] | None] | None] = {}

    def _row(self, key: str) -> tuple[str, str, list[str] | None] | None:
        if key not in self._rows:
            try:
                self._rows[key] = self.tables.row(key)
            except KeyError:
                self._rows[key] = None
        return self._rows[key]

    def kept(self, key: str) -> str:
        """The node ``key`` was merged into (itself when not merged)."""
        row = self._row(key)
        return key if row is None else row[0]

    def rank(self, kept: str) -> str:
        """Where the local engine lists the node kept as ``kept``: its smallest member."""
        row = self._row(kept)
        return kept if row is None else row[1]

    def members(self, kept: str) -> list[str]:
        """The nodes merged into ``kept``, most informative (itself) first."""
        row = self._row(kept)
        return [kept] if row is None or row[2] is None else row[2]

    def close(self) -> None:
        self.tables.close()
