"""Batch mode's own cost: the client's CPU and memory per request of a wave, against the same requests online.

    python benchmarks/batch.py [--requests 20000] [--prompt-chars 4000] [--max-requests 50000]

N distinct requests (prompts of ``--prompt-chars``, about a 1,200-token chunk's) are asked at once through a
`ChatClient` in batch mode (one wave, split at ``--max-requests`` lines per batch), against the fake server in a
process of its own (a batch is answered at its first look); then the same N online at max_concurrency 256. Each
mode runs in a fresh process: client CPU ms per request, wall s, and the process's peak RSS.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

import trio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _server import fake_server, table  # noqa: E402

from graphglean.core.config import LLMConfig  # noqa: E402
from graphglean.llm import ChatClient  # noqa: E402


async def drive(base_url: str, mode: str, requests: int, chars: int, max_requests: int) -> dict:
    cfg = LLMConfig(base_url=base_url, api_key="bench", model="gpt-4", max_concurrency=256)
    cfg.cache.mode = "off"
    cfg.batch.enabled = mode == "batch"
    cfg.batch.poll_s, cfg.batch.quiet_s, cfg.batch.online_tail = 0.2, 0.5, 0
    cfg.batch.max_requests = max_requests
    filler = ("It was the best of times, it was the worst of times. " * (chars // 50 + 1))[:chars]
    async with ChatClient(cfg) as client:
        cpu0, t0 = time.process_time(), time.perf_counter()
        send, recv = trio.open_memory_channel(requests)
        for i in range(requests):
            send.send_nowait(i)
        send.close()

        async def worker() -> None:
            async for i in recv:
                prompt = f"Passage:\nRequest {i}. {filler}\n\nRecords:"
                await client.chat(client.request([{"role": "user", "content": prompt}], max_tokens=64))

        async with trio.open_nursery() as nursery:
            for _ in range(requests if mode == "batch" else 256):  # batch mode: every request at once
                nursery.start_soon(worker)
        cpu, wall = time.process_time() - cpu0, time.perf_counter() - t0
    return {"mode": mode, "requests": requests, "calls": client.account.calls,
            "batch_calls": client.account.batch_calls, "cpu_ms_per_request": round(1000 * cpu / requests, 3),
            "wall_s": round(wall, 2), "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--requests", type=int, default=20000)
    p.add_argument("--prompt-chars", type=int, default=4000)
    p.add_argument("--max-requests", type=int, default=50000)
    p.add_argument("--mode", choices=("batch", "online"), help="one mode, in this process (else both, each in a "
                   "process of its own)")
    p.add_argument("--base-url", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.mode:
        print(json.dumps(trio.run(drive, args.base_url, args.mode, args.requests, args.prompt_chars,
                                  args.max_requests)))
        return
    rows = []
    with fake_server() as base_url:
        for mode in ("batch", "online"):
            out = subprocess.run([sys.executable, __file__, "--mode", mode, "--base-url", base_url,
                                  "--requests", str(args.requests), "--prompt-chars", str(args.prompt_chars),
                                  "--max-requests", str(args.max_requests)],
                                 capture_output=True, text=True, check=True)
            rows.append(json.loads(out.stdout.splitlines()[-1]))
    with open("/proc/loadavg") as f:
        load = f.read().split()[0]
    print(f"load {load}")
    print(table(rows, ["mode", "requests", "calls", "batch_calls", "cpu_ms_per_request", "wall_s", "peak_rss_mb"]))


if __name__ == "__main__":
    main()
