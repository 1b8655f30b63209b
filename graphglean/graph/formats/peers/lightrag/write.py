"""``OUTPUT/lightrag/``: a LightRAG 1.5 working directory that ``LightRAG(working_dir=...)`` loads and queries in
every mode (with an ``embedding_func`` of the run's embedding model and size): the graph, the key-value
stores, and the entity, relationship and chunk vectors as NanoVectorDB files. Entities carry LightRAG's names
and types; each relationship's ends are in sorted order and its vector id is ``rel-`` + md5 of them (an
entity's: ``ent-`` + md5 of its name); every ``source_id`` names chunks of ``kv_store_text_chunks.json``."""

from __future__ import annotations

import posixpath
from datetime import datetime, timezone
from pathlib import Path
from typing import Mapping

import attrs
import networkx as nx
import numpy as np

from .....text.chunking import Chunk
from ..index import Document, EngineGraph, engine_graph
from ..names import lightrag_name, lightrag_type
from .graphml import FILENAME as GRAPHML
from .graphml import limited, write_lightrag_graphml
from ..vectors import VectorSource, source_of
from .nano_vectordb import write_nano_vectordb
from .stores import Doc, Piece, kv_stores, md5, write_kv_stores

FOLDER = "lightrag"


def entity_content(name: str, description: str) -> str:
    return f"{name}\n{description}"


def relation_content(keywords: list[str], source: str, target: str, description: str) -> str:
    return f"{','.join(sorted(keywords))}\t{source}\n{target}\n{description}"


@attrs.define
class LightRAGPlan:
    folder: Path
    view: EngineGraph
    docs: list[Doc]
    pieces: list[Piece]
    key_of: dict[str, str]  # graphglean chunk id -> LightRAG chunk key
    chunking: tuple[int, int]
    notes: list[str] = attrs.field(factory=list)

    @property
    def merged_edges(self) -> int:
        return self.view.merged_edges

    def texts(self) -> list[str]:
        return ([entity_content(e.name, e.description) for e in self.view.entities]
                + [relation_content(r.keywords, r.source, r.target, r.description) for r in self.view.relationships]
                + [p.content for p in self.pieces])

    def write(self, vectors: VectorSource | Mapping[str, np.ndarray], dimension: int,
              now: datetime | None = None) -> list[Path]:
        """Every file of the folder, each written as its records are made (the graph as it streams, the vectors a
        row group at a time): memory holds the plan, not a second copy of the graph nor the vectors."""
        now = now or datetime.now(timezone.utc)
        source = source_of(vectors)
        created = int(now.timestamp())
        file_of = {p.key: p.doc.file_path for p in self.pieces}
        self.folder.mkdir(parents=True, exist_ok=True)
        entities = [(e, *self._sources(e.chunk_ids, file_of)) for e in self.view.entities]
        relations = [(r, *self._sources(r.chunk_ids, file_of)) for r in self.view.relationships]
        nodes = ((e.name, {"entity_id": e.name, "entity_type": e.type, "description": e.description,
                           "source_id": sid, "file_path": path, "created_at": created, "truncate": cut})
                 for e, _, sid, path, cut in entities)
        edges = ((r.source, r.target, {"weight": float(r.weight), "description": r.description,
                                       "keywords": ",".join(sorted(r.keywords)), "source_id": sid, "file_path": path,
                                       "created_at": created, "truncate": cut})
                 for r, _, sid, path, cut in relations)
        paths = [write_lightrag_graphml(self.folder / GRAPHML, nodes, edges)]
        entity_chunks = {e.name: keys for e, keys, *_ in entities}
        relation_chunks = {(r.source, r.target): keys for r, keys, *_ in relations}
        paths += write_kv_stores(self.folder, kv_stores(self.docs, self.pieces, entity_chunks, relation_chunks,
                                                        self.chunking, now))
        records = {  # each store's records made as they are written
            "entities": (("ent-" + md5(e.name), {"entity_name": e.name,
                                                 "content": entity_content(e.name, e.description),
                                                 "source_id": sid, "file_path": path})
                         for e, _, sid, path, _ in entities),
            "relationships": (("rel-" + md5(r.source + r.target),
                               {"src_id": r.source, "tgt_id": r.target, "source_id": sid,
                                "content": relation_content(r.keywords, r.source, r.target, r.description),
                                "file_path": path}) for r, _, sid, path, _ in relations),
            "chunks": ((p.key, {"content": p.content, "full_doc_id": p.doc.key, "file_path": p.doc.file_path})
                       for p in self.pieces)}
        for name, rows in records.items():
            with_texts = ((rid, meta, meta["content"]) for rid, meta in rows)
            paths.append(write_nano_vectordb(self.folder / f"vdb_{name}.json", with_texts, source, dimension, created))
        return paths

    def _sources(self, chunk_ids: list[str], file_of: dict[str, str]) -> tuple[list[str], str, str, str]:
        """An entity's or relationship's chunk keys, and its (source_id, file_path, truncate)."""
        keys = [self.key_of[c] for c in chunk_ids if c in self.key_of]
        return (keys, *limited(keys, file_of))


def plan_lightrag(graph: nx.Graph, documents: list[Document], chunks: list[Chunk], out_dir: Path,
                  chunking: tuple[int, int]) -> LightRAGPlan:
    """What ``out_dir/lightrag`` will hold; ``chunking``: the run's chunk size and overlap, in tokens."""
    view = engine_graph(graph, lightrag_name, lightrag_type, undirected_pairs=True)
    by_id = {c.id: c for c in chunks}
    docs, pieces, key_of = [], [], {}
    for d in documents:
        file_path = posixpath.basename(d.id.replace("\\", "/")) or d.id
        key = "doc-" + md5(d.id)
        own = [by_id[c] for c in d.chunk_ids if c in by_id]
        doc = Doc(key, file_path, d.text.strip(), tuple(f"{key}-chunk-{c.index:03d}" for c in own))
        docs.append(doc)
        for c, chunk_key in zip(own, doc.chunk_keys):
            pieces.append(Piece(chunk_key, doc, c.index, c.text, c.tokens))
            key_of[c.id] = chunk_key
    return LightRAGPlan(out_dir / FOLDER, view, docs, pieces, key_of, chunking)
