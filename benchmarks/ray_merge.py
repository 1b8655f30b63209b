"""engine ray, the merge alone: the stages after the shards (node partitions, edge partitions, tables) re-run
on the shard files a kept `benchmarks/ray_scale.py --keep DIR` run left, so they are measured without redoing
the shards. DIR is only read: the merge's files and the two tables go to ``--work`` (a new temporary folder by
default, removed afterwards).

``--mode inprocess`` runs each partition task in this process, one after the other (CPU per stage; with
``--profile N`` the N heaviest functions of each stage, by cProfile); ``--mode ray`` runs the driver's merge on
a local cluster as a run does (wall time per stage, the tasks' CPU).

    python benchmarks/ray_merge.py DIR [--partitions P] [--workers 4] [--mode inprocess|ray] [--profile 25]
                                       [--only N] [--work FOLDER]
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def config(folder: Path, out: Path, partitions: int, workers: int) -> Any:
    """The configuration `ray_scale.py` ran its shards with (what the merge reads of it), its outputs in
    ``out``."""
    from graphglean.core.config import Config

    cfg = Config()
    cfg.llm.base_url, cfg.llm.api_key, cfg.llm.model = "http://in-process.invalid/v1", "bench", "gpt-4"
    cfg.llm.cache.mode = "off"
    cfg.input.path, cfg.input.format, cfg.output.dir = str(folder / "chunks.jsonl"), "chunks", str(out)
    cfg.graph.method, cfg.graph.max_gleanings, cfg.graph.description_max_tokens = "llm", 0, 10**6
    cfg.graph.resolve.enabled = False
    rt = cfg.runtime
    rt.engine, rt.workers, rt.graph_partitions, rt.single_graph = "ray", workers, partitions, False
    return cfg


def _profiled(top: int, stage: str, run: Callable[[], None]) -> float:
    """``run``'s CPU seconds; its heaviest functions printed when ``top``."""
    prof = cProfile.Profile() if top else None
    cpu = time.process_time()
    if prof:
        prof.enable()
    run()
    if prof:
        prof.disable()
        text = io.StringIO()
        pstats.Stats(prof, stream=text).sort_stats("tottime").print_stats(top)
        print(f"--- {stage}: heaviest functions by own time\n" + "\n".join(text.getvalue().splitlines()[6:]))
    return round(time.process_time() - cpu, 2)


def in_process(cfg: Any, dirs: list[Path], merge_dir: Path, top: int, only: int | None) -> dict[str, Any]:
    import trio

    from graphglean.engines.ray import partitions, shard_task
    from graphglean.engines.ray.task_gc import task_gc

    if top:  # cProfile sees only its own thread: the work sent to threads is done inline
        async def inline(fn: Any, *args: Any, **_: Any) -> Any:
            return fn(*args)
        trio.to_thread.run_sync = inline
    P = cfg.runtime.graph_partitions
    cpu: dict[str, Any] = {}
    for stage, fn in (("node_partitions", shard_task.finish_node_partition),
                      ("edge_partitions", shard_task.finish_edge_partition)):
        def run(fn: Any = fn) -> None:
            for p in range(P if only is None or fn is shard_task.finish_edge_partition else only):
                with task_gc():  # as in a worker
                    trio.run(fn, p, dirs, cfg, merge_dir, None)
        cpu[stage] = _profiled(top, stage, run)
        if only is not None:  # the edges need every node partition's names and dropped keys
            break
    out = Path(cfg.output.dir)

    def tables() -> None:
        partitions.write_tables(merge_dir, P, out / "entities.jsonl", out / "relationships.jsonl")
    if only is None:
        cpu["tables"] = _profiled(top, "tables", tables)
    return {"cpu_s": cpu}


async def _warm(model: str, seconds: float, limiter: Any) -> None:
    import trio

    from graphglean.core.tokens import Tokenizer
    from graphglean.engines.ray import shard_task  # noqa: F401

    Tokenizer(model).count("warm")
    await trio.sleep(seconds)


