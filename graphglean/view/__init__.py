"""``graph.html``: an interactive, self-contained view of a graph and the sentences it came from.

    write_view(graph, chunks, "output/graph.html", max_nodes=10000)

A run writes it through `graphglean.pipeline.outputs`; ``graphglean view OUTPUT_DIR`` rebuilds it from an output folder
(`graphglean.pipeline.outputs.rebuild_view`), with no LLM call.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

import networkx as nx

from ..core.atomic import write_text
from .page import render_page
from .payload import ChunkText, build_payload

FILENAME = "graph.html"

__all__ = ["FILENAME", "ChunkText", "build_payload", "render_page", "write_view"]


def write_view(graph: nx.Graph, chunks: Iterable[ChunkText], path: str | Path, *, max_nodes: int = 0,
               title: str = "graph") -> Path:
    """Write the page for ``graph`` (the top ``max_nodes`` nodes by degree; 0 = all) to ``path``."""
    path = Path(path)
    write_text(path, render_page(build_payload(graph, chunks, max_nodes=max_nodes, title=title)))
    return path
