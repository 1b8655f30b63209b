"""Community tables: ``communities.jsonl`` (one line per community: id, level, parent, children, entities,
relationship ids, size, the run it last changed in) and ``community_reports.jsonl`` (one line per report), and
the same as Parquet. Written together from one run's data, so every report's community is in the other table."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable

from .export import write_jsonl

COMMUNITIES, REPORTS = "communities", "community_reports"
FILES = tuple(f"{name}.{ext}" for name in (COMMUNITIES, REPORTS) for ext in ("jsonl", "parquet"))


def write_community_tables(communities: Iterable[dict[str, Any]], reports: Iterable[dict[str, Any]] | None,
                           out_dir: str | Path, parquet: bool) -> list[Path]:
    """The tables in ``out_dir`` (``reports`` None: none were made, and an older table of them is removed);
    returns the paths written."""
    out = Path(out_dir)
    tables = [(COMMUNITIES, list(communities), ("id", "level"))]
    if reports is not None:
        tables.append((REPORTS, list(reports), ("community", "level")))
    written = []
    for name, rows, base in tables:
        write_jsonl(rows, out / f"{name}.jsonl")
        written.append(out / f"{name}.jsonl")
        if parquet:
            from .parquet import write_rows

            written.append(write_rows(rows, base, out / f"{name}.parquet"))
    for stale in set(FILES) - {p.name for p in written}:  # an older run's tables would disagree with these
        (out / stale).unlink(missing_ok=True)
    return written


def remove_community_tables(out_dir: str | Path) -> None:
    """Communities are off: tables of an older run would describe a graph this one does not have."""
    for name in FILES:
        (Path(out_dir) / name).unlink(missing_ok=True)
