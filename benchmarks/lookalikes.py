"""Entity resolution's rules on look-alikes: precision and recall per class of the labelled pairs in
tests/data/lookalikes.jsonl (each pair alone in a graph of two nodes), and on the labelled Dickens sets.

    python benchmarks/lookalikes.py                                  # the table
    python benchmarks/lookalikes.py -v                               # and every pair decided wrongly
    python benchmarks/lookalikes.py tests/data/lookalikes_heldback.jsonl   # another labelled set

A pair is merged when the two names end in one node. Precision counts the merged pairs that are one entity,
recall the pairs that are one entity and were merged.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _server import table  # noqa: E402

from graphglean.core.config import Config  # noqa: E402
from graphglean.graph.building.merge import normalize_name  # noqa: E402
from graphglean.graph.resolution.resolve import resolve_entities_sync  # noqa: E402
from graphglean.graph.resolution.resolver import Resolver  # noqa: E402

PAIRS = ROOT / "tests" / "data" / "lookalikes.jsonl"


def pair_graph(*sides: dict) -> nx.Graph:
    """A merged graph of the given sides (name, type, description), as `merge_records` makes one."""
    g = nx.Graph()
    for i, s in enumerate(sides):
        g.add_node(normalize_name(s["name"]), name=s["name"], type=s["type"], types=[s["type"]],
                   descriptions=[s["description"]], description=s["description"], source_ids=[f"c{i}"], frequency=1)
    return g


def merged(row: dict) -> tuple[bool, str]:
    """Whether the rules put the pair's two names in one node, and the rule that did or the verdict."""
    graph = pair_graph(row["a"], row["b"])
    if len(graph) == 1:
        return True, "one name once normalized"
    res = resolve_entities_sync(graph, Config(), method="rules")
    v = Resolver.of_graph(graph).verdict(0, 1)
    return res.graph.number_of_nodes() == 1, f"{v.kind}: {v.rule}"


def scores(rows: list[dict]) -> dict[str, tuple[int, int, int, int]]:
    """Per class: (true merges, false merges, pairs labelled same, pairs labelled different)."""
    out: dict[str, Counter] = {}
    for row in rows:
        c = out.setdefault(row["class"], Counter())
        together, _ = merged(row)
        same = row["label"] == "same"
        c["tp"] += together and same
        c["fp"] += together and not same
        c["same"] += same
        c["different"] += not same
    return {k: (c["tp"], c["fp"], c["same"], c["different"]) for k, c in out.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sets", nargs="*", type=Path, metavar="SET.jsonl",
                        help=f"labelled pairs (default: {PAIRS.relative_to(ROOT)})")
    parser.add_argument("-v", "--verbose", action="store_true", help="also print every pair decided wrongly")
    args = parser.parse_args()
    paths = args.sets or [PAIRS]
    rows = [json.loads(line) for p in paths for line in p.read_text(encoding="utf-8").splitlines() if line.strip()]
    found = scores(rows)
    lines = []
    total = Counter()
    for cls, (tp, fp, same, different) in sorted(found.items()):
        total.update(tp=tp, fp=fp, same=same, different=different)
        lines.append([cls, same, different, tp, fp, f"{tp / (tp + fp):.2f}" if tp + fp else "-",
                      f"{tp / same:.2f}" if same else "-"])
    t = total
    lines.append(["all", t["same"], t["different"], t["tp"], t["fp"], f"{t['tp'] / max(1, t['tp'] + t['fp']):.2f}",
                  f"{t['tp'] / max(1, t['same']):.2f}"])
    columns = ["class", "same", "different", "merged right", "merged wrong", "precision", "recall"]
    print(table([dict(zip(columns, line)) for line in lines], columns))
    if args.verbose:
        for row in rows:
            together, why = merged(row)
            if together != (row["label"] == "same"):
                print(f"{row['class']:>14} {row['label']:>9}: {row['a']['name']!r} / {row['b']['name']!r} ({why})")


if __name__ == "__main__":
    main()
