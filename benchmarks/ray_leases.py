"""engine ray's global rate limit: leases against calls, the round trip a permit costs, and the rate the
cluster really sent, on one local cluster (4 workers) against the fake server in this process.

Scenarios: ``bind-R``: the server allows R requests a minute, the client is configured at 0.9 R, so the rate
binds; ``bind-R-Ls``: the same with answers after L seconds, so each worker needs R / 60 x L / 4 requests in
flight (issue 32: with the default concurrency, >= 80% of the configured rate, no 429); ``free``: a limit far above what the workers reach (slow answers, few in flight), so it never binds and
leases must follow the calls, not the clock.

Columns:
- batch: the least permits of one lease (about 0.25 s of a worker's share) and the most (a batch and its
  spare fill the worker's share of one second: all stocks together fit in the bank, which the burst bound
  needs); a worker grows its batch from the least so that its measured round trip costs each permit at most
  0.5 ms, and, when the rate binds and no task is coming, to no more than its callers waiting.
- calls: chat requests the server saw (429s included); leases: leases the bucket granted; per_lease: permits
  a lease brought on average; paced: permits granted as a schedule (to callers enough for a batch, what the
  bank lacks), void: scheduled permits no caller took within their time (lost to the rate); bound: calls /
  least batch + workers; holders: worker processes that leased (the design's bound is calls / batch +
  holders: Ray may run the shards of 4 workers in more than 4 processes).
- rt_ms_lease: the mean round trip of one lease, measured in the worker from the actor call until Ray's
  completion callback has the reply in the process; rt_ms_permit: the sum of those round trips over the
  permits they leased (the issue's "round trip per permit"); reply_wait_ms_permit: after that, until the
  worker's trio loop, busy with its calls, took the reply up, per permit; stall_ms_permit: the time callers were blocked
  on a lease in flight that the bucket granted at once (so the round trip, not the rate, held them), per
  permit: what the round trips cost the calls, the rest hidden by prefetching; connect_s: a worker process's
  first call to the actor, which sets up its connection (made as a report when the limiter starts, apart from
  the lease figures), mean per process; connect_stall_ms_permit: callers blocked on it, per permit.
- sustained: requests a second the server saw after the first second (the banked burst), and its share of
  the client's configured rate; max_1s: the most requests in any one second, against rate + 1 s burst
  (twice the client's rate); 429s.

    python benchmarks/ray_leases.py [--scenarios bind-1200 bind-6000 free] [--seconds 10]
"""

from __future__ import annotations

import argparse
import io
import logging
import os
import sys
from pathlib import Path

import trio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _server import table  # noqa: E402
from ray_scale import write_chunks  # noqa: E402

from graphglean.core.config import Config  # noqa: E402
from graphglean.engines.ray.leases import BatchSize  # noqa: E402
from graphglean.launch import run  # noqa: E402
from graphglean.testing import FakeLLMServer  # noqa: E402
from graphglean.testing.models.responders import synthetic  # noqa: E402

WORKERS = 4
FREE_RPM = 60_000  # 1000 a second: 4 workers with 4 calls of 0.2 s in flight each reach about 80


def most_in_a_second(times: list[float]) -> int:
    best, j = 0, 0
    for i, t in enumerate(times):
        while times[j] <= t - 1.0:
            j += 1
        best = max(best, i - j + 1)
    return best


