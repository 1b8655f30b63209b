"""Graph runs with graphglean's default ``llm`` settings (no concurrency set) against the servers users have
(issues 29 and 32). Cases (``--case``, several with commas; ``all`` for every one):

- ``slow`` (issue 29): a slow local server: 2 slots at 20 tokens/s, every extraction answer longer than 120 s,
  no slot report, a hang-up that does not stop a generation; 6 documents.
- ``queue``: the same server with 40 documents at ``--scale 40`` (answers of about 3 s, first_token_timeout_s
  at five answers' time): a queue far longer than the first-token timeout, which must be waited out.
- ``fast``: 600 one-call chunks against a server that answers every request in 1 s, runs any number at once
  and refuses ``stream``; ``fast-stream``: the same server, streaming (whole answers after 1 s);
  ``uneven``: the same server streaming, its answers after 0.3 to 2.3 s, one in thirty 3 s later still (a
  hosted service's own spread, no queue: a buffering proxy sends each stream whole).
- ``hosted``: a streaming hosted-like service (256 slots, 100 tokens/s, no slot report), run twice: with the
  defaults and with ``llm.server_concurrency: 64``; ``hosted-uneven``: the same, first tokens spread as
  ``uneven``'s.
- ``rpm``: a service that enforces a request rate with 429s and Retry-After, and no rate-limit headers
  (``--rpm``, 120 by default; every answer after ``--latency``, 3 s: the rate needs more in flight than a few),
  ``--documents`` one-call chunks (90), run twice: with the defaults (the rate learned from the 429s) and with
  ``llm.requests_per_minute`` set to the server's rate.

    python benchmarks/local_server.py [--case slow] [--documents N] [--scale S] [--style plain|llama.cpp|...]

Each prints achieved / ideal. ``slow`` and ``queue``: items failed, tokens abandoned against delivered, the wall
time against the server's own work over its slots (targets: no failed item, abandoned <= 2% of delivered,
wall <= 1.3 x work / slots). ``fast``: the rate against 64 a second; ``uneven``: against 64 in flight, the
requests' own time over 64 (targets >= 0.85). ``hosted``: the wall with llm.server_concurrency 64 against
the defaults' (target >= 1 / 1.2); ``rpm``: the wall with llm.requests_per_minute set against the defaults'
(target >= 0.85). ``--scale 10`` runs a local
server ten times faster with the timeouts ten times shorter (the unit test runs at 50); times are printed
scaled back.
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
from ray_scale import write_chunks  # noqa: E402

from graphglean.core.config import Config, LLMConfig  # noqa: E402
from graphglean.launch import run  # noqa: E402
from graphglean.testing import FakeLLMServer, LocalServer, Reply  # noqa: E402
from graphglean.testing.models.responders import synthetic, uneven  # noqa: E402
from tests.test_local_server import corpus, long_answers  # noqa: E402

CASES = ("slow", "queue", "fast", "fast-stream", "uneven", "hosted", "hosted-uneven", "rpm")
FAST_CHUNKS, FAST_LATENCY_S, CAP = 600, 1.0, 64


async def graph_run(server: FakeLLMServer, tmp: Path, name: str, write_input, scale: float = 1.0,
                    **llm: object) -> tuple[dict, float, float]:
    """(report, wall s, client CPU s) of a graph run with the default llm settings (and ``llm``'s changes)."""
    async with server.running() as s:
        cfg = Config()
        cfg.llm = LLMConfig(base_url=s.base_url, model="small-local", **llm)
        defaults = LLMConfig()
        cfg.llm.timeout_s = defaults.timeout_s / scale
        cfg.llm.first_token_timeout_s = defaults.first_token_timeout_s / scale
        cfg.llm.cache.mode = "off"
        cfg.input.path, cfg.output.dir = str(tmp / f"{name}.jsonl"), str(tmp / name)
        write_input(cfg, Path(cfg.input.path))
        cfg.graph.resolve.method = "rules"
        started, cpu, on_trio = time.monotonic(), time.process_time(), trio.current_time()
        await run(cfg, notice=lambda m: print(m, file=sys.stderr), out=open(os.devnull, "w"))
        wall, cpu = time.monotonic() - started, time.process_time() - cpu
    report = json.loads((tmp / name / "report.json").read_text())
    report["bench_run_s"] = (on_trio, on_trio + wall)  # the run's start and end on the server's clock
    return report, wall, cpu


def documents(n: int):
    def write(cfg: Config, path: Path) -> None:
        path.write_text(corpus(n, 20))
    return write


def one_call_chunks(cfg: Config, path: Path, n: int = FAST_CHUNKS) -> None:
    """Pre-made chunks, one extraction call each (no gleaning, no description summaries)."""
    write_chunks(path, n)
    cfg.input.format, cfg.graph.max_gleanings, cfg.graph.description_max_tokens = "chunks", 0, 10**6
    cfg.graph.resolve.enabled = False


async def local(args: argparse.Namespace, tmp: Path, case: str) -> None:
    scale, docs = (args.scale or 40.0, args.documents or 40) if case == "queue" else (args.scale or 1.0,
                                                                                     args.documents or 6)
    changes = dict(slots=2, tokens_per_s=20 * scale, reports_slots=False, cancels_on_hangup=False,
                   headers_at_first_token=True)
    server = LocalServer(**changes) if args.style == "plain" else LocalServer.like(args.style, **changes)
    fake = FakeLLMServer(long_answers, local=server)
    report, wall, cpu = await graph_run(fake, tmp, case, documents(docs), scale)
    stats, learned = server.stats(), report["llm"]["concurrency"]
    answers = [r for r in fake.request_log() if r["completion_tokens"] > 100]
    ideal = stats["work_s"] / server.slots
    print(f"\n{case}: 2 slots at 20 tokens/s, {docs} documents, defaults (scale {scale:g})")
    print(table([{
        "chunks": report["chunks"], "failed": len(report["failed"]),
        "longest answer s": f"{max(r['completion_tokens'] for r in answers) / 20:.0f}",
        "shortest answer s": f"{min(r['completion_tokens'] for r in answers) / 20:.0f}",
        "delivered tok": stats["delivered_tokens"], "abandoned tok": stats["abandoned_tokens"],
        "abandoned %": f"{100 * stats['abandoned_tokens'] / max(1, stats['delivered_tokens']):.2f}",
        "work/slots s": f"{ideal * scale:.0f}", "wall s": f"{wall * scale:.0f}",
        "achieved/ideal": f"{ideal / wall:.3f}", "client CPU s": f"{cpu:.1f}"}],
        ["chunks", "failed", "longest answer s", "shortest answer s", "delivered tok", "abandoned tok",
         "abandoned %", "work/slots s", "wall s", "achieved/ideal", "client CPU s"]))
    print(table([{"slots": learned["server_slots"], "in flight": learned["in_flight_limit"],
                  "start": learned["start"], "how": learned["source"],
                  "queue waits": learned["queue_wait_s"].get("count", 0),
                  "max queue wait s": f"{stats['max_queue_wait_s'] * scale:.0f}",
                  "first token timeout s": f"{LLMConfig().first_token_timeout_s:.0f}",
                  "first token p95 s": f"{learned['time_to_first_token_s'].get('p95', 0) * scale:.1f}",
                  "retries": report["passes"][0]["retries"]}],
                ["slots", "in flight", "start", "how", "queue waits", "max queue wait s", "first token timeout s",
                 "first token p95 s", "retries"]))


def spread(responder):
    """``responder``'s answers after `uneven`'s wait: 0 to 2 s, and 3 s more for one in thirty."""
    def respond(req):
        answer = responder(req)
        answer = Reply(answer) if isinstance(answer, str) else answer
        return Reply(answer.text, answer.finish_reason, answer.status, answer.headers, answer.body,
                     answer.delay + uneven(req).delay)
    return respond


async def fast(args: argparse.Namespace, tmp: Path, case: str) -> None:
    streamed = case != "fast"
    latency = 0.3 if case == "uneven" else FAST_LATENCY_S
    fake = FakeLLMServer(spread(synthetic) if case == "uneven" else synthetic, latency=latency,
                         refuse_stream=not streamed)
    report, wall, cpu = await graph_run(fake, tmp, case, one_call_chunks, max_concurrency=CAP)
    calls = len(fake.chat_requests())
    log = fake.request_log()
    ideal = CAP / FAST_LATENCY_S if case != "uneven" else CAP * len(log) / sum(r["finished"] - r["started"]
                                                                               for r in log)
    span = max(r["finished"] for r in log) - min(r["started"] for r in log)  # the requests' own time
    answers = "after 0.3-2.3 s, 1/30 3 s later" if case == "uneven" else f"in {FAST_LATENCY_S:g} s"
    print(f"\n{case}: {FAST_CHUNKS} one-call chunks, every answer {answers}, any number at once, "
          f"{'streamed (sent whole)' if streamed else 'stream refused'}; defaults, max_concurrency {CAP}")
    learned = report["llm"]["concurrency"]
    print(table([{"chunks": report["chunks"], "failed": len(report["failed"]), "requests": calls,
                  "server max in flight": fake.max_in_flight, "wall s": f"{wall:.1f}",
                  "calls/s": f"{calls / wall:.1f}", "ideal/s": f"{ideal:.0f}",
                  "achieved/ideal": f"{calls / wall / ideal:.3f}", "requests' span s": f"{span:.1f}",
                  "in span/ideal": f"{calls / span / ideal:.3f}",
                  "before first s": f"{min(r['started'] for r in log) - report['bench_run_s'][0]:.2f}",
                  "after last s": f"{report['bench_run_s'][1] - max(r['finished'] for r in log):.2f}",
                  "start": learned["start"],
                  "final": learned["final"], "client CPU ms/call": f"{1000 * cpu / calls:.2f}"}],
                ["chunks", "failed", "requests", "server max in flight", "wall s", "calls/s", "ideal/s",
                 "achieved/ideal", "requests' span s", "in span/ideal", "before first s", "after last s", "start",
                 "final", "client CPU ms/call"]))


async def hosted(args: argparse.Namespace, tmp: Path, case: str) -> None:
    docs = args.documents or 128
    rows = []
    for name, llm in (("defaults", {}), ("server_concurrency 64", {"server_concurrency": CAP})):
        server = LocalServer(slots=256, tokens_per_s=100, reports_slots=False, cancels_on_hangup=True,
                             headers_at_first_token=False)
        fake = FakeLLMServer(spread(long_answers) if case == "hosted-uneven" else long_answers, local=server)
        report, wall, cpu = await graph_run(fake, tmp, f"{case}-{len(rows)}", documents(docs), **llm)
        learned = report["llm"]["concurrency"]
        rows.append({"run": name, "chunks": report["chunks"], "failed": len(report["failed"]),
                     "requests": len(fake.chat_requests()), "server max in flight": fake.max_in_flight,
                     "wall s": wall, "start": learned["start"], "final": learned["final"],
                     "abandoned tok": server.stats()["abandoned_tokens"], "client CPU s": f"{cpu:.1f}"})
    for row in rows:
        row["achieved/ideal"] = f"{rows[1]['wall s'] / row['wall s']:.3f}"
        row["wall s"] = f"{row['wall s']:.1f}"
    first = ", first tokens 0-2 s later, 1/30 3 s more" if case == "hosted-uneven" else ""
    print(f"\n{case}: 256 slots, 100 tokens/s{first}, no slot report, {docs} documents; max_concurrency {CAP} "
          "(ideal: the wall with llm.server_concurrency 64)")
    print(table(rows, list(rows[0])))


async def rate_limited(args: argparse.Namespace, tmp: Path, case: str) -> None:
    """A server enforcing ``--rpm`` with 429s (Retry-After, no rate-limit headers), every answer after
    ``--latency``: the defaults against llm.requests_per_minute set to its rate."""
    rpm, latency, n = args.rpm, args.latency, args.documents or 90
    rows = []
    for name, llm in (("defaults", {}), (f"requests_per_minute {rpm}", {"requests_per_minute": rpm})):
        fake = FakeLLMServer(synthetic, latency=latency, rpm=rpm)
        report, wall, cpu = await graph_run(fake, tmp, f"{case}-{len(rows)}",
                                            lambda cfg, path: one_call_chunks(cfg, path, n), **llm)
        learned = report["llm"]["concurrency"]
        chats = fake.chat_requests()
        rows.append({"run": name, "chunks": report["chunks"], "failed": len(report["failed"]),
                     "requests": len(chats), "429s": fake.status_counts.get(429, 0),
                     "server max in flight": fake.max_in_flight, "wall s": wall,
                     "answered/min": f"{60 * (len(chats) - fake.status_counts.get(429, 0)) / wall:.0f}",
                     "final in flight": learned["final"],
                     "limits": "; ".join(sorted({e["reason"] for e in learned["timeline"]}))[:90]})
    for row in rows:
        row["achieved/ideal"] = f"{rows[1]['wall s'] / row['wall s']:.3f}"
        row["wall s"] = f"{row['wall s']:.1f}"
    print(f"\n{case}: a server enforcing {rpm} RPM with 429s and Retry-After (no rate-limit headers), every answer "
          f"after {latency:g} s, {n} one-call chunks (ideal: the wall with llm.requests_per_minute {rpm})")
    print(table(rows, list(rows[0])))


async def main(args: argparse.Namespace) -> None:
    cases = CASES if args.case == "all" else args.case.split(",")
    with tempfile.TemporaryDirectory() as tmp:
        for case in cases:
            runner = {"slow": local, "queue": local, "fast": fast, "fast-stream": fast, "uneven": fast,
                      "hosted": hosted, "hosted-uneven": hosted, "rpm": rate_limited}[case]
            await runner(args, Path(tmp), case)
    print(f"\ntimes in real seconds (a local server's scaled back); load "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} cores")


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--case", default="slow", help=f"one or more of {', '.join(CASES)} (commas), or all")
    p.add_argument("--documents", type=int, default=0, help="0: the case's own (slow 6, queue 40, hosted 128)")
    p.add_argument("--scale", type=float, default=0.0, help="a local server's speed-up (0: slow 1, queue 40)")
    p.add_argument("--rpm", type=int, default=120, help="rpm: the server's rate limit, requests a minute")
    p.add_argument("--latency", type=float, default=3.0, help="rpm: seconds before each answer")
    p.add_argument("--style", default="plain", choices=["plain", "llama.cpp", "llama-cpp-python", "ollama"])
    trio.run(main, p.parse_args())
