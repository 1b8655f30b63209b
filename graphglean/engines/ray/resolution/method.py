"""Which tiers a partitioned resolution runs, as the local graph pass chooses them."""

from __future__ import annotations

from ....core.config import Config
from ....graph.resolution.resolve import run_method


def llm_graph(cfg: Config) -> bool:
    """The graph is built with the LLM (so its long descriptions are summarized)."""
    return cfg.graph.method == "llm" or (cfg.graph.method == "auto" and cfg.llm.has_endpoint)


def method_of(cfg: Config) -> str:
    """rules or llm, as the local graph pass chooses."""
    return run_method(cfg, offline=not llm_graph(cfg))


def embedded(cfg: Config) -> bool:
    """Whether nodes are embedded (as the local llm method does with ``embeddings``)."""
    return method_of(cfg) == "llm" and cfg.graph.resolve.embeddings
