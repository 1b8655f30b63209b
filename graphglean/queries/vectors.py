"""The entity vectors a run wrote: its peer indexes embed every entity (``output.formats`` lightrag: LightRAG's
``vdb_entities.json``; graphrag: GraphRAG's LanceDB table ``entity_description``). Read back by entity, and
mapped to graphglean's node keys through the same engine view the index was written from."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import attrs
import networkx as nx
import numpy as np

from ..core.errors import InputError
from ..graph.formats.peers.graphrag.settings import VECTORS as GRAPHRAG_VECTORS
from ..graph.formats.peers.graphrag.tables import stable_id
from ..graph.formats.peers.graphrag.write import FOLDER as GRAPHRAG
from ..graph.formats.peers.index import engine_graph
from ..graph.formats.peers.lightrag.write import FOLDER as LIGHTRAG
from ..graph.formats.peers.names import graphrag_name, lightrag_name, lightrag_type


@attrs.define
class EntityVectors:
    """Unit vectors by node key, and where they were read from ("" when the run wrote none)."""

    by_node: dict[str, np.ndarray] = attrs.field(factory=dict)
    source: str = ""

    def __bool__(self) -> bool:
        return bool(self.by_node)


def _lightrag(path: Path, graph: nx.Graph) -> dict[str, np.ndarray]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        dim = int(data["embedding_dim"])
        matrix = np.frombuffer(base64.b64decode(data["matrix"]), dtype=np.float32).reshape(-1, dim)
        names = [str(r["entity_name"]) for r in data["data"]]
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise InputError(f"{path}: not a NanoVectorDB file ({type(e).__name__}: {e})") from None
    if len(names) != len(matrix):
        raise InputError(f"{path}: {len(names)} records but {len(matrix)} vectors")
    keys = {e.name: e.keys for e in engine_graph(graph, lightrag_name, lightrag_type).entities}
    return {k: matrix[i] for i, name in enumerate(names) for k in keys.get(name, [])}


def _graphrag(path: Path, graph: nx.Graph) -> dict[str, np.ndarray]:
    try:
        import lancedb
    except ImportError:
        return {}
    try:
        table = lancedb.connect(str(path)).open_table("entity_description").to_arrow()
        rows = dict(zip(table.column("id").to_pylist(), table.column("vector").to_pylist()))
    except Exception as e:  # noqa: BLE001 - LanceDB's own errors: all mean "not a table it can read"
        raise InputError(f"{path}: cannot read the entity_description table ({type(e).__name__}: {e})") from None
    found: dict[str, Any] = {}
    for entity in engine_graph(graph, graphrag_name, graphrag_name).entities:
        vector = rows.get(stable_id("entity", entity.name))
        if vector is not None:
            found.update((k, np.asarray(vector, dtype=np.float32)) for k in entity.keys)
    return found


def entity_vectors(out_dir: Path, graph: nx.Graph) -> EntityVectors:
    """The entity vectors of the peer indexes in ``out_dir`` (LightRAG's first: it needs no extra)."""
    lightrag = out_dir / LIGHTRAG / "vdb_entities.json"
    if lightrag.is_file():
        found = _lightrag(lightrag, graph)
        if found:
            return EntityVectors(found, str(lightrag))
    graphrag = out_dir / GRAPHRAG / GRAPHRAG_VECTORS
    if graphrag.is_dir():
        found = _graphrag(graphrag, graph)
        if found:
            return EntityVectors(found, str(graphrag))
    return EntityVectors()
