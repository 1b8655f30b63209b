"""The driver of a run on Ray: plan shards, keep ``runtime.workers`` of them in flight, merge the graph by key
partition, gather the outputs and one report. Output files are those of a local run.

Ray tasks are plain functions running ``trio.run``; the driver waits on Ray in a worker thread
(``trio.to_thread.run_sync``), so its trio loop stays responsive.
"""

from __future__ import annotations

import functools
import json
import logging
import math
import shutil
import time
import uuid
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

import attrs
import trio

from ...core.atomic import atomic_open
from ...core.config import Config
from ...core.errors import ConfigError, Contained, GraphgleanError
from ...graph.formats.communities import remove_community_tables
from ...graph.formats.peers.write import peer_formats
from ...llm.accounting import CallAccount
from ...pipeline.folder_lock import output_folder_lock
from ...pipeline.communities import without_communities
from ...pipeline.steps import PassOutcome
from ...scheduling.scheduler import NoProgress, Progress
from . import partitions, peers, shard_task
from .communities import ray_communities
from .item_progress import ItemProgress
from .leases import BatchSize, LeaseBucket, LeasedRateLimiter, process_holding, ray_result
from .report import Totals, account_of, add_row, run_report
from .resolution import driver as resolution_driver
from .shards import ShardSpec, absolute_paths, plan_shards
from .task_gc import task_gc

TASK_CPUS = 0.5  # a shard task mostly waits on the network: two to a CPU


def connect(rt: Any) -> bool:
    """Connect to (or start) Ray; returns whether this run must shut it down afterwards."""
    import ray

    if ray.is_initialized():  # a caller's session (a notebook, the tests): used, left running
        return False
    kw: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False, "logging_level": logging.WARNING}
    try:
        if rt.address:
            ray.init(address=rt.address, **kw)
        else:
            ray.init(num_cpus=max(1, math.ceil(rt.workers * TASK_CPUS)), **kw)
    except (ConnectionError, RuntimeError, ValueError) as e:
        where = f"cannot connect to Ray at {rt.address!r}" if rt.address else "cannot start a local Ray cluster"
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise ConfigError(f"runtime.address: {where} ({first})") from None
    return True


def worker_config(cfg: Config) -> Config:
    """Each worker's share of the client: llm.max_concurrency split among the workers; the rate limits are
    the lease actor's, global."""
    workers = cfg.runtime.workers
    llm = attrs.evolve(cfg.llm, max_concurrency=max(1, math.ceil(cfg.llm.max_concurrency / workers)),
                       requests_per_minute=0, tokens_per_minute=0)
    return attrs.evolve(cfg, llm=llm)


# -- inside the workers ------------------------------------------------------------------------------------

def _limiter(actor: Any, batch: BatchSize) -> LeasedRateLimiter:
    def submit(method: str, *args: Any) -> Any:
        return getattr(actor, method).remote(*args)

    return LeasedRateLimiter(submit, submit, batch, holding=process_holding(actor._actor_id.hex()),
                             wait_on=ray_result)


def _in_trio(actor: Any, batch: BatchSize, work: Callable[..., Any], *args: Any) -> Any:
    async def main() -> Any:
        async with _limiter(actor, batch) as limiter:
            return await work(*args, limiter)

    with task_gc():
        return trio.run(main)


def stage_main(work: Callable[..., Any], args: tuple[Any, ...], actor: Any, batch: BatchSize) -> Any:
    """Every task of a run: ``work(*args, limiter)`` under trio (one remote function, exported to the workers
    once)."""
    return _in_trio(actor, batch, work, *args)


# -- the driver --------------------------------------------------------------------------------------------

