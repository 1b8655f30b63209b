"""Entity resolution's rules on look-alikes: precision and recall per class of the labelled pairs in
tests/data/lookalikes.jsonl (each pair alone in a graph of two nodes), and on the labelled Dickens sets.

    python benchmarks/lookalikes.py                                  # the table
    python benchmarks/lookalikes.py -v                               # and every pair decided wrongly
    python benchmarks/lookalikes.py tests/data/lookalikes_heldback.jsonl   # another labelled set
    python benchmarks/lookalikes.py --gold                           # the labelled real-model graphs

A pair is merged when the two names end in one node. Precision counts the merged pairs that are one entity,
recall the pairs that are one entity and were merged; surface recall only those whose names alone show it (a pair
with `"tier": "knowledge"` needs the descriptions or world knowledge: a translation, a nickname; no tier is surface).
"Surface asked" is the share of those the rules leave unsure and not merged, which resolution's default method asks
the LLM tier about where an endpoint is configured (a graph of the two nodes; a big graph asks at most
`llm_pairs_per_entity` questions about a node); "different asked", the pairs labelled different it asks about.
Pairs a rule calls different, or no rule reads, are asked only where the two nodes' embeddings are close.

A pair whose two names are one once normalized ("Paraná" and "Paraná" in two Unicode forms, "NeXT" and "Next") is
one node before resolution runs: the graph keys nodes by the case-folded name, as GraphRAG and LightRAG do. Such a
pair labelled different is counted apart, in the column "one key" (and with -v listed as "one key: merged by the
graph's keying, not by resolution"): it is not among resolution's wrong merges nor in its precision. One labelled
the same still counts as merged right.
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
from graphglean.graph.resolution.blocking import candidate_pairs  # noqa: E402
from graphglean.graph.resolution.verdicts import NONE, UNSURE  # noqa: E402

PAIRS = ROOT / "tests" / "data" / "lookalikes.jsonl"
ONE_KEY = "one key: merged by the graph's keying, not by resolution"


def pair_graph(*sides: dict) -> nx.Graph:
    """A merged graph of the given sides (name, type, description), as `merge_records` makes one."""
    g = nx.Graph()
    for i, s in enumerate(sides):
        g.add_node(normalize_name(s["name"]), name=s["name"], type=s["type"], types=[s["type"]],
                   descriptions=[s["description"]], description=s["description"], source_ids=[f"c{i}"], frequency=1)
    return g


def merged(row: dict) -> tuple[bool, str]:
    """Whether the rules put the pair's two names in one node, and the rule that did or the verdict (an unsure
    verdict on a pair that blocking does not compare is "none")."""
    graph = pair_graph(row["a"], row["b"])
    if len(graph) == 1:
        return True, ONE_KEY
    res = resolve_entities_sync(graph, Config(), method="rules")
    r = Resolver.of_graph(graph)
    v = r.verdict(0, 1)
    if v.kind == UNSURE and not candidate_pairs(r.profiles, r.corpus)[0]:
        return False, f"{NONE}: {v.rule}, but blocking does not compare them"
    return res.graph.number_of_nodes() == 1, f"{v.kind}: {v.rule}"


def scores(rows: list[dict]) -> dict[str, Counter]:
    """Per class: true merges (tp), false merges (fp), pairs labelled same and different, and the surface ones."""
    out: dict[str, Counter] = {}
    for row in rows:
        c = out.setdefault(row["class"], Counter())
        together, why = merged(row)
        same = row["label"] == "same"
        if why == ONE_KEY and not same:
            c["one_key"] += 1
            c["different"] += 1
            continue
        surface = same and row.get("tier", "surface") == "surface"
        c["tp"] += together and same
        c["fp"] += together and not same
        c["same"] += same
        c["different"] += not same
        c["surface"] += surface
        c["surface_tp"] += together and surface
        asked = not together and why.startswith(UNSURE + ":")  # an LLM-tier question with the default method
        c["surface_asked"] += asked and surface
        c["different_asked"] += asked and not same
    return out


def _ratio(num: int, den: int) -> str:
    return f"{num / den:.2f}" if den else "-"


def gold() -> None:
    """Surface and knowledge recall and false merges on the labelled graphs of real models' answers (../shared)."""
    from tests.test_resolve import LABELLED, graphrag_graph, recorded_graph
    from tests.test_resolve import scores as gold_scores

    lines = []
    for folder, labels in LABELLED:
        graph = graphrag_graph() if folder == "graphrag" else recorded_graph(folder)
        before, _ = gold_scores(graph, labels())
        recall, false_merges = gold_scores(resolve_entities_sync(graph, Config(), method="rules").graph, labels())
        lines.append({"set": folder, "nodes": graph.number_of_nodes(), "surface before": f"{before['surface']:.2f}",
                      "surface": f"{recall['surface']:.2f}", "knowledge": f"{recall['knowledge']:.2f}",
                      "false merges": len(false_merges)})
        for a, b in false_merges:
            print(f"{folder}: false merge {a!r} / {b!r}")
    print(table(lines, list(lines[0])))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sets", nargs="*", type=Path, metavar="SET.jsonl",
                        help=f"labelled pairs (default: {PAIRS.relative_to(ROOT)})")
    parser.add_argument("-v", "--verbose", action="store_true", help="also print every pair decided wrongly")
    parser.add_argument("--gold", action="store_true",
                        help="the labelled graphs of real models' answers (../shared) instead of pairs")
    args = parser.parse_args()
    if args.gold:
        return gold()
    paths = args.sets or [PAIRS]
    rows = [json.loads(line) for p in paths for line in p.read_text(encoding="utf-8").splitlines() if line.strip()]
    found = scores(rows)
    lines = []
    total = Counter()
    for cls, c in [*sorted(found.items()), ("all", None)]:
        c = c if c is not None else total
        if cls != "all":
            total.update(c)
        lines.append([cls, c["same"], c["different"], c["tp"], c["fp"], _ratio(c["tp"], c["tp"] + c["fp"]),
                      _ratio(c["tp"], c["same"]), _ratio(c["surface_tp"], c["surface"]),
                      _ratio(c["surface_asked"], c["surface"]), c["different_asked"], c["one_key"]])
    columns = ["class", "same", "different", "merged right", "merged wrong", "precision", "recall", "surface recall",
               "surface asked", "different asked", "one key"]
    print(table([dict(zip(columns, line)) for line in lines], columns))
    if total["one_key"]:
        print(f"one key: {total['one_key']} pairs labelled different have one name once normalized, so one node "
              "before resolution runs (the graph's keying, not resolution): not counted as its wrong merges")
    if args.verbose:
        for row in rows:
            together, why = merged(row)
            if together != (row["label"] == "same"):
                label = row["label"] + (" (knowledge)" if row.get("tier") == "knowledge" else "")
                print(f"{row['class']:>14} {label:>9}: {row['a']['name']!r} / {row['b']['name']!r} ({why})")


if __name__ == "__main__":
    main()
