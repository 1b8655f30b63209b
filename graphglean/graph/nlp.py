"""The offline graph method (``graph.method: nlp``): spaCy named entities where spaCy and an English model
are installed, else the rule-based fallback with a notice saying how to get the better method. Its records go
through the same merge and grounding as the LLM method's."""

from __future__ import annotations

import functools
from typing import Callable

import attrs
import networkx as nx
import trio

from ..chunking import Chunk
from ..config import GraphConfig
from ..spacy_pipeline import INSTALL_HINT, load_pipeline, model_name
from ..tokens import Tokenizer
from .nlp_heuristic import extract_chunk
from .span_names import case_evidence
from .nlp_spacy import SpacyGraphExtractor
from .records import ParseResult

FALLBACK_NOTICE = ("graph.method nlp: spaCy or its English model is not installed, so entities are capitalized "
                   f"phrases found by rules; for typed named entities: {INSTALL_HINT}")
CHUNKS_PER_THREAD_CALL = 64  # a cancelled run stops between these


@attrs.frozen
class OfflineExtraction:
    results: list[ParseResult]  # one per chunk, in order
    backend: str  # "spacy <model> <version>" or "rules"


def _rules(chunks: list[Chunk]) -> list[ParseResult]:
    return [extract_chunk(c) for c in chunks]


async def extract_offline(chunks: list[Chunk], cfg: GraphConfig,
                          notice: Callable[[str], None]) -> OfflineExtraction:
    """Records of every chunk without an LLM; the parsing runs in worker threads, in batches of chunks."""
    nlp = await trio.to_thread.run_sync(functools.partial(load_pipeline, cfg.nlp_model, "graph.nlp_model",
                                                          sentences=True))
    if nlp is None:
        notice(FALLBACK_NOTICE)
        extract, backend = _rules, "rules"
    else:
        evidence = await trio.to_thread.run_sync(case_evidence, chunks)
        extract, backend = SpacyGraphExtractor(nlp, cfg, evidence).extract, f"spacy {model_name(nlp)}"
    results: list[ParseResult] = []
    for i in range(0, len(chunks), CHUNKS_PER_THREAD_CALL):
        results += await trio.to_thread.run_sync(extract, chunks[i:i + CHUNKS_PER_THREAD_CALL])
    return OfflineExtraction(results, backend)


def fit_quotes(graph: nx.Graph, tokenizer: Tokenizer, budget: int) -> None:
    """Cut each node's and edge's descriptions (quotes, in order of appearance) to the first ones that fit in
    ``budget`` tokens together; a first quote longer than the budget is cut short with an ellipsis."""
    for _, data in graph.nodes(data=True):
        _fit(data, tokenizer, budget)
    for _, _, data in graph.edges(data=True):
        _fit(data, tokenizer, budget)


def _fit(data: dict, tokenizer: Tokenizer, budget: int) -> None:
    kept: list[str] = []
    used = 0
    for text in data.get("descriptions", []):
        n = tokenizer.count(text) + 1  # + the line break that joins them
        if used + n > budget:
            if not kept:
                kept.append(tokenizer.truncate(text, max(budget - 1, 1)).rstrip() + "…")
            break
        kept.append(text)
        used += n
    data["descriptions"] = kept
    data["description"] = "\n".join(kept)
