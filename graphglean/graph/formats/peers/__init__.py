"""Indexes the peers' own query engines read: a GraphRAG 3.3 project and a LightRAG 1.5 working directory."""

from .communities import Communities, read_communities
from .vectors import VectorMemo
from .write import PEER_FORMATS, PeerOutcome, write_peer_indexes

__all__ = ["PEER_FORMATS", "Communities", "PeerOutcome", "VectorMemo", "read_communities", "write_peer_indexes"]
