"""The graph pass: chunks in, one merged NetworkX graph out.

    result = await extract_graph(["some text", ...], config)       # under trio
    result = extract_graph_sync(documents, config)                # anywhere, Jupyter included
"""

from __future__ import annotations

import functools
import warnings
from typing import Any, Awaitable, Callable, Iterable, Mapping, Protocol

import attrs
import networkx as nx
import trio

from ..core.answers import answered
from ..core.config import Config
from ..core.errors import Contained, LLMAnswerError
from ..core.sync import entry_point, run_sync
from ..core.tokens import Tokenizer
from ..llm.model_limits.completion_cap import CompletionCap
from ..scheduling.scheduler import Outcome, Scheduler
from ..text.chunking import Chunk
from ..text.inputs import Document, Inputs, content_id
from .building.describe import PASS as DESCRIBE
from .building.describe import SummaryMemo, summarize_descriptions
from .building.echoes import Examples, drop_echoed_records, drop_echoes
from .building.grounding import ground
from .building.merge import GraphAccumulator
from .building.profile_memo import ProfileMemo
from .building.stream import DescriptionStream
from .extraction.chunk_extraction import ChunkExtraction
from .extraction.debris import clean_names, restore_names, snap_endpoints
from .extraction.gleaning import LoopCheck
from .extraction.parser import RecordParser
from .extraction.workload import chunk_weight
from .offline.nlp import OfflineExtraction, extract_offline, fit_quotes
from .records import ParseResult, Provenance
from .resolution.profiles import profile_of
from .resolution.resolve import AnswerMemo, asks_llm, resolve_entities, run_method
from .schema.extraction import chunk_extractor, hold_to_schema
from .schema.extraction import record_parser as record_parser
from .schema.reader import SchemaParser
from .schema.structured import FormatMemo, StructuredExtraction
from .stats import GraphStats

PASS = "graph"


@attrs.define
class GraphExtractionResult:
    output: nx.Graph
    source_docs: dict[str, str]
    stats: GraphStats
    extractions: dict[str, ChunkExtraction] = attrs.field(factory=dict)
    failed: list[Outcome[Chunk, Any]] = attrs.field(factory=list)


def parse_extraction(extraction: ChunkExtraction, chunk: Chunk, parser: RecordParser,
                     examples: Examples | None = None) -> ParseResult:
    """All records of one chunk's responses, stamped with the chunk's provenance; no name keeps a piece of the
    answer's format that the chunk's text does not hold (`clean_names`), nor is one of the prompt's
    ``examples`` echoed where the chunk does not hold it (`drop_echoed_records`)."""
    result = ParseResult()
    src = Provenance(chunk.doc_id, chunk.index, chunk.id, 0)
    for i, response in enumerate(extraction.responses):
        result.extend(parser.parse(response, src, first_position=result.examined, truncated=extraction.is_cut(i)))
    clean_names(result, chunk.text)
    restore_names(result, chunk.text)
    snap_endpoints(result)
    if examples is not None:
        drop_echoed_records(result, chunk.text, examples)
    if isinstance(parser, SchemaParser):
        parser.conform(result, chunk.id)
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


class SaveFn(Protocol):
    """How a chunk's extraction is stored as it finishes: queued at once, awaited only now and then (waiting
    for each one's transaction cost each chunk a shield scope and a trip through the scheduler): the call
    returns what to await, or None; ``settle`` returns once the queued ones are written."""

    def __call__(self, chunk: Chunk, extraction: ChunkExtraction) -> Awaitable[None] | None: ...

    async def settle(self) -> None: ...


