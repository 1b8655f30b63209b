"""Search benchmark: query latency over 100,000 stored vectors of 1,536 dimensions (target < 50 ms).

    python benchmarks/search.py [--vectors 100000] [--dim 1536] [--queries 50]

The query's own embedding call is excluded (it is the endpoint's time, not the search's): ``embed`` returns a
precomputed vector. The first query loads the vectors from SQLite into memory and is reported apart.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import trio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _server import table  # noqa: E402

from graphglean.enrich.search import VectorIndex, search  # noqa: E402
from graphglean.enrich.store import MemoryStore  # noqa: E402
from graphglean.llm.records import EmbeddingResult, Usage  # noqa: E402


def build(path: Path, n: int, dim: int) -> MemoryStore:
    store = MemoryStore(path)
    rng = np.random.default_rng(0)
    db = store._db
    db.execute("BEGIN")
    for start in range(0, n, 5000):
        block = rng.standard_normal((min(5000, n - start), dim), dtype=np.float32)
        db.executemany("INSERT INTO messages (uuid, session_id, role, content, metadata, embedding) "
                       "VALUES (?, 's', 'user', ?, '{}', ?)",
                       [(f"m{start + i}", f"message {start + i}", v.tobytes()) for i, v in enumerate(block)])
    db.execute("COMMIT")
    store.version += 1
    return store


async def measure(store: MemoryStore, dim: int, queries: int, mmr_lambda: float | None) -> tuple[float, list[float]]:
    rng = np.random.default_rng(1)
    index = VectorIndex(store)

    async def embed(texts: list[str]) -> EmbeddingResult:
        return EmbeddingResult([rng.standard_normal(dim).astype(np.float32).tolist()], Usage())

    t0 = time.perf_counter()
    await search(store, embed, "s", "warm-up", index=index)
    first = time.perf_counter() - t0
    times = []
    for _ in range(queries):
        t0 = time.perf_counter()
        await search(store, embed, "s", "query", limit=10, mmr_lambda=mmr_lambda, index=index)
        times.append(time.perf_counter() - t0)
    return first, times


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--vectors", type=int, default=100_000)
    p.add_argument("--dim", type=int, default=1536)
    p.add_argument("--queries", type=int, default=50)
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        store = build(Path(tmp) / "m.sqlite", args.vectors, args.dim)
        built = time.perf_counter() - t0
        rows = []
        for lam in (None, 0.5):
            first, times = trio.run(measure, store, args.dim, args.queries, lam)
            times.sort()
            rows.append({"vectors": args.vectors, "dim": args.dim, "mmr": lam if lam is not None else "off",
                         "store build s": f"{built:.1f}", "first query (loads) s": f"{first:.2f}",
                         "p50 ms": f"{1000 * times[len(times) // 2]:.1f}",
                         "p95 ms": f"{1000 * times[int(0.95 * (len(times) - 1))]:.1f}"})
        store.close()
    print(table(rows, list(rows[0])))


if __name__ == "__main__":
    main()
