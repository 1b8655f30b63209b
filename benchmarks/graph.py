"""Graph benchmark: calls and wall time per chunk at max_gleanings 0, 1, 2 against the fake server with a
realistic latency, and the CPU time to parse and merge 1,000,000 records.

    python benchmarks/graph.py [--latency 0.8] [--records 1000000]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import trio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _server import fake_server, table  # noqa: E402

from graphglean.core.config import Config  # noqa: E402
from graphglean.graph.building.merge import merge_records  # noqa: E402
from graphglean.graph.extract import extract_graph  # noqa: E402
from graphglean.graph.extraction.parser import RecordParser  # noqa: E402
from graphglean.graph.records import Provenance  # noqa: E402


def gleaning_rows(latency: float) -> list[dict]:
    text = (ROOT / "examples" / "a_christmas_carol_stave1.txt").read_text()
    rows = []
    for gleanings in (0, 1, 2):
        with fake_server("--latency", str(latency)) as url:
            cfg = Config()
            cfg.llm.base_url, cfg.llm.api_key, cfg.llm.model = url, "bench", "gpt-4"
            cfg.llm.cache.mode = "off"
            cfg.graph.max_gleanings = gleanings
            cfg.graph.description_max_tokens = 10**6
            cfg.chunking.size, cfg.chunking.overlap = 600, 50
            t0 = time.perf_counter()
            result = trio.run(extract_graph, text, cfg)
            wall = time.perf_counter() - t0
        s = result.stats
        calls = s.checks + s.gleaning_rounds + s.chunks
        rows.append({"max_gleanings": gleanings, "chunks": s.chunks, "calls": calls,
                     "calls/chunk": f"{calls / s.chunks:.2f}",
                     "wall s, all chunks": f"{wall:.2f}",
                     "calls in a row x latency": f"{calls / s.chunks * latency:.2f}",
                     "records": s.records, "nodes": s.nodes, "edges": s.edges})
    return rows


def parse_merge_row(records: int) -> dict:
    lines = []
    for i in range(records // 2):
        a, b = f"Entity {i % 50000}", f"Entity {(i * 7 + 1) % 50000}"
        lines.append(f'("entity"<|>{a}<|>person<|>{a} does thing {i % 13}.)')
        lines.append(f'("relationship"<|>{a}<|>{b}<|>{a} knows {b}.<|>{i % 10 + 1})')
    per_chunk = 40
    responses = ["##\n".join(lines[i:i + per_chunk]) + "\n<|COMPLETE|>" for i in range(0, len(lines), per_chunk)]
    parser = RecordParser()
    cpu0 = time.process_time()
    results = [parser.parse(r, Provenance("doc", i, f"chunk-{i}", 0)) for i, r in enumerate(responses)]
    parse_s = time.process_time() - cpu0
    cpu0 = time.process_time()
    graph = merge_records(results).to_graph()
    merge_s = time.process_time() - cpu0
    parsed = sum(r.records for r in results)
    return {"records": parsed, "responses": len(responses), "parse CPU s": f"{parse_s:.2f}",
            "merge+graph CPU s": f"{merge_s:.2f}", "µs/record": f"{1e6 * (parse_s + merge_s) / parsed:.2f}",
            "nodes": graph.number_of_nodes(), "edges": graph.number_of_edges()}


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--latency", type=float, default=0.8, help="seconds per answer (a realistic 0.5-2 s)")
    p.add_argument("--records", type=int, default=1_000_000)
    args = p.parse_args()
    rows = gleaning_rows(args.latency)
    print(table(rows, list(rows[0])))
    print()
    row = parse_merge_row(args.records)
    print(table([row], list(row)))


if __name__ == "__main__":
    main()
