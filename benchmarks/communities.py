"""Communities: clustering time and memory at 10k, 100k and 1M edges, and the report calls and tokens of a run
over the planted corpus (4 groups; documents draw 95% of their sentences from one), before and after one
document is added to one group.

    python benchmarks/communities.py                          # 10k, 100k, 1M edges, then the planted corpus
    python benchmarks/communities.py --sizes 10000 100000     # other sizes
    python benchmarks/communities.py --skip-reports

Each size runs in a process of its own (its peak RSS is its own). The graph has planted groups of ~200 nodes,
90% of a node's edges inside its group, weights 1-9; ``leiden s`` is the Leiden calls alone, ``total s`` all of
`find_communities` (edge list, hierarchy, ids, relationship ids, fingerprints); ``again s`` the same graph
clustered again from the first run's communities (an unchanged network keeps its split: no Leiden call).
"""

from __future__ import annotations

import argparse
import io
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _server import table  # noqa: E402


def planted_graph(edges: int, seed: int = 0):
    import networkx as nx

    rng = random.Random(seed)
    nodes = max(50, edges // 5)
    groups = max(4, nodes // 200)
    g = nx.Graph()
    g.add_nodes_from((f"n{k}", {"name": f"Node {k}", "type": "person",
                                "description": f"Node {k} of group {k % groups}."}) for k in range(nodes))
    pairs: set[tuple[int, int]] = set()
    while len(pairs) < edges:  # (Graph.number_of_edges() walks every node)
        a = rng.randrange(nodes)
        b = rng.randrange(nodes // groups) * groups + a % groups if rng.random() < 0.9 else rng.randrange(nodes)
        if a != b and (min(a, b), max(a, b)) not in pairs:
            pairs.add((min(a, b), max(a, b)))
            g.add_edge(f"n{a}", f"n{b}", weight=float(rng.randint(1, 9)), description="related")
    return g


def one_size(edges: int) -> dict:
    """Run in a child process: time and peak memory of clustering a graph of ``edges`` edges."""
    from graphglean.core.config import Config
    from graphglean.graph.communities import clustering
    from graphglean.graph.communities.detect import find_communities

    g = planted_graph(edges)
    built = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    leiden_s = [0.0]
    real = clustering._leiden

    def timed():
        fn = real()

        def call(*a, **kw):
            t = time.perf_counter()
            try:
                return fn(*a, **kw)
            finally:
                leiden_s[0] += time.perf_counter() - t
        return call

    clustering._leiden = timed
    cfg = Config()
    t = time.perf_counter()
    found = find_communities(g, cfg)
    total = time.perf_counter() - t
    t = time.perf_counter()
    find_communities(g, cfg, previous=found)
    again = time.perf_counter() - t
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"edges": g.number_of_edges(), "nodes": g.number_of_nodes(), "communities": len(found.items),
            "levels": found.levels, "leiden s": round(leiden_s[0], 2), "total s": round(total, 2),
            "again s": round(again, 2), "graph MB": round(built), "peak MB": round(peak)}


def clustering_table(sizes: list[int]) -> str:
    rows = []
    for n in sizes:
        done = subprocess.run([sys.executable, __file__, "--one", str(n)], capture_output=True, text=True, check=True)
        rows.append(json.loads(done.stdout.strip().splitlines()[-1]))
        print(f"  {n} edges done", file=sys.stderr, flush=True)
    return table(rows, ["edges", "nodes", "communities", "levels", "leiden s", "total s", "again s", "graph MB",
                        "peak MB"])


async def planted_reports() -> str:
    """Report calls and tokens of a run over the planted corpus, a re-run, and a run with one document more."""
    from graphglean.core.config import Config
    from graphglean.launch import run
    from graphglean.testing import FakeLLMServer
    from graphglean.testing.models.planted import one_more_document, planted_corpus
    from graphglean.testing.models.responders import synthetic

    corpus = planted_corpus()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        docs = Path(tmp) / "docs"
        docs.mkdir()
        for k, text in enumerate(corpus.documents):
            (docs / f"doc{k:02}.txt").write_text(text)
        async with FakeLLMServer(synthetic).running() as server:
            cfg = Config()
            cfg.llm.base_url, cfg.llm.api_key, cfg.llm.cache.mode = server.base_url, "k", "off"
            cfg.input.path, cfg.output.dir = str(docs), str(Path(tmp) / "out")
            cfg.graph.communities.enabled = True
            printed = io.StringIO()
            bound = (await run(cfg, dry=True, notice=lambda _: None, out=printed)).report
            bound_row = next(r for r in bound["passes"] if r["pass"] == "graph.communities")
            rows.append({"run": "dry-run bound", "calls": bound_row["calls_max"],
                         "tokens in": bound_row["tokens_in_est"], "tokens out": bound_row["tokens_out_est"]})
            for name in ("first run", "same input again", "one document added to group 2"):
                if name.startswith("one"):
                    (docs / "extra.txt").write_text(one_more_document(corpus, group=2))
                report = (await run(cfg, notice=lambda _: None, out=io.StringIO())).report
                graph = next(p for p in report["passes"] if p["pass"] == "graph")
                made = graph["community_reports"]
                account = json.loads((Path(tmp) / "out" / "report.json").read_text())
                purity = _purity(corpus, Path(tmp) / "out" / "communities.jsonl")
                rows.append({"run": name, "entities": graph["nodes"], "communities": graph["communities"],
                             "levels": graph["community_levels"], "reportable": made["reportable"],
                             "calls": made["made"] + made["asked_again"], "reused": made["cached"],
                             "failed": made["failed"], "context tokens": made["context_tokens"],
                             "purity": purity, **_report_tokens(server, account)})
                server.requests.clear()
    return table(rows, ["run", "entities", "communities", "levels", "reportable", "calls", "reused", "failed",
                        "context tokens", "tokens in", "tokens out", "purity"])


def _purity(corpus, path: Path) -> str:
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    return f"{corpus.purity([r['entities'] for r in rows if r['level'] == 0]):.3f}"


def _report_tokens(server, report: dict) -> dict:
    """Tokens (gpt-4o-mini's) of the report prompts the server got and of the answers it gave them."""
    from graphglean.core.tokens import Tokenizer
    from graphglean.testing.models.responders import MARK_REPORT, synthetic

    count = Tokenizer("gpt-4o-mini").count
    asked = [r for r in server.requests if r.messages and MARK_REPORT in r.messages[0]["content"]]
    return {"tokens in": sum(count(m["content"]) for r in asked for m in r.messages),
            "tokens out": sum(count(str(synthetic(r))) for r in asked)}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", type=int, nargs="*", default=[10_000, 100_000, 1_000_000])
    p.add_argument("--skip-reports", action="store_true")
    p.add_argument("--one", type=int, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.one:
        print(json.dumps(one_size(args.one)))
        return
    load = Path("/proc/loadavg").read_text().split()[:3] if Path("/proc/loadavg").exists() else ["?"]
    print(f"machine load (1, 5, 15 min): {' '.join(load)}")
    if args.sizes:
        print("\nclustering (hierarchical Leiden, max_cluster_size 10)\n" + clustering_table(args.sizes))
    if not args.skip_reports:
        import trio

        reports = trio.run(planted_reports)
        print("\nreports over the planted corpus (fake model; tokens counted by the server)\n" + reports)
    load = Path("/proc/loadavg").read_text().split()[:3] if Path("/proc/loadavg").exists() else ["?"]
    print(f"\nmachine load after: {' '.join(load)}")


if __name__ == "__main__":
    main()
