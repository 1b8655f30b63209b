"""The graph pass: chunks in, one merged NetworkX graph out.

    result = await extract_graph(["some text", ...], config)       # under trio
    result = extract_graph_sync(documents, config)                # anywhere, Jupyter included
"""

from __future__ import annotations

from typing import Any, Awaitable, Callable, Iterable, Mapping

import attrs
import networkx as nx

from ..answers import answered
from ..chunking import Chunk
from ..config import Config
from ..inputs import Document, Inputs, content_id
from ..scheduler import Outcome, Scheduler
from ..tokens import Tokenizer
from .describe import summarize_descriptions
from .gleaning import ChunkExtraction, GleaningLoop, LoopCheck
from .grounding import ground
from .merge import GraphAccumulator
from .nlp import extract_chunk
from .parser import RecordParser
from .prompts import GraphPrompts
from .records import ParseResult, Provenance

PASS = "graph"


@attrs.define
class GraphStats:
    chunks: int = 0
    failed_chunks: int = 0
    records: int = 0
    entities: int = 0
    relationships: int = 0
    malformed: int = 0
    default_strengths: int = 0
    gleaning_rounds: int = 0
    checks: int = 0
    unclear_checks: int = 0
    truncated_responses: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    ungrounded: int = 0
    summarized_descriptions: int = 0
    nodes: int = 0
    edges: int = 0
    malformed_records: list[dict[str, str]] = attrs.field(factory=list)  # kept as text, with their chunk


@attrs.define
class GraphExtractionResult:
    output: nx.Graph
    source_docs: dict[str, str]
    stats: GraphStats
    extractions: dict[str, ChunkExtraction] = attrs.field(factory=dict)
    failed: list[Outcome[Chunk, Any]] = attrs.field(factory=list)


def parse_extraction(extraction: ChunkExtraction, chunk: Chunk, parser: RecordParser) -> ParseResult:
    """All records of one chunk's responses, stamped with the chunk's provenance."""
    result = ParseResult()
    src = Provenance(chunk.doc_id, chunk.index, chunk.id, 0)
    for response in extraction.responses:
        result.extend(parser.parse(response, src, first_position=result.records + len(result.malformed)))
    return result


def _as_inputs(inputs: Any) -> Inputs:
    if isinstance(inputs, Inputs):
        return inputs
    items = [inputs] if isinstance(inputs, str) else list(inputs)
    return Inputs(documents=[d if isinstance(d, Document) else Document(content_id(d), d, "<text>")
                             for d in items if not isinstance(d, Chunk)],
                  chunks=[c for c in items if isinstance(c, Chunk)])


def _chunks_of(inputs: Any, cfg: Config, tokenizer: Tokenizer) -> tuple[list[Chunk], dict[str, str]]:
    given = _as_inputs(inputs)
    chunks = given.all_chunks(tokenizer, cfg.chunking.size, cfg.chunking.overlap)
    sources = {d.id: d.text for d in given.documents}
    for c in chunks:
        sources.setdefault(c.doc_id, c.text)
    return chunks, sources


SaveFn = Callable[[Chunk, ChunkExtraction], Awaitable[None]]


async def extract_chunks(chunks: list[Chunk], cfg: Config, scheduler: Scheduler, *,
                         done: Mapping[str, ChunkExtraction] | None = None,
                         save: SaveFn | None = None) -> tuple[dict[str, ChunkExtraction], list[Outcome[Chunk, Any]]]:
    """Run the gleaning loop over every chunk not in ``done``; ``save`` is awaited as each one finishes, unless
    an answer of it was a refusal: such a chunk is used now and asked again by a later run. Any other answer,
    even one no record can be read from yet, is a real one: it is kept, and parsed again by later versions."""
    done = dict(done or {})
    llm = scheduler.llm(PASS)
    loop = GleaningLoop(llm, GraphPrompts.from_config(cfg.graph), cfg.graph.max_gleanings,
                        LoopCheck(llm, cfg.llm.provider, cfg.llm.base_url, cfg.llm.logit_bias_ids),
                        cfg.llm.max_tokens, valid=answered)

    async def one(chunk: Chunk) -> ChunkExtraction:
        return await loop.run(chunk.id, chunk.text)

    async def on_result(outcome: Outcome[Chunk, ChunkExtraction]) -> None:
        if outcome.ok and save is not None and all(map(answered, outcome.value.responses)):  # type: ignore[union-attr]
            await save(outcome.item, outcome.value)  # type: ignore[arg-type]

    todo = [c for c in chunks if c.id not in done]
    outcomes = await scheduler.map(one, todo, pass_name=PASS, on_result=on_result)
    done.update({o.item.id: o.value for o in outcomes if o.ok})
    return done, [o for o in outcomes if not o.ok]


