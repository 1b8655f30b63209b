"""A NanoVectorDB file as LightRAG 1.5's `NanoVectorDBStorage` saves it: ``embedding_dim``; ``data``, one record
per vector (``__id__``, ``__created_at__``, ``__write_seq__``, the store's meta fields, and ``vector``: the
vector as float16, zlib-compressed, base64); ``matrix``: every vector as float32, normalized, in the order of
``data``, base64 of its bytes."""

from __future__ import annotations

import base64
import json
import time
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from .....core.atomic import atomic_open


def compressed(vector: np.ndarray) -> str:
    return base64.b64encode(zlib.compress(np.asarray(vector, np.float16).tobytes())).decode("utf-8")


def nano_vectordb(records: list[tuple[str, dict[str, Any], np.ndarray]], dimension: int,
                  created: int | None = None) -> dict[str, Any]:
    """The file's JSON for ``records`` (id, meta fields in order, unit vector)."""
    created = int(time.time()) if created is None else created
    seq = time.time_ns()  # one write: one ordering token (`lightrag.kg.write_seq`), as LightRAG stamps a batch
    data = [{"__id__": rid, "__created_at__": created, "__write_seq__": seq, **meta, "vector": compressed(v)}
            for rid, meta, v in records]
    matrix = (np.stack([v for _, _, v in records]).astype(np.float32) if records
              else np.zeros((0, dimension), np.float32))
    return {"embedding_dim": dimension, "data": data, "matrix": base64.b64encode(matrix.tobytes()).decode()}


def write_nano_vectordb(path: Path, records: list[tuple[str, dict[str, Any], np.ndarray]], dimension: int,
                        created: int | None = None) -> Path:
    with atomic_open(path) as f:
        json.dump(nano_vectordb(records, dimension, created), f, ensure_ascii=False)
    return path
