"""``graph_chunk_entity_relation.graphml``: LightRAG 1.5's graph (`NetworkXStorage`), nodes keyed by entity name
with ``entity_id``, ``entity_type``, ``description``, ``source_id`` and ``file_path`` (``<SEP>``-joined, at most
LightRAG's limits, earliest kept, as its default ``KEEP`` method), ``created_at`` and ``truncate``; edges with
``weight``, ``description``, ``keywords`` (comma-joined), ``source_id``, ``file_path``, ``created_at`` and
``truncate``."""

from __future__ import annotations

from pathlib import Path

import networkx as nx

from .....core.atomic import atomic_open
from .stores import SEP

FILENAME = "graph_chunk_entity_relation.graphml"
MAX_SOURCE_IDS = 200  # DEFAULT_MAX_SOURCE_IDS_PER_ENTITY and _PER_RELATION
MAX_FILE_PATHS = 75  # DEFAULT_MAX_FILE_PATHS
KEPT = "KEEP Old"  # what `truncate` says when source ids were cut by the KEEP method


def limited(chunk_keys: list[str], file_of: dict[str, str]) -> tuple[str, str, str]:
    """(source_id, file_path, truncate) of a node or edge found in ``chunk_keys``."""
    kept = chunk_keys[:MAX_SOURCE_IDS]
    files = list(dict.fromkeys(file_of[k] for k in kept))
    if len(files) > MAX_FILE_PATHS:
        files = files[:MAX_FILE_PATHS] + [f"...truncated...({KEPT})"]
    return SEP.join(kept), SEP.join(files), KEPT if len(kept) < len(chunk_keys) else ""


def write_lightrag_graphml(path: Path, graph: nx.Graph) -> Path:
    with atomic_open(path, "wb") as f:
        nx.write_graphml(graph, f)
    return path
