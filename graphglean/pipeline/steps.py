"""Each pass as a step of a run: resume from the run store, submit work to the scheduler, write outputs."""

from __future__ import annotations

import functools
from typing import Any, Awaitable, Callable, Sequence

import attrs
import trio

from ..core.spacy_pipeline import MAX_PIECE_CHARS
from ..core.tokens import Tokenizer
from ..episodic import PASS as EPISODIC
from ..episodic import ChunkInfo, EpisodeRawOutput, EpisodicGistExtraction
from ..graph.extract import GraphStats, SaveFn, build_graph, extract_with_llm
from ..graph.extraction.chunk_extraction import ChunkExtraction
from ..graph.formats.export import write_jsonl
from ..graph.offline.nlp import OfflineExtraction, extract_offline
from ..graph.offline.nlp_spacy import ANALYSIS
from ..graph.resolution.resolve import PASS as RESOLVE
from ..graph.resolution.resolve import AnswerMemo, asks_llm
from ..graph.schema.extraction import prompt_fingerprint, uses_json
from ..graph.schema.ontology import asked_schema
from ..graph.schema.structured import FormatMemo
from ..llm.accounting import CallAccount
from ..scheduling.scheduler import NoProgress
from ..summaries import PASS as SUMMARY
from ..summaries import SYSTEM as SUMMARY_SYSTEM
from ..summaries import SummaryResult, summarize
from ..text.chunking import Chunk, chunk_id
from ..text.inputs import Document
from .communities import write_graph_with_communities
from .context import PassOutcome, RunContext, failure_row, failures_of
from .outputs import write_each
from .peers import peer_indexes
from .runstore import RunStore


def empty_graph_warning(stats: GraphStats, llm: bool) -> tuple[str, bool] | None:
    """What to say of a graph with no node from chunks that were read (None: it has nodes, or nothing was read),
    and what to change; and whether that is a failure (every answer cut or unreadable)."""
    read = stats.chunks - stats.failed_chunks
    if stats.nodes or read + stats.cut_chunks <= 0:
        return None
    if llm and (stats.truncated_responses or stats.cut_chunks) and not stats.records:
        cut = [f"{stats.truncated_responses} cut answers over {read} chunks"] if stats.truncated_responses else []
        cut += [f"{stats.cut_chunks} chunks failed with cut answers alone"] if stats.cut_chunks else []
        return (f"graph: 0 nodes: the answers were cut at the completion cap ({'; '.join(cut)}) and no whole "
                "record came out of any; raise llm.max_tokens (and llm.max_output_tokens to the model's own "
                "limit), or use a model that answers in fewer tokens"), True
    if read <= 0:
        return None
    if llm and stats.malformed and not stats.records:
        return (f"graph: 0 nodes: no answer held a record in the asked format ({stats.malformed} lines kept in "
                "malformed_records.jsonl); the model may not follow the prompt (a base model without a chat "
                "template?): check llm.model, or graph.examples and the delimiters"), True
    return (f"graph: 0 nodes from {read} chunks: " + ("the model's answers named no entity" if llm
            else "no named entity was found")), False


async def _graph_outcome(ctx: RunContext, stats: GraphStats, graph: Any, failed: list[dict[str, Any]]) -> PassOutcome:
    # seconds for a large graph, while other passes may have requests in flight: written in a worker thread
    # (and, with graph.communities, while the community reports are asked); a file that cannot be written is a
    # failed item (exit 1, in report.json), and the other files are written
    written = await write_graph_with_communities(ctx, graph)
    files, failed = written.files, failed + stats.failed_stages + written.failed
    extra = {k: v for k, v in attrs.asdict(stats).items()
             if k not in ("malformed_records", "resolution_log", "off_schema_records", "failed_stages")}
    if not extra["structured_output"]:
        del extra["structured_output"]
    extra.update(written.extra)
    peer_files, peer_failed, peer_extra = await peer_indexes(
        ctx, graph, ctx.inputs.documents or documents_of_chunks(ctx.chunks))
    files += peer_files
    failed = failed + peer_failed
    extra.update(peer_extra)
    # the row's own tokens are every call of the pass (resolution's, summaries'); these are extraction's alone
    for k in ("prompt_tokens", "completion_tokens"):
        extra[f"extraction_{k}"] = extra.pop(k)
    if not extra["yes_no_check"]:
        extra["yes_no_check"] = {"method": "not asked", "why": "no gleaning check was needed this run"}
    logs = [(ctx.out_dir / "malformed_records.jsonl", stats.malformed_records or None, ""),
            (ctx.out_dir / "off_schema_records.jsonl", stats.off_schema_records or None, ""),
            (ctx.out_dir / "resolution.jsonl", stats.resolution_log, "graph.resolve.enabled: false skips it")]
    # resolution off or failed, or no record left out of graph.schema: an earlier run's log would describe a
    # graph this one is not
    for path in (ctx.out_dir / "resolution.jsonl", ctx.out_dir / "off_schema_records.jsonl"):
        path.unlink(missing_ok=True)
    files += [str(p) for p in write_each([([path], functools.partial(write_jsonl, rows, path), skip)
                                          for path, rows, skip in logs if rows is not None], failed)]
    outcome = PassOutcome("graph", failed=failed, extra=extra, files=files)
    empty = empty_graph_warning(stats, llm=not stats.offline_backend)
    if empty is not None:
        ctx.notice(empty[0])
        outcome.warnings.append(empty[0])
        outcome.empty = empty[1]  # every answer cut or unreadable: a failed run, not a quiet success
    return outcome


