"""A slow local server with graphglean's default ``llm`` settings (issue 29): a graph run against a fake server of
2 slots at 20 tokens/s, every extraction answer longer than 120 s, no slot report, a hang-up that does not
stop a generation. Prints a table: items failed, tokens abandoned against delivered, the wall time against the
server's own work over its slots, what the client learned of the server, and the waits.

    python benchmarks/local_server.py [--documents 6] [--scale 1] [--style plain|llama.cpp|llama-cpp-python|ollama]

Targets: no failed item, abandoned tokens <= 2% of delivered, wall <= 1.3 x work / slots. ``--scale 10`` runs
the server ten times faster with the timeouts ten times shorter (the unit test runs at 100).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import trio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _server import table  # noqa: E402

from graphglean.core.config import Config, LLMConfig  # noqa: E402
from graphglean.launch import run  # noqa: E402
from graphglean.testing import FakeLLMServer, LocalServer  # noqa: E402
from tests.test_local_server import corpus, long_answers  # noqa: E402


async def main(args: argparse.Namespace) -> None:
    changes = dict(slots=2, tokens_per_s=20 * args.scale, reports_slots=False, cancels_on_hangup=False,
                   headers_at_first_token=True)
    local = LocalServer(**changes) if args.style == "plain" else LocalServer.like(args.style, **changes)
    with tempfile.TemporaryDirectory() as tmp:
        async with FakeLLMServer(long_answers, local=local).running() as s:
            cfg = Config()
            cfg.llm = LLMConfig(base_url=s.base_url, model="small-local")
            defaults = LLMConfig()
            cfg.llm.timeout_s = defaults.timeout_s / args.scale
            cfg.llm.first_token_timeout_s = defaults.first_token_timeout_s / args.scale
            cfg.llm.cache.mode = "off"
            (Path(tmp) / "in.jsonl").write_text(corpus(args.documents, 20))
            cfg.input.path, cfg.output.dir = str(Path(tmp) / "in.jsonl"), str(Path(tmp) / "out")
            cfg.graph.resolve.method = "rules"
            started, cpu = time.monotonic(), time.process_time()
            await run(cfg, notice=lambda m: print(m, file=sys.stderr), out=open(os.devnull, "w"))
            wall, cpu = time.monotonic() - started, time.process_time() - cpu
        report = json.loads((Path(tmp) / "out" / "report.json").read_text())
    stats, learned = local.stats(), report["llm"]["concurrency"]
    answers = [r for r in s.request_log() if r["completion_tokens"] > 100]
    ideal = stats["work_s"] / local.slots
    print(table([{
        "chunks": report["chunks"], "failed": len(report["failed"]),
        "longest answer s": f"{max(r['completion_tokens'] for r in answers) / (20 * args.scale) * args.scale:.0f}",
        "shortest answer s": f"{min(r['completion_tokens'] for r in answers) / (20 * args.scale) * args.scale:.0f}",
        "delivered tok": stats["delivered_tokens"], "abandoned tok": stats["abandoned_tokens"],
        "abandoned %": f"{100 * stats['abandoned_tokens'] / max(1, stats['delivered_tokens']):.2f}",
        "work/slots s": f"{ideal * args.scale:.0f}", "wall s": f"{wall * args.scale:.0f}",
        "wall / ideal": f"{wall / ideal:.3f}", "client CPU s": f"{cpu:.1f}"}],
        ["chunks", "failed", "longest answer s", "shortest answer s", "delivered tok", "abandoned tok",
         "abandoned %", "work/slots s", "wall s", "wall / ideal", "client CPU s"]))
    print()
    print(table([{"learned slots": learned["server_slots"], "in flight": learned["in_flight_limit"],
                  "how": learned["source"], "queue waits": learned["queue_wait_s"].get("count", 0),
                  "max queue wait s": f"{stats['max_queue_wait_s'] * args.scale:.0f}",
                  "first token p50 s": f"{learned['time_to_first_token_s'].get('p50', 0) * args.scale:.1f}",
                  "first token p95 s": f"{learned['time_to_first_token_s'].get('p95', 0) * args.scale:.1f}",
                  "retries": report["passes"][0]["retries"]}],
                ["learned slots", "in flight", "how", "queue waits", "max queue wait s", "first token p50 s",
                 "first token p95 s", "retries"]))
    print(f"\ntimes in real seconds (scaled back by {args.scale:g}); load {' '.join(f'{x:.2f}' for x in os.getloadavg())}"
          f" on {os.cpu_count()} cores")


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--documents", type=int, default=6)
    p.add_argument("--scale", type=float, default=1.0)
    p.add_argument("--style", default="plain", choices=["plain", "llama.cpp", "llama-cpp-python", "ollama"])
    trio.run(main, p.parse_args())
