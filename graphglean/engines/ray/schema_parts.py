"""``graph.schema`` on the partitions: nodes are held to it where they are finished (`finish_graph`), edges in their
own partitions, by their ends' types read from the node partitions' files (`schema_edges`), as the local engine
holds the whole graph (`conform_graph`). What strict mode leaves out of a partition is a file of rows
(`write_off_schema`), read by the edge partitions (which nodes went) and joined by the driver into
``off_schema_records.jsonl`` after the shards' rows (`kept_off_schema`)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any, Iterator

from ...core.config import Config
from ...graph.extract import GraphStats
from ...graph.schema.conformance import conform_edges_apart
from ...graph.schema.ontology import schema_of
from .json_rows import write_rows
from .partitions import Edge, names_of

KINDS = ("nodes", "edges")


def schema_edges(edges: list[Edge], dropped: set[str], cfg: Config, merge_dir: Path, stats: GraphStats) -> list[Edge]:
    """``edges`` less those of ``dropped`` nodes, held to ``graph.schema`` (`conform_edges_apart`); what strict
    mode leaves out, and the flagged, counted in ``stats``."""
    schema = schema_of(cfg.graph)
    if schema is None:
        return [e for e in edges if e[0] not in dropped and e[1] not in dropped]
    P = cfg.runtime.graph_partitions
    left_out = {r["id"]: r["name"] for r in off_schema_rows(merge_dir, P, "nodes") if r["kind"] == "node"}
    kept, rows = conform_edges_apart(edges, dropped, left_out, names_of(merge_dir, P),
                                     names_of(merge_dir, P, "type"), schema, cfg.graph.directed)
    stats.off_schema_records += rows
    stats.off_schema += len(rows) + sum(1 for *_, data in kept if data.get("off_schema"))
    return kept


def _path(folder: Path, kind: str, partition: int) -> Path:
    return folder / f"off-schema-{kind}-{partition:04d}.jsonl"


def write_off_schema(stats: GraphStats, folder: Path, kind: str, partition: int) -> None:
    """What strict mode left out of a partition's ``kind`` (nodes, edges), when it left anything out."""
    if stats.off_schema_records:
        write_rows(stats.off_schema_records, _path(folder, kind, partition))


def off_schema_rows(folder: Path, partitions: int, kind: str) -> Iterator[dict[str, Any]]:
    for path in (_path(folder, kind, p) for p in range(partitions)):
        if path.exists():
            yield from map(json.loads, path.read_text(encoding="utf-8").splitlines())


def kept_off_schema(merge_dir: Path, partitions: int, keep: Path) -> list[Path]:
    """The partitions' files of rows moved out of ``merge_dir`` (which is removed) into ``keep``, nodes' first, in
    partition order: the parts the driver joins after the shards' rows."""
    keep.mkdir(parents=True, exist_ok=True)
    for stale in keep.glob("off-schema-*.jsonl"):  # an earlier run's
        stale.unlink()
    moved = []
    for kind in KINDS:
        for p in range(partitions):
            path = _path(merge_dir, kind, p)
            if path.exists():
                moved.append(Path(shutil.move(path, _path(keep, kind, p))))
    return moved
