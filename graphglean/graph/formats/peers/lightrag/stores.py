"""LightRAG 1.5's key-value stores (`JsonKVStorage`, `JsonDocStatusStorage`: one JSON object per file, records
by key) as its own insert leaves them for processed documents: the documents (``full_docs``) and their
status (``doc_status``), the text chunks, which chunks each entity and relationship came from
(``entity_chunks``, ``relation_chunks``), and which entities and relationships each document gave
(``full_entities``, ``full_relations``: what LightRAG's deletion of a document reads)."""

from __future__ import annotations

import hashlib
import json
from datetime import datetime
from pathlib import Path
from typing import Any, Iterable, Iterator

import attrs

from .....core.atomic import atomic_open

SEP = "<SEP>"  # lightrag.constants.GRAPH_FIELD_SEP
SUMMARY_CHARS = 250  # lightrag.utils.get_content_summary


def md5(text: str) -> str:
    return hashlib.md5(text.encode("utf-8")).hexdigest()


@attrs.frozen
class Doc:
    key: str  # "doc-" + md5 of its file name, as LightRAG keys a document inserted with one
    file_path: str
    content: str
    chunk_keys: tuple[str, ...]


@attrs.frozen
class Piece:
    """A text chunk: its key is the document's key and its position (`lightrag.utils_pipeline`)."""

    key: str
    doc: Doc
    order: int
    content: str
    tokens: int


def _stamped(key: str, record: dict[str, Any], now: int) -> dict[str, Any]:
    return {**record, "create_time": now, "update_time": now, "_id": key}


def _chunk_options(size: int, overlap: int) -> dict[str, Any]:
    return {"chunk_token_size": size, "fixed_token": {"split_by_character": None, "split_by_character_only": False,
                                                      "chunk_overlap_token_size": overlap}}


def kv_stores(docs: list[Doc], pieces: list[Piece], entity_chunks: dict[str, list[str]],
              relation_chunks: dict[tuple[str, str], list[str]], chunking: tuple[int, int],
              now: datetime) -> Iterator[tuple[str, dict[str, Any]]]:
    """Each store's records, by file name (``kv_store_NAME.json``), made one store at a time (the next when the
    last is written: a corpus's stores are never all in memory at once)."""
    t, iso = int(now.timestamp()), now.isoformat()
    size, overlap = chunking
    yield "full_docs", {d.key: _stamped(d.key, {"content": d.content, "file_path": d.file_path, "parse_format": "raw",
                                                "content_hash": md5(d.content),
                                                "chunk_options": _chunk_options(size, overlap)}, t) for d in docs}
    yield "text_chunks", {p.key: _stamped(p.key, {"tokens": p.tokens, "content": p.content,
                                                  "chunk_order_index": p.order, "full_doc_id": p.doc.key,
                                                  "file_path": p.doc.file_path, "llm_cache_list": []}, t)
                          for p in pieces}
    metadata = {"parse_start_time": t, "parse_stage_skipped": True, "parse_format": "raw", "parse_engine": "legacy",
                "analyzing_start_time": t, "analyzing_stage_skipped": True, "kg_write_state": "graph_mutation_started",
                "process_start_time": t, "process_end_time": t, "chunk_method": "legacy_chunking_func",
                "chunk_opts": f"size={size}, split_only=False, overlap={overlap}"}
    track = "graphglean_" + now.strftime("%Y%m%d_%H%M%S")
    yield "doc_status", {d.key: {"status": "processed", "content_summary": _summary(d.content),
                                 "content_length": len(d.content), "created_at": iso, "updated_at": iso,
                                 "file_path": d.file_path, "track_id": track, "content_hash": md5(d.content),
                                 "metadata": dict(metadata), "chunks_count": len(d.chunk_keys),
                                 "chunks_list": list(d.chunk_keys)} for d in docs}
    yield "entity_chunks", {n: _stamped(n, {"chunk_ids": keys, "count": len(keys)}, t)
                            for n, keys in entity_chunks.items()}
    yield "relation_chunks", {SEP.join(pair): _stamped(SEP.join(pair), {"chunk_ids": keys, "count": len(keys)}, t)
                              for pair, keys in relation_chunks.items()}
    doc_of = {p.key: p.doc.key for p in pieces}
    by_doc_entities: dict[str, set[str]] = {}
    for name, keys in entity_chunks.items():
        for k in keys:
            by_doc_entities.setdefault(doc_of[k], set()).add(name)
    yield "full_entities", {d: _stamped(d, {"entity_names": sorted(names), "count": len(names)}, t)
                            for d, names in by_doc_entities.items()}
    del by_doc_entities
    by_doc_relations: dict[str, set[tuple[str, str]]] = {}
    for pair, keys in relation_chunks.items():
        for k in keys:
            by_doc_relations.setdefault(doc_of[k], set()).add(pair)
    yield "full_relations", {d: _stamped(d, {"relation_pairs": [list(p) for p in sorted(pairs)], "count": len(pairs)},
                                         t) for d, pairs in by_doc_relations.items()}


def _summary(content: str) -> str:
    content = content.strip()
    return content if len(content) <= SUMMARY_CHARS else content[:SUMMARY_CHARS] + "..."


def write_kv_stores(folder: Path, stores: Iterable[tuple[str, dict[str, Any]]]) -> list[Path]:
    paths = []
    for name, records in stores:
        path = folder / f"kv_store_{name}.json"
        with atomic_open(path) as f:
            json.dump(records, f, ensure_ascii=False, indent=2)
        paths.append(path)
        del records  # before the next store is made
    return paths
