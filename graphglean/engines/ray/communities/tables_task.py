"""The task that writes a Ray run's community tables (``communities.jsonl``, ``community_reports.jsonl``, and
their Parquet files) as a local run writes them: from the clustering kept for the next run, the display
names of the entities table, and the reports in the store by their community's content, made this run or
reused. It also gives each row of ``entities.jsonl`` its ``community`` ids, as a local run's rows have them
(the table was merged before the clustering): line by line, each line as ``json.dumps`` writes the row with
the key added last."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs

from ....core.atomic import atomic_open
from ....core.config import Config
from ....graph.communities.detect import ATTRIBUTE
from ....graph.communities.records import CommunityReport
from ....graph.communities.reporting import PASS, report_key
from ....graph.formats.communities import write_community_tables
from ..json_rows import json_line
from ..partitions import ENTITY_KEY, leading_strings
from .state import StoredReports, load_state


def write_tables(folder: Path, entities: Path, out: Path, cfg: Config, reports: bool, limiter: Any) -> list[str]:
    """The tables (``reports`` False: no report table, and an older one removed); the paths written."""
    cc = cfg.graph.communities
    communities, _ = load_state(folder)
    assert communities is not None, "the clustering task ran before"
    names = with_communities(entities, communities.of_node())
    ordered = sorted(communities.items, key=lambda c: (c.level, c.id))
    rows = [c.to_json(names) for c in ordered]
    report_rows: list[dict[str, Any]] | None = None
    if reports:
        wanted = [c for c in ordered if c.size >= cc.min_report_size]
        stored = StoredReports(folder, PASS)
        try:
            found = dict(stored.many([report_key(c, cc) for c in wanted]))
        finally:
            stored.close()
        report_rows = [attrs.evolve(CommunityReport.from_json(found[key]), community=c.id, level=c.level).to_json()
                       for c in wanted if (key := report_key(c, cc)) in found]
    paths = write_community_tables(rows, report_rows, out, "parquet" in cfg.output.formats)
    return [str(p) for p in paths]


def with_communities(entities: Path, of_node: dict[Any, list[int]]) -> dict[str, str]:
    """Add each clustered node's community ids to its row of ``entities`` (the file is replaced atomically);
    returns the clustered nodes' display names, read on the way (without decoding the rows)."""
    names = {}
    with entities.open(encoding="utf-8") as src, atomic_open(entities) as dst:
        for line in src:
            key, name = _id_and_name(line)
            ids = of_node.get(key)
            if ids is not None:
                names[key] = name or key
                line = f'{line.rstrip()[:-1]}, "{ATTRIBUTE}": {json_line(ids)}}}\n'
            dst.write(line)
    return names


def _id_and_name(line: str) -> tuple[str, str]:
    """An entity row's id and name (`entity_rows` writes them first; a row written otherwise is decoded)."""
    try:
        key, name = _ID_NAME(line)
    except KeyError:
        return ENTITY_KEY(line), ""
    return key, str(name or "")


_ID_NAME = leading_strings("id", "name")
