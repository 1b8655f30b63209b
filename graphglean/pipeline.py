"""One run: inputs -> chunks -> the enabled passes, concurrently on one scheduler -> outputs and a report.

Every finished item x pass goes to the `RunStore` as it finishes, so a run that is interrupted and started
again continues where it stopped.
"""

from __future__ import annotations

import json
import sys
import time
import warnings
from pathlib import Path
from typing import Any, Callable, TextIO

import attrs
import trio

from .atomic import write_text
from .chunking import Chunk
from .config import Config, missing_extra
from .errors import ConfigError
from .graph.resolve import asks_llm
from .inputs import Inputs, read_inputs
from .llm.client import ChatClient
from .passes import (
    PassFn,
    PassOutcome,
    RunContext,
    enrich_pass,
    episodic_pass,
    graph_llm_pass,
    graph_nlp_pass,
    summary_pass,
)
from .report import DEFAULT_PRICES, cost, format_table, pass_row, price_of
from .runstore import RunStore
from .scheduler import Progress, Scheduler
from .sync import entry_point
from .sync import run_sync as _run_sync
from .tokens import Tokenizer


@attrs.define
class RunResult:
    report: dict[str, Any]
    passes: list[PassOutcome]

    @property
    def failed(self) -> int:
        return sum(len(p.failed) for p in self.passes)


def _stderr(message: str) -> None:
    print(f"graphglean: {message}", file=sys.stderr, flush=True)


HOW_TO_GET_AN_ENDPOINT = "set OPENAI_API_KEY, or llm.base_url (GRAPHGLEAN_BASE_URL) for a local OpenAI-compatible server"


def _llm_without_endpoint(cfg: Config) -> str | None:
    """The key that asks for the LLM by name when no endpoint is configured (it would be asked with no key)."""
    if cfg.llm.has_endpoint:
        return None
    if cfg.graph.enabled and cfg.graph.method == "llm":
        return "graph.method"
    if cfg.graph.enabled and cfg.graph.resolve.enabled and cfg.graph.resolve.method == "llm":
        return "graph.resolve.method"
    return None


def plan_passes(cfg: Config, notice: Callable[[str], None]) -> list[tuple[str, PassFn]]:
    """The passes this configuration enables, with the choice of graph method explained."""
    passes: list[tuple[str, PassFn]] = []
    endpoint = cfg.llm.has_endpoint
    how = HOW_TO_GET_AN_ENDPOINT + ", to use the LLM"
    if cfg.graph.enabled:
        method = cfg.graph.method
        if method == "auto":
            method = "llm" if endpoint else "nlp"
            notice(f"graph.method auto: using the {'LLM' if endpoint else 'offline NLP'} method"
                   + ("" if endpoint else f"; {how}"))
        passes.append(("graph", graph_llm_pass if method == "llm" else graph_nlp_pass))
    for name, enabled, fn in (("summary", cfg.summary.enabled, summary_pass),
                              ("episodic", cfg.episodic.enabled, episodic_pass),
                              ("enrich", cfg.enrich.enabled, enrich_pass)):
        if enabled and not endpoint:
            notice(f"{name}: needs an LLM endpoint; skipped ({how})")
        elif enabled:
            passes.append((name, fn))
    return passes


