"""Each pass as a run step: resume from the run store, submit work to the scheduler, write its outputs."""

from __future__ import annotations

from typing import Any

import attrs

from .chunking import Chunk
from .graph.export import write_graph, write_jsonl
from .graph.extract import GraphStats, build_graph, extract_chunks
from .graph.gleaning import ChunkExtraction
from .pipeline import PassOutcome, RunContext


def _failures(outcomes: list[Any], item_id: Any) -> list[dict[str, str]]:
    return [{"item": item_id(o.item), "error": str(o.error) or type(o.error).__name__} for o in outcomes]


def _graph_outcome(ctx: RunContext, stats: GraphStats, graph: Any, failed: list[dict[str, str]]) -> PassOutcome:
    files = [str(p) for p in write_graph(graph, ctx.out_dir)]
    extra = {k: v for k, v in attrs.asdict(stats).items() if k != "malformed_records"}
    if stats.malformed_records:
        path = ctx.out_dir / "malformed_records.jsonl"
        write_jsonl(stats.malformed_records, path)
        files.append(str(path))
    return PassOutcome("graph", failed=failed, extra=extra, files=files)


async def graph_nlp_pass(ctx: RunContext) -> PassOutcome:
    stats = GraphStats(chunks=len(ctx.chunks))
    graph = await build_graph(ctx.chunks, None, ctx.cfg, None, ctx.tokenizer, stats)
    return _graph_outcome(ctx, stats, graph, [])


async def graph_llm_pass(ctx: RunContext) -> PassOutcome:
    cfg = ctx.cfg
    assert ctx.scheduler is not None and ctx.store is not None
    g = cfg.graph
    stored = ctx.resume("graph", g.entity_types, g.language, g.examples, g.max_gleanings, g.tuple_delimiter,
                        g.record_delimiter, g.completion_delimiter)
    done = {cid: ChunkExtraction.from_json(v) for cid, v in stored.items()}
    store = ctx.store

    async def save(chunk: Chunk, extraction: ChunkExtraction) -> None:
        await store.save("graph", chunk.id, extraction.to_json())

    extractions, failed = await extract_chunks(ctx.chunks, cfg, ctx.scheduler, done=done, save=save)
    stats = GraphStats(chunks=len(ctx.chunks), failed_chunks=len(failed))
    graph = await build_graph(ctx.chunks, extractions, cfg, ctx.scheduler, ctx.tokenizer, stats)
    outcome = _graph_outcome(ctx, stats, graph, _failures(failed, lambda c: c.id))
    outcome.extra["resumed_chunks"] = sum(c.id in done for c in ctx.chunks)
    return outcome


async def summary_pass(ctx: RunContext) -> PassOutcome:
    from .summarize import run_summary_pass

    return await run_summary_pass(ctx)


async def episodic_pass(ctx: RunContext) -> PassOutcome:
    from .episodic import run_episodic_pass

    return await run_episodic_pass(ctx)


async def enrich_pass(ctx: RunContext) -> PassOutcome:
    """Chat messages of the input into a MemoryStore in the output folder, enriched; one line per message in
    enrichment.jsonl and one per summary in session_summaries.jsonl."""
    from .enrich import Enricher, MemoryStore
    from .errors import InputError

    if not ctx.inputs.messages:
        raise InputError(f"{ctx.cfg.input.path}: enrich needs chat messages (input.format locomo, or messages "
                         "for JSONL of {session_id, role, content})")
    assert ctx.scheduler is not None
    store = MemoryStore(ctx.out_dir / "memory.sqlite")
    try:
        async with Enricher(store, ctx.scheduler, ctx.cfg.enrich) as enricher:
            by_session: dict[str, list[Any]] = {}
            for m in ctx.inputs.messages:
                by_session.setdefault(m.session_id, []).append(m)
            for session_id, messages in by_session.items():
                await enricher.add_messages(session_id, messages)
            stats = await enricher.drain()
        rows = [m.to_json() for m in store.messages()]
        summaries = [s.to_json() for s in store.summaries()]
        failures = store.failures()
    finally:
        store.close()
    paths = [ctx.out_dir / "enrichment.jsonl", ctx.out_dir / "session_summaries.jsonl"]
    write_jsonl(rows, paths[0])
    write_jsonl(summaries, paths[1])
    failed = [{"item": f"{uuid} {step}", "error": error} for uuid, step, error in failures]
    return PassOutcome("enrich", failed=failed, extra=attrs.asdict(stats), files=[str(p) for p in paths])
