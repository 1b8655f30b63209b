"""The driver of a run on Ray: plan shards, keep ``runtime.workers`` of them in flight (`tasks`), merge the graph
by key partition, gather the outputs and one report. Output files are those of a local run."""

from __future__ import annotations

import functools
import logging
import math
import shutil
import time
import uuid
from pathlib import Path
from typing import Any, Callable, Iterator

import attrs
import trio

from ...core.atomic import atomic_open
from ...core.config import Config
from ...core.errors import ConfigError, Contained, leaves
from ...graph.formats.peers.write import peer_formats
from ...llm.accounting import CallAccount
from ...llm.batch.waves import Detached
from ...llm.endpoint import first_contact
from ...pipeline.folder_lock import output_folder_lock
from ...pipeline.communities import without_communities
from ...pipeline.report import cost, report_stopped, write_report
from ...pipeline.steps import PassOutcome
from ...scheduling.scheduler import NoProgress, Progress
from ...text.notes import noted
from . import partitions, peers, schema_parts, shard_task
from .batch.follow import close_hub, follow, open_hub
from .communities import ray_communities
from .leases import BatchSize, LeaseBucket
from .report import RunBook, Totals, account_of, add_row, run_report
from .resolution import driver as resolution_driver
from .shards import ShardPlan, ShardSpec, absolute_paths, plan_shards, with_partitions
from .tasks import TASK_CPUS, ItemProgress, Tasks

OFF_SCHEMA = "off_schema_records.jsonl"


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


async def run_on_ray(cfg: Config, *, fresh: bool = False, progress: Progress | None = None,
                     notice: Callable[[str], None] = print,
                     detach: bool = False) -> tuple[dict[str, Any], list[PassOutcome]]:
    """Run ``cfg`` on Ray, holding the output folder's lock in the driver. Returns the report (also written to
    report.json) and one outcome per pass; ``detach`` (batch mode): stop where the run would only wait for
    batches, with a report saying when to come back."""
    from ...pipeline.plan import writable_dir

    started = time.monotonic()
    cfg = absolute_paths(cfg)
    out = Path(cfg.output.dir)
    writable_dir(out, "output.dir")
    with output_folder_lock(out, "run on Ray"):
        stopped: list[BaseException] = []
        try:
            return await _run(cfg, out, started, fresh=fresh, progress=progress, notice=notice, detach=detach)
        except* Detached as group:  # the batches in flight are in the ledger: the same command continues
            stopped = leaves(group)
        return {"detached": str(stopped[0]), "passes": [], "model": cfg.llm.model}, []


async def _run(cfg: Config, out: Path, started: float, *, fresh: bool, progress: Progress | None,
               notice: Callable[[str], None], detach: bool) -> tuple[dict[str, Any], list[PassOutcome]]:
    import ray

    from ...pipeline.plan import asks_the_llm, plan_passes

    cpu = time.process_time()
    rt = cfg.runtime
    shards_root, merge_dir = out / "shards", out / "merge"
    if fresh:
        shutil.rmtree(shards_root, ignore_errors=True)
    shutil.rmtree(merge_dir, ignore_errors=True)
    passes = plan_passes(cfg, notice)
    if asks_the_llm(cfg, passes):  # once for the run: the tasks' clients retry a refused connection as any fault
        await first_contact(cfg.llm, shard_task.transport())
    if peer_formats(cfg) and not rt.single_graph:
        notice(f"output.formats {', '.join(peer_formats(cfg))}: not written, as they need the whole graph "
               "(runtime.single_graph is false)")
    totals = Totals()
    book = RunBook(out, fresh, totals)
    stage = totals.stage_clock()
    with noted() as planned:  # the input's warnings said by the plan (a folder's skipped files), for the report
        specs = ShardPlan(plan_shards(cfg))
    totals.notes.extend(planned)
    cfg = with_partitions(cfg, len(specs))
    stage("plan")
    own = connect(rt)
    tasks, hub, made = None, None, None
    stopped: BaseException | None = None
    try:
        actor = ray.remote(LeaseBucket).options(name=f"graphglean-leases-{uuid.uuid4().hex[:12]}", num_cpus=0).remote(
            cfg.llm.requests_per_minute, cfg.llm.tokens_per_minute)
        hub = open_hub(ray, cfg, shards_root) if cfg.llm.batch.enabled else None
        tasks = Tasks(ray, rt, actor, BatchSize.of(cfg.llm.requests_per_minute, cfg.llm.tokens_per_minute, rt.workers),
                      hub=hub)
        wcfg = worker_config(cfg)
        stage("connect")
        async with trio.open_nursery() as nursery:
            if hub is not None:
                note = getattr(progress, "note", None) or (lambda key, line: notice(line) if line else None)
                nursery.start_soon(follow, hub, detach, note, cfg.llm.batch.quiet_s)
            outputs = await _stages(tasks, specs, cfg, wcfg, out, totals, stage, progress, notice)
            nursery.cancel_scope.cancel()
        totals.leases.update(ray.get(actor.stats.remote()))
        totals.llm = tasks.llm.report()
        if hub is not None:
            made, hub = close_hub(ray, hub, clear=not totals.failed), None
    except BaseException as error:  # interrupted, cancelled, or an error the run could not get past
        stopped = error
        raise
    finally:
        if tasks is not None:
            tasks.cancel()
            ray.kill(tasks.actor)
        if hub is not None:  # stopped early: the batches in flight stay in the ledger for the next run
            close_hub(ray, hub, clear=False)
        if own:
            ray.shutdown()
        whole = book.close()  # this invocation's calls count in the run's totals, whatever stopped it
        specs.close()
        if stopped is not None:  # what the run did and paid so far, as a run's end says
            report_stopped(out, stopped, whole)
    totals.add_cpu("driver", time.process_time() - cpu)
    report = run_report(cfg, passes, totals, outputs, time.monotonic() - started, whole)
    if made is not None:
        report["batches"] = made  # batches created by this run, and the requests they carried
    write_report(out, report)
    outcomes = [PassOutcome(name, report["passes"][i]["wall_s"],
                            [f for f in totals.failed if f.get("pass") == name])
                for i, (name, _) in enumerate(passes)]
    return report, outcomes


