"""Query benchmark: the CPU time of finding a question's entities and building its local context in a large
graph (`graphglean query`; the LLM call excluded: it is the endpoint's time).

    python benchmarks/query.py [--entities 100000] [--description-words 40]

A synthetic graph: names of two words (12 × 977 first names, 10 × 313 last names), descriptions of words drawn
from a small vocabulary (the worst case for description matching: every word is in most descriptions), a
relationship per entity to a random other, a source span per entity. Times are CPU seconds (process time), so
a loaded machine changes them little; give `uptime` with them.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _server import table  # noqa: E402

from graphglean.queries.local import local_context  # noqa: E402
from graphglean.queries.matching import EntityIndex, find_entities, focus_words  # noqa: E402
from graphglean.testing.models.responders import _FIRST, _LAST  # noqa: E402
from graphglean.view import ChunkText  # noqa: E402

WORDS = "the a miser partner clerk ghost city house money winter cold fire door chain ledger debt".split()
QUESTIONS = ("Who is Ada12 Archer5?", "Tell me about Cleo33 Brok", "Who was the miser's partner?")


def build(n: int, description_words: int) -> tuple[nx.Graph, dict[str, ChunkText]]:
    rng = random.Random(0)
    g = nx.Graph()
    text = " ".join(f"{_FIRST[i % 12]}{i % 977} {_LAST[i % 10]}{i % 313} spoke." for i in range(2000))
    chunks = {"c0": ChunkText("c0", "doc.txt", 0, 0, text)}
    for i in range(n):
        name = f"{rng.choice(_FIRST)}{i % 977} {rng.choice(_LAST)}{i % 313}"
        at = rng.randrange(0, len(text) - 20)
        g.add_node(f"n{i}", name=name, aliases=[name], spans=[["c0", at, at + 10]],
                   description=" ".join(rng.choice(WORDS) for _ in range(description_words)))
    for i in range(n):
        g.add_edge(f"n{i}", f"n{rng.randrange(n)}", description="They met.", weight=1.0)
    return g, chunks


def cpu(fn):  # type: ignore[no-untyped-def]
    start = time.process_time()
    value = fn()
    return value, round(time.process_time() - start, 3)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--entities", type=int, default=100_000)
    p.add_argument("--description-words", type=int, default=40)
    args = p.parse_args()
    graph, chunks = build(args.entities, args.description_words)
    index, built = cpu(lambda: EntityIndex(graph))
    rows = [{"step": "index names", "question": "", "cpu_s": built, "count": ""}]
    for question in QUESTIONS:
        matches, found = cpu(lambda: find_entities(index, question, 10))
        context, made = cpu(lambda: local_context(graph, matches, chunks, 8000, len,
                                                  focus_words(question, matches)))
        rows.append({"step": "find entities", "question": question, "cpu_s": found, "count": len(matches)})
        rows.append({"step": "local context", "question": question, "cpu_s": made, "count": len(context.sources)})
    print(f"{args.entities:,} entities, {args.description_words} description words each "
          "(count: entities found, then the context's sources; the first description question also indexes the "
          "descriptions)")
    print(table(rows, ["step", "question", "cpu_s", "count"]))


if __name__ == "__main__":
    main()
