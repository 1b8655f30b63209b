"""Entity resolution on the partitioned merge (engine ray's steps, run task after task in this process): the
peak memory each task allocates against the local resolution of the whole graph, the nodes of the kept pairs
and of the largest decision batch (the most one decide task holds), wall time per step, and whether the rows
equal the local run's.

    python benchmarks/ray_resolution.py                 # 20k entities, 16 partitions
    python benchmarks/ray_resolution.py 50000 32        # entities, partitions

The graph is `resolution.synthetic_graph` (planted aliases and look-alikes), cut into 8 shards of records.
Peaks are tracemalloc's (Python allocations), so times are slower than without it.
"""

from __future__ import annotations

import json
import pickle
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import trio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _server import help_only  # noqa: E402
from resolution import synthetic_graph  # noqa: E402

from graphglean.core.config import Config  # noqa: E402
from graphglean.core.tokens import Tokenizer  # noqa: E402
from graphglean.engines.ray import partitions  # noqa: E402
from graphglean.engines.ray.resolution.driver import resolved_merge  # noqa: E402
from graphglean.graph.building.merge import merge_records  # noqa: E402
from graphglean.graph.extract import GraphStats, _resolve_stage, finish_graph  # noqa: E402
from graphglean.graph.formats.export import entity_rows, relationship_rows  # noqa: E402
from graphglean.graph.records import EntityRecord, ParseResult, Provenance, RelationshipRecord  # noqa: E402
from graphglean.text.chunking import Chunk  # noqa: E402

SHARDS, CHUNKS = 8, 997


def records(n: int) -> tuple[list[Chunk], list[ParseResult]]:
    g, _ = synthetic_graph(n)
    chunks = [Chunk(f"c{i}", "d", i, f"chunk {i}", 10 * i, 10 * i + 8, 2) for i in range(CHUNKS)]
    results = [ParseResult() for _ in chunks]
    for key, d in g.nodes(data=True):
        i = int(d["source_ids"][0][1:])
        src = Provenance("d", i, f"c{i}", 0)
        results[i].entities.append(EntityRecord(d["name"], d["type"], d["description"], src))
    for k, (a, b) in enumerate(g.edges):
        i = k % CHUNKS
        results[i].relationships.append(RelationshipRecord(g.nodes[a]["name"], g.nodes[b]["name"], "related", 1.0,
                                                           (), Provenance("d", i, f"c{i}", 0)))
    return chunks, results


def local(chunks, results, cfg) -> tuple[list, list, float, float]:
    async def main():
        graph = merge_records(results).to_graph()
        stats = GraphStats()
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        started = time.perf_counter()
        graph = await _resolve_stage(graph, cfg, None, stats, None)
        await finish_graph(graph, {c.id: c for c in chunks}, cfg, None, Tokenizer(cfg.llm.model), stats, offline=True)
        return (entity_rows(graph), relationship_rows(graph), tracemalloc.get_traced_memory()[1] - base,
                time.perf_counter() - started)

    return trio.run(main)


def partitioned(chunks, results, cfg, root: Path) -> tuple[list[dict], Path]:
    steps: list[dict] = []

    async def measured(stage, work, argsets, watch=None):
        out, peak, started = [], 0, time.perf_counter()
        for args in argsets:
            tracemalloc.reset_peak()
            base = tracemalloc.get_traced_memory()[0]
            out.append(await work(*args, None))
            peak = max(peak, tracemalloc.get_traced_memory()[1] - base)
        steps.append({"step": stage, "tasks": len(argsets),
                      "max task peak MB": round(peak / 2**20, 1), "wall s": round(time.perf_counter() - started, 2)})
        return out

    dirs = []
    for s in range(SHARDS):
        folder = root / f"s{s}"
        folder.mkdir()
        dirs.append(folder)
        mine = [i for i in range(len(chunks)) if i % SHARDS == s]
        partitions.write_parts(merge_records(results[i] for i in mine), cfg.runtime.graph_partitions, folder)
        partitions.write_chunks([chunks[i] for i in mine], folder)
    merge = root / "merge"
    merge.mkdir()
    done = trio.run(resolved_merge, measured, dirs, cfg, merge, root, root / "store")
    return steps, merge, done


def main(n: int, P: int) -> None:
    cfg = Config()
    cfg.graph.resolve.method = "rules"
    cfg.runtime.graph_partitions = P
    chunks, results = records(n)
    tracemalloc.start()
    nodes, edges, local_peak, local_s = local(chunks, results, cfg)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        steps, merge, done = partitioned(chunks, results, cfg, root)
        read = lambda name: [json.loads(line) for line in (root / name).read_text().splitlines()]  # noqa: E731
        same = read("entities.jsonl") == nodes and read("relationships.jsonl") == edges
        held = set()
        for path in (merge / "resolve").glob("kept-*.pkl"):
            held.update(k for pair in pickle.loads(path.read_bytes()).pairs for k in pair)
    tracemalloc.stop()
    print(f"{n} entities requested, {len(nodes)} nodes after resolution, P={P}; rows equal to local: {same}; "
          f"{len(held)} nodes in kept pairs, {done.batches} decision batches, the largest {done.largest_batch} nodes")
    print(f"local resolution + finishing: peak {local_peak / 2**20:.1f} MB, {local_s:.2f} s")
    keys = list(steps[0])
    print(" | ".join(keys))
    for row in steps:
        print(" | ".join(str(row[k]) for k in keys))


if __name__ == "__main__":
    help_only(__doc__)
    args = [int(a) for a in sys.argv[1:]]
    main(args[0] if args else 20000, args[1] if len(args) > 1 else 16)
