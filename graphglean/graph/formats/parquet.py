"""Parquet export: ``entities.parquet`` and ``relationships.parquet``, the columns of the JSONL tables, for
pandas and Spark. Needs pyarrow (the ``parquet`` extra).

Column types come from the values: scalars, lists of scalars, and provenance spans as a list of
``{chunk_id, start, end}`` structs; anything else (mixed or nested values) is kept as JSON text.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import networkx as nx

from ...core.atomic import atomic_open
from .export import entity_rows, relationship_rows

SPAN = ("chunk_id", "start", "end")


def _scalar_type(values: list[Any], pa: Any) -> Any | None:
    if all(isinstance(v, bool) for v in values):
        return pa.bool_()
    if all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return pa.int64()
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        return pa.float64()
    if all(isinstance(v, str) for v in values):
        return pa.string()
    return None


def _column_type(key: str, values: list[Any], pa: Any) -> tuple[Any, bool]:
    """(arrow type, whether values are written as JSON text)."""
    present = [v for v in values if v is not None]
    if not present:
        return pa.string(), False
    scalar = _scalar_type(present, pa)
    if scalar is not None:
        return scalar, False
    if all(isinstance(v, (list, tuple)) for v in present):
        items = [i for v in present for i in v]
        if key == "spans" and all(isinstance(s, (list, tuple)) and len(s) == 3 for s in items):
            return pa.list_(pa.struct([("chunk_id", pa.string()), ("start", pa.int64()), ("end", pa.int64())])), False
        inner = _scalar_type(items, pa) if items else pa.string()
        if inner is not None:
            return pa.list_(inner), False
    return pa.string(), True


def _table(rows: list[dict[str, Any]], base: tuple[str, ...], pa: Any) -> Any:
    keys: dict[str, None] = dict.fromkeys(base)
    for row in rows:
        keys.update(dict.fromkeys(row))
    columns, fields = [], []
    for key in keys:
        values = [row.get(key) for row in rows]
        kind, as_json = _column_type(key, values, pa)
        if as_json:
            values = [None if v is None else json.dumps(v, ensure_ascii=False) for v in values]
        elif pa.types.is_list(kind) and pa.types.is_struct(kind.value_type):
            values = [None if v is None else [dict(zip(SPAN, s)) for s in v] for v in values]
        fields.append(pa.field(key, kind))
        columns.append(pa.array(values, type=kind))
    return pa.Table.from_arrays(columns, schema=pa.schema(fields))


def write_rows(rows: list[dict[str, Any]], base: tuple[str, ...], path: str | Path) -> Path:
    """One table of ``rows`` (columns ``base`` first, then every other key) to ``path``."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    with atomic_open(path, "wb") as f:
        pq.write_table(_table(rows, base, pa), f)
    return Path(path)


def write_parquet(graph: nx.Graph, out_dir: str | Path) -> list[Path]:
    """``entities.parquet`` and ``relationships.parquet`` in ``out_dir``; returns their paths."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    out = Path(out_dir)
    paths = [out / "entities.parquet", out / "relationships.parquet"]
    tables = ((entity_rows(graph), ("id",)), (relationship_rows(graph), ("source", "target")))
    for path, (rows, base) in zip(paths, tables):
        with atomic_open(path, "wb") as f:
            pq.write_table(_table(rows, base, pa), f)
    return paths
