"""graphglean: text to entity graphs, episodic facts, summaries and enriched chat memory, with an LLM.

The public API, importable from here (each name is loaded on first use, so ``import graphglean`` stays light):

    from graphglean import Config, load_config, run_sync, extract_graph_sync, query_sync
    cfg = load_config("config.yaml")          # or Config() and set its fields
    result = run_sync(cfg)                     # every pass the config enables; outputs in cfg.output.dir
    graph = extract_graph_sync(["Ada Lovelace wrote to Charles Babbage."], cfg).output
    answer = query_sync("output", "Who is Ada Lovelace?").formatted()   # ask the graph a run wrote
"""

from __future__ import annotations

from importlib import import_module
from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING, Any

try:
    __version__ = version("graphglean")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+source"

# public name -> the module that defines it
_PUBLIC = {
    "Config": "core.config", "load_config": "core.config_loader",
    "GraphgleanError": "core.errors", "ConfigError": "core.errors", "InputError": "core.errors",
    "LLMError": "core.errors", "LLMAuthError": "core.errors", "LLMRequestError": "core.errors",
    "LLMModelError": "core.errors", "LLMParameterError": "core.errors", "LLMUnreachableError": "core.errors",
    "LLMAnswerError": "core.errors",
    "run": "launch", "run_sync": "launch", "RunResult": "launch",
    "extract_graph": "graph.extract", "extract_graph_sync": "graph.extract",
    "resolve_entities": "graph.resolution.resolve", "resolve_entities_sync": "graph.resolution.resolve",
    "find_communities": "graph.communities.detect", "report_communities": "graph.communities.reporting",
    "report_communities_sync": "graph.communities.reporting",
    "summarize": "summaries", "ProgressiveSummarizer": "summaries",
    "EpisodicGistExtraction": "episodic",
    "Enricher": "enrich", "MemoryStore": "enrich", "search": "enrich",
    "query": "queries", "query_sync": "queries", "QueryResult": "queries",
    "Scheduler": "scheduling.scheduler", "ChatClient": "llm.client",
}
__all__ = ["ChatClient", "Config", "ConfigError", "Enricher", "EpisodicGistExtraction", "GraphgleanError",
           "InputError", "LLMAnswerError", "LLMAuthError", "LLMError", "LLMModelError", "LLMParameterError",
           "LLMRequestError", "LLMUnreachableError", "MemoryStore", "ProgressiveSummarizer", "QueryResult",
           "RunResult", "Scheduler",
           "extract_graph", "extract_graph_sync", "find_communities", "load_config", "query", "query_sync",
           "report_communities", "report_communities_sync", "resolve_entities", "resolve_entities_sync", "run",
           "run_sync", "search", "summarize"]


def __getattr__(name: str) -> Any:
    module = _PUBLIC.get(name)
    if module is None:
        raise AttributeError(f"module 'graphglean' has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_PUBLIC])


if TYPE_CHECKING:  # what type checkers and editors see
    from .core.config import Config
    from .core.config_loader import load_config
    from .core.errors import (
        ConfigError,
        GraphgleanError,
        InputError,
        LLMAnswerError,
        LLMAuthError,
        LLMError,
        LLMModelError,
        LLMParameterError,
        LLMRequestError,
        LLMUnreachableError,
    )
    from .enrich import Enricher, MemoryStore, search
    from .episodic import EpisodicGistExtraction
    from .graph.communities.detect import find_communities
    from .graph.communities.reporting import report_communities, report_communities_sync
    from .graph.extract import extract_graph, extract_graph_sync
    from .graph.resolution.resolve import resolve_entities, resolve_entities_sync
    from .launch import RunResult, run, run_sync
    from .queries import QueryResult, query, query_sync
    from .llm.client import ChatClient
    from .scheduling.scheduler import Scheduler
    from .summaries import ProgressiveSummarizer, summarize
