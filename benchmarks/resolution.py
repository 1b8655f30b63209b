"""Entity resolution at scale: CPU time and candidate pairs for synthetic graphs with planted aliases, and
precision/recall on those aliases.

    python benchmarks/resolution.py                  # 10k and 100k entities
    python benchmarks/resolution.py 10000 1000000    # any sizes

Each entity is a person, organization, place or event with a made-up name and a description holding two words
of its own. A fifth of them get an alias node written another way (surname, first name, title, article,
acronym, spelled-out acronym, dotted acronym, web domain, legal form, hyphen, trademark sign, trailing
qualifier, plural) carrying the same description words; a tenth get a look-alike that is another entity (a
relative with the same surname, the spouse "Mrs.", a thing they own, a combination, a longer name). Precision
and recall count node pairs put together.
"""

from __future__ import annotations

import random
import resource
import sys
import time
from itertools import combinations
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _server import help_only, table  # noqa: E402

from graphglean.core.config import Config  # noqa: E402
from graphglean.graph.building.merge import normalize_name  # noqa: E402
from graphglean.graph.resolution.blocking import candidate_pairs  # noqa: E402
from graphglean.graph.resolution.resolve import Resolver, resolve_entities_sync  # noqa: E402

_SYL = ("ka lo mer tin sa vor el bri dun fen gal hor is jun kel mar nor ost pra quil ros sten tor ul ven wyn yar "
        "zel").split()


def word(rng: random.Random, n: int = 3) -> str:
    return "".join(rng.choice(_SYL) for _ in range(n))


