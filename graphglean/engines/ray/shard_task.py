"""What one worker does, under trio: a shard's passes, and a graph partition's finishing.

A shard runs the run's own passes (`pipeline.plan.run_passes`) with its own scheduler, client and run store in its
folder, except that the graph pass stops at merged records, split into key partitions, instead of a graph.
It marks itself finished by writing ``done.json`` atomically, last; a retried or re-run shard resumes from
its run store like a local run.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import time
from pathlib import Path
from typing import Any, Awaitable, Callable

import attrs
import httpx
import trio

from ...core.atomic import write_text
from ...core.config import Config
from ...core.tokens import Tokenizer
from ...graph.extract import GraphStats, accumulate, cut_chunks, extract_chunks
from ...graph.formats.export import write_jsonl
from ...graph.schema.ontology import schema_contents
from ...llm.accounting import CallAccount
from ...llm.client import ChatClient
from ...pipeline.context import PassOutcome, RunContext, failures_of
from ...pipeline.plan import plan_passes, run_passes
from ...pipeline.report import run_report
from ...pipeline.runstore import RunStore
from ...pipeline.steps import format_memo, graph_llm_pass, graph_nlp_pass, graph_resume, offline_extraction
from ...scheduling.scheduler import Scheduler
from . import partitions, schema_parts
from .batch.remote import RemoteWaves
from .resolution.method import llm_graph
from .shards import ShardSpec, read_shard
from .task_gc import settled

FINISHED = "done.json"
ATTEMPTS = "attempts"
PROGRESS = "progress.json"
ACCOUNT_FIELDS = ("calls", "cache_hits", "prompt_tokens", "completion_tokens")

# Tests and benchmarks only: set in a Ray worker by `graphglean.testing.inprocess.install` (a process set-up hook
# the caller names explicitly), it makes this worker's clients answer in process instead of at the endpoint.
transport_factory: Callable[[], httpx.AsyncBaseTransport] | None = None
opened_clients: list[ChatClient] = []  # the clients of the task running in this process (`tasks.stage_main`)
wave_hub: Any = None  # batch mode: the run's `WaveHub`, for the task running in this process


def transport() -> httpx.AsyncBaseTransport | None:
    return transport_factory() if transport_factory is not None else None


def _client(cfg: Config, **kw: Any) -> ChatClient:
    """A task's client: the driver made the run's first contact (a connection refused is retried as usual)."""
    waves = RemoteWaves(wave_hub) if cfg.llm.batch.enabled and wave_hub is not None else None
    client = ChatClient.from_config(cfg.llm, transport=transport(), waves=waves, contacted=True, **kw)
    opened_clients.append(client)
    return client


def _scheduler(client: ChatClient, cfg: Config, progress: Any) -> Scheduler:
    """The task's scheduler on ``client``; batch mode's waves judge each pass's share by its name."""
    scheduler = Scheduler(client, fail_fast=cfg.fail_fast, progress=progress)
    if isinstance(client.waves, RemoteWaves):
        client.waves.group_of = lambda account: next(
            (name for name, a in scheduler.accounts.items() if a is account), "calls")
    return scheduler


def _stamp(spec: ShardSpec) -> list[Any]:
    """Size and modification time of the shard's files: an edited input is not skipped as finished (its
    unchanged chunks are still resumed from the shard's run store, by content)."""
    paths = [Path(spec.path) / f for f in spec.files] if spec.files else [Path(spec.path)]
    stamps = []
    for p in paths:
        try:
            st = p.stat()
            stamps.append([st.st_size, st.st_mtime_ns])
        except OSError:
            stamps.append(None)
    return stamps


def fingerprint(cfg: Config, spec: ShardSpec) -> str:
    """What a finished shard's results depend on: its input (and its files' stamps) and every setting that
    shapes results (not the runtime, the output folder, the key, nor limits and retries)."""
    llm = attrs.asdict(cfg.llm)
    for k in ("api_key", "max_concurrency", "requests_per_minute", "tokens_per_minute", "max_retries",
              "retry_deadline_s", "timeout_s", "connect_timeout_s", "http_transport", "cache"):
        llm.pop(k)
    graph = attrs.asdict(cfg.graph)
    graph.pop("communities")  # made in the driver, after the shards
    graph["schema"] = schema_contents(cfg.graph)  # a path: what the file holds
    spec_fields = attrs.asdict(spec, filter=lambda a, _: a.name != "reading")  # the file and settings decide it
    basis = [spec_fields, _stamp(spec), llm, attrs.asdict(cfg.input), attrs.asdict(cfg.chunking), graph,
             attrs.asdict(cfg.episodic), attrs.asdict(cfg.summary), attrs.asdict(cfg.enrich),
             cfg.runtime.graph_partitions]
    return hashlib.sha256(json.dumps(basis, sort_keys=True, default=str).encode()).hexdigest()[:16]