async def graph_nlp_pass(ctx: RunContext) -> PassOutcome:
    """The offline graph (see `offline_extraction`), resolved, grounded and written."""
    extraction = await offline_extraction(ctx)
    stats = GraphStats(chunks=len(ctx.chunks))
    # only resolution may ask the LLM here (method: llm): on the run's scheduler, counted and resumable
    scheduler = ctx.scheduler if asks_llm(ctx.cfg, offline=True) else None
    graph = await build_graph(ctx.chunks, None, ctx.cfg, scheduler, ctx.tokenizer, stats, notice=ctx.notice,
                              offline_done=extraction, memo=resolution_memo(ctx) if scheduler else None)
    outcome = await _graph_outcome(ctx, stats, graph, [])
    outcome.extra.update(resumed_chunks=extraction.resumed, **extraction.report_fields())
    return outcome


async def offline_extraction(ctx: RunContext) -> OfflineExtraction:
    """The offline method's records of every chunk. spaCy's analysis of each chunk is stored as it is made (as
    the LLM method stores its answers), so a run started again parses only what is new; progress counts chunks."""
    assert ctx.store is not None
    store, progress = ctx.store, ctx.progress or NoProgress()

    def resume(backend: str) -> tuple[dict[str, Any], Callable[[dict[str, str]], Awaitable[None]]]:
        # its own pass name and fingerprint: only the model shapes an analysis (labels, window and names are
        # read from it each run), and switching graph.method must not discard the LLM method's answers
        stored = ctx.resume("graph.nlp", backend, ANALYSIS, MAX_PIECE_CHARS, endpoint=False)

        async def save(analyses: dict[str, str]) -> None:
            await store.save_many("graph.nlp", analyses)

        return stored, save

    def advance(n: int) -> None:
        for _ in range(n):
            progress.advance("graph", CallAccount(), False)

    progress.start("graph", len(ctx.chunks))
    extraction = await extract_offline(ctx.chunks, ctx.cfg.graph, ctx.notice, resume=resume, advance=advance)
    progress.finish("graph")
    return extraction


def resolution_memo(ctx: RunContext) -> AnswerMemo:
    """Entity-resolution answers kept in the run store, keyed by their prompt: other resolution settings ask
    other questions, and the extractions stay valid whatever resolution does (its settings are not in their
    fingerprint)."""
    store = ctx.store
    assert store is not None

    async def save_answer(key: str, answer: str) -> None:
        await store.save(RESOLVE, key, answer)

    return AnswerMemo(ctx.resume(RESOLVE), save_answer)


FORMAT = "graph.format"  # the run store's pass of the graph pass's format decision


def graph_resume(ctx: RunContext) -> tuple[dict[str, ChunkExtraction], SaveFn]:
    """The graph pass's stored extractions (none when its settings changed) and how to store a new one."""
    cfg = ctx.cfg
    assert ctx.store is not None
    g = cfg.graph
    # the prompts' texts carry the types (the schema), language, delimiters and examples
    stored = ctx.resume("graph", *prompt_fingerprint(cfg), g.max_gleanings, cfg.llm.logit_bias_ids)
    return {cid: ChunkExtraction.from_json(v) for cid, v in stored.items()}, _GraphResults(ctx.store)


