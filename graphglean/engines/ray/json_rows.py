"""Row tables written as JSON lines, each line exactly ``json.dumps(row, ensure_ascii=False)``.

``json.dumps`` with a non-default argument builds a new encoder (and its C scanner) for every call: for the
million small rows of a large graph's tables that set-up cost more than the encoding. One C encoder, made once
with the same settings, writes the same bytes.
"""

from __future__ import annotations

import json
import json.encoder
from pathlib import Path
from typing import Any, Callable, Iterable

from ...core.atomic import atomic_open

BATCH = 1000  # lines joined per write


def _line_encoder() -> Callable[[Any], str]:
    settings = json.JSONEncoder(ensure_ascii=False)
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:  # the pure-Python json module: its own encoder, as dumps
        return settings.encode
    # no circular-reference markers: rows are trees (what dumps would report as a cycle is a RecursionError here)
    encode = make(None, settings.default, json.encoder.encode_basestring, settings.indent, settings.key_separator,
                  settings.item_separator, settings.sort_keys, settings.skipkeys, settings.allow_nan)
    return lambda row: "".join(encode(row, 0))


json_line = _line_encoder()


def write_rows(rows: Iterable[Any], path: str | Path) -> None:
    """Each row as one JSON line (as `graph.export.write_jsonl` writes it), atomically."""
    with atomic_open(path) as f:
        batch: list[str] = []
        for row in rows:
            batch.append(json_line(row))
            if len(batch) >= BATCH:
                f.write("\n".join(batch) + "\n")
                batch = []
        if batch:
            f.write("\n".join(batch) + "\n")
