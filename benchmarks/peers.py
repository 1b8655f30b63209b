"""The peer indexes' own cost, embeddings aside: building each engine's view and tables and writing GraphRAG's
Parquet and LanceDB tables and LightRAG's working directory, for synthetic graphs of growing size (entities
with a relationship and a half each, a chunk per 5 entities, a community per 8), vectors given. Wall and CPU
seconds, the folder's size, and memory: ``plan_MB``, what the plan (the engine's view and rows) adds to the
process, and ``write_MB``, the peak the writing adds over that (the vectors: read a row group at a time from a
`VectorSource`, as a run reads them from its store, here made from each text's hash; all held at once, they
would be 6 KB a text at 1,536 dimensions).

    python benchmarks/peers.py [--sizes 2000,10000,40000] [--dim 256]
    python benchmarks/peers.py --sizes 200000 --dim 1536     # the size the issue holds under 300 MB
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import sys
import tempfile
import time
import zlib
from pathlib import Path

import networkx as nx
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _server import table  # noqa: E402

from graphglean.core.config import LLMConfig  # noqa: E402
from graphglean.graph.formats.peers.communities import Communities, Community, Finding, Report  # noqa: E402
from graphglean.graph.formats.peers.graphrag.write import plan_graphrag  # noqa: E402
from graphglean.graph.formats.peers.index import Document  # noqa: E402
from graphglean.graph.formats.peers.lightrag.write import plan_lightrag  # noqa: E402
from graphglean.text.chunking import Chunk  # noqa: E402


def synthetic(entities: int, seed: int = 0) -> tuple[nx.Graph, list[Chunk], list[Document], Communities]:
    rng = random.Random(seed)
    chunks = [Chunk(f"chunk-{i:08d}", f"doc-{i // 10}", i % 10, f"Text of chunk {i} " * 150, 0, 2800, 700)
              for i in range(max(1, entities // 5))]
    by_doc: dict[str, list[Chunk]] = {}
    for c in chunks:
        by_doc.setdefault(c.doc_id, []).append(c)
    docs = [Document(d, d, "".join(c.text for c in own), tuple(c.id for c in own)) for d, own in by_doc.items()]
    g = nx.Graph()
    for i in range(entities):
        name = f"Entity {i} of {rng.choice(['Göteborg', 'Rouen', 'Osaka'])}"
        g.add_node(name.casefold(), name=name, type="person", description=f"{name} does things. " * 6,
                   source_ids=[chunks[rng.randrange(len(chunks))].id for _ in range(3)], frequency=3,
                   aliases=[name, f"E{i}"])
    keys = list(g.nodes)
    for _ in range(entities * 3 // 2):
        a, b = rng.sample(keys, 2)
        g.add_edge(a, b, weight=1.0, description=f"{a} meets {b}.", keywords=["meets"],
                   source_ids=[chunks[rng.randrange(len(chunks))].id], frequency=1)
    communities, reports = [], []
    for c in range(entities // 8):
        members = tuple(g.nodes[k]["name"] for k in keys[c * 8:(c + 1) * 8])
        communities.append(Community(f"c{c}", 0, None, (), members, len(members)))
        reports.append(Report(f"c{c}", f"Community of {members[0]}", "A summary. " * 20, 5.0, "Why.",
                              tuple(Finding(f"Finding {k}", "An explanation. " * 15, members[:2]) for k in range(4))))
    return g, chunks, docs, Communities(tuple(communities), tuple(reports))


class HashedVectors:
    """A `VectorSource` of made-up unit vectors, one per text (from its hash), made as they are asked for."""

    def __init__(self, dim: int) -> None:
        self.dim = dim

    def get_many(self, texts):
        found = {}
        for t in texts:
            v = np.random.default_rng(zlib.crc32(t.encode("utf-8", "surrogatepass"))).standard_normal(self.dim)
            found[t] = (v / np.linalg.norm(v)).astype(np.float32)
        return found


def _rss_mb(field: str) -> float:
    """The process's resident memory now (VmRSS) or its peak since the last reset (VmHWM), in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _reset_peak() -> None:
    """The peak resident memory starts again from now (Linux: writing 5 to clear_refs)."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        pass


def _size(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / 1e6


def measure(entities: int, dim: int) -> list[dict]:
    import lancedb  # noqa: F401  (the libraries' own memory is not the writing's)
    import pyarrow.parquet  # noqa: F401

    graph, chunks, docs, communities = synthetic(entities)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        for name, make in (("graphrag", lambda: plan_graphrag(graph, docs, chunks, communities, LLMConfig(), out)),
                           ("lightrag", lambda: plan_lightrag(graph, docs, chunks, out, (1200, 100)))):
            gc.collect()
            before = _rss_mb("VmRSS")
            _reset_peak()
            wall, cpu = time.perf_counter(), time.process_time()
            plan = make()
            texts = plan.texts()
            made_wall, made_cpu = time.perf_counter() - wall, time.process_time() - cpu
            planned = _rss_mb("VmRSS")
            _reset_peak()
            wall, cpu = time.perf_counter(), time.process_time()
            plan.write(HashedVectors(dim), dim)
            rows.append({"format": name, "entities": entities, "relationships": graph.number_of_edges(),
                         "chunks": len(chunks), "texts": len(texts), "plan_s": round(made_wall, 2),
                         "write_s": round(time.perf_counter() - wall, 2),
                         "cpu_s": round(made_cpu + time.process_time() - cpu, 2), "MB": round(_size(out / name), 1),
                         "plan_MB": round(planned - before), "write_MB": round(_rss_mb("VmHWM") - planned)})
            del plan, texts
    return rows


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", default="2000,10000,40000")
    p.add_argument("--dim", type=int, default=256)
    args = p.parse_args()
    rows = [r for n in args.sizes.split(",") for r in measure(int(n), args.dim)]
    print(table(rows, ["format", "entities", "relationships", "chunks", "texts", "plan_s", "write_s", "cpu_s", "MB",
                       "plan_MB", "write_MB"]))
    print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