async def _stages(tasks: Tasks, specs: ShardPlan, cfg: Config, wcfg: Config, out: Path, totals: Totals,
                  stage: Callable[[str], None], progress: Progress | None, notice: Callable[[str], None]) -> list[str]:
    """The shards, the graph's merge, and the shards' other outputs joined; the output files."""
    shards_root, merge_dir = out / "shards", out / "merge"
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
    return outputs


async def _run_shards(tasks: Tasks, specs: ShardPlan, cfg: Config, wcfg: Config, root: Path, totals: Totals,
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

    await tasks.stage(unfinished(), done, running, name=lambda spec: f"shard {spec.name}")
    items.finish()
    progress.finish("shards")


async def _merge_graph(tasks: Tasks, dirs: list[Path], cfg: Config, wcfg: Config, merge_dir: Path, out: Path,
                       row: dict[str, Any], stage: Callable[[str], None], totals: Totals,
                       progress: Progress, notice: Callable[[str], None]) -> list[str]:
    P, rt = cfg.runtime.graph_partitions, cfg.runtime
    merge_dir.mkdir(parents=True, exist_ok=True)
    account = CallAccount()
    found: dict[str, int] = {"ungrounded": 0, "echoed_examples": 0, "summarized_descriptions": 0, "off_schema": 0}
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
    others = attrs.evolve(cfg.output, formats=[f for f in cfg.output.formats if f != "jsonl"])
    graph, chunks = None, []
    if rt.single_graph:  # the whole graph and the chunk texts in the driver: every other export output.formats asks
        graph = partitions.graph_of_tables(paths[0], paths[1], cfg.graph.directed)
        chunks = [c for d in dirs for c in partitions.read_chunks(d)]
        stage("whole_graph")
    communities = Contained("graph.communities", "graph.communities.enabled: false skips it", stage_failures,
                            "the graph is written without communities")
    if cfg.graph.communities.enabled:  # clustered in a task from the tables; reports in tasks, level by level
        with communities:
            written, used = await ray_communities(functools.partial(tasks.wave, progress), (paths[0], paths[1]),
                                                  merge_dir, graph, chunks, attrs.evolve(cfg, output=others), wcfg,
                                                  out, out / "shards", notice, stage, _node_memory(tasks.ray))
            account.add(used)
            paths += [Path(p) for p in written.files]
            row.update(written.extra)
            totals.failed += [dict(f, **{"pass": "graph"}) for f in written.failed]
    if not cfg.graph.communities.enabled or communities.failed:
        exported = await without_communities(graph, chunks, out, attrs.evolve(cfg, output=others), graph is not None)
        paths += [Path(p) for p in exported.files]
        totals.failed += [dict(f, **{"pass": "graph"}) for f in exported.failed]
        stage("whole_graph_exports")
    totals.failed += [dict(f, **{"pass": "graph"}) for f in {(f["item"], f["error"]): f for f in stage_failures}.values()]
    if rt.single_graph and peer_formats(cfg):
        paths += await peers.write_peer_indexes(cfg, graph, chunks, out, row, totals.failed, progress)
        stage("peer_indexes")
    add_row(row, {**{k: v for k, v in account.snapshot().items() if not k.startswith("latency_")},
                  "cost_usd": cost(account, cfg.llm.model, cfg.prices)})  # its cost too, as the shards' rows
    for key in ("off_schema", "echoed_examples"):  # the shards' records', then the graph's nodes'
        row[key] = row.get(key, 0) + found.pop(key)
    row.update(found, nodes=nodes, edges=edges)
    totals.outputs.setdefault(OFF_SCHEMA, []).extend(schema_parts.kept_off_schema(merge_dir, P, out / "shards"))
    if not totals.outputs[OFF_SCHEMA]:
        del totals.outputs[OFF_SCHEMA]
        (out / OFF_SCHEMA).unlink(missing_ok=True)  # an earlier run's would describe records this graph keeps
    shutil.rmtree(merge_dir, ignore_errors=True)
    return [str(p) for p in paths]


def _node_memory(ray: Any) -> int | None:
    """The memory Ray can give one task: the largest node's (None when Ray does not say)."""
    sizes = [n.get("Resources", {}).get("memory", 0) for n in ray.nodes() if n.get("Alive", True)]
    return int(max(sizes)) if sizes and max(sizes) > 0 else None


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