class _GraphResults:
    """The graph pass's `SaveFn`: a chunk's extraction queued in the run store (`RunStore.queue_save`: its
    answers are in the journal or the response cache already), and the queue written at least every
    ``every_s`` (with the response cache on, no journal write carries it), so that a run killed mid-way
    resumes from its finished chunks' results."""

    def __init__(self, store: RunStore, every_s: float = 1.0) -> None:
        self.store, self.every_s = store, every_s
        self._written_at: float | None = None

    def __call__(self, chunk: Chunk, extraction: ChunkExtraction) -> Awaitable[None] | None:
        self.store.queue_save("graph", chunk.id, extraction.to_json())
        now = trio.current_time()
        if self._written_at is None:
            self._written_at = now
        elif now - self._written_at >= self.every_s:
            self._written_at = now
            return self.store.settle()
        return None

    async def settle(self) -> None:
        await self.store.settle()


def format_memo(ctx: RunContext) -> FormatMemo | None:
    """The format the graph pass chose under a schema (`StructuredChoice`), kept in the run store under the
    pass's own fingerprint, so every invocation of a run asks in the format the first chose (None: no JSON is
    asked)."""
    store = ctx.store
    assert store is not None
    if not uses_json(ctx.cfg, asked_schema(ctx.cfg.graph)):
        return None
    store.open_pass(FORMAT, ctx.fingerprint(*prompt_fingerprint(ctx.cfg), ctx.cfg.graph.structured_output))

    async def save(decision: dict[str, str]) -> None:
        await store.save(FORMAT, "decision", decision)

    return FormatMemo(store.get(FORMAT, "decision"), save)


async def graph_llm_pass(ctx: RunContext) -> PassOutcome:
    assert ctx.scheduler is not None and ctx.store is not None
    done, save = graph_resume(ctx)
    result = await extract_with_llm(ctx.chunks, {}, ctx.cfg, ctx.scheduler, ctx.tokenizer, done=done, save=save,
                                    memo=resolution_memo(ctx), format_memo=format_memo(ctx))
    outcome = await _graph_outcome(ctx, result.stats, result.output, failures_of(result.failed, lambda c: c.id))
    outcome.extra["resumed_chunks"] = sum(c.id in done for c in ctx.chunks)
    return outcome


def enrich_without_messages(cfg: Any) -> Exception:
    """What a run with ``enrich`` on and no chat messages in its input fails with (before any call)."""
    from ..core.errors import InputError

    return InputError(f"{cfg.input.path}: enrich needs chat messages (input.format locomo, or messages for JSONL "
                      "of {session_id, role, content})")


async def enrich_pass(ctx: RunContext) -> PassOutcome:
    """Chat messages of the input into a MemoryStore in the output folder, enriched; one line per message in
    enrichment.jsonl and one per summary in session_summaries.jsonl."""
    from ..enrich import Enricher, MemoryStore
    from ..enrich.enricher import stored_messages

    if not ctx.inputs.messages:
        raise enrich_without_messages(ctx.cfg)
    assert ctx.scheduler is not None
    store = MemoryStore(ctx.out_dir / "memory.sqlite", fresh=ctx.fresh)
    try:
        by_session: dict[str, list[Any]] = {}
        for m in ctx.inputs.messages:
            by_session.setdefault(m.session_id, []).append(m)
        # whole sessions (a re-run stores nothing twice), all stored before enrichment starts: its batches
        # (embeddings) are then the input's, not what happened to be stored when a round began
        stored = [s for session_id, messages in by_session.items() for s in stored_messages(session_id, messages, 0)]
        await trio.to_thread.run_sync(store.add_messages, stored)
        async with Enricher(store, ctx.scheduler, ctx.cfg.enrich) as enricher:
            stats = await enricher.drain()
        messages = store.messages()
        rows = [m.to_json() for m in messages]
        # by the message each summary was made at (stored in the input's order), not by when it was answered
        at = {m.uuid: n for n, m in enumerate(messages)}
        summaries = [s.to_json() for s in sorted(store.summaries(), key=lambda s: (at.get(s.message_uuid, -1), s.uuid))]
        failures = store.failures()
    finally:
        store.close()
    paths = [ctx.out_dir / "enrichment.jsonl", ctx.out_dir / "session_summaries.jsonl"]
    write_jsonl(rows, paths[0])
    write_jsonl(summaries, paths[1])
    failed = [failure_row(f"{uuid} {step}", error) for uuid, step, error in failures]
    return PassOutcome("enrich", failed=failed, extra=attrs.asdict(stats), files=[str(p) for p in paths])


def documents_of_chunks(chunks: Sequence[Any]) -> list[Any]:
    """Inputs given as chunks (pre-chunked JSONL, LoCoMo sessions): each document is its chunks, in order."""
    texts: dict[str, list[str]] = {}
    for c in chunks:
        texts.setdefault(c.doc_id, []).append(c.text)
    return [Document(doc_id, "\n".join(parts), doc_id) for doc_id, parts in texts.items()]


