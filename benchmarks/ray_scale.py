"""engine ray at scale: N pre-chunked chunks, one fake LLM call each (max_gleanings 0), on a local cluster that
the run starts and stops. Per size: wall time, chunks a second, the driver's peak memory (each size is run by a
driver process of its own), and Ray processes left after the run (leases: benchmarks/ray_leases.py).

    python benchmarks/ray_scale.py [--sizes 100000 1000000] [--workers 4] [--shard-chunks 10000] [--rpm 0]
                                   [--method llm|nlp]
"""

from __future__ import annotations

import argparse
import io
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _server import fake_server, table  # noqa: E402

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


def one(n: int, url: str, workers: int, shard_chunks: int, partitions: int, rpm: int, method: str) -> dict:
    """Run in a driver process of its own: one size."""
    import trio

    from graphglean.config import Config
    from graphglean.pipeline import run

    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "chunks.jsonl"
        write_chunks(data, n)
        cfg = Config()
        cfg.llm.base_url, cfg.llm.api_key, cfg.llm.model = url, "bench", "gpt-4"
        cfg.llm.cache.mode, cfg.llm.max_concurrency, cfg.llm.requests_per_minute = "off", 64 * workers, rpm
        cfg.input.path, cfg.input.format, cfg.output.dir = str(data), "chunks", str(Path(tmp) / "out")
        cfg.graph.method, cfg.graph.max_gleanings, cfg.graph.description_max_tokens = method, 0, 10**6
        rt = cfg.runtime
        rt.engine, rt.workers, rt.shard_chunks, rt.graph_partitions, rt.single_graph = "ray", workers, shard_chunks, \
            partitions, False
        t0 = time.perf_counter()
        result = trio.run(lambda: run(cfg, out=io.StringIO(), notice=lambda m: None))
        wall = time.perf_counter() - t0
    row = result.report["passes"][0]
    return {"chunks": n, "wall_s": round(wall, 1), "chunks_per_s": round(n / wall), "calls": row["calls"],
            "nodes": row["nodes"], "edges": row["edges"], "shards": result.report["runtime"]["shards"],
            "driver_peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024}


def ray_processes() -> int:
    out = subprocess.run(["ps", "-eo", "stat,cmd"], capture_output=True, text=True).stdout
    return sum(1 for line in out.splitlines() if ("raylet" in line or "gcs_server" in line or "ray::" in line)
               and not line.startswith("Z"))


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    p.add_argument("--workers", type=int, default=4)
    p.add_argument("--shard-chunks", type=int, default=10_000)
    p.add_argument("--partitions", type=int, default=16)
    p.add_argument("--rpm", type=int, default=0, help="global request limit (leases are used only with a limit)")
    p.add_argument("--method", choices=["llm", "nlp"], default="llm",
                   help="nlp: the offline graph method, no calls (the engine's own cost)")
    p.add_argument("--one", type=int, help=argparse.SUPPRESS)
    p.add_argument("--url", help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.one:
        print(json.dumps(one(a.one, a.url, a.workers, a.shard_chunks, a.partitions, a.rpm, a.method)))
        return
    rows = []
    with fake_server() as url:
        for n in a.sizes:
            done = subprocess.run([sys.executable, __file__, "--one", str(n), "--url", url, "--workers",
                                   str(a.workers), "--shard-chunks", str(a.shard_chunks), "--partitions",
                                   str(a.partitions), "--rpm", str(a.rpm), "--method", a.method],
                                  capture_output=True, text=True)
            if done.returncode:
                sys.exit(done.stderr[-3000:])
            row = json.loads(done.stdout.strip().splitlines()[-1])
            time.sleep(1)
            row["ray_procs_after"] = ray_processes()
            rows.append(row)
            print(json.dumps(row), file=sys.stderr)
    print(table(rows, ["chunks", "shards", "calls", "wall_s", "chunks_per_s", "nodes", "edges", "driver_peak_mb",
                       "ray_procs_after"]))


if __name__ == "__main__":
    main()
