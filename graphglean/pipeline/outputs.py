"""The graph files a run writes, as ``output.formats`` chooses, and ``graph.html`` rebuilt from an output folder.

``chunks.jsonl`` (each chunk's id, document, offsets and text) is written with every graph: the provenance
spans of the other files point into it, and the view reads its source sentences from it.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any, Callable, Iterable

import networkx as nx

from ..core.config import OutputConfig
from ..core.errors import InputError, OutputError, StageFailure, stops_run
from ..graph.formats.communities import COMMUNITIES, REPORTS
from ..graph.formats.export import entity_rows, relationship_rows, write_graphml, write_jsonl, write_node_link
from ..graph.formats.readback import json_records, json_rows, read_graph
from ..text.chunking import Chunk
from ..view import FILENAME as VIEW_FILENAME
from ..view import ChunkText, write_view
from .context import failure_row
from .folder_lock import output_folder_lock

CHUNKS = "chunks.jsonl"


def chunk_rows(chunks: Iterable[Chunk]) -> list[dict[str, Any]]:
    return [{"id": c.id, "doc_id": c.doc_id, "index": c.index, "start": c.start, "end": c.end, "text": c.text}
            for c in chunks]


def write_graph_outputs(graph: nx.Graph, chunks: list[Chunk], out_dir: str | Path, output: OutputConfig,
                        failed: list[dict[str, Any]] | None = None) -> list[Path]:
    """Every export ``output.formats`` names, plus chunks.jsonl; returns the paths written. A file that cannot
    be written does not stop the others: it is added to ``failed`` as a failure row (item: its path), or,
    without ``failed``, raised as an `OutputError` once the others are written."""
    out = Path(out_dir)
    formats = set(output.formats)
    rows = chunk_rows(chunks)
    writers: list[Writer] = []
    if "graphml" in formats:
        writers.append(([out / "graph.graphml"], lambda: write_graphml(graph, out / "graph.graphml"), _skip("graphml")))
    if "json" in formats:
        writers.append(([out / "graph.json"], lambda: write_node_link(graph, out / "graph.json"), _skip("json")))
    if "jsonl" in formats:
        writers.append(([out / "entities.jsonl"], lambda: write_jsonl(entity_rows(graph), out / "entities.jsonl"),
                        _skip("jsonl")))
        writers.append(([out / "relationships.jsonl"],
                        lambda: write_jsonl(relationship_rows(graph), out / "relationships.jsonl"), _skip("jsonl")))
    if "neo4j" in formats:
        from ..graph.formats.neo4j import write_neo4j

        writers.append(([out / "neo4j"], lambda: write_neo4j(graph, out / "neo4j"), _skip("neo4j")))
    if "parquet" in formats:
        from ..graph.formats.parquet import write_parquet

        writers.append(([out / "entities.parquet", out / "relationships.parquet"], lambda: write_parquet(graph, out),
                        _skip("parquet")))
    writers.append(([out / CHUNKS], lambda: write_jsonl(rows, out / CHUNKS), ""))
    if "html" in formats:
        writers.append(([out / VIEW_FILENAME], lambda: write_view(
            graph, [ChunkText.from_json(r) for r in rows], out / VIEW_FILENAME, max_nodes=output.view_max_nodes,
            title=out.resolve().name), _skip("html")))
    failures: list[dict[str, Any]] = []
    paths = write_each(writers, failures)
    if failures and failed is None:
        raise OutputError("; ".join(f"{f['item']}: {f['error']}" for f in failures))
    if failed is not None:
        failed += failures
    return paths


Writer = tuple[list[Path], Callable[[], Any], str]  # the paths it writes, how, and the setting that skips it


def _skip(fmt: str) -> str:
    return f"output.formats without {fmt} skips it"


def write_each(writers: list[Writer], failed: list[dict[str, Any]]) -> list[Path]:
    """Call each writer; returns the paths written. One that raises does not stop the others: it is a failure
    row in ``failed`` (item: its first path), saying why and the setting that skips it in one line."""
    paths: list[Path] = []
    for names, write, skip in writers:
        try:
            written = write()
        except Exception as e:  # one file's failure (a full disk, a bug) must not cost the others
            if stops_run(e):
                raise
            if isinstance(e, OSError) and e.strerror:
                reason = e.strerror
            else:  # a bug: where it was raised, and how to do without the file until it is fixed
                reason = "; ".join(p for p in (StageFailure("", e, "").error, skip) if p)
            failed.append(failure_row(str(names[0]), f"cannot write: {reason}"))
            continue
        paths += written if isinstance(written, list) else names
    return paths


def read_chunk_texts(out_dir: str | Path) -> list[ChunkText]:
    """The chunks of ``out_dir/chunks.jsonl`` (none when an older run wrote no such file)."""
    return json_records(Path(out_dir) / CHUNKS, ChunkText.from_json, "a chunk record") or []


def table_rows(path: Path, required: tuple[str, ...]) -> list[dict[str, Any]] | None:
    """The rows of a community table the run wrote (None when it wrote none); a row without one of
    ``required`` is an `InputError` naming the file and line."""
    if not path.is_file():
        return None
    rows = []
    for number, row in json_rows(path):
        missing = [k for k in required if not isinstance(row.get(k), int)]
        if missing:
            raise InputError(f"{path}:{number}: {missing[0]} must be an integer")
        rows.append(row)
    return rows


def rebuild_view(out_dir: str | Path, max_nodes: int) -> Path:
    """``graph.html`` written again from the graph and chunks in ``out_dir``, holding the folder's lock (not while
    a run writes there); no LLM call."""
    out = Path(out_dir)
    with output_folder_lock(out, "view") if out.is_dir() else contextlib.nullcontext():  # else: read_graph says
        graph = read_graph(out)
        communities = table_rows(out / f"{COMMUNITIES}.jsonl", ("id", "level", "size"))
        reports = table_rows(out / f"{REPORTS}.jsonl", ("community", "level"))
        try:
            return write_view(graph, read_chunk_texts(out), out / VIEW_FILENAME, max_nodes=max_nodes,
                              title=out.resolve().name, communities=communities, reports=reports)
        except OSError as e:
            raise InputError(f"{out / VIEW_FILENAME}: cannot write ({e.strerror or type(e).__name__})") from None
