"""Similarity search over stored messages or summaries: cosine similarity with numpy, optional MMR."""

from __future__ import annotations

from typing import Any, Awaitable, Callable, Literal

import attrs
import numpy as np
import trio

from .store import MemoryStore

Embed = Callable[[list[str]], Awaitable[Any]]


@attrs.frozen
class SearchResult:
    uuid: str
    score: float
    content: str
    metadata: dict[str, Any]
    role: str = ""


class VectorIndex:
    """Normalized vectors of one session and scope, kept in memory until the store's vectors change."""

    def __init__(self, store: MemoryStore) -> None:
        self.store = store
        self._cache: dict[tuple[str, str], tuple[int, list[str], np.ndarray]] = {}

    def matrix(self, session_id: str, table: str) -> tuple[list[str], np.ndarray]:
        key = (session_id, table)
        hit = self._cache.get(key)
        if hit is not None and hit[0] == self.store.version:
            return hit[1], hit[2]
        ids, vectors = self.store.vectors(session_id, table)
        if len(ids):
            norms = np.linalg.norm(vectors, axis=1, keepdims=True)
            vectors = vectors / np.where(norms == 0, 1, norms)
        self._cache[key] = (self.store.version, ids, vectors)
        return ids, vectors


def _matches(metadata: dict[str, Any], wanted: dict[str, Any]) -> bool:
    """Each dotted key (``system.intent``) equals the wanted value, or contains it when it is a list."""
    for dotted, value in wanted.items():
        node: Any = metadata
        for part in dotted.split("."):
            node = node.get(part) if isinstance(node, dict) else None
        if not (node == value or (isinstance(node, list) and value in node)):
            return False
    return True


def mmr(query: np.ndarray, candidates: np.ndarray, limit: int, lam: float) -> list[int]:
    """Maximal marginal relevance: ``lam`` weighs relevance to the query against novelty."""
    relevance = candidates @ query
    chosen: list[int] = []
    left = list(range(len(candidates)))
    while left and len(chosen) < limit:
        if chosen:
            redundancy = (candidates[left] @ candidates[chosen].T).max(axis=1)
        else:
            redundancy = np.zeros(len(left))
        scores = lam * relevance[left] - (1 - lam) * redundancy
        best = left[int(np.argmax(scores))]
        chosen.append(best)
        left.remove(best)
    return chosen


async def search(store: MemoryStore, embed: Embed, session_id: str, text: str,
                 scope: Literal["messages", "summary"] = "messages", limit: int = 10,
                 metadata_filter: dict[str, Any] | None = None, mmr_lambda: float | None = None,
                 index: VectorIndex | None = None) -> list[SearchResult]:
    """The stored messages (or summaries) of ``session_id`` most similar to ``text``, best first.
    ``embed`` is e.g. ``scheduler.llm("search").embed``."""
    table = "messages" if scope == "messages" else "summaries"
    index = index or VectorIndex(store)
    ids, matrix = await trio.to_thread.run_sync(index.matrix, session_id, table)
    if not ids:
        return []
    query = np.asarray((await embed([text])).vectors[0], dtype=np.float32)
    query /= np.linalg.norm(query) or 1.0
    rows = await trio.to_thread.run_sync(store.get, ids, table) if metadata_filter else None
    if metadata_filter:
        keep = np.array([i for i, u in enumerate(ids) if u in rows and _matches(rows[u].metadata, metadata_filter)],
                        dtype=int)
        if not len(keep):
            return []
        ids, matrix = [ids[i] for i in keep], matrix[keep]
    scores = matrix @ query  # no copy of the matrix on the unfiltered path: it is the whole cost
    k = min(limit if mmr_lambda is None else limit * 5, len(ids))
    part = np.argpartition(-scores, k - 1)[:k]
    order = list(part[np.argsort(-scores[part])])
    if mmr_lambda is not None:
        order = [order[i] for i in mmr(query, matrix[order], limit, mmr_lambda)]
    picked = [ids[i] for i in order]
    found = rows if rows is not None else await trio.to_thread.run_sync(store.get, picked, table)
    out = []
    for i, uuid in zip(order, picked):
        item = found[uuid]
        out.append(SearchResult(uuid, float(scores[i]), item.content, item.metadata, getattr(item, "role", "")))
    return out
