"""A dry run: the chunks, and the calls, tokens and cost each planned pass would ask for, without any LLM call and
without writing anything. It reads what earlier runs left in the output folder (the run store's results under
the fingerprints a run checks, the last graph, the enrich memory store) and the response cache (the requests it
can build as a run would: each chunk's first extraction request, the chunks' embeddings) and counts only what a
run would ask; it checks each pass's input as a run does, failing with the run's own line."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any, Callable, TextIO

import attrs

from ...core.config import Config
from ...core.errors import InputError
from ...core.spacy_pipeline import installed
from ...core.tokens import Tokenizer
from ...enrich.store import message_uuid
from ...llm.accounting import CallAccount
from ...episodic import PASS as EPISODIC
from ...graph.resolution.resolve import asks_llm
from ...summaries import plan_chunks
from ...text.chunking import Chunk, chunk_id
from ...text.inputs import Inputs, read_inputs
from ..communities import reports_asked
from ..context import PassFn, RunContext
from ..plan import check_inputs, plan_passes, writable_dir
from ..progress import plural
from ..report import cost, usd
from ..steps import documents_of_chunks, episodic_fingerprint, graph_llm_pass, graph_nlp_pass, summary_resume
from .graph_calls import Estimate, graph_estimates, graph_summary, graph_work
from .stored import StoredAnswers, StoredRun, read_only


def estimate_run(cfg: Config, notice: Callable[[str], None], out: TextIO, stdin: Any = None,
                 fresh: bool = False) -> dict[str, Any]:
    """Read and chunk the inputs as a run would, plan its passes, check them as it would, and print and return
    `dry_run`'s estimate. ``fresh``: as ``--fresh`` would run (its stored results forgotten; a response cache
    that replays answers still answers what was asked before, and what is stored stands for what it holds)."""
    tokenizer = Tokenizer(cfg.llm.model)
    inputs = read_inputs(cfg.input, tokenizer, stdin=stdin)
    chunks = inputs.all_chunks(tokenizer, cfg.chunking.size, cfg.chunking.overlap)
    passes = plan_passes(cfg, notice)
    check_inputs(cfg, inputs, chunks, passes, notice)
    writable_dir(Path(cfg.output.dir), "output.dir", probe=False)
    stored = StoredRun(cfg.output.dir, use=not fresh or cfg.llm.cache.replays)
    answers = StoredAnswers(cfg.llm.cache.path, cfg.llm.cache.replays)
    try:
        return dry_run(cfg, inputs, chunks, passes, tokenizer, out, stored, notice, answers)
    except sqlite3.DatabaseError as e:  # a store that changed while read (a run writing it), or a damaged one
        raise InputError(f"output.dir {cfg.output.dir}: what earlier runs stored there, or the response cache "
                         f"{cfg.llm.cache.path}, could not be read ({e}): a run writing there now, or a damaged "
                         "file; try again once no run writes there") from None
    finally:
        stored.close()
        answers.close()


def dry_run(cfg: Config, inputs: Inputs, chunks: list[Chunk], passes: list[tuple[str, PassFn]],
            tokenizer: Tokenizer, out: TextIO, stored: StoredRun | None = None,
            notice: Callable[[str], None] = lambda line: None, answers: StoredAnswers | None = None) -> dict[str, Any]:
    """The calls, tokens and cost a run would ask for (only what ``stored``, the output folder's earlier
    results, and ``answers``, the response cache, do not hold), printed and returned; no LLM is called."""
    stored = stored or StoredRun(cfg.output.dir, use=False)
    ctx = RunContext(cfg, inputs, chunks, tokenizer, Path(cfg.output.dir), stored, notice=notice)  # type: ignore[arg-type]
    estimates: list[Estimate] = []
    graph: dict[str, Any] = {}
    for name, fn in passes:
        if name == "graph":
            llm = fn is graph_llm_pass
            work = graph_work(ctx, llm, answers)
            estimates += graph_estimates(ctx, work, llm, asks_llm(cfg, offline=fn is graph_nlp_pass),
                                         reports_asked(cfg), answers)
            graph = graph_summary(work)
        elif name == "summary":
            estimates.append(_summary(ctx))
        elif name == "episodic":
            estimates.append(_episodic(ctx))
        elif name == "enrich":
            estimates.append(_enrich(ctx))
    rows = [_row(cfg, e, len(chunks)) for e in estimates]
    _print(rows, chunks, out)
    return {"dry_run": True, "passes": rows, "calls_est": sum(r["calls_est"] for r in rows), "graph": graph}


def _row(cfg: Config, e: Estimate, chunks: int) -> dict[str, Any]:
    model = e.model or cfg.llm.model
    if not e.calls:  # nothing asked, nothing paid
        e.tokens_in = e.tokens_out = 0
    online = CallAccount(calls=e.calls, prompt_tokens=e.tokens_in, completion_tokens=e.tokens_out)
    batched = online if e.name.endswith(".embed") else attrs.evolve(  # embeddings go online in batch mode too
        online, batch_calls=e.calls, batch_prompt_tokens=e.tokens_in, batch_completion_tokens=e.tokens_out)
    return {"pass": e.name, "chunks": chunks, "calls_est": e.calls,
            "calls_max": e.calls if e.calls_max is None else max(e.calls, e.calls_max), "exact": e.exact,
            "tokens_in_est": e.tokens_in, "tokens_out_est": e.tokens_out,
            "cost_usd_est": cost(online, model, cfg.prices), "cost_usd_est_batch": cost(batched, model, cfg.prices)}


def _print(rows: list[dict[str, Any]], chunks: list[Chunk], out: TextIO) -> None:
    width = max((len(r["pass"]) for r in rows), default=0) + 1
    print(f"dry run: {plural(len(chunks), 'chunk')}, {plural(sum(c.tokens for c in chunks), 'token')} of input; "
          "no LLM is called", file=out)
    for r in rows:
        cost = "unknown price" if r["cost_usd_est"] is None else (
            f"~${usd(r['cost_usd_est'], 4)} online, ~${usd(r['cost_usd_est_batch'], 4)} in batch mode")
        calls = plural(r["calls_est"], "call")
        if not r["exact"]:
            calls = f"~{calls}" + (f" (at most {r['calls_max']:,})" if r["calls_max"] > r["calls_est"] else "")
        if not r["calls_est"]:
            print(f"  {r['pass'] + ':':<{width}} nothing to ask", file=out)
            continue
        print(f"  {r['pass'] + ':':<{width}} {calls}, ~{plural(r['tokens_in_est'], 'token')} in, "
              f"~{r['tokens_out_est']:,} out, {cost}", file=out)
    calls = sum(r["calls_est"] for r in rows)
    exact = "" if all(r["exact"] for r in rows) else "~"
    if rows and not calls:
        print("  total: nothing to ask", file=out)
    elif rows and all(r["cost_usd_est"] is not None for r in rows):
        print(f"  total: {exact}{plural(calls, 'call')}, ~${usd(sum(r['cost_usd_est'] for r in rows), 4)} online, "
              f"~${usd(sum(r['cost_usd_est_batch'] for r in rows), 4)} in batch mode (llm.batch)", file=out)
    elif rows:
        print(f"  total: {exact}{plural(calls, 'call')}", file=out)


def _summary(ctx: RunContext) -> Estimate:
    """Exact: the summary's own chunking is known without a call; documents summarized before are not asked."""
    s, cl100k = ctx.cfg.summary, Tokenizer.cl100k()
    done = summary_resume(ctx)
    calls = tokens_in = 0
    for doc in ctx.inputs.documents or documents_of_chunks(ctx.chunks):
        if chunk_id(doc.id, doc.text) in done:
            continue
        planned, _ = plan_chunks(doc.text, s.detail, s.minimum_chunk_size, s.chunk_delimiter, cl100k)
        calls += len(planned)
        tokens_in += sum(cl100k.count(c) + 20 for c in planned)
    return Estimate("summary", calls, calls, tokens_in, calls * 300, exact=True)


