"""``graph.html``: an interactive, self-contained view of a graph and the sentences it came from.

    write_view(graph, chunks, "output/graph.html", max_nodes=10000)

A run writes it through `graphglean.pipeline.outputs`; ``graphglean view OUTPUT_DIR`` rebuilds it from an output folder
(`graphglean.pipeline.outputs.rebuild_view`), with no LLM call.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable

import networkx as nx

from ..core.atomic import write_text
from .groups import add_communities
from .page import render_page
from .payload import ChunkText, build_payload

FILENAME = "graph.html"

__all__ = ["FILENAME", "ChunkText", "add_communities", "build_payload", "render_page", "write_view"]


def write_view(graph: nx.Graph, chunks: Iterable[ChunkText], path: str | Path, *, max_nodes: int = 0,
               title: str = "graph", communities: list[dict[str, Any]] | None = None,
               reports: list[dict[str, Any]] | None = None) -> Path:
    """Write the page for ``graph`` (the top ``max_nodes`` nodes by degree; 0 = all) to ``path``, with the lines
    of communities.jsonl and community_reports.jsonl when given."""
    path = Path(path)
    payload = build_payload(graph, chunks, max_nodes=max_nodes, title=title)
    add_communities(payload, graph, communities, reports)
    write_text(path, render_page(payload))
    return path
