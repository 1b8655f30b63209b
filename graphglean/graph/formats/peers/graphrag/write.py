"""``OUTPUT/graphrag/``: a GraphRAG 3.3 project root that ``graphrag query --root OUTPUT/graphrag`` reads:
``settings.yaml``, the Parquet tables in ``output/`` and the LanceDB vector tables in ``output/lancedb``."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import Mapping

import attrs
import networkx as nx
import numpy as np

from .....core.atomic import atomic_open
from .....core.config import LLMConfig
from .....llm.credentials import has_credentials
from .....text.chunking import Chunk
from ..communities import Communities
from ..index import Document, engine_graph
from ..names import graphrag_name
from ..vectors import VectorSource, source_of
from .settings import CREDENTIALS, OUTPUT, VECTORS, write_settings
from .tables import TABLES, GraphRAGTables, graphrag_tables, write_parquet
from .vector_tables import write_vector_tables

FOLDER = "graphrag"


@attrs.define
class GraphRAGPlan:
    root: Path
    tables: GraphRAGTables
    llm: LLMConfig
    merged_edges: int = 0
    notes: list[str] = attrs.field(factory=list)  # what the run should say about this index, one line each

    def texts(self) -> list[str]:
        return [text for rows in self.tables.embedded_texts().values() for _, text in rows]

    def write(self, vectors: VectorSource | Mapping[str, np.ndarray], dimension: int,
              now: datetime | None = None) -> list[Path]:
        now = now or datetime.now(timezone.utc)
        out = self.root / OUTPUT
        paths = []
        for name in TABLES:
            path = out / f"{name}.parquet"
            with atomic_open(path, "wb") as f:
                write_parquet(name, self.tables.rows[name], f)
            paths.append(path)
        paths.append(write_vector_tables(self.root / VECTORS, self.tables.embedded_texts(), source_of(vectors),
                                         dimension, now))
        settings, note = write_settings(self.root, self.llm, dimension)
        self.notes += [f"output.formats graphrag: {line}; left out of the index" for line in self.tables.dropped]
        self.notes += [f"output.formats graphrag: {note}"] if note else []
        self.notes += [f"output.formats graphrag: {CREDENTIALS}"] if has_credentials(self.llm.base_url) else []
        return [settings, *paths]


def plan_graphrag(graph: nx.Graph, documents: list[Document], chunks: list[Chunk], communities: Communities,
                  llm: LLMConfig, out_dir: Path) -> GraphRAGPlan:
    """What ``out_dir/graphrag`` will hold."""
    view = engine_graph(graph, graphrag_name, graphrag_name)
    tables = graphrag_tables(view, documents, chunks, communities, graphrag_name)
    return GraphRAGPlan(out_dir / FOLDER, tables, llm, view.merged_edges)
