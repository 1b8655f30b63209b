"""Asking the graph a run wrote (``graphglean query``): `query` answers a question from an output folder, local
(the entities it names or resembles, their relationships, their source sentences) or global (a map-reduce over
the community reports), citing its sources. Not `graphglean.search`, the similarity search over enriched chat
messages."""

from .ask import QueryResult, query, query_sync

__all__ = ["QueryResult", "query", "query_sync"]