def accumulate(chunks: list[Chunk], extractions: Mapping[str, ChunkExtraction] | None, cfg: Config,
               stats: GraphStats) -> GraphAccumulator:
    """Parse every chunk's answers (``extractions`` None = offline method) and merge the records."""
    g = cfg.graph
    parser = RecordParser(g.tuple_delimiter, g.record_delimiter, g.completion_delimiter, tuple(g.entity_types))
    acc = GraphAccumulator(g.directed)
    for chunk in chunks:
        if extractions is None:
            parsed = extract_chunk(chunk)
        elif chunk.id in extractions:
            ex = extractions[chunk.id]
            parsed = parse_extraction(ex, chunk, parser)
            stats.gleaning_rounds += ex.rounds
            stats.checks += ex.checks
            stats.truncated_responses += ex.truncated
            stats.unclear_checks += ex.unclear
            stats.prompt_tokens += ex.prompt_tokens
            stats.completion_tokens += ex.completion_tokens
        else:
            continue
        stats.records += parsed.records
        stats.entities += len(parsed.entities)
        stats.relationships += len(parsed.relationships)
        stats.malformed += len(parsed.malformed)
        stats.default_strengths += parsed.default_strengths
        stats.malformed_records += [{"chunk_id": chunk.id, "text": m} for m in parsed.malformed]
        acc.add(parsed)
    return acc


async def finish_graph(graph: nx.Graph, chunks: Mapping[str, Chunk], cfg: Config, scheduler: Scheduler | None,
                       tokenizer: Tokenizer, stats: GraphStats) -> nx.Graph:
    """Summarize long descriptions (when a ``scheduler`` is given) and ground the nodes of a merged graph."""
    if scheduler is not None:
        stats.summarized_descriptions += await summarize_descriptions(
            graph, scheduler, tokenizer, cfg.graph.description_max_tokens, cfg.graph.language)
    stats.ungrounded += ground(graph, chunks, cfg.graph.drop_ungrounded)
    return graph


async def build_graph(chunks: list[Chunk], extractions: Mapping[str, ChunkExtraction] | None, cfg: Config,
                      scheduler: Scheduler | None, tokenizer: Tokenizer, stats: GraphStats) -> nx.Graph:
    """Parse, merge, summarize long descriptions (LLM method), ground. ``extractions`` None = offline method."""
    graph = accumulate(chunks, extractions, cfg, stats).to_graph()
    await finish_graph(graph, {c.id: c for c in chunks}, cfg, scheduler if extractions is not None else None,
                       tokenizer, stats)
    stats.nodes, stats.edges = graph.number_of_nodes(), graph.number_of_edges()
    return graph


async def extract_graph(inputs: str | Iterable[str | Document | Chunk] | Inputs, config: Config | None = None, *,
                        scheduler: Scheduler | None = None, method: str | None = None) -> GraphExtractionResult:
    """Extract one merged graph from texts, documents or chunks. Under trio.

    ``method`` overrides ``config.graph.method``: ``llm`` or ``nlp`` (``auto`` picks llm when an endpoint is
    configured). Without a ``scheduler`` one is made from ``config.llm`` for this call.
    """
    cfg = config or Config()
    tokenizer = Tokenizer(cfg.llm.model)
    chunks, sources = _chunks_of(inputs, cfg, tokenizer)
    chosen = method or cfg.graph.method
    if chosen == "auto":
        chosen = "llm" if cfg.llm.has_endpoint else "nlp"
    if chosen == "nlp":
        stats = GraphStats(chunks=len(chunks))
        graph = await build_graph(chunks, None, cfg, None, tokenizer, stats)
        return GraphExtractionResult(graph, sources, stats)
    if scheduler is None:
        from ..llm.client import ChatClient

        async with ChatClient.from_config(cfg.llm, count_tokens=tokenizer.count) as client:
            return await extract_with_llm(chunks, sources, cfg, Scheduler(client, fail_fast=cfg.fail_fast), tokenizer)
    return await extract_with_llm(chunks, sources, cfg, scheduler, tokenizer)


async def extract_with_llm(chunks: list[Chunk], sources: dict[str, str], cfg: Config, scheduler: Scheduler,
                           tokenizer: Tokenizer, *, done: Mapping[str, ChunkExtraction] | None = None,
                           save: SaveFn | None = None) -> GraphExtractionResult:
    """Glean every chunk not ``done`` (``save`` stores each as it finishes), then build the graph."""
    extractions, failed = await extract_chunks(chunks, cfg, scheduler, done=done, save=save)
    stats = GraphStats(chunks=len(chunks), failed_chunks=len(failed))
    graph = await build_graph(chunks, extractions, cfg, scheduler, tokenizer, stats)
    return GraphExtractionResult(graph, sources, stats, extractions, failed)


def extract_graph_sync(inputs: Any, config: Config | None = None, **kw: Any) -> GraphExtractionResult:
    """`extract_graph` from synchronous code, including a Jupyter cell where an asyncio loop is running."""
    from ..sync import run_sync

    return run_sync(extract_graph, inputs, config, **kw)