async def extract_chunks(chunks: list[Chunk], cfg: Config, scheduler: Scheduler, *,
                         done: Mapping[str, ChunkExtraction] | None = None, save: SaveFn | None = None,
                         stream: DescriptionStream | None = None, yes_no: dict[str, Any] | None = None,
                         structured: dict[str, Any] | None = None, format_memo: FormatMemo | None = None,
                         ) -> tuple[dict[str, ChunkExtraction], list[Outcome[Chunk, Any]]]:
    """Run the gleaning loop over every chunk not in ``done``; ``save`` is awaited as each one finishes, unless
    an answer of it was a refusal: such a chunk is used now and asked again by a later run. Any other answer,
    even one no record can be read from yet, is a real one: it is kept, and parsed again by later versions.
    ``stream`` is given each chunk's records as soon as they are known; ``yes_no`` is told how the gleaning
    checks were asked (logit bias with which ids, or read leniently) and why; ``structured`` which format the
    extraction asked for under a schema (JSON or the tuple format), and why (``format_memo`` keeps that
    decision across invocations)."""
    done = dict(done or {})
    parser, examples = record_parser(cfg.graph), Examples.of(cfg.graph)
    if stream is not None:
        await stream.add([(c, functools.partial(parse_extraction, done[c.id], c, parser, examples))
                          for c in chunks if c.id in done])
    llm = scheduler.llm(PASS)
    todo = [c for c in chunks if c.id not in done]
    caps = await CompletionCap.served(cfg.llm, llm.client) if todo else CompletionCap.of(cfg.llm)
    check = LoopCheck(llm, cfg.llm.provider, cfg.llm.base_url, cfg.llm.logit_bias_ids, yes_no)
    loop = chunk_extractor(llm, cfg, check, caps, Tokenizer(cfg.llm.model).count, answered,
                           {} if structured is None else structured, format_memo)
    weights = {c.id: chunk_weight(c) for c in todo}
    if isinstance(loop, StructuredExtraction) and todo:  # the chunk the scheduler starts first probes the format
        loop.choice.probe_chunk = max(todo, key=lambda c: weights[c.id]).id

    async def one(chunk: Chunk) -> ChunkExtraction:
        return await loop.run(chunk.id, chunk.text)

    def on_result(outcome: Outcome[Chunk, ChunkExtraction]) -> Awaitable[None] | None:
        if not outcome.ok:
            return None
        waits: list[Awaitable[None] | None] = []
        # stored first: the answers are paid for, whatever reading them does
        if save is not None and all(map(answered, outcome.value.responses)):  # type: ignore[union-attr]
            waits.append(save(outcome.item, outcome.value))  # type: ignore[arg-type]
        if stream is not None:
            waits.append(stream.add([(outcome.item, functools.partial(parse_extraction, outcome.value, outcome.item,
                                                                      parser, examples))]))
        return _each([w for w in waits if w is not None])

    outcomes = await scheduler.map(one, todo, pass_name=PASS, on_result=on_result, weight=lambda c: weights[c.id],
                                   group=lambda c: c.doc_id)
    if save is not None:
        await save.settle()
    done.update({o.item.id: o.value for o in outcomes if o.ok})
    return done, [o for o in outcomes if not o.ok]


def cut_chunks(failed: list[Outcome[Chunk, Any]]) -> int:
    """The failed chunks whose answers ended cut, kept as they were, with no record (`GleaningLoop`)."""
    return sum(isinstance(o.error, LLMAnswerError) for o in failed)


def _each(waits: list[Awaitable[None]]) -> Awaitable[None] | None:
    """One awaitable for ``waits`` (None when there is none)."""
    if len(waits) < 2:
        return waits[0] if waits else None

    async def all_of() -> None:
        for w in waits:
            await w
    return all_of()


def _warn(message: str) -> None:
    warnings.warn(message, stacklevel=2)