def _episodic(ctx: RunContext) -> Estimate:
    """Gists, then facts, of each chunk not stored yet: two calls each."""
    done = ctx.resume(EPISODIC, *episodic_fingerprint(ctx.cfg))
    todo = [c for c in ctx.chunks if c.id not in done]
    calls = 2 * len(todo)
    return Estimate("episodic", calls, calls, 2 * sum(c.tokens for c in todo) + calls * 400, calls * 300)


def _enrich(ctx: RunContext) -> Estimate:
    """The messages whose intent the memory store does not hold yet: their intent and (without spaCy) entities,
    the embeddings (64 a call), and a session summary every half window."""
    cfg = ctx.cfg
    done = _enriched(ctx.out_dir / "memory.sqlite")
    todo = []
    for session, messages in _sessions(ctx.inputs.messages).items():
        todo += [m for i, m in enumerate(messages) if (m.id or message_uuid(session, i, m.role, m.content)) not in done]
    n = len(todo)
    spacy = cfg.enrich.entity_backend == "spacy" or (cfg.enrich.entity_backend == "auto" and
                                                     installed(cfg.enrich.nlp_model))
    per_message = 1 if spacy else 2  # intent (+ entities, unless spaCy finds them)
    calls = per_message * n + -(-n // 64) + n // max(1, cfg.enrich.message_window // 2)
    return Estimate("enrich", calls, None, 400 * per_message * n, 60 * per_message * n)


def _sessions(messages: list[Any]) -> dict[str, list[Any]]:
    by_session: dict[str, list[Any]] = {}
    for m in messages:
        by_session.setdefault(m.session_id, []).append(m)
    return by_session


def _enriched(path: Path) -> set[str]:
    """The messages of a memory store whose intent step is done (read only; none without a store)."""
    db = read_only(path, "steps")
    if db is None:
        return set()
    try:
        return {r[0] for r in db.execute("SELECT uuid FROM steps WHERE step = 'intent' AND state = 'done'")}
    finally:
        db.close()
