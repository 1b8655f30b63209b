"""What a query reads of a run's output folder: the graph, the chunks its spans point into, and the community
reports when the run made them. Every file is read as the run wrote it; a bad line is an `InputError` naming
the file and line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs
import networkx as nx

from ..core.errors import InputError
from ..graph.communities.records import CommunityReport
from ..graph.formats.communities import COMMUNITIES, REPORTS
from ..graph.formats.readback import json_rows, read_graph
from ..pipeline.outputs import read_chunk_texts
from ..view import ChunkText


@attrs.define
class RunOutputs:
    out_dir: Path
    graph: nx.Graph
    chunks: dict[str, ChunkText]
    communities: list[dict[str, Any]] | None  # None: the run found none (graph.communities off)
    reports: list[CommunityReport] | None  # None: the run wrote no reports


def _communities(path: Path) -> list[dict[str, Any]] | None:
    if not path.is_file():
        return None
    rows = []
    for number, row in json_rows(path):
        if not isinstance(row.get("id"), int) or not isinstance(row.get("level"), int):
            raise InputError(f"{path}:{number}: a community needs an integer id and level")
        rows.append(row)
    return rows


def _reports(path: Path) -> list[CommunityReport] | None:
    if not path.is_file():
        return None
    reports = []
    for number, row in json_rows(path):
        try:
            reports.append(CommunityReport.from_json(row))
        except (KeyError, TypeError, ValueError) as e:
            raise InputError(f"{path}:{number}: not a community report ({type(e).__name__}: {e})") from None
    return reports


def read_outputs(out_dir: str | Path) -> RunOutputs:
    """The outputs in ``out_dir``; `InputError` when it holds no graph."""
    out = Path(out_dir)
    graph = read_graph(out)
    chunks = {c.id: c for c in read_chunk_texts(out)}
    return RunOutputs(out, graph, chunks, _communities(out / f"{COMMUNITIES}.jsonl"),
                      _reports(out / f"{REPORTS}.jsonl"))
