"""The peer indexes' own cost, embeddings aside: building each engine's view and tables and writing GraphRAG's
Parquet and LanceDB tables and LightRAG's working directory, for synthetic graphs of growing size (entities
with a relationship and a half each, a chunk per 5 entities, a community per 8), vectors given. Wall and CPU
seconds, and the folder's size.

    python benchmarks/peers.py [--sizes 2000,10000,40000] [--dim 256]
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
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
    docs = [Document(f"doc-{d}", f"doc-{d}", "".join(c.text for c in chunks if c.doc_id == f"doc-{d}"),
                     tuple(c.id for c in chunks if c.doc_id == f"doc-{d}")) for d in range(len(chunks) // 10 + 1)]
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


def _size(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / 1e6


def measure(entities: int, dim: int) -> list[dict]:
    graph, chunks, docs, communities = synthetic(entities)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        for name, make in (("graphrag", lambda: plan_graphrag(graph, docs, chunks, communities, LLMConfig(), out)),
                           ("lightrag", lambda: plan_lightrag(graph, docs, chunks, out, (1200, 100)))):
            wall, cpu = time.perf_counter(), time.process_time()
            plan = make()
            texts = plan.texts()
            vectors = {t: v for t, v in zip(texts, np.random.default_rng(0).standard_normal((len(texts), dim))
                                            .astype(np.float32))}
            made_wall, made_cpu = time.perf_counter() - wall, time.process_time() - cpu
            wall, cpu = time.perf_counter(), time.process_time()
            plan.write(vectors, dim)
            rows.append({"format": name, "entities": entities, "relationships": graph.number_of_edges(),
                         "chunks": len(chunks), "texts": len(texts), "plan_s": round(made_wall, 2),
                         "write_s": round(time.perf_counter() - wall, 2),
                         "cpu_s": round(made_cpu + time.process_time() - cpu, 2), "MB": round(_size(out / name), 1)})
    return rows


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", default="2000,10000,40000")
    p.add_argument("--dim", type=int, default=256)
    args = p.parse_args()
    rows = [r for n in args.sizes.split(",") for r in measure(int(n), args.dim)]
    print(table(rows, ["format", "entities", "relationships", "chunks", "texts", "plan_s", "write_s", "cpu_s", "MB"]))


if __name__ == "__main__":
    main()