@attrs.define
class Tasks:
    """What every stage of a run submits its tasks with: Ray, the runtime settings, the lease actor and its batch
    size, and the tasks in flight (cancelled if the run stops)."""

    ray: Any
    rt: Any
    actor: Any
    batch: BatchSize
    refs: dict[Any, Any] = attrs.field(factory=dict)
    _task: Any = None  # stage_main as a Ray remote function, made once

    async def stage(self, jobs: Iterable[tuple[Any, tuple[Any, ...]]], done: Callable[[Any, Any], None],
                    running: Callable[[], None] = lambda: None) -> None:
        """One task per job ``(key, (work, *args))`` (``work(*args, limiter)``), at most ``rt.workers`` in
        flight; each finished one's key and result go to ``done``, and ``running`` is called every second none
        finishes. The lease actor hears when the last one is submitted (the running ones give back what they
        hold). A task that raises stops the stage: the others are cancelled, so that a later stage (one done
        without the failed one) never gathers them."""
        if self._task is None:
            self._task = self.ray.remote(stage_main).options(max_retries=self.rt.task_retries, num_cpus=TASK_CPUS)
        self.actor.tasks_coming.remote(True)
        try:
            for key, (work, *args) in jobs:
                await self._gather(self.rt.workers, done, running)
                self.refs[self._task.remote(work, tuple(args), self.actor, self.batch)] = key
            self.actor.tasks_coming.remote(False)
            await self._gather(1, done, running)
        except BaseException:
            self.actor.tasks_coming.remote(False)
            for ref in self.refs:
                self.ray.cancel(ref, force=True)
            self.refs.clear()
            raise

    async def wave(self, progress: Progress, stage: str, work: Callable[..., Any], argsets: list[tuple[Any, ...]],
                   watch: list[Path] | None = None) -> list[Any]:
        """`stage` with one task per argument set; their results in order. Progress shows ``stage`` by tasks,
        and the items of the tasks whose folder in ``watch`` has a progress file."""
        results: dict[int, Any] = {}
        items = ItemProgress(progress)
        progress.start(stage, len(argsets))

        def done(i: int, result: Any) -> None:
            results[i] = result
            if watch is not None:
                items.read(watch[i], finished=True)
            progress.advance(stage, CallAccount(), False)

        def running() -> None:
            for i in self.refs.values() if watch is not None else ():
                items.read(watch[i])

        await self.stage(((i, (work, *args)) for i, args in enumerate(argsets)), done, running)
        items.finish()
        progress.finish(stage)
        return [results[i] for i in range(len(argsets))]

    async def _gather(self, limit: int, on_done: Callable[[Any, Any], None], on_wait: Callable[[], None],
                      wait_s: float = 1.0) -> None:
        """Wait until fewer than ``limit`` tasks are in flight, handing each finished one to ``on_done``."""
        refs, ray = self.refs, self.ray
        while len(refs) >= limit and refs:
            ready, _ = await trio.to_thread.run_sync(lambda: ray.wait(list(refs), num_returns=1, timeout=wait_s))
            if not ready:
                on_wait()
                continue
            key = refs.pop(ready[0])
            on_done(key, _result(ray, ready[0]))


def _result(ray: Any, ref: Any) -> Any:
    try:
        return ray.get(ref)
    except ray.exceptions.RayTaskError as e:
        cause = getattr(e, "cause", None)
        if isinstance(cause, GraphgleanError):
            raise cause from None
        raise
    except ray.exceptions.WorkerCrashedError:
        raise GraphgleanError("a Ray worker died more often than runtime.task_retries allows") from None


async def run_on_ray(cfg: Config, *, fresh: bool = False, progress: Progress | None = None,
                     notice: Callable[[str], None] = print) -> tuple[dict[str, Any], list[PassOutcome]]:
    """Run ``cfg`` on Ray, holding the output folder's lock in the driver. Returns the report (also written to
    report.json) and one outcome per pass."""
    from ...pipeline.plan import writable_dir

    started = time.monotonic()
    cfg = absolute_paths(cfg)
    out = Path(cfg.output.dir)
    writable_dir(out, "output.dir")
    with output_folder_lock(out, "run on Ray"):
        return await _run(cfg, out, started, fresh=fresh, progress=progress, notice=notice)


