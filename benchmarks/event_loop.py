"""Event-loop stalls: how long the trio thread is held by CPU work while other passes have requests in flight.

A ticker task sleeps 1 ms in a loop beside the work; the longest gap between its wake-ups is the longest time
no other task (an answer arriving, a retry timer, progress) could run. Measured for:

- building the graph of a large run (parse every stored answer, merge, ground): `graph.extract.build_graph`,
  then looking for descriptions over budget (`graph.describe.summarize_descriptions`) and writing the
  graph pass's outputs;
- opening the run store of a large run and loading a pass's stored answers (what resuming does);
- planning the summary chunks of a ~1 MB text: `summarize.summarize`'s planning step.

    python benchmarks/event_loop.py [--chunks 2000] [--records-per-chunk 50] [--kb 1030]
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Awaitable, Callable

import trio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _server import table  # noqa: E402

from graphglean.core.config import Config  # noqa: E402
from graphglean.core.tokens import Tokenizer  # noqa: E402
from graphglean.graph.extract import GraphStats, build_graph  # noqa: E402
from graphglean.graph.extraction.chunk_extraction import ChunkExtraction  # noqa: E402
from graphglean.pipeline.runstore import RunStore  # noqa: E402
from graphglean.text.chunking import Chunk, chunk_id  # noqa: E402


async def longest_stall(work: Callable[[], Awaitable[Any]]) -> tuple[float, float, float]:
    """(wall seconds of ``work``, longest gap in seconds between the ticker's 1 ms wake-ups meanwhile, longest
    garbage collection meanwhile: it stops every thread, so no worker thread can hide it)."""
    longest = 0.0
    done = trio.Event()
    pauses = [0.0]

    def on_gc(phase: str, info: dict) -> None:
        if phase == "start":
            pauses.append(-time.perf_counter())
        else:
            pauses[-1] += time.perf_counter()

    async def ticker() -> None:
        nonlocal longest
        last = time.perf_counter()
        while not done.is_set():
            await trio.sleep(0.001)
            now = time.perf_counter()
            longest = max(longest, now - last)
            last = now

    gc.callbacks.append(on_gc)
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(ticker)
            await trio.sleep(0.01)
            t0 = time.perf_counter()
            await work()
            wall = time.perf_counter() - t0
            done.set()
    finally:
        gc.callbacks.remove(on_gc)
    return wall, longest, max(pauses)


def synthetic_run(n_chunks: int, per_chunk: int) -> tuple[list[Chunk], dict[str, ChunkExtraction]]:
    """Chunks naming their entities, and answers with ``per_chunk`` records each (entities and relationships)."""
    chunks, extractions = [], {}
    names = max(50, n_chunks * per_chunk // 20)
    for i in range(n_chunks):
        ids = [(i * 37 + k * 11) % names for k in range(per_chunk // 2)]
        text = " ".join(f"Entity {a} met Entity {(a * 7 + 1) % names} at the harbour." for a in ids)
        records = []
        for a in ids:
            b = (a * 7 + 1) % names
            records.append(f'("entity"<|>Entity {a}<|>person<|>Entity {a} is a sailor seen in chunk {i}.)')
            records.append(f'("relationship"<|>Entity {a}<|>Entity {b}<|>Entity {a} met Entity {b}.<|>{i % 10 + 1})')
        cid = chunk_id("doc", text)
        chunks.append(Chunk(cid, "doc", i, text, 0, len(text), 0))
        extractions[cid] = ChunkExtraction(cid, ["##\n".join(records) + "\n<|COMPLETE|>"], 0, 1, 1000, 800)
    return chunks, extractions


async def graph_rows(n_chunks: int, per_chunk: int) -> list[dict]:
    from graphglean.graph.building.describe import summarize_descriptions
    from graphglean.llm import ChatClient
    from graphglean.pipeline.context import RunContext
    from graphglean.pipeline.steps import _graph_outcome
    from graphglean.scheduling.scheduler import Scheduler
    from graphglean.text.inputs import Inputs

    chunks, extractions = synthetic_run(n_chunks, per_chunk)
    stats = GraphStats(chunks=len(chunks))
    cfg, tokenizer = Config(), Tokenizer.cl100k()
    graph = None

    async def build() -> None:
        nonlocal graph
        graph = await build_graph(chunks, extractions, cfg, None, tokenizer, stats)

    rows = [row(f"build_graph: {n_chunks} chunks, {{records}} records", await longest_stall(build))]
    rows[0]["work"] = rows[0]["work"].format(records=stats.records) + f" -> {stats.nodes} nodes, {stats.edges} edges"
    cfg.llm.base_url, cfg.llm.cache.mode = "http://127.0.0.1:9/v1", "off"  # nothing is over budget: no call
    async with ChatClient.from_config(cfg.llm) as client:
        scan = await longest_stall(lambda: summarize_descriptions(graph, Scheduler(client), tokenizer, 10**9))
    rows.append(row("summarize_descriptions: finding descriptions over budget (none)", scan))
    with tempfile.TemporaryDirectory() as tmp:

        async def export() -> None:
            await _graph_outcome(RunContext(cfg, Inputs(), chunks, tokenizer, Path(tmp)), stats, graph, [])

        rows.append(row("graph pass outputs: GraphML, JSON, JSONL of that graph", await longest_stall(export)))
    return rows


def row(work: str, measured: tuple[float, float, float]) -> dict:
    wall, stall, gc_pause = measured
    return {"work": work, "wall s": f"{wall:.2f}", "longest stall ms": f"{1000 * stall:.0f}",
            "longest GC pause ms": f"{1000 * gc_pause:.0f}"}


async def store_row(n_chunks: int, per_chunk: int) -> dict:
    _, extractions = synthetic_run(n_chunks, per_chunk)
    with tempfile.TemporaryDirectory() as tmp:
        store = RunStore(tmp)
        store.open_pass("graph", "f")
        for cid, ex in extractions.items():
            store._save("graph", cid, json.dumps(ex.to_json()))
        store.close()
        size_mb = (Path(tmp) / "run.sqlite").stat().st_size / 1e6

        async def reopen_and_load() -> None:
            s = RunStore(tmp)
            s.open_pass("graph", "f")
            loaded = s.load("graph")
            assert len(loaded) == n_chunks
            s.close()

        measured = await longest_stall(reopen_and_load)
    return row(f"RunStore open + load: {n_chunks} stored answers, {size_mb:.0f} MB", measured)


async def summary_row(kb: int) -> dict:
    from graphglean import summaries as summary_module
    from graphglean.llm import ChatClient
    from graphglean.scheduling.scheduler import Scheduler
    from graphglean.testing import FakeLLMServer
    from graphglean.testing.models.responders import synthetic

    stave = (ROOT / "examples" / "a_christmas_carol_stave1.txt").read_text(encoding="utf-8")
    text = "\n\n".join([stave] * math.ceil(kb * 1000 / len(stave.encode())))
    cfg = Config()
    async with FakeLLMServer(synthetic).running() as server:
        cfg.llm.base_url, cfg.llm.api_key, cfg.llm.cache.mode = server.base_url, "bench", "off"
        async with ChatClient.from_config(cfg.llm) as client:
            measured = await longest_stall(lambda: summary_module.summarize(text, Scheduler(client), detail=0.0))
    return row(f"summarize (plan + 1 call): {len(text.encode()) // 1000} kB at detail 0", measured)


async def idle_row() -> dict:
    return row("nothing (baseline: timer resolution and the machine's other load)",
               await longest_stall(lambda: trio.sleep(3)))


async def main_async(args: argparse.Namespace) -> list[dict]:
    rows = [await idle_row(), *await graph_rows(args.chunks, args.records_per_chunk),
            await store_row(args.chunks, args.records_per_chunk)]
    if args.kb:
        rows.append(await summary_row(args.kb))
    return rows


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--chunks", type=int, default=2000)
    p.add_argument("--records-per-chunk", type=int, default=50)
    p.add_argument("--kb", type=int, default=1030, help="text size for the summary row; 0 = skip it")
    args = p.parse_args()
    rows = trio.run(main_async, args)
    print(table(rows, list(rows[0])))


if __name__ == "__main__":
    main()