async def scenario(name: str, seconds: float, tmp: Path) -> dict:
    if name == "free":
        server_rpm, client_rpm, latency, in_flight = 0, FREE_RPM, 0.2, 4 * WORKERS
        n = int(seconds * WORKERS * 4 / latency)
    else:  # bind-R, or bind-R-Ls: answers after L seconds (the in flight the rate needs: R / 60 x L)
        parts = name.split("-")
        server_rpm = int(parts[1])
        latency = float(parts[2].removesuffix("s")) if len(parts) > 2 else 0.0
        client_rpm, in_flight = int(0.9 * server_rpm), 64 * WORKERS
        n = int(seconds * client_rpm / 60)
    data = tmp / f"{name}.jsonl"
    write_chunks(data, n)
    async with FakeLLMServer(synthetic, latency=latency, rpm=server_rpm).running() as server:
        cfg = Config()
        cfg.llm.base_url, cfg.llm.api_key, cfg.llm.model = server.base_url, "bench", "gpt-4"
        cfg.llm.cache.mode, cfg.llm.max_concurrency, cfg.llm.requests_per_minute = "off", in_flight, client_rpm
        cfg.llm.max_retries = 20
        cfg.input.path, cfg.input.format, cfg.output.dir = str(data), "chunks", str(tmp / f"{name}-out")
        cfg.graph.method, cfg.graph.max_gleanings, cfg.graph.description_max_tokens = "llm", 0, 10**6
        cfg.graph.resolve.enabled = False
        rt = cfg.runtime
        rt.engine, rt.workers, rt.shard_chunks, rt.graph_partitions = "ray", WORKERS, max(1, n // 8), 4
        result = await run(cfg, out=io.StringIO(), notice=lambda m: None)
        times = sorted(r["started"] for r in server.request_log())
        rejected = server.status_counts.get(429, 0)
    leases = result.report["runtime"]["leases"]
    least = BatchSize.of(client_rpm, 0, WORKERS)
    batch = least.requests
    calls = len(times)
    steady = [t for t in times if t >= times[0] + 1.0]
    sustained = (len(steady) - 1) / (steady[-1] - steady[0]) if len(steady) > 1 else 0.0
    rate = client_rpm / 60
    permits = max(1, leases.get("leased_permits", 0))
    return {"scenario": name, "server_rpm": server_rpm or "-", "client_rpm": client_rpm,
            "batch": f"{batch}..{least.most_requests}", "shards": result.report["runtime"]["shards"], "calls": calls,
            "leases": leases["leases"], "per_lease": round(permits / max(1, leases["worker_leases"]), 1),
            "paced": leases.get("paced_permits", 0), "void": leases.get("void_permits", 0),
            "bound": round(calls / batch + WORKERS, 1), "holders": leases["holders"],
            "rt_ms_lease": round(1000 * leases["lease_round_trip_s"] / max(1, leases["worker_leases"]), 2),
            "rt_ms_permit": round(1000 * leases["lease_round_trip_s"] / permits, 3),
            "reply_wait_ms_permit": round(1000 * leases.get("lease_reply_wait_s", 0.0) / permits, 3),
            "stall_ms_permit": round(1000 * leases["lease_stall_s"] / permits, 3),
            "connect_s": round(leases["connect_s"] / max(1, leases["connects"]), 2),
            "connect_stall_ms_permit": round(1000 * leases["connect_stall_s"] / permits, 3),
            "sustained": f"{sustained:.1f} ({100 * sustained / rate:.0f}%)",
            "max_1s": most_in_a_second(times), "rate+burst": round(2 * rate), "429s": rejected}


async def main(names: list[str], seconds: float) -> None:
    import tempfile

    import ray

    print(f"load average before: {os.getloadavg()}", file=sys.stderr)
    load = os.getloadavg()[0]
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level=logging.WARNING)
    rows = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for name in names:
                rows.append(await scenario(name, seconds, Path(tmp)))
                print(rows[-1], file=sys.stderr)
    finally:
        ray.shutdown()
    print(f"load average after: {os.getloadavg()}", file=sys.stderr)
    print(table(rows, list(rows[0])))
    print(f"load average (1 min) before {load:.1f}, after {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--scenarios", nargs="+", default=["bind-1200", "bind-6000", "bind-3000-2s", "free"])
    p.add_argument("--seconds", type=float, default=10.0, help="about how long each scenario's calls take")
    a = p.parse_args()
    trio.run(main, a.scenarios, a.seconds)