async def _run(cfg: Config, out: Path, started: float, *, fresh: bool, progress: Progress | None,
               notice: Callable[[str], None]) -> tuple[dict[str, Any], list[PassOutcome]]:
    import ray

    from ...pipeline.plan import plan_passes

    cpu = time.process_time()
    rt = cfg.runtime
    shards_root, merge_dir = out / "shards", out / "merge"
    if fresh:
        shutil.rmtree(shards_root, ignore_errors=True)
    shutil.rmtree(merge_dir, ignore_errors=True)
    passes = plan_passes(cfg, notice)
    if peer_formats(cfg) and not rt.single_graph:
        notice(f"output.formats {', '.join(peer_formats(cfg))}: not written, as they need the whole graph "
               "(runtime.single_graph is false)")
    totals = Totals()
    stage = totals.stage_clock()
    specs = list(plan_shards(cfg))
    stage("plan")
    own = connect(rt)
    tasks = None
    try:
        actor = ray.remote(LeaseBucket).options(name=f"graphglean-leases-{uuid.uuid4().hex[:12]}", num_cpus=0).remote(
            cfg.llm.requests_per_minute, cfg.llm.tokens_per_minute)
        tasks = Tasks(ray, rt, actor, BatchSize.of(cfg.llm.requests_per_minute, cfg.llm.tokens_per_minute, rt.workers))
        wcfg = worker_config(cfg)
        stage("connect")
        await _run_shards(tasks, specs, cfg, wcfg, shards_root, totals, progress, notice)
        stage("shards")
        outputs: list[str] = []
        graph_row = totals.rows.get("graph")
        if graph_row is not None:
            dirs = [shards_root / s.name for s in specs]
            outputs += await _merge_graph(tasks, dirs, cfg, wcfg, merge_dir, out, graph_row, stage, totals,
                                          progress or NoProgress(), notice)
        outputs += _concatenate(totals.outputs, out)
        stage("concatenate")
        totals.leases.update(ray.get(actor.stats.remote()))
    finally:
        if tasks is not None:
            for ref in tasks.refs:
                ray.cancel(ref, force=True)
            ray.kill(tasks.actor)
        if own:
            ray.shutdown()
    totals.add_cpu("driver", time.process_time() - cpu)
    report = run_report(cfg, passes, totals, outputs, time.monotonic() - started)
    with atomic_open(out / "report.json") as f:
        f.write(json.dumps(report, indent=1, ensure_ascii=False) + "\n")
    outcomes = [PassOutcome(name, report["passes"][i]["wall_s"],
                            [f for f in totals.failed if f.get("pass") == name])
                for i, (name, _) in enumerate(passes)]
    return report, outcomes


async def _run_shards(tasks: Tasks, specs: list[ShardSpec], cfg: Config, wcfg: Config, root: Path, totals: Totals,
                      progress: Progress | None, notice: Callable[[str], None]) -> None:
    progress = progress or NoProgress()
    items = ItemProgress(progress)
    progress.start("shards", len(specs))
    said: set[str] = set()

    def done(spec: ShardSpec, report: dict[str, Any], skipped: bool = False) -> None:
        totals.add(report, root / spec.name, skipped)
        for line in {row.get("language_notice") for row in report["passes"]} - said - {None, ""}:
            said.add(line)  # type: ignore[arg-type]
            notice(f"shard {spec.name}: {line}")
        items.read(root / spec.name, finished=True)
        progress.advance("shards", account_of(totals.rows), bool(report["failed"]))
        notice(f"shard {spec.name} {'was finished before' if skipped else 'done'}: {report['chunks']} chunks; "
               f"{totals.shards}/{len(specs)} shards, {totals.chunks} chunks so far")

    def running() -> None:
        for spec in tasks.refs.values():
            items.read(root / spec.name)

    def unfinished() -> Iterator[tuple[ShardSpec, tuple[Any, ...]]]:
        for spec in specs:
            folder = root / spec.name
            finished = shard_task.finished_report(folder, cfg, spec)
            if finished is not None:
                done(spec, finished, skipped=True)
                continue
            (folder / shard_task.PROGRESS).unlink(missing_ok=True)  # a previous run's, not this task's
            yield spec, (shard_task.process_shard, spec, wcfg, folder)

    await tasks.stage(unfinished(), done, running)
    items.finish()
    progress.finish("shards")