def on_ray(cfg: Any, dirs: list[Path], merge_dir: Path) -> dict[str, Any]:
    import logging
    import math

    import ray
    import trio

    from graphglean.engines.ray import driver as ray_engine
    from graphglean.engines.ray.leases import BatchSize, LeaseBucket
    from graphglean.engines.ray.report import Totals
    from graphglean.scheduling.scheduler import NoProgress

    rt = cfg.runtime
    ray.init(num_cpus=max(1, math.ceil(rt.workers * ray_engine.TASK_CPUS)), include_dashboard=False,
             log_to_driver=False, logging_level=logging.WARNING)
    try:
        tasks = ray_engine.Tasks(ray, rt, ray.remote(LeaseBucket).options(num_cpus=0).remote(0, 0),
                                 BatchSize.of(0, 0, rt.workers))
        # warm workers, as a run's shards leave them: the modules imported, the tokenizer loaded
        trio.run(lambda: tasks.wave(NoProgress(), "warm", _warm, [(cfg.llm.model, 0.5)] * (2 * rt.workers)))
        totals = Totals()
        stage = totals.stage_clock()
        row: dict[str, Any] = {}
        driver = time.process_time()
        trio.run(lambda: ray_engine._merge_graph(tasks, dirs, cfg, ray_engine.worker_config(cfg), merge_dir,
                                                 Path(cfg.output.dir), row, stage, totals, NoProgress()))
        totals.add_cpu("driver", time.process_time() - driver)
    finally:
        ray.shutdown()
    return {"stages_s": totals.stages_s, "cpu_s": totals.cpu_s, "nodes": row["nodes"], "edges": row["edges"]}


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("folder", type=Path, help="a folder kept by benchmarks/ray_scale.py --keep")
    p.add_argument("--partitions", type=int, default=0,
                   help="the partitions the kept shards were cut in (default: the kept run's report.json)")
    p.add_argument("--workers", type=int, default=4)
    p.add_argument("--mode", choices=["inprocess", "ray"], default="inprocess")
    p.add_argument("--profile", type=int, default=0, help="in process: print this many heaviest functions")
    p.add_argument("--only", type=int, help="in process: only the first N node partitions (a sample), no edges")
    p.add_argument("--work", type=Path, help="the merge's files and tables go here (default: a temporary folder, "
                                             "removed afterwards); never inside the kept folder")
    a = p.parse_args()
    folder = a.folder.resolve()
    if not a.partitions:
        try:
            a.partitions = json.loads((folder / "out" / "report.json").read_text())["runtime"]["graph_partitions"]
        except (OSError, ValueError, KeyError):
            p.error(f"{folder}/out/report.json does not say how many partitions the shards were cut in: "
                    "give --partitions")
    work = Path(tempfile.mkdtemp(prefix="ray_merge-")) if a.work is None else a.work.resolve()
    if work == folder or folder in work.parents:
        p.error(f"--work {work} is inside the kept folder {folder}, which is only read")
    try:
        measure(a, folder, work)
    finally:
        if a.work is None:
            shutil.rmtree(work, ignore_errors=True)


def measure(a: argparse.Namespace, folder: Path, work: Path) -> None:
    cfg = config(folder, work, a.partitions, a.workers)
    dirs = sorted(d for d in (folder / "out" / "shards").iterdir() if (d / "done.json").exists())
    merge_dir = work / "merge"
    shutil.rmtree(merge_dir, ignore_errors=True)
    merge_dir.mkdir(parents=True)
    load = round(os.getloadavg()[0], 1)
    t0 = time.perf_counter()
    result = on_ray(cfg, dirs, merge_dir) if a.mode == "ray" else in_process(cfg, dirs, merge_dir, a.profile, a.only)
    result.update(mode=a.mode, shards=len(dirs), wall_s=round(time.perf_counter() - t0, 1), load_before=load,
                  load_after=round(os.getloadavg()[0], 1))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