def finished_report(folder: Path, cfg: Config, spec: ShardSpec) -> dict[str, Any] | None:
    """The report of a shard finished with these settings and nothing failed, else None."""
    try:
        done = json.loads((folder / FINISHED).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if done.get("fingerprint") != fingerprint(cfg, spec) or done["report"]["failed"]:
        return None
    return done["report"]


class ShardProgress:
    """The shard scheduler's progress: items per pass, written to ``progress.json`` at most every ``interval_s``
    and at each pass's start and end, for the driver to show while the shard runs."""

    def __init__(self, folder: Path, interval_s: float = 1.0) -> None:
        self.path, self.interval_s = folder / PROGRESS, interval_s
        self.passes: dict[str, dict[str, int]] = {}
        self._accounts: dict[str, CallAccount] = {}
        self._last = -math.inf

    def start(self, pass_name: str, total: int) -> None:
        row = self.passes.setdefault(pass_name, dict.fromkeys(("total", "done", "failed", *ACCOUNT_FIELDS), 0))
        row["total"] += total
        self._write()

    def advance(self, pass_name: str, account: CallAccount, failed: bool) -> None:
        row = self.passes[pass_name]
        row["done"] += 1
        row["failed"] += failed
        self._accounts[pass_name] = account  # its counts are read when the file is written
        if time.monotonic() - self._last >= self.interval_s:
            self._write()

    def finish(self, pass_name: str) -> None:
        self._write()

    def _write(self) -> None:
        self._last = time.monotonic()
        for pass_name, account in self._accounts.items():
            self.passes[pass_name].update({k: getattr(account, k) for k in ACCOUNT_FIELDS})
        write_text(self.path, json.dumps(self.passes))


def read_progress(folder: Path) -> dict[str, dict[str, int]]:
    """What a shard's ``progress.json`` says (nothing yet: empty)."""
    try:
        return json.loads((folder / PROGRESS).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def attempts(folder: Path) -> int:
    try:
        return len((folder / ATTEMPTS).read_text().split())
    except OSError:
        return 0


async def _graph_shard(ctx: RunContext, llm: bool) -> PassOutcome:
    stats = GraphStats(chunks=len(ctx.chunks))
    extractions, failed, extra = None, [], {}
    if llm:
        assert ctx.scheduler is not None
        done, save = graph_resume(ctx)
        extractions, failures = await extract_chunks(ctx.chunks, ctx.cfg, ctx.scheduler, done=done, save=save,
                                                     structured=stats.structured_output, format_memo=format_memo(ctx))
        stats.failed_chunks, stats.cut_chunks = len(failures), cut_chunks(failures)
        failed = failures_of(failures, lambda c: c.id)
        extra["resumed_chunks"] = sum(c.id in done for c in ctx.chunks)
    offline = None
    if not llm:
        extraction = await offline_extraction(ctx)  # resumed from the shard's store, as a local run
        offline, stats.offline_backend = extraction.results, extraction.backend
        extra.update(resumed_chunks=extraction.resumed, **extraction.report_fields())
    acc = await trio.to_thread.run_sync(accumulate, ctx.chunks, extractions, ctx.cfg, stats, offline,
                                        abandon_on_cancel=True)
    partitions.write_parts(acc, ctx.cfg.runtime.graph_partitions, ctx.out_dir)
    partitions.write_chunks(ctx.chunks, ctx.out_dir)
    files = []
    if stats.malformed_records:
        path = ctx.out_dir / "malformed_records.jsonl"
        write_jsonl(stats.malformed_records, path)
        files.append(str(path))
    if stats.off_schema_records:  # what graph.schema's strict mode left out of this shard's records
        path = ctx.out_dir / "off_schema_records.jsonl"
        write_jsonl(stats.off_schema_records, path)
        files.append(str(path))
    extra.update({k: v for k, v in attrs.asdict(stats).items()
                  if k not in ("malformed_records", "resolution_log", "off_schema_records")})
    return PassOutcome("graph", failed=failed, extra=extra, files=files)


async def graph_llm_shard(ctx: RunContext) -> PassOutcome:
    return await _graph_shard(ctx, llm=True)


async def graph_nlp_shard(ctx: RunContext) -> PassOutcome:
    return await _graph_shard(ctx, llm=False)


SHARD_PASSES = {graph_llm_pass: graph_llm_shard, graph_nlp_pass: graph_nlp_shard}


async def process_shard(spec: ShardSpec, cfg: Config, folder: Path, limiter: Any) -> dict[str, Any]:
    """Run the shard's passes; returns its report (also in ``done.json``)."""
    started, cpu = time.monotonic(), time.process_time()
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / ATTEMPTS).open("a") as f:  # a retried task (its worker died) is one more line
        f.write(f"{os.getpid()}\n")
    tokenizer = Tokenizer(cfg.llm.model)
    inputs = read_shard(spec, cfg, tokenizer)
    chunks = inputs.all_chunks(tokenizer, cfg.chunking.size, cfg.chunking.overlap)
    notices: list[str] = []
    passes = [(name, SHARD_PASSES.get(fn, fn)) for name, fn in plan_passes(cfg, notices.append)]
    store = RunStore(folder)
    ctx = RunContext(cfg, inputs, chunks, tokenizer, folder, store, notice=notices.append)
    try:
        if any(fn is not graph_nlp_shard for _, fn in passes):
            async with _client(cfg, count_tokens=tokenizer.count, journal=store.journal(),
                               limiter=limiter) as client:
                ctx.scheduler = _scheduler(client, cfg, ShardProgress(folder))
                outcomes = await run_passes(ctx, passes)
        else:
            outcomes = await run_passes(ctx, passes)
        if not any(o.failed for o in outcomes):
            store.clear_journal()
    finally:
        store.close()
    report = run_report(ctx, outcomes, time.monotonic() - started)
    report["leases"] = limiter.stats() if hasattr(limiter, "stats") else {}
    report["cpu_s"] = round(time.process_time() - cpu, 3)  # this worker process's, its threads' included
    if spec.kind == "text":  # one document, cut into ranges
        report["documents"] = int(spec.index == 0)
    write_text(folder / FINISHED, json.dumps({"spec": attrs.asdict(spec), "fingerprint": fingerprint(cfg, spec),
                                              "report": report}, ensure_ascii=False))
    return report


async def with_client(cfg: Config, limiter: Any, needed: bool, watch: str | None,
                      work: Callable[[Scheduler | None], Awaitable[Any]]) -> tuple[Any, CallAccount]:
    """``work`` given a scheduler of its own when ``needed`` (its progress written to the folder ``watch``);
    its result and the calls it made."""
    account = CallAccount()
    if not needed:
        return await work(None), account
    progress = None
    if watch is not None:
        Path(watch).mkdir(parents=True, exist_ok=True)
        progress = ShardProgress(Path(watch))
    async with _client(cfg, count_tokens=Tokenizer(cfg.llm.model).count, limiter=limiter) as client:
        scheduler = _scheduler(client, cfg, progress)
        result = await work(scheduler)
        for acc in scheduler.accounts.values():
            account.add(acc)
        return result, account


async def _with_scheduler(cfg: Config, limiter: Any, work: Callable[[Scheduler | None], Any]) -> CallAccount:
    """Run ``work`` with a scheduler of its own when the graph is built with the LLM; its describe account."""
    return (await with_client(cfg, limiter, llm_graph(cfg), None, work))[1]


async def finish_node_partition(p: int, shard_dirs: list[Path], cfg: Config, merge_dir: Path,
                                limiter: Any) -> tuple[dict[str, Any], CallAccount]:
    """Merge, summarize and ground partition ``p``'s nodes; write its rows, names and dropped keys. Returns its
    counts (and ``failed_stages``: stages that raised, whose rows were written without them) and calls."""
    cpu = time.process_time()
    stats = GraphStats()
    acc, where = partitions.merge_nodes(shard_dirs, p, cfg.graph.directed)
    chunks = partitions.ShardChunks(where)

    async def work(scheduler: Scheduler | None) -> None:
        graph, dropped = await partitions.finish_nodes(acc, chunks, cfg, scheduler, Tokenizer(cfg.llm.model), stats)
        partitions.write_node_rows(graph, merge_dir, p)
        schema_parts.write_off_schema(stats, merge_dir, "nodes", p)
        write_text(merge_dir / f"dropped-{p:04d}.json", json.dumps(sorted(dropped), ensure_ascii=False))

    try:
        with settled():
            account = await _with_scheduler(cfg, limiter, work)
    finally:
        chunks.close()
    return {"ungrounded": stats.ungrounded, "echoed_examples": stats.echoed_examples,
            "summarized_descriptions": stats.summarized_descriptions, "off_schema": stats.off_schema,
            "failed_stages": stats.failed_stages,
            "cpu_s": time.process_time() - cpu}, account


async def finish_edge_partition(p: int, shard_dirs: list[Path], cfg: Config, merge_dir: Path,
                                limiter: Any) -> tuple[dict[str, Any], CallAccount]:
    cpu = time.process_time()
    stats = GraphStats()
    P = cfg.runtime.graph_partitions
    acc = partitions.merge_edges(shard_dirs, p, cfg.graph.directed)
    dropped: set[str] = set()
    for q in range(P):
        dropped.update(json.loads((merge_dir / f"dropped-{q:04d}.json").read_text(encoding="utf-8")))

    async def work(scheduler: Scheduler | None) -> None:
        kept = functools.partial(schema_parts.schema_edges, dropped=dropped, cfg=cfg, merge_dir=merge_dir,
                                 stats=stats)
        rows = await partitions.finish_edges(acc, partitions.names_of(merge_dir, P), kept, cfg, scheduler,
                                             Tokenizer(cfg.llm.model), stats)
        partitions.write_edge_rows(rows, merge_dir, p)
        schema_parts.write_off_schema(stats, merge_dir, "edges", p)

    with settled():
        account = await _with_scheduler(cfg, limiter, work)
    return {"summarized_descriptions": stats.summarized_descriptions, "off_schema": stats.off_schema,
            "failed_stages": stats.failed_stages,
            "cpu_s": time.process_time() - cpu}, account