async def build_graph(chunks: list[Chunk], extractions: Mapping[str, ChunkExtraction] | None, cfg: Config,
                      scheduler: Scheduler | None, tokenizer: Tokenizer, stats: GraphStats,
                      notice: Callable[[str], None] = _warn, memo: AnswerMemo | None = None,
                      summaries: SummaryMemo | None = None,
                      known: Mapping[tuple[str, int, str], ParseResult] | None = None,
                      offline_done: OfflineExtraction | None = None,
                      merged: GraphAccumulator | None = None, profiles: ProfileMemo | None = None) -> nx.Graph:
    """Parse (unless ``known``, by document, index and chunk id), merge (unless ``merged`` holds the records of
    ``extractions`` merged already), resolve entities (``memo`` keeps the LLM tier's answers; ``profiles``
    holds nodes' profiles made earlier), ground, summarize long descriptions (LLM method; ``summaries`` holds
    calls already made). ``extractions`` None = offline method, whose records are ``offline_done`` when given
    (``notice`` tells when it falls back to rules). Parsing, merging and grounding take seconds for a large
    run: they run in a worker thread, so that the requests of other passes keep flowing meanwhile."""
    offline = None
    if extractions is None:
        extraction = offline_done or await extract_offline(chunks, cfg.graph, notice)
        offline, stats.offline_backend = extraction.results, extraction.backend
    graph = await trio.to_thread.run_sync(parse_and_merge, chunks, extractions, cfg, stats, offline, known, merged,
                                          abandon_on_cancel=True)
    if cfg.graph.resolve.enabled:
        with Contained("graph.resolve", "graph.resolve.enabled: false skips it", stats.failed_stages,
                       "the graph is written unresolved"):
            graph = await _resolve_stage(graph, cfg, scheduler, stats, memo, profiles)
    await finish_graph(graph, {c.id: c for c in chunks}, cfg, scheduler, tokenizer, stats,
                       offline=offline is not None, summaries=summaries)
    stats.nodes, stats.edges = graph.number_of_nodes(), graph.number_of_edges()
    return graph


async def _resolve_stage(graph: nx.Graph, cfg: Config, scheduler: Scheduler | None, stats: GraphStats,
                         memo: AnswerMemo | None, profiles: ProfileMemo | None = None) -> nx.Graph:
    # a scheduler is given for a graph the LLM built (or when method: llm asks it for an offline one)
    resolution = await resolve_entities(graph, cfg, scheduler, method=run_method(cfg, offline=scheduler is None),
                                        memo=memo, profile=profile_of if profiles is None else profiles.profile)
    stats.resolution = attrs.asdict(resolution.stats)
    stats.failed_stages += resolution.failed  # a failed batch is a failed item: listed, exit 1
    stats.resolution_log = resolution.log
    return resolution.graph


def parse_and_merge(chunks: list[Chunk], extractions: Mapping[str, ChunkExtraction] | None, cfg: Config,
                    stats: GraphStats, offline: list[ParseResult] | None = None,
                    known: Mapping[tuple[str, int, str], ParseResult] | None = None,
                    merged: GraphAccumulator | None = None) -> nx.Graph:
    """The merged graph of every chunk's records (see `accumulate`)."""
    return accumulate(chunks, extractions, cfg, stats, offline, known, merged).to_graph()


def accumulate(chunks: list[Chunk], extractions: Mapping[str, ChunkExtraction] | None, cfg: Config,
               stats: GraphStats, offline: list[ParseResult] | None = None,
               known: Mapping[tuple[str, int, str], ParseResult] | None = None,
               merged: GraphAccumulator | None = None) -> GraphAccumulator:
    """Every chunk's records, merged: parsed from ``extractions`` (LLM method; ``known`` are parsed already),
    or the offline method's ``offline`` results, one per chunk. ``merged`` holds them merged already (the
    description stream merged each chunk as it finished: the merge does not depend on order): only counted."""
    parser, examples = record_parser(cfg.graph), Examples.of(cfg.graph)
    given = iter(offline) if offline is not None else None
    acc = merged if merged is not None else GraphAccumulator(cfg.graph.directed)
    for chunk in chunks:
        if given is not None:
            parsed = next(given)
        elif extractions is not None and chunk.id in extractions:
            ex = extractions[chunk.id]
            parsed = (known or {}).get((chunk.doc_id, chunk.index, chunk.id)) or _parsed(ex, chunk, parser, examples,
                                                                                        stats)
            if parsed is None:
                continue
            stats.gleaning_rounds += ex.rounds
            stats.checks += ex.checks
            stats.truncated_responses += ex.truncated
            stats.continued_answers += sum(1 for joins in ex.joins if joins)
            stats.continuations += ex.continued
            stats.continuation_saved_tokens += ex.saved_tokens
            stats.raised_caps += ex.raised
            stats.split_passages += ex.splits
            stats.repetition_loops += ex.loops
            stats.outgrown_windows += ex.outgrown
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
        stats.cut_records += len(parsed.cut)
        stats.repeated_records += parsed.repeated
        stats.placeholder_rows += parsed.placeholders
        stats.echoed_examples += parsed.echoed
        stats.reasoning_records += parsed.reasoning_records
        stats.repaired_names += parsed.repaired_names
        stats.malformed_records += [{"chunk_id": chunk.id, "text": m} for m in parsed.malformed]
        stats.off_schema += len(parsed.off_schema)
        stats.off_schema_records += parsed.off_schema
        if merged is None:
            acc.add(parsed)
    return acc