def dry_run(cfg: Config, inputs: Inputs, chunks: list[Chunk], passes: list[tuple[str, PassFn]],
            tokenizer: Tokenizer, out: TextIO) -> dict[str, Any]:
    """Chunk counts and the calls, tokens and cost a run would need, without calling any LLM."""
    rows = []
    chunk_tokens = sum(c.tokens for c in chunks)
    for name, fn in passes:
        if name == "enrich":
            n = len(inputs.messages)
            per_message = 1 if _spacy_entities(cfg) else 2  # intent (+ entities, unless spaCy finds them)
            calls = per_message * n + -(-n // 64) + n // max(1, cfg.enrich.message_window // 2)
            tokens_in, tokens_out = 400 * per_message * n, 60 * per_message * n
        elif name == "graph" and fn is graph_llm_pass:
            from .graph.prompts import GraphPrompts

            overhead = tokenizer.count(GraphPrompts.from_config(cfg.graph).extraction(""))
            rounds = cfg.graph.max_gleanings
            calls = len(chunks) * (1 + 2 * rounds)
            # each gleaning round resends the conversation so far: prompt and answers grow per round
            tokens_in = (chunk_tokens + overhead * len(chunks)) * (1 + 2 * rounds)
            tokens_out = len(chunks) * 400 * (1 + rounds)
        elif name == "graph":
            calls, tokens_in, tokens_out = 0, 0, 0
        elif name == "summary":  # the summary's own chunking is known without a call: the count is exact
            calls, tokens_in, tokens_out = _summary_estimate(cfg, inputs, chunks)
        else:
            calls = len(chunks) * 2
            tokens_in, tokens_out = chunk_tokens * 2, calls * 300
        rows.append(_estimate_row(cfg, name, len(chunks), calls, tokens_in, tokens_out))
        if name == "graph" and fn is graph_llm_pass:
            rows.append(_describe_estimate(cfg, len(chunks), tokens_out))
        if name == "graph" and asks_llm(cfg, offline=fn is graph_nlp_pass):
            rows.extend(_resolve_estimate(cfg, chunks, fn is graph_nlp_pass, tokens_out))
    print(f"dry run: {len(chunks)} chunks, {chunk_tokens} tokens of input; no LLM is called", file=out)
    for r in rows:
        cost = "unknown price" if r["cost_usd_est"] is None else f"~${r['cost_usd_est']}"
        print(f"  {r['pass']}: up to {r['calls_max']} calls, ~{r['tokens_in_est']} tokens in, "
              f"~{r['tokens_out_est']} out, {cost}", file=out)
    return {"dry_run": True, "passes": rows}


def _estimate_row(cfg: Config, name: str, chunks: int, calls: int, tokens_in: int, tokens_out: int,
                  model: str | None = None) -> dict[str, Any]:
    price = price_of(model or cfg.llm.model, cfg.prices)
    est = None if price is None else round((tokens_in * price[0] + tokens_out * price[1]) / 1e6, 4)
    return {"pass": name, "chunks": chunks, "calls_max": calls, "tokens_in_est": tokens_in,
            "tokens_out_est": tokens_out, "cost_usd_est": est}


# what one entity record and its share of relationships took in recorded real answers (gpt-4o-mini: 92
# tokens, llama3.1 8B: 94), so the graph's estimated answer tokens give an estimate of its entities
_TOKENS_PER_ENTITY = 90
_CARD_TOKENS = 130  # one side of a resolution question: name, type, 400 characters of description, neighbours
_EMBED_TOKENS = 80  # an embedded "name: description" text (300 characters of description)


def _resolve_estimate(cfg: Config, chunks: list[Chunk], offline: bool, answer_tokens: int) -> list[dict[str, Any]]:
    """Entity resolution's LLM calls: the tier's hard bound (`call_bound`) for the entities the graph is
    estimated to have: one per capitalized word that opens no sentence (offline: spaCy names are such words),
    else one per ~90 tokens of the extraction's estimated answers."""
    from .graph.resolve_llm import call_bound, question_bound
    from .graph.workload import named_words

    rc = cfg.graph.resolve
    entities = sum(named_words(c.text) for c in chunks) if offline else answer_tokens // _TOKENS_PER_ENTITY
    chat, embed = call_bound(entities, rc)
    asked = question_bound(entities, rc)
    rows = [_estimate_row(cfg, "graph.resolve", len(chunks), chat, chat * 200 + asked * 2 * _CARD_TOKENS,
                          chat * 16 + asked * 8)]
    if embed:
        rows.append(_estimate_row(cfg, "graph.resolve.embed", len(chunks), embed, entities * _EMBED_TOKENS, 0,
                                  cfg.llm.embedding_model))
    return rows


def _describe_estimate(cfg: Config, chunks: int, answer_tokens: int) -> dict[str, Any]:
    """Description summaries' calls, bounded for descriptions of ``answer_tokens`` in all (the extraction's
    estimated answers, which hold them): `summary_call_bound` over the worst way to split them among nodes."""
    from .graph.describe import summary_call_bound

    budget = cfg.graph.description_max_tokens
    calls = summary_call_bound(answer_tokens, budget)
    return _estimate_row(cfg, "graph.describe", chunks, calls, answer_tokens + calls * 120, calls * budget // 2)


def _spacy_entities(cfg: Config) -> bool:
    from .spacy_pipeline import installed

    backend = cfg.enrich.entity_backend
    return backend == "spacy" or (backend == "auto" and installed(cfg.enrich.nlp_model))


def _writable_dir(path: Path, key: str) -> None:
    """Fail before any LLM call, with the key to fix, when results could not be written."""
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / ".graphglean-write-test"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as e:
        raise ConfigError(f"{key}: cannot write to {path} ({e.strerror or type(e).__name__})") from None


def _summary_estimate(cfg: Config, inputs: Inputs, chunks: list[Chunk]) -> tuple[int, int, int]:
    from .passes import documents_of_chunks
    from .summarize import plan_chunks

    s, cl100k = cfg.summary, Tokenizer.cl100k()
    calls = tokens_in = 0
    for doc in inputs.documents or documents_of_chunks(chunks):
        planned, _ = plan_chunks(doc.text, s.detail, s.minimum_chunk_size, s.chunk_delimiter, cl100k)
        calls += len(planned)
        tokens_in += sum(cl100k.count(c) + 20 for c in planned)
    return calls, tokens_in, calls * 300


@entry_point
async def run(cfg: Config, *, fresh: bool = False, dry: bool = False, progress: Progress | None = None,
              notice: Callable[[str], None] = _stderr, out: TextIO | None = None, stdin: Any = None) -> RunResult:
    """Run every pass ``cfg`` enables. Writes outputs and ``report.json`` to ``cfg.output.dir``."""
    out = out or sys.stdout
    if missing_extra(cfg.output.formats):  # a Config built in code skipped the loader's check
        raise ConfigError(f"output.formats: {missing_extra(cfg.output.formats)}")
    if not dry and (key := _llm_without_endpoint(cfg)):
        raise ConfigError(f"{key}: llm needs an LLM endpoint: {HOW_TO_GET_AN_ENDPOINT}; or set {key} to "
                          f"{'nlp' if key == 'graph.method' else 'rules'}")
    if cfg.runtime.engine == "ray" and not dry:  # Ray is imported only here: engine local never loads it
        from .runtime.ray_engine import run_on_ray

        report, outcomes = await run_on_ray(cfg, fresh=fresh, progress=progress, notice=notice)
        print(format_table(report["passes"]), file=out)
        return RunResult(report, outcomes)
    tokenizer = Tokenizer(cfg.llm.model)
    inputs = read_inputs(cfg.input, tokenizer, stdin=stdin)
    chunks = inputs.all_chunks(tokenizer, cfg.chunking.size, cfg.chunking.overlap)
    passes = plan_passes(cfg, notice)
    out_dir = Path(cfg.output.dir)
    if dry:
        return RunResult(dry_run(cfg, inputs, chunks, passes, tokenizer, out), [])
    _writable_dir(out_dir, "output.dir")
    needs_llm = any(fn is not graph_nlp_pass or asks_llm(cfg, offline=True) for _, fn in passes)
    if cfg.llm.cache.mode != "off" and needs_llm:
        _writable_dir(Path(cfg.llm.cache.path).parent, "llm.cache.path")
    store = RunStore(out_dir, fresh=fresh)
    for stale in out_dir.glob(".*.tmp"):  # half-written by a run that was killed: never an output
        stale.unlink(missing_ok=True)
    ctx = RunContext(cfg, inputs, chunks, tokenizer, out_dir, store, notice=notice, fresh=fresh, progress=progress)
    started = time.monotonic()
    outcomes: list[PassOutcome] = []
    try:
        if needs_llm:
            async with ChatClient.from_config(cfg.llm, count_tokens=tokenizer.count,
                                              journal=store.journal()) as client:
                ctx.scheduler = Scheduler(client, fail_fast=cfg.fail_fast, progress=progress)
                outcomes = await run_passes(ctx, passes)
        else:
            outcomes = await run_passes(ctx, passes)
        if not any(o.failed for o in outcomes):  # nothing left to resume: the journal has served
            store.clear_journal()
    finally:
        store.close()
    report = run_report(ctx, outcomes, time.monotonic() - started)
    write_text(out_dir / "report.json", json.dumps(report, indent=1, ensure_ascii=False) + "\n")
    print(format_table(report["passes"]), file=out)
    return RunResult(report, outcomes)


async def run_passes(ctx: RunContext, passes: list[tuple[str, PassFn]]) -> list[PassOutcome]:
    """Run ``passes`` concurrently on ``ctx``'s scheduler; their outcomes, timed, in the given order."""
    results: dict[str, PassOutcome] = {}

    async def one(name: str, fn: PassFn) -> None:
        t0 = time.monotonic()
        outcome = await fn(ctx)
        outcome.wall_s = time.monotonic() - t0
        results[name] = outcome

    async with trio.open_nursery() as nursery:  # independent passes run concurrently on the one scheduler
        for name, fn in passes:
            nursery.start_soon(one, name, fn)
    return [results[name] for name, _ in passes]


def run_report(ctx: RunContext, outcomes: list[PassOutcome], wall_s: float) -> dict[str, Any]:
    """report.json of a run: a row per pass (its accounts folded in), chunks, failures, outputs, prices."""
    from .llm.accounting import CallAccount

    rows = []
    accounts = ctx.scheduler.accounts if ctx.scheduler else {}
    for o in outcomes:
        account, costs = CallAccount(), []
        for name, acc in accounts.items():
            if name == o.name or name.startswith(o.name + "."):
                account.add(acc)
                model = ctx.cfg.llm.embedding_model if name.endswith(".embed") else ctx.cfg.llm.model
                costs.append(cost(acc, model, ctx.cfg.prices))
        total = None if None in costs else round(sum(costs), 6)  # type: ignore[arg-type]
        rows.append(pass_row(o.name, account, total, o.wall_s, len(o.failed), o.extra))
    return {"passes": rows, "wall_s": round(wall_s, 3), "chunks": len(ctx.chunks),
            "documents": len(ctx.inputs.documents), "model": ctx.cfg.llm.model,
            "failed": [dict(f, **{"pass": o.name}) for o in outcomes for f in o.failed],
            "outputs": [f for o in outcomes for f in o.files],
            "prices_known": ctx.cfg.llm.model in ctx.cfg.prices or price_of(ctx.cfg.llm.model, {}) is not None,
            "default_prices": {k: list(v) for k, v in DEFAULT_PRICES.items()}}


def run_sync(cfg: Config, **kw: Any) -> RunResult:
    with warnings.catch_warnings():
        return _run_sync(run, cfg, **kw)
