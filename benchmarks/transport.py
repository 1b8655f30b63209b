"""Transport benchmark: throughput against the ideal C/L, client CPU per call, and RPM-limit tracking.

    python benchmarks/transport.py [--calls 5000]

Targets (issue 3): >= 90% of ideal at C=256, L=100 ms; >= 95% of an RPM limit with <= 2% of requests
answered 429; client CPU <= 1 ms per call. The server runs in its own process.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import trio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _server import fake_server, server_stats, table  # noqa: E402

from graphglean.config import LLMConfig  # noqa: E402
from graphglean.llm import ChatClient  # noqa: E402


async def drive(base_url: str, calls: int, concurrency: int, rpm: int = 0) -> tuple[float, float]:
    cfg = LLMConfig(base_url=base_url, api_key="bench", model="gpt-4", max_concurrency=concurrency,
                    requests_per_minute=rpm)
    cfg.cache.mode = "off"
    async with ChatClient(cfg) as client:
        send, recv = trio.open_memory_channel(calls)
        for i in range(calls):
            send.send_nowait(i)
        send.close()

        async def worker() -> None:
            async for i in recv:
                await client.chat(client.request([{"role": "user", "content": f"question {i}"}], max_tokens=16))

        cpu0, t0 = time.process_time(), time.perf_counter()
        async with trio.open_nursery() as nursery:
            for _ in range(concurrency):
                nursery.start_soon(worker)
        return time.perf_counter() - t0, time.process_time() - cpu0


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--calls", type=int, default=5000)
    p.add_argument("--rpm", type=int, default=3000)
    p.add_argument("--rpm-seconds", type=float, default=20.0)
    args = p.parse_args()
    rows = []
    for concurrency, latency in ((64, 0.1), (256, 0.1), (256, 0.5), (1000, 2.0)):
        calls = {0.1: args.calls, 0.5: args.calls // 2}.get(latency, 4000)
        with fake_server("--latency", str(latency)) as url:
            wall, cpu = trio.run(drive, url, calls, concurrency)
            held = server_stats(url)["max_in_flight"]
        ideal = concurrency / latency
        rows.append({"C": concurrency, "L ms": int(latency * 1000), "calls": calls, "wall s": f"{wall:.2f}",
                     "calls/s": f"{calls / wall:.0f}", "ideal/s": f"{ideal:.0f}",
                     "% of ideal": f"{100 * calls / wall / ideal:.1f}", "client CPU ms/call": f"{1000 * cpu / calls:.3f}",
                     "server max in flight": held})
    print(table(rows, list(rows[0])))
    calls = int(args.rpm / 60 * args.rpm_seconds)
    with fake_server("--latency", "0.05", "--rpm", str(args.rpm)) as url:
        wall, cpu = trio.run(drive, url, calls, 64, args.rpm)
        stats = server_stats(url)
    answered = stats["status_counts"]
    total = sum(answered.values())
    print()
    print(table([{"RPM limit": args.rpm, "calls": calls, "wall s": f"{wall:.2f}",
                  "achieved RPM": f"{calls / wall * 60:.0f}", "% of limit": f"{100 * calls / wall * 60 / args.rpm:.1f}",
                  "requests": total, "429 share %": f"{100 * answered.get('429', 0) / max(total, 1):.2f}"}],
                ["RPM limit", "calls", "wall s", "achieved RPM", "% of limit", "requests", "429 share %"]))


if __name__ == "__main__":
    main()