def _parsed(extraction: ChunkExtraction, chunk: Chunk, parser: RecordParser, examples: Examples,
            stats: GraphStats) -> ParseResult | None:
    """The chunk's records; None when reading them raised (a failed item naming the chunk: its answers stay in
    the run store, and a fixed version reads them again without a call)."""
    failures: list[dict[str, Any]] = []
    with Contained("graph.parse", "", failures, "its answers are kept and read again by the next run"):
        return parse_extraction(extraction, chunk, parser, examples)
    stats.failed_stages += [dict(row, item=chunk.id) for row in failures]
    return None


async def finish_graph(graph: nx.Graph, chunks: Mapping[str, Chunk], cfg: Config, scheduler: Scheduler | None,
                       tokenizer: Tokenizer, stats: GraphStats, *, offline: bool,
                       summaries: SummaryMemo | None = None) -> nx.Graph:
    """Ground a merged graph's nodes, then finish its descriptions (see `finish_descriptions`). The Ray
    engine runs it per partition."""
    # grounding reads names, not descriptions: done first, it runs while streamed summaries are still answered
    with Contained("graph.ground", "", stats.failed_stages, "nodes are written without spans, none dropped"):
        ungrounded, echoed = await trio.to_thread.run_sync(_ground, graph, chunks, cfg, offline,
                                                           abandon_on_cancel=True)
        stats.ungrounded += ungrounded
        stats.echoed_examples += echoed
    if cfg.graph.schema is not None:  # after the echoes and the ungrounded went: what is left is held to it
        with Contained("graph.schema", "", stats.failed_stages, "the graph is written as extracted, unchecked"):
            left_out, outside = await trio.to_thread.run_sync(hold_to_schema, graph, cfg.graph, abandon_on_cancel=True)
            stats.off_schema += outside
            stats.off_schema_records += left_out
    await finish_descriptions(graph, cfg, scheduler, tokenizer, stats, offline=offline, summaries=summaries)
    return graph


def _ground(graph: nx.Graph, chunks: Mapping[str, Chunk], cfg: Config, offline: bool) -> tuple[int, int]:
    """Ground the nodes, drop the ungrounded ones that echo the prompt's examples (LLM method), then the other
    ungrounded ones when ``graph.drop_ungrounded`` asks; (ungrounded, echoed) counts."""
    ungrounded = ground(graph, chunks)
    echoed = 0 if offline else drop_echoes(graph, Examples.of(cfg.graph), chunks)
    if cfg.graph.drop_ungrounded:
        graph.remove_nodes_from([n for n, grounded in graph.nodes(data="grounded") if not grounded])
    return ungrounded, echoed


async def finish_descriptions(graph: nx.Graph, cfg: Config, scheduler: Scheduler | None, tokenizer: Tokenizer,
                              stats: GraphStats, *, offline: bool, summaries: SummaryMemo | None = None) -> None:
    """The offline method's descriptions (quotes) cut to the first that fit the budget; the LLM method's long
    ones summarized when a ``scheduler`` is given (``summaries`` holds calls already made)."""
    with Contained("graph.describe", "a larger graph.description_max_tokens asks for fewer summaries",
                   stats.failed_stages, "descriptions are written as found, joined"):
        if offline:
            await trio.to_thread.run_sync(fit_quotes, graph, tokenizer, cfg.graph.description_max_tokens)
        elif scheduler is not None:
            stats.summarized_descriptions += await summarize_descriptions(
                graph, scheduler, tokenizer, cfg.graph.description_max_tokens, cfg.graph.language, summaries)