async def _map_and_store(ctx: RunContext, name: str, items: list[Any], item_id: Callable[[Any], str],
                         fn: Callable[[Any], Awaitable[Any]], stored: dict[str, Any],
                         durable: Callable[[Any], bool] = lambda value: True) -> tuple[dict[str, Any], list[Any]]:
    """Run ``fn`` over the items not yet ``stored``; each result goes to the run store as it finishes
    (unless ``durable`` says it should be asked again next run). Returns every result, stored ones included."""
    assert ctx.scheduler is not None and ctx.store is not None
    results, store = dict(stored), ctx.store

    async def save(outcome: Any) -> None:
        if outcome.ok:
            key = item_id(outcome.item)
            results[key] = outcome.value.to_json()
            if durable(outcome.value):
                await store.save(name, key, results[key])

    todo = [i for i in items if item_id(i) not in stored]
    return results, await ctx.scheduler.map(fn, todo, pass_name=name, on_result=save)


def summary_resume(ctx: RunContext) -> dict[str, Any]:
    """The summary pass's stored results, by `chunk_id` of their document (none when its settings changed)."""
    cfg = ctx.cfg.summary
    return ctx.resume(SUMMARY, SUMMARY_SYSTEM, cfg.detail, cfg.minimum_chunk_size, cfg.chunk_delimiter,
                      cfg.additional_instructions, cfg.recursive)


async def summary_pass(ctx: RunContext) -> PassOutcome:
    """Each input document summarized whole, one line each in summaries.jsonl."""
    cfg = ctx.cfg.summary
    stored = summary_resume(ctx)
    documents = ctx.inputs.documents or documents_of_chunks(ctx.chunks)
    tokenizer = Tokenizer.cl100k()

    async def one(doc: Document) -> SummaryResult:
        return await summarize(doc.text, ctx.scheduler, cfg.detail, cfg.additional_instructions or None,
                               cfg.minimum_chunk_size, cfg.chunk_delimiter, cfg.recursive, tokenizer,
                               pass_name=SUMMARY + ".chunks")

    def key(doc: Document) -> str:  # by content: an edited document is summarized again
        return chunk_id(doc.id, doc.text)

    results, outcomes = await _map_and_store(ctx, SUMMARY, documents, key, one, stored)
    rows = [{"doc_id": d.id, **results[key(d)]} for d in documents if key(d) in results]
    path = ctx.out_dir / "summaries.jsonl"
    write_jsonl(rows, path)
    failed = failures_of([o for o in outcomes if not o.ok], lambda d: d.id)
    return PassOutcome(SUMMARY, failed=failed, extra={"documents": len(rows)}, files=[str(path)])


def episodic_fingerprint(cfg: Any) -> tuple[Any, ...]:
    """What shapes the episodic pass's answers besides the endpoint: its dataset family's templates."""
    extractor = EpisodicGistExtraction(None, cfg)
    return cfg.episodic.dataset, extractor.gist_template, extractor.fact_template


async def episodic_pass(ctx: RunContext) -> PassOutcome:
    """Gists and facts of every chunk, one line each in episodes.jsonl."""
    extractor = EpisodicGistExtraction(ctx.scheduler, ctx.cfg)
    stored = ctx.resume(EPISODIC, *episodic_fingerprint(ctx.cfg))

    async def one(chunk: Chunk) -> EpisodeRawOutput:
        info = ChunkInfo(chunk.text, chunk.tokens, [chunk.index], [chunk.doc_id], dict(chunk.metadata))
        return await extractor.extract(chunk.id, info)

    # a chunk that ended with an error is kept in the output but asked again on the next run
    results, outcomes = await _map_and_store(ctx, EPISODIC, ctx.chunks, lambda c: c.id, one, stored,
                                             durable=lambda episode: not episode.metadata["errors"])
    rows = [results[c.id] for c in ctx.chunks if c.id in results]
    path = ctx.out_dir / "episodes.jsonl"
    write_jsonl(rows, path)
    failed = [failure_row(r["chunk_id"], "; ".join(r["metadata"]["errors"])) for r in rows
              if r["metadata"]["errors"] and not (r["gists"] or r["facts"])]
    failed += failures_of([o for o in outcomes if not o.ok], lambda c: c.id)  # raised: no row to say it
    return PassOutcome(EPISODIC, failed=failed, extra={"chunks": len(rows)}, files=[str(path)])
