"""engine ray at scale: N pre-chunked chunks, the graph built with fake LLM calls, on a local cluster. Per size:
wall time, chunks a second, the driver's stages (plan, shards, node and edge partitions, tables), the driver's
peak memory (each size is run by a driver process of its own), and Ray processes left after the run (leases:
benchmarks/ray_leases.py).

``--calls inprocess`` (the default) answers every call inside the workers with the fake server's responder
(`graphglean.testing.inprocess`, installed by Ray's worker set-up hook): the figures are graphglean's own cost.
``--calls http`` sends them to the fake server over HTTP (one more process on the same cores), ``--method nlp``
makes no call at all.

    python benchmarks/ray_scale.py [--sizes 100000 1000000] [--workers 4] [--shard-chunks 10000] [--rpm 0]
                                   [--max-gleanings 0] [--calls inprocess|http] [--method llm|nlp] [--keep DIR]
    python benchmarks/ray_scale.py --alone 10000     # one shard task alone, no Ray: the per-chunk path's CPU
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Iterator

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _server import fake_server, table  # noqa: E402

MARKER = "GRAPHGLEAN_RAY_SCALE_RUN"
SYLLABLES = ["ka", "lo", "mi", "ren", "tas", "vo", "bel", "dun", "sar", "qui", "mor", "fen", "lis", "tor", "ya", "zen"]


def name(k: int) -> str:
    """A distinct capitalized two-word name per k."""
    words = []
    for _ in range(2):
        word = ""
        for _ in range(3):
            word, k = word + SYLLABLES[k % 16], k // 16
        words.append(word.capitalize())
    return " ".join(words)


def write_chunks(path: Path, n: int) -> None:
    """``n`` chunks naming three of about n / 10 entities each: the graph grows with the input, as a real
    corpus's does (each entity is in about 30 chunks)."""
    rnd = random.Random(n)
    pool = max(10, n // 10)
    with path.open("w") as f:
        for i in range(n):
            names = [name(rnd.randrange(pool)) for _ in range(3)]
            f.write(json.dumps({"id": f"c{i}", "doc_id": f"d{i // 100}",
                                "text": f"{names[0]} wrote to {names[1]} about {names[2]} (note {i})."}) + "\n")


def bench_config(data: Path, out: Path, url: str, a: argparse.Namespace):
    """The run's configuration: ``data`` pre-chunked, fake calls, no cache, no resolution."""
    from graphglean.core.config import Config

    cfg = Config()
    cfg.llm.base_url, cfg.llm.api_key, cfg.llm.model = url, "bench", "gpt-4"
    cfg.llm.cache.mode, cfg.llm.max_concurrency, cfg.llm.requests_per_minute = "off", 64 * a.workers, a.rpm
    cfg.input.path, cfg.input.format, cfg.output.dir = str(data), "chunks", str(out)
    cfg.graph.method, cfg.graph.max_gleanings, cfg.graph.description_max_tokens = a.method, a.max_gleanings, 10**6
    cfg.graph.resolve.enabled = False
    rt = cfg.runtime
    rt.engine, rt.workers, rt.shard_chunks, rt.graph_partitions, rt.single_graph = "ray", a.workers, \
        a.shard_chunks, a.partitions, False
    cfg.graph.communities.enabled = bool(getattr(a, "communities", False))  # with their reports (the default)
    return cfg


def one(n: int, url: str, a: argparse.Namespace) -> dict:
    """Run in a driver process of its own: one size."""
    import trio

    from graphglean.launch import run

    with (contextlib.nullcontext(a.keep) if a.keep else tempfile.TemporaryDirectory()) as tmp:
        Path(tmp).mkdir(parents=True, exist_ok=True)
        data = Path(tmp) / "chunks.jsonl"
        cpu = time.process_time()
        if not (a.keep and data.exists()):  # a kept folder's input is kept too: its finished shards are skipped
            write_chunks(data, n)
        setup_cpu = time.process_time() - cpu  # not the run's: left out of the whole tree's CPU
        load = round(os.getloadavg()[0], 1)  # other work on the machine shares its cores
        cfg = bench_config(data, Path(tmp) / "out", url, a)
        t0 = time.perf_counter()
        with _cluster(a):
            result = trio.run(lambda: run(cfg, out=io.StringIO(), notice=lambda m: None))
        wall = time.perf_counter() - t0
    row = result.report["passes"][0]
    made = row.get("community_reports", {})
    return {"communities": row.get("communities", 0), "reports": made.get("made", 0) + made.get("cached", 0),
            "chunks": n, "wall_s": round(wall, 1), "chunks_per_s": round(n / wall), "calls": row["calls"],
            "failed": len(result.report["failed"]), "nodes": row["nodes"], "edges": row["edges"],
            "shards": result.report["runtime"]["shards"], "stages_s": result.report["runtime"]["stages_s"],
            "cpu_s": result.report["runtime"]["cpu_s"], "load_before": load, "setup_cpu_s": round(setup_cpu, 1),
            "driver_peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024}


def fake_model_ms(sample: int = 3000) -> float:
    """CPU ms the in-process fake model spends answering one extraction call (decoding the request, the
    synthetic responder, encoding its answer), measured alone on requests like the run's: part of the workers'
    CPU that is the test double's, not graphglean's."""
    import json as json_
    import math

    import trio

    from graphglean.core.config import Config
    from graphglean.graph.extraction.prompts import GraphPrompts
    from graphglean.testing.inprocess import InProcessTransport
    from graphglean.testing.models.responders import synthetic

    prompts = GraphPrompts.from_config(Config().graph)
    bodies = []
    for k in range(sample):
        text = f"{name(k)} wrote to {name(k * 7 + 1)} about {name(k * 13 + 2)} (note {k})."
        body = {"model": "gpt-4", "messages": [{"role": "user", "content": prompts.extraction(text)}],
                "temperature": 0.0}
        bodies.append(json_.dumps(body, ensure_ascii=False, separators=(",", ":")).encode())
    transport = InProcessTransport(synthetic)
    head = [(b"Host", b"in-process.invalid"), (b"content-type", b"application/json")]

    async def answer_all() -> float:
        cpu = time.process_time()
        for body in bodies:
            await transport.exchange(None, b"POST", b"/v1/chat/completions", head, body)
        return time.process_time() - cpu

    return round(1000 * trio.run(answer_all) / sample, 4) if sample else math.nan


def shard_alone(n: int, a: argparse.Namespace) -> dict:
    """One shard task of ``n`` chunks in this process, without Ray: its passes with calls answered in process,
    under the task's collector settings, as a worker runs it (the tokenizer loaded before, as a worker that ran
    a task has it). CPU per chunk of the per-chunk path alone, with no other process on the cores."""
    import trio

    from graphglean.core.tokens import Tokenizer
    from graphglean.engines.ray import shard_task
    from graphglean.engines.ray.driver import worker_config
    from graphglean.engines.ray.shards import absolute_paths, plan_shards, with_partitions
    from graphglean.engines.ray.task_gc import task_gc
    from graphglean.testing.inprocess import InProcessTransport
    from graphglean.testing.models.responders import synthetic

    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "chunks.jsonl"
        write_chunks(data, n)
        a.shard_chunks = n
        cfg = absolute_paths(bench_config(data, Path(tmp) / "out", "http://in-process.invalid/v1", a))
        spec = next(plan_shards(cfg))
        cfg = with_partitions(cfg, 1)
        before, shard_task.transport_factory = shard_task.transport_factory, lambda: InProcessTransport(synthetic)
        Tokenizer(cfg.llm.model)
        load = round(os.getloadavg()[0], 1)
        t0, cpu = time.perf_counter(), time.process_time()
        try:
            with task_gc():
                report = trio.run(shard_task.process_shard, spec, worker_config(cfg),
                                  Path(cfg.output.dir) / "shards" / spec.name, None)
        finally:
            shard_task.transport_factory = before
        cpu, wall = time.process_time() - cpu, time.perf_counter() - t0
    return {"chunks": n, "wall_s": round(wall, 2), "cpu_s": round(cpu, 2), "ms_per_chunk": round(1000 * cpu / n, 3),
            "calls": report["passes"][0]["calls"], "failed": len(report["failed"]), "load_before": load}


@contextlib.contextmanager
def _cluster(a: argparse.Namespace) -> Iterator[None]:
    """In-process calls: a local cluster whose workers answer in process, started here (the run uses it) and
    shut down after. Otherwise the run starts and stops its own."""
    if a.calls != "inprocess" or a.method != "llm":
        yield
        return
    import logging
    import math

    import ray

    from graphglean.engines.ray.driver import TASK_CPUS
    from graphglean.testing.inprocess import ray_runtime_env

    ray.init(num_cpus=max(1, math.ceil(a.workers * TASK_CPUS)), include_dashboard=False, log_to_driver=False,
             logging_level=logging.WARNING, runtime_env=ray_runtime_env())
    try:
        yield
    finally:
        ray.shutdown()


def _marked(marker: str) -> Iterator[Path]:
    """/proc folders of the live processes whose environment holds ``marker``."""
    for env in Path("/proc").glob("[0-9]*/environ"):
        try:
            if marker.encode() in env.read_bytes():
                yield env.parent
        except OSError:
            continue


class TreeCPU(threading.Thread):
    """CPU seconds of every process of a run (the driver, Ray's own processes, the workers), read from /proc
    twice a second: a process's last half second before it exits is missed."""

    def __init__(self, marker: str) -> None:
        super().__init__(daemon=True)
        self.marker, self.seen = marker, {}  # pid -> (name, CPU s)
        self._done = threading.Event()

    def run(self) -> None:
        tick = os.sysconf("SC_CLK_TCK")
        while not self._done.wait(0.5):
            for folder in _marked(self.marker):
                try:
                    stat = (folder / "stat").read_text()
                    name = (folder / "cmdline").read_bytes().split(b"\0")[0].decode(errors="replace")
                except OSError:
                    continue
                fields = stat.rpartition(")")[2].split()
                title = name.split()[0] if name.startswith("ray::") else Path(name).name or stat.split()[1]
                self.seen[folder.name] = (title, (int(fields[11]) + int(fields[12])) / tick)

    def stop(self) -> None:
        self._done.set()
        self.join()

    def total(self) -> float:
        return sum(cpu for _, cpu in self.seen.values())

    def by_name(self) -> dict[str, float]:
        out: dict[str, float] = {}
        for name, cpu in self.seen.values():
            out[name] = round(out.get(name, 0.0) + cpu, 1)
        return dict(sorted(out.items(), key=lambda kv: -kv[1]))


def ray_processes(marker: str) -> int:
    """Live processes of this size's run (which all inherit the marker in their environment): its cluster's
    processes left behind, not other users' clusters on the machine."""
    return sum(1 for _ in _marked(marker))


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    p.add_argument("--workers", type=int, default=4)
    p.add_argument("--shard-chunks", type=int, default=10_000)
    p.add_argument("--partitions", type=int, default=0, help="runtime.graph_partitions (default 0: the library's auto)")
    p.add_argument("--rpm", type=int, default=0, help="global request limit (leases are used only with a limit)")
    p.add_argument("--method", choices=["llm", "nlp"], default="llm",
                   help="nlp: the offline graph method, no calls (the engine's own cost)")
    p.add_argument("--max-gleanings", type=int, default=0)
    p.add_argument("--communities", action="store_true",
                   help="also cluster the graph and report on its communities (stages communities, "
                        "community_reports, community_tables)")
    p.add_argument("--calls", choices=["inprocess", "http"], default="inprocess",
                   help="inprocess: answered inside the workers; http: by the fake server in its own process")
    p.add_argument("--keep", help="run in this folder and keep it (its shards are what benchmarks/ray_merge.py "
                                  "merges; a run again in it skips them: the stages after the shards alone); one "
                                  "size only")
    p.add_argument("--alone", type=int, metavar="N",
                   help="only one shard task of N chunks in this process, without Ray: its CPU per chunk")
    p.add_argument("--one", type=int, help=argparse.SUPPRESS)
    p.add_argument("--url", help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.keep and len(a.sizes) > 1 and not a.one:  # a size's own driver process is given --one, not --sizes
        p.error("--keep takes one size")
    if a.alone:
        rows = [shard_alone(a.alone, a) for _ in range(3)]
        print(table(rows, ["chunks", "wall_s", "cpu_s", "ms_per_chunk", "calls", "failed", "load_before"]))
        print(f"one shard alone: {min(r['ms_per_chunk'] for r in rows):.3f} ms of CPU a chunk at best of 3 "
              f"(the in-process fake model's share: {fake_model_ms():.4f} ms a call)")
        return
    if a.one:
        print(json.dumps(one(a.one, a.url, a)))
        return
    rows = []
    calibrate = a.calls == "inprocess" and a.method == "llm"
    fake_ms = fake_model_ms() if calibrate else 0.0
    speed = round(fake_ms, 4)  # the machine's, before the next size: a ratio of walls holds only if it held
    server = fake_server() if a.calls == "http" else contextlib.nullcontext("http://in-process.invalid/v1")
    with server as url:
        for n in a.sizes:
            marker = f"{MARKER}={uuid.uuid4().hex}"
            watch = TreeCPU(marker)
            watch.start()
            done = subprocess.run([sys.executable, __file__, "--one", str(n), "--url", url, "--workers",
                                   str(a.workers), "--shard-chunks", str(a.shard_chunks), "--partitions",
                                   str(a.partitions), "--rpm", str(a.rpm), "--method", a.method,
                                   "--max-gleanings", str(a.max_gleanings), "--calls", a.calls,
                                   *(["--communities"] if a.communities else []),
                                   *(["--keep", a.keep] if a.keep else [])],
                                  capture_output=True, text=True, env={**os.environ, MARKER: marker})
            if done.returncode:
                sys.exit(done.stderr[-3000:])
            watch.stop()
            row = json.loads(done.stdout.strip().splitlines()[-1])
            row["cpu_s_total"] = round(sum(row["cpu_s"].values()), 1)  # the tasks' and the driver's
            row["cpu_s_all"] = round(watch.total() - row["setup_cpu_s"], 1)
            row["ms_per_chunk"] = round(1000 * row["cpu_s_all"] / n, 3)
            row["cpu_s_by_process"] = watch.by_name()
            time.sleep(1)
            row["ray_procs_after"] = ray_processes(marker)
            if calibrate:
                row["fake_ms_before"], speed = speed, round(fake_model_ms(), 4)
                row["fake_ms_after"] = speed
            rows.append(row)
            print(json.dumps(row), file=sys.stderr)
    print(table(rows, ["chunks", "shards", "calls", "failed", "wall_s", "chunks_per_s", "nodes", "edges",
                       *(["communities", "reports"] if a.communities else []), "driver_peak_mb", "cpu_s_total",
                       "cpu_s_all", "ms_per_chunk", "ray_procs_after", "load_before",
                       *(["fake_ms_before", "fake_ms_after"] if calibrate else [])]))
    if fake_ms:
        print(f"the in-process fake model alone: {fake_ms:.4f} ms of CPU a call (in the workers' CPU above: "
              + "; ".join(f"{r['chunks']} chunks: {fake_ms * r['calls'] / r['chunks']:.3f} ms a chunk" for r in rows)
              + ")")
    for row in rows:
        print(f"{row['chunks']} chunks: driver stages (wall s) {json.dumps(row['stages_s'])}; CPU s of the tasks "
              f"per stage {json.dumps(row['cpu_s'])} = {1000 * row['cpu_s_total'] / row['chunks']:.3f} ms a chunk "
              f"(Ray's own processes not counted); every process of the run: {row['cpu_s_all']} CPU s = "
              f"{1000 * row['cpu_s_all'] / row['chunks']:.3f} ms a chunk {json.dumps(row['cpu_s_by_process'])}; "
              f"load average before {row['load_before']}")


if __name__ == "__main__":
    main()