@entry_point
async def extract_graph(inputs: str | Iterable[str | Document | Chunk] | Inputs, config: Config | None = None, *,
                        scheduler: Scheduler | None = None, method: str | None = None) -> GraphExtractionResult:
    """Extract one merged graph from texts, documents or chunks. Under trio.

    ``method`` overrides ``config.graph.method``: ``llm`` or ``nlp`` (``auto`` picks llm when an endpoint is
    configured). Without a ``scheduler`` one is made from ``config.llm`` for this call. A stage that raised
    (`GraphStats.failed_stages`: the graph is returned without it) is said in a warning.
    """
    result = await _extract_graph(inputs, config, scheduler, method)
    for row in result.stats.failed_stages:
        _warn(f"{row['item']}: {row['error']}")
    return result


async def _extract_graph(inputs: Any, config: Config | None, scheduler: Scheduler | None,
                         method: str | None) -> GraphExtractionResult:
    cfg = config or Config()
    tokenizer = Tokenizer(cfg.llm.model)
    chunks, sources = _chunks_of(inputs, cfg, tokenizer)
    chosen = method or cfg.graph.method
    if chosen == "auto":
        chosen = "llm" if cfg.llm.has_endpoint else "nlp"
    if chosen == "nlp":
        stats = GraphStats(chunks=len(chunks))
        # the offline graph asks the LLM only to resolve entities (method llm), on a given scheduler
        graph = await build_graph(chunks, None, cfg, scheduler if asks_llm(cfg, offline=True) else None,
                                  tokenizer, stats)
        return GraphExtractionResult(graph, sources, stats)
    if scheduler is None:
        from ..llm.client import ChatClient

        async with ChatClient.from_config(cfg.llm, cfg.output.dir, count_tokens=tokenizer.count) as client:
            return await extract_with_llm(chunks, sources, cfg, Scheduler(client, fail_fast=cfg.fail_fast), tokenizer)
    return await extract_with_llm(chunks, sources, cfg, scheduler, tokenizer)


async def extract_with_llm(chunks: list[Chunk], sources: dict[str, str], cfg: Config, scheduler: Scheduler,
                           tokenizer: Tokenizer, *, done: Mapping[str, ChunkExtraction] | None = None,
                           save: SaveFn | None = None, memo: AnswerMemo | None = None,
                           format_memo: FormatMemo | None = None) -> GraphExtractionResult:
    """Glean every chunk not ``done`` (``save`` stores each as it finishes), then build the graph; ``memo``
    keeps entity-resolution answers across runs, ``format_memo`` the format chosen under a schema. Description summaries that are certain start while chunks
    are still being gleaned (`DescriptionStream`)."""
    summaries = SummaryMemo()
    async with trio.open_nursery() as nursery:
        stream = DescriptionStream(chunks, cfg.graph, scheduler.llm(DESCRIBE), tokenizer, summaries, nursery)
        yes_no: dict[str, Any] = {}
        structured: dict[str, Any] = {}
        extractions, failed = await extract_chunks(chunks, cfg, scheduler, done=done, save=save, stream=stream,
                                                   yes_no=yes_no, structured=structured, format_memo=format_memo)
        stats = GraphStats(chunks=len(chunks), failed_chunks=len(failed), cut_chunks=cut_chunks(failed),
                           yes_no_check=yes_no, structured_output=structured)
        graph = await build_graph(chunks, extractions, cfg, scheduler, stream.counted, stats, memo=memo,
                                  summaries=summaries, known=stream.parsed, merged=stream.acc,
                                  profiles=stream.profiles)
        # early calls the final graph did not need (entity resolution changed their node) are still answered:
        # which of them had gone out by now is a matter of timing, and the requests a run makes must not be (the
        # nursery waits for them instead of cancelling those still waiting)
    return GraphExtractionResult(graph, sources, stats, extractions, failed)


def extract_graph_sync(inputs: Any, config: Config | None = None, **kw: Any) -> GraphExtractionResult:
    """`extract_graph` from synchronous code, including a Jupyter cell where an asyncio loop is running."""
    return run_sync(extract_graph, inputs, config, **kw)
