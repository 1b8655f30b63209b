"""What a query reads of a run's output folder: the graph, the chunks its spans point into, and the community
reports when the run made them. Every file is read as the run wrote it; a bad line is an `InputError` naming
the file and line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs
import networkx as nx

from ..graph.communities.records import CommunityReport
from ..graph.formats.communities import COMMUNITIES, REPORTS
from ..graph.formats.readback import json_records, read_graph
from ..pipeline.outputs import read_chunk_texts, table_rows
from ..view import ChunkText


@attrs.define
class RunOutputs:
    out_dir: Path
    graph: nx.Graph
    chunks: dict[str, ChunkText]
    communities: list[dict[str, Any]] | None  # None: the run found none (graph.communities off)
    reports: list[CommunityReport] | None  # None: the run wrote no reports


def read_outputs(out_dir: str | Path) -> RunOutputs:
    """The outputs in ``out_dir``; `InputError` when it holds no graph."""
    out = Path(out_dir)
    graph = read_graph(out)
    chunks = {c.id: c for c in read_chunk_texts(out)}
    return RunOutputs(out, graph, chunks, table_rows(out / f"{COMMUNITIES}.jsonl", ("id", "level")),
                      json_records(out / f"{REPORTS}.jsonl", CommunityReport.from_json, "a community report"))
