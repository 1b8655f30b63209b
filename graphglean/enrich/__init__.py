"""Zep-style enrichment of chat messages: an embedded SQLite store, background enrichment on the shared
scheduler (token counts, intents, entities with exact offsets, embeddings, progressive summaries), and
cosine/MMR similarity search."""

from .enricher import Enricher
from .search import SearchResult, search
from .store import MemoryStore, StoredMessage, StoredSummary

__all__ = ["Enricher", "MemoryStore", "SearchResult", "StoredMessage", "StoredSummary", "search"]