def synthetic_graph(n: int, seed: int = 1) -> tuple[nx.Graph, dict[str, int]]:
    """A merged-looking graph of about ``n`` nodes and the true entity of each node."""
    rng = random.Random(seed)
    g: nx.Graph = nx.Graph()
    truth: dict[str, int] = {}
    firsts = [word(rng, 2).title() for _ in range(400)]
    used: set[str] = set()
    entity = 0

    def add(name: str, kind: str, desc: str, ent: int) -> str | None:
        key = normalize_name(name)
        if key in g:
            return None
        g.add_node(key, name=name, type=kind, types=[kind], descriptions=[desc], description=desc,
                   source_ids=[f"c{ent % 997}"], frequency=1)
        truth[key] = ent
        return key

    def fresh(parts: int) -> str:
        tries = 0
        while True:  # longer words once the short ones run out
            w = word(rng, parts + tries // 4).title()
            tries += 1
            if w not in used:
                used.add(w)
                return w

    while g.number_of_nodes() < n:
        entity += 1
        own = f"{word(rng, 4)} {word(rng, 4)}"
        kind = rng.choices(["person", "organization", "geo", "event"], [4, 3, 2, 1])[0]
        gender = rng.choice("mf")
        if kind == "person":
            first, last = rng.choice(firsts), fresh(3)
            name = f"{first} {last}"
            pronoun = "He" if gender == "m" else "She"
            desc = f"{name} is a {own} whom many people knew. {pronoun} is known in town."
            aliases = [last, first, f"{'Mr.' if gender == 'm' else 'Mrs.'} {last}", f"Dr. {name}",
                       f"{first} {rng.choice('ABCDEFG')}. {last}"]
        elif kind == "organization":
            w1, w2 = fresh(2), fresh(3)
            suffix = rng.choice(["Institute", "Foundation", "Company", "Agency", "Council", "Society"])
            name = f"{w1} {w2} {suffix}"
            desc = f"The {name} is an organization concerned with {own}."
            acr = (w1[0] + w2[0] + suffix[0]).upper()
            aliases = [f"The {name}", acr, f"{name} ({acr})", f"{w1}-{w2} {suffix}", f"{w1} {w2}™ {suffix}",
                       f"{w1}{w2}{suffix}.org".lower(), ".".join(acr) + ".", f"{name}, Inc."]
        elif kind == "geo":
            name = f"{fresh(3)} {rng.choice(['City', 'Valley', 'River', 'Harbor'])}"
            desc = f"{name} is a place known for {own}."
            aliases = [f"{name}, {fresh(2)}", f"The {name}"]
        else:
            name = f"{fresh(3)} {rng.choice(['Festival', 'Summit', 'Conference', 'Market'])}"
            desc = f"The {name} is an event about {own}."
            aliases = [f"{name}s", f"The {name}"]
        key = add(name, kind, desc, entity)
        if key is None:
            continue
        if rng.random() < 0.2:
            alias = rng.choice(aliases)
            add(alias, kind, desc.replace(name, alias, 1), entity)
        if rng.random() < 0.1:
            entity += 1
            other = f"{word(rng, 4)} {word(rng, 4)}"
            if kind == "person":
                last = name.split()[-1]
                lookalike = rng.choice([f"{rng.choice(firsts)} {last}", f"{'Mrs.' if gender == 'm' else 'Mr.'} {last}",
                                        f"{name}'s Office", f"{name} and {rng.choice(firsts)} {fresh(3)}"])
                pron = "She" if "Mrs." in lookalike or gender == "m" else "He"
                add(lookalike, "person" if "Office" not in lookalike else "geo",
                    f"{lookalike} is a {other}. {pron} lives elsewhere.", entity)
            else:
                add(f"{name} {rng.choice(['Archive', 'Board', 'Annex'])}", kind, f"It is a {other}.", entity)
    keys = list(g.nodes)
    for k in keys:  # a sparse structure: each node related to two others
        for _ in range(2):
            g.add_edge(k, rng.choice(keys), weight=1.0, descriptions=["related"], source_ids=["c0"])
    return g, truth


def pairs_of(groups: dict[object, list[str]]) -> set[frozenset[str]]:
    return {frozenset(p) for members in groups.values() if len(members) < 50 for p in combinations(members, 2)}


def measure(n: int) -> dict[str, object]:
    g, truth = synthetic_graph(n)
    cfg = Config()
    t0, w0 = time.process_time(), time.perf_counter()
    resolution = resolve_entities_sync(g, cfg, method="rules")
    cpu, wall = time.process_time() - t0, time.perf_counter() - w0
    predicted: dict[object, list[str]] = {}
    for node, data in resolution.graph.nodes(data=True):
        predicted[node] = list(data.get("merged_from") or [node])
    true_groups: dict[object, list[str]] = {}
    for key, ent in truth.items():
        true_groups.setdefault(ent, []).append(key)
    got, want = pairs_of(predicted), pairs_of(true_groups)
    s = resolution.stats
    t1 = time.process_time()  # the llm method's broader blocking (its questions), without asking
    r = Resolver.of_graph(g)
    broad, _ = candidate_pairs(r.profiles, r.corpus, cfg.graph.resolve.max_block, broad=True)
    broad_cpu = time.process_time() - t1
    return {"entities": g.number_of_nodes(), "planted pairs": len(want), "candidate pairs": s.candidate_pairs,
            "pairs/entity": round(s.candidate_pairs / g.number_of_nodes(), 2), "merges": s.rule_merges,
            "cpu s": round(cpu, 2), "cpu µs/entity": round(1e6 * cpu / g.number_of_nodes(), 1),
            "wall s": round(wall, 2), "precision": round(len(got & want) / len(got), 4) if got else 1.0,
            "recall": round(len(got & want) / len(want), 4) if want else 1.0,
            "llm-mode pairs/entity": round(len(broad) / g.number_of_nodes(), 2),
            "llm-mode blocking cpu s": round(broad_cpu, 2),
            "max rss MB": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024}


def main(argv: list[str]) -> None:
    sizes = [int(a) for a in argv] or [10_000, 100_000]
    rows = [measure(n) for n in sizes]
    print(table(rows, list(rows[0])))
    print("\nmethod: rules (no LLM); cpu = process time of resolve_entities; max rss is of the whole process")


if __name__ == "__main__":
    help_only(__doc__)
    main(sys.argv[1:])
