"""GraphRAG 3.3's LanceDB vector tables (``entity_description``, ``community_full_content``, ``text_unit_text``),
made as `graphrag_vectors.LanceDBVectorStore` makes them: ``id`` (the row id of the table it embeds),
``vector`` (a fixed-size list of float32), the create and update dates, each exploded into the fields its
filters read, and an IVF_FLAT index created on the empty table (rows are then searched exhaustively, as in
GraphRAG). The whole database is written beside the old one and swapped in, so a killed run leaves one or the
other."""

from __future__ import annotations

import shutil
import tempfile
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from ..vectors import ROW_GROUP, VectorSource

_SUFFIXES = (("year", "int"), ("month", "int"), ("month_name", "str"), ("day", "int"), ("day_of_week", "str"),
             ("hour", "int"), ("quarter", "int"))
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")
_DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_DUMMY = "__DUMMY__"


def exploded(iso: str | None, prefix: str) -> dict[str, Any]:
    """`graphrag_vectors.timestamp.explode_timestamp` (with English names whatever the locale)."""
    if not iso:
        return {f"{prefix}_{suffix}": None for suffix, _ in _SUFFIXES}
    t = datetime.fromisoformat(iso)
    values = (t.year, t.month, _MONTHS[t.month - 1], t.day, _DAYS[t.weekday()], t.hour, (t.month - 1) // 3 + 1)
    return {f"{prefix}_{suffix}": v for (suffix, _), v in zip(_SUFFIXES, values)}


def _schema(dimension: int) -> Any:
    import pyarrow as pa

    kinds = {"int": pa.int64(), "str": pa.string()}
    fields = [("id", pa.string()), ("vector", pa.list_(pa.float32(), dimension)), ("create_date", pa.string()),
              ("update_date", pa.string())]
    fields += [(f"{p}_{s}", kinds[k]) for p in ("create_date", "update_date") for s, k in _SUFFIXES]
    return pa.schema(fields)


def _table(rows: list[tuple[str, np.ndarray]], dimension: int, created: str) -> Any:
    import pyarrow as pa

    schema = _schema(dimension)
    flat = np.concatenate([v for _, v in rows]).astype(np.float32) if rows else np.zeros(0, np.float32)
    columns: dict[str, Any] = {"id": [i for i, _ in rows],
                               "vector": pa.FixedSizeListArray.from_arrays(pa.array(flat, pa.float32()), dimension),
                               "create_date": [created] * len(rows), "update_date": [None] * len(rows)}
    stamps = {**exploded(created, "create_date"), **exploded(None, "update_date")}
    columns.update({k: [v] * len(rows) for k, v in stamps.items()})
    return pa.Table.from_arrays([columns[f.name] if isinstance(columns[f.name], pa.Array)
                                 else pa.array(columns[f.name], f.type) for f in schema], schema=schema)


def _create(db: Any, name: str, rows: list[tuple[str, str]], vectors: VectorSource, dimension: int,
            created: str) -> None:
    from lancedb.index import IvfFlat

    # as LanceDBVectorStore.create_index: a dummy row gives the index its schema, then leaves
    table = db.create_table(name, data=_table([(_DUMMY, np.zeros(dimension, np.float32))], dimension, created))
    table.create_index("vector", config=IvfFlat(distance_type="l2"))  # GraphRAG's IVF_FLAT, its default metric
    table.delete(f"id = '{_DUMMY}'")
    for start in range(0, len(rows), ROW_GROUP):
        part = rows[start:start + ROW_GROUP]
        found = vectors.get_many([text for _, text in part])
        kept = [(rid, found[text]) for rid, text in part if text in found]  # a text whose batch failed: left out
        if kept:
            table.add(_table(kept, dimension, created))


def write_vector_tables(db_dir: Path, tables: dict[str, list[tuple[str, str]]], vectors: VectorSource,
                        dimension: int, now: datetime | None = None) -> Path:
    """Each of ``tables`` (name -> (id, embedded text) rows) as a LanceDB table of ``db_dir``, replacing it whole;
    ``vectors`` gives the texts' unit vectors."""
    import lancedb

    created = (now or datetime.now(timezone.utc)).isoformat()
    db_dir.parent.mkdir(parents=True, exist_ok=True)
    fresh = Path(tempfile.mkdtemp(prefix=f".{db_dir.name}.", suffix=".tmp", dir=db_dir.parent))
    try:
        db = lancedb.connect(str(fresh))
        for name, rows in tables.items():
            _create(db, name, rows, vectors, dimension, created)
        old = db_dir.with_name(f".{db_dir.name}.old")
        shutil.rmtree(old, ignore_errors=True)
        if db_dir.exists():
            db_dir.rename(old)
        fresh.rename(db_dir)
        shutil.rmtree(old, ignore_errors=True)
    finally:
        shutil.rmtree(fresh, ignore_errors=True)
    return db_dir
