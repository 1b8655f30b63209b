"""The offline method's cost: NLP graph throughput (tokens/s, peak RSS) on a 5 MB text, spaCy next to the
rule-based fallback, each in its own process; and enrichment's entity backends, spaCy against the LLM (the fake
server in its own process, with a realistic latency): calls and wall milliseconds per message.

    python benchmarks/nlp.py [--mb 5] [--messages 300] [--latency 0.6]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import trio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _server import fake_server, table  # noqa: E402

from graphglean.core.config import Config, EnrichConfig  # noqa: E402
from graphglean.text.inputs import Message  # noqa: E402

SOURCES = [ROOT / "examples" / "a_christmas_carol_stave1.txt",
           ROOT.parent / "shared" / "corpora" / "artificial_intelligence_wikipedia.txt"]


def big_text(mb: float) -> str:
    """Dickens and the AI article, in turn, up to ``mb`` megabytes."""
    parts = [p.read_text() for p in SOURCES if p.exists()]
    out, size, i = [], 0, 0
    while size < mb * 1e6:
        out.append(parts[i % len(parts)])
        size += len(out[-1].encode())
        i += 1
    return "\n\n".join(out)


def one_graph(method: str, path: str) -> dict:
    """Runs in a child process: the graph of ``path`` by ``method`` (spacy | rules), with its peak RSS."""
    from graphglean.graph.extract import extract_graph
    from graphglean.graph.offline import nlp

    if method == "rules":
        nlp.load_pipeline = lambda *a, **k: None  # as when spaCy is not installed
    cfg = Config()
    text = Path(path).read_text()
    t0, cpu0 = time.perf_counter(), time.process_time()
    result = trio.run(lambda: extract_graph(text, cfg, method="nlp"))
    wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    chunk_tokens = _tokens(text, cfg)
    return {"method": result.stats.offline_backend, "MB": f"{len(text.encode()) / 1e6:.1f}",
            "chunks": result.stats.chunks, "tokens": chunk_tokens, "wall s": f"{wall:.1f}", "CPU s": f"{cpu:.1f}",
            "tokens/s": f"{chunk_tokens / wall:,.0f}", "tokens/CPU s": f"{chunk_tokens / cpu:,.0f}",
            "peak RSS MB": f"{_peak_rss_mb():.0f}",
            "nodes": result.stats.nodes, "edges": result.stats.edges}


def _tokens(text: str, cfg: Config) -> int:
    from graphglean.core.tokens import Tokenizer

    return Tokenizer(cfg.llm.model).count(text)


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kilobytes on Linux


def graph_rows(mb: float) -> list[dict]:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.txt"
        path.write_text(big_text(mb))
        for method in ("spacy", "rules"):
            done = subprocess.run([sys.executable, __file__, "--one", method, str(path)], capture_output=True,
                                  text=True, check=True)
            rows.append(json.loads(done.stdout.strip().splitlines()[-1]))
    return rows


def conversation(n: int) -> list[Message]:
    locomo = ROOT.parent / "shared" / "corpora" / "locomo" / "locomo10.json"
    if locomo.exists():
        from graphglean.text.inputs import locomo_messages
        from graphglean.text.locomo import parse_locomo

        messages = locomo_messages(parse_locomo(locomo.read_text(encoding="utf-8"), str(locomo)))[:n]
    else:
        lines = [p.strip() for p in SOURCES[0].read_text().split(".") if p.strip()]
        messages = [Message("s1", "user", lines[i % len(lines)]) for i in range(n)]
    return [Message("s1", m.role, m.content) for m in messages]


async def enrich_once(url: str, backend: str, messages: list[Message], tmp: Path) -> dict:
    from graphglean.enrich import Enricher, MemoryStore
    from graphglean.llm import ChatClient
    from graphglean.scheduling.scheduler import Scheduler

    cfg = Config()
    cfg.llm.base_url, cfg.llm.api_key, cfg.llm.model = url, "bench", "gpt-4"
    cfg.llm.cache.mode = "off"
    enrich = EnrichConfig(intent=False, embeddings=False, summaries=False, entity_backend=backend)
    store = MemoryStore(tmp / f"{backend}.sqlite")
    async with ChatClient.from_config(cfg.llm) as client:
        scheduler = Scheduler(client)
        async with Enricher(store, scheduler, enrich) as enricher:
            t0, cpu0 = time.perf_counter(), time.process_time()
            await enricher.add_messages("s1", messages)
            stats = await enricher.drain()
            wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
        calls = sum(a.calls for a in scheduler.accounts.values())
    store.close()
    n = len(messages)
    return {"backend": enricher.entity_backend, "messages": n, "LLM calls": calls, "calls/message": f"{calls / n:.2f}",
            "wall ms/message": f"{1000 * wall / n:.1f}", "CPU ms/message": f"{1000 * cpu / n:.1f}",
            "entities": stats.entities}


def enrich_rows(n: int, latency: float) -> list[dict]:
    messages = conversation(n)
    rows = []
    with tempfile.TemporaryDirectory() as tmp, fake_server("--latency", str(latency)) as url:
        for backend in ("spacy", "llm"):
            row = trio.run(enrich_once, url, backend, messages, Path(tmp))
            row["answer latency s"] = latency if backend == "llm" else "-"
            rows.append(row)
    return rows


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--mb", type=float, default=5.0, help="size of the graph benchmark's text")
    p.add_argument("--messages", type=int, default=300)
    p.add_argument("--latency", type=float, default=0.6, help="seconds per fake LLM answer (a realistic 0.3-1 s)")
    p.add_argument("--only", choices=["graph", "enrich"], help="run one of the two tables")
    p.add_argument("--one", nargs=2, metavar=("METHOD", "PATH"), help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.one:
        print(json.dumps(one_graph(*args.one)))
        return
    if args.only != "enrich":
        rows = graph_rows(args.mb)
        print(table(rows, list(rows[0])) + "\n")
    if args.only != "graph":
        rows = enrich_rows(args.messages, args.latency)
        print(table(rows, list(rows[0])))


if __name__ == "__main__":
    main()