async def _merge_graph(tasks: Tasks, dirs: list[Path], cfg: Config, wcfg: Config, merge_dir: Path, out: Path,
                       row: dict[str, Any], stage: Callable[[str], None], totals: Totals,
                       progress: Progress, notice: Callable[[str], None]) -> list[str]:
    P, rt = cfg.runtime.graph_partitions, cfg.runtime
    merge_dir.mkdir(parents=True, exist_ok=True)
    account = CallAccount()
    found: dict[str, int] = {"ungrounded": 0, "echoed_examples": 0, "summarized_descriptions": 0}
    paths = [out / "entities.jsonl", out / "relationships.jsonl"]
    stage_failures: list[dict[str, Any]] = []  # of the partitions' tasks: the same in many, said once
    resolved = None
    if cfg.graph.resolve.enabled:  # resolution joins nodes of different partitions: its own steps
        with Contained("graph.resolve", "graph.resolve.enabled: false skips it", stage_failures,
                       "the graph is written unresolved"):
            resolved = await resolution_driver.resolved_merge(
                functools.partial(tasks.wave, progress), dirs, wcfg, merge_dir, out, out / "shards" / "resolution")
    if resolved is not None:
        account.add(resolved.account)
        found, nodes, edges = resolved.found, resolved.nodes, resolved.edges
        stage_failures += resolved.failed_stages
        row["resolution"] = resolved.stats
        paths.append(out / "resolution.jsonl")
        stage("resolved_partitions")
    else:
        # edges need every node partition's names and dropped keys: node partitions first
        for name, work in (("node_partitions", shard_task.finish_node_partition),
                           ("edge_partitions", shard_task.finish_edge_partition)):
            for stats, acc in await tasks.wave(progress, name, work, [(p, dirs, wcfg, merge_dir) for p in range(P)]):
                account.add(acc)
                totals.add_cpu(name, stats.pop("cpu_s", 0.0))
                stage_failures += stats.pop("failed_stages")
                for k, v in stats.items():
                    found[k] += v
            stage(name)
        nodes, edges = partitions.write_tables(merge_dir, P, paths[0], paths[1])
        (out / "resolution.jsonl").unlink(missing_ok=True)  # as a local run: no log of merges this graph lacks
        stage("tables")
    totals.failed += [dict(f, **{"pass": "graph"}) for f in {(f["item"], f["error"]): f for f in stage_failures}.values()]
    others = attrs.evolve(cfg.output, formats=[f for f in cfg.output.formats if f != "jsonl"])
    if cfg.graph.communities.enabled:  # clustered once, on the whole graph; reports in tasks, level by level
        graph = partitions.graph_of_tables(paths[0], paths[1], cfg.graph.directed)
        chunks = [c for d in dirs for c in partitions.read_chunks(d)] if rt.single_graph else []
        written, used = await ray_communities(functools.partial(tasks.wave, progress), graph, chunks,
                                              attrs.evolve(cfg, output=others), wcfg, out, out / "shards",
                                              rt.single_graph, notice)
        account.add(used)
        paths += [Path(p) for p in written.files]
        row.update(written.extra)
        totals.failed += [dict(f, **{"pass": "graph"}) for f in written.failed]
        stage("communities")
    elif rt.single_graph:  # the whole graph and the chunk texts in the driver: every other export output.formats asks
        graph = partitions.graph_of_tables(paths[0], paths[1], cfg.graph.directed)
        chunks = [c for d in dirs for c in partitions.read_chunks(d)]
        exported = await without_communities(graph, chunks, out, attrs.evolve(cfg, output=others))
        paths += [Path(p) for p in exported.files]
        totals.failed += [dict(f, **{"pass": "graph"}) for f in exported.failed]
        stage("whole_graph_exports")
    else:
        remove_community_tables(out)
    if rt.single_graph and peer_formats(cfg):
        paths += await peers.write_peer_indexes(cfg, graph, chunks, out, row, totals.failed, progress)
        stage("peer_indexes")
    add_row(row, {k: v for k, v in account.snapshot().items() if not k.startswith("latency_")})
    row.update(found, nodes=nodes, edges=edges)
    shutil.rmtree(merge_dir, ignore_errors=True)
    return [str(p) for p in paths]


def _concatenate(outputs: dict[str, list[Path]], out: Path) -> list[str]:
    """Each shard output file (summaries, episodes, ...) joined in shard order into the output folder."""
    written = []
    for name, parts in outputs.items():
        with atomic_open(out / name) as f:
            for part in parts:
                with part.open(encoding="utf-8") as src:
                    shutil.copyfileobj(src, f)
        written.append(str(out / name))
    return written
