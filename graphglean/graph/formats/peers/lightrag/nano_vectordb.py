"""A NanoVectorDB file as LightRAG 1.5's `NanoVectorDBStorage` saves it: ``embedding_dim``; ``data``, one record
per vector (``__id__``, ``__created_at__``, ``__write_seq__``, the store's meta fields, and ``vector``: the
vector as float16, zlib-compressed, base64); ``matrix``: every vector as float32, normalized, in the order of
``data``, base64 of its bytes.

Written as a stream, a row group at a time, the same bytes ``json.dump`` writes of the whole object: the
records as their vectors are read from the `VectorSource`, the matrix's bytes meanwhile to a file beside, then
base64-encoded from it in pieces of a multiple of three bytes (which encode alone to what the whole encodes
to). Memory does not grow with the corpus."""

from __future__ import annotations

import base64
import itertools
import json
import tempfile
import time
import zlib
from pathlib import Path
from typing import Any, Iterable

import numpy as np

from .....core.atomic import atomic_open
from ..vectors import ROW_GROUP, VectorSource

_PIECE = 3 << 20  # bytes of the matrix encoded at a time: a multiple of three
_encode = json.JSONEncoder(ensure_ascii=False).encode  # json.dump's own settings


def compressed(vector: np.ndarray) -> str:
    return base64.b64encode(zlib.compress(np.asarray(vector, np.float16).tobytes())).decode("utf-8")


def write_nano_vectordb(path: Path, records: Iterable[tuple[str, dict[str, Any], str]], vectors: VectorSource,
                        dimension: int, created: int | None = None) -> Path:
    """The file of ``records`` (id, meta fields in order, the text embedded), each with its text's unit vector
    from ``vectors``; a record whose text has none (its batch failed) is left out."""
    created = int(time.time()) if created is None else created
    seq = time.time_ns()  # one write: one ordering token (`lightrag.kg.write_seq`), as LightRAG stamps a batch
    with atomic_open(path) as f, tempfile.TemporaryFile(dir=path.parent) as matrix:
        f.write(f'{{"embedding_dim": {_encode(dimension)}, "data": [')
        first, rows_left = True, iter(records)
        while part := list(itertools.islice(rows_left, ROW_GROUP)):
            found = vectors.get_many([text for _, _, text in part])
            lines, rows = [], []
            for rid, meta, text in part:
                v = found.get(text)
                if v is None:
                    continue
                lines.append(_encode({"__id__": rid, "__created_at__": created, "__write_seq__": seq, **meta,
                                      "vector": compressed(v)}))
                rows.append(np.asarray(v, np.float32))
            if lines:
                f.write(("" if first else ", ") + ", ".join(lines))
                first = False
                matrix.write(np.stack(rows).astype(np.float32).tobytes())
        f.write('], "matrix": "')
        matrix.seek(0)
        while piece := matrix.read(_PIECE):
            f.write(base64.b64encode(piece).decode("ascii"))
        f.write('"}')
    return path
