"""The nodes as resolution sees them (`Resolver`: profiles, graph-wide word statistics, memoized verdicts) and
the clusters it makes of them (`Clusters`), shared by the rules and the LLM tier."""

from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping, Protocol

import attrs
import networkx as nx

from .evidence import Evidence
from .names import name_size
from .profiles import Corpus, Profile, profile_of
from .verdicts import DIFFERENT, SAME, UNSURE, Verdict


@attrs.define
class ResolutionStats:
    method: str = "rules"
    entities_before: int = 0
    entities_after: int = 0
    candidate_pairs: int = 0
    skipped_blocks: int = 0
    rule_merges: int = 0
    llm_pairs: int = 0
    llm_merges: int = 0
    llm_unanswered: int = 0
    refused_merges: int = 0  # merges a DIFFERENT pair across the clusters prevented
    kept_apart: int = 0  # candidate pairs a rule (or the LLM) kept apart: resolution.jsonl's kept_apart lines
    one_name: int = 0  # nodes of one name whose descriptions tell two things apart: its one_name lines


class Clusters:
    """Union-find whose unions are refused when any pair across the two sides is DIFFERENT, or, for ``strict``
    unions (the rules'), UNSURE with doubt: every pair of a cluster the rules make is compatible, not only the
    pairs that linked it ("King Charles" ~ "Charles" ~ "Charles Darwin" stays apart)."""

    def __init__(self, n: int, verdict: Any, max_cross: int = 4096) -> None:
        self.parent = list(range(n))
        self.members: dict[int, list[int]] = {i: [i] for i in range(n)}
        self.verdict = verdict
        self.max_cross = max_cross

    def find(self, i: int) -> int:
        while self.parent[i] != i:
            self.parent[i] = self.parent[self.parent[i]]
            i = self.parent[i]
        return i

    def union(self, i: int, j: int, strict: bool = False) -> bool | None:
        """True when merged, False when refused, None when already one cluster."""
        ri, rj = self.find(i), self.find(j)
        if ri == rj:
            return None
        a, b = self.members[ri], self.members[rj]
        if len(a) * len(b) > self.max_cross:
            return False
        if any(_incompatible(self.verdict(x, y), strict) for x in a for y in b):
            return False
        if len(a) < len(b):
            ri, rj, a, b = rj, ri, b, a
        self.parent[rj] = ri
        a.extend(b)
        del self.members[rj]
        return True


def _incompatible(v: Verdict, strict: bool) -> bool:
    return v.kind == DIFFERENT or (strict and v.doubt)


def apart_line(pa: Profile, pb: Profile, verdict: str, rule: str, tier: str,
               answer: str | None = None) -> tuple[list[Any], dict[str, Any]]:
    """A pair kept apart as resolution.jsonl writes it, with its place there (after the merges, by names then
    node keys): the local resolver's and each Ray pair partition's; ``answer``: the LLM's line about it."""
    x, y = sorted((pa, pb), key=lambda p: (p.name, p.key))
    line = {"decision": "kept_apart", "a": x.name, "b": y.name, "rule": rule, "verdict": verdict, "tier": tier}
    if answer is not None:
        line["answer"] = answer
    return [2, x.name, y.name, x.key, y.key], line


class NodeFacts(Protocol):
    """What the resolver reads of nodes beyond their profiles (the LLM tier's cards, the merged node's name)."""

    def data(self, node: Any) -> Mapping[str, Any]:
        """The node's attributes (``type``, ``frequency``, ...)."""

    def related(self, node: Any) -> list[str]:
        """Display names of its best-connected neighbours (at most 4, most connected first)."""


class GraphFacts:
    """`NodeFacts` of a graph in memory."""

    def __init__(self, graph: nx.Graph) -> None:
        self.graph = graph

    def data(self, node: Any) -> Mapping[str, Any]:
        return self.graph.nodes[node]

    def related(self, node: Any) -> list[str]:
        g = self.graph
        return [str(g.nodes[n].get("name") or n) for n in sorted(g.neighbors(node), key=lambda n: -g.degree(n))[:4]]


class Resolver:
    """The decisions of resolution over ``nodes`` (their ``profiles`` and graph-wide ``corpus``): the whole graph
    locally, or under engine ray only the nodes of the candidate pairs that can matter (the statistics in
    ``corpus`` are still those of the whole graph)."""

    def __init__(self, nodes: list[Any], profiles: list[Profile], corpus: Corpus, facts: NodeFacts) -> None:
        self.nodes = nodes
        self.profiles = profiles
        self.corpus = corpus
        self.facts = facts
        self.evidence = Evidence(None, {p.key: p for p in profiles}, corpus)
        self.memo: dict[tuple[int, int], Verdict] = {}
        self.llm_different: set[tuple[int, int]] = set()
        self.llm_said: dict[tuple[int, int], str] = {}  # the LLM's answer line about a pair (i < j)

    @classmethod
    def of_graph(cls, graph: nx.Graph, profile: Callable[[nx.Graph, Any], Profile] = profile_of) -> "Resolver":
        """``profile`` is `profile_of`, or what gives the same profile faster (one made earlier)."""
        nodes = list(graph.nodes)
        profiles = [profile(graph, n) for n in nodes]
        return cls(nodes, profiles, Corpus.of(graph, profiles), GraphFacts(graph))

    def verdict(self, i: int, j: int) -> Verdict:
        pair = (i, j) if i < j else (j, i)
        if pair in self.llm_different:
            return Verdict(DIFFERENT, 0.0, "the LLM said different")
        v = self.memo.get(pair)
        if v is None:
            v = self.memo[pair] = self.evidence.verdict(self.profiles[pair[0]], self.profiles[pair[1]])
        return v

    def rule_links(self, pairs: list[tuple[int, int]]) -> list[tuple[int, int, Verdict]]:
        verdicts = [(i, j, self.verdict(i, j)) for i, j in pairs]
        links = [(i, j, v) for i, j, v in verdicts if v.kind == SAME]
        return self._unique_readings(links, [(i, j) for i, j, v in verdicts if v.reading])

    def _unique_readings(self, links: list[tuple[int, int, Verdict]],
                         readings: Iterable[tuple[int, int]] = ()) -> list[tuple[int, int, Verdict]]:
        """Drop a name's links to readings that are not one entity: "Cratchit" is neither Bob nor Martha
        Cratchit, "BVC" neither of two councils with those initials, "William" neither "Prince William" nor
        "William Shakespeare". Fuller names (more words) must all be one entity; as full ones must not differ
        or be in doubt ("Fezziwig": Mr. or Mrs.). ``readings``: pairs the rules do not merge whose names still
        read as one another (`Verdict.reading`): they count among a linked name's readings."""
        targets: dict[int, list[int]] = {}
        linked = {k for i, j, _ in links for k in (i, j)}
        for i, j in readings:
            if i in linked or j in linked:
                targets.setdefault(i, []).append(j)
                targets.setdefault(j, []).append(i)
        for i, j, _ in links:
            targets.setdefault(i, []).append(j)
            targets.setdefault(j, []).append(i)
        writings = self._share_readings(targets)
        ambiguous: set[tuple[int, int]] = set()
        for x, ys in targets.items():
            ys = [y for y in ys if self.words(y) >= self.words(x)]
            if len(ys) > 64:
                ambiguous.update((min(x, y), max(x, y)) for y in ys)
                continue
            for k, y1 in enumerate(ys):
                for y2 in ys[k + 1:]:
                    if self._readings_differ(x, y1, y2):
                        ambiguous.update(((min(x, y1), max(x, y1)), (min(x, y2), max(x, y2))))
                        read = writings.get(x, {})  # "SWC" reads one council, "S.W.C." the other: two names
                        for z, zs in read.items():
                            if z != x and (y1 in zs and y2 in read[x] or y2 in zs and y1 in read[x]):
                                ambiguous.add((min(x, z), max(x, z)))
        kept = []
        for i, j, v in links:
            if (i, j) in ambiguous:
                self.memo[(i, j)] = Verdict(UNSURE, v.score * 0.6, v.rule + ", but the name has other readings",
                                            doubt=True)
            else:
                kept.append((i, j, v))
        return kept

    def _share_readings(self, targets: dict[int, list[int]]) -> dict[int, dict[int, set[int]]]:
        """One abbreviation written two ways ("SWC", "S.W.C.") has the readings of both: each reads the other's
        too, so that two councils with those initials are not joined through them. Returns, for each such
        name, its other writings and the readings of each (itself included)."""
        groups: dict[str, list[int]] = {}
        for x in targets:
            if self.profiles[x].forms[0].acronym:
                groups.setdefault(self.profiles[x].forms[0].acronym, []).append(x)
        own = {x: list(ys) for x, ys in targets.items()}
        shared: dict[int, dict[int, set[int]]] = {}
        for members in (m for m in groups.values() if len(m) > 1):
            for x in members:
                targets[x] += [y for s in members if s != x for y in own[s] if y not in members and y not in own[x]]
                shared[x] = {s: set(own[s]) for s in members}
        return shared

    def _readings_differ(self, x: int, y1: int, y2: int) -> bool:
        """Two readings of the name ``x`` that are not one entity: they differ or are in doubt, or both are
        fuller than ``x`` and not the same."""
        v = self.verdict(y1, y2)
        fuller = self.words(y1) > self.words(x) and self.words(y2) > self.words(x)
        return v.kind == DIFFERENT or v.doubt or (fuller and v.kind != SAME)

    def words(self, i: int) -> int:
        """How many words node ``i``'s name has (`names.name_size`: "Z.G.F." is one word, as "ZGF" is)."""
        return sum(name_size(self.profiles[i].forms[0]))

    def cluster(self, clusters: Clusters, links: Iterable[tuple[int, int, Verdict]], tier: str,
                log: list[dict[str, Any]], stats: ResolutionStats) -> int:
        merged = 0
        order = sorted(links, key=lambda t: (-t[2].score, self.profiles[t[0]].name, self.profiles[t[1]].name))
        for i, j, v in order:
            done = clusters.union(i, j, strict=tier == "rules")
            if done:
                merged += 1
                log.append({"decision": "merged", "a": self.profiles[i].name, "b": self.profiles[j].name,
                            "rule": v.rule, "score": round(v.score, 3), "tier": tier, "_link": (i, j, v.score)})
                if (min(i, j), max(i, j)) in self.llm_said and tier == "llm":
                    log[-1]["answer"] = self.llm_said[(min(i, j), max(i, j))]
            elif done is False:
                stats.refused_merges += 1
        return merged

    def kept_apart(self, clusters: Clusters,
                   pairs: Iterable[tuple[int, int]]) -> list[tuple[list[Any], dict[str, Any]]]:
        """The candidate ``pairs`` (i < j) left in two clusters by evidence against them or by doubt: a DIFFERENT
        verdict (the rules' or the LLM's), an UNSURE one (a question the LLM did not answer SAME, or was not asked
        with the rules alone), or a SAME whose clusters hold a pair that may not be one. Each as `apart_line`
        places and writes it."""
        out = []
        for i, j in pairs:
            ri, rj = clusters.find(i), clusters.find(j)
            if ri == rj:
                continue
            v = self.verdict(i, j)
            if v.kind == SAME:
                rule = f"{v.rule}, but {self._across(clusters, ri, rj)}"
            elif v.kind in (DIFFERENT, UNSURE):
                rule = v.rule
            else:
                continue
            tier = "llm" if (i, j) in self.llm_different else "rules"
            out.append(apart_line(self.profiles[i], self.profiles[j], v.kind, rule, tier, self.llm_said.get((i, j))))
        return sorted(out, key=lambda t: t[0])

    def _across(self, clusters: Clusters, ri: int, rj: int) -> str:
        """Why two clusters stay apart: the first pair across them (by names, then keys) that may not be one."""
        a, b = clusters.members[ri], clusters.members[rj]
        if len(a) * len(b) > clusters.max_cross:
            return "their clusters are too large to compare"
        order = lambda k: (self.profiles[k].name, str(self.nodes[k]))  # noqa: E731
        found = [(min((x, y), key=order), max((x, y), key=order)) for x in a for y in b
                 if _incompatible(self.verdict(x, y), True)]
        if not found:
            return "the clusters were joined otherwise"
        x, y = min(found, key=lambda p: (order(p[0]), order(p[1])))
        return f"{self.profiles[x].name!r} / {self.profiles[y].name!r}: {self.verdict(x, y).rule}"

    def owner_clusters(self, clusters: Clusters) -> dict[str, str]:
        """Each name form of a clustered node -> its cluster's root node; where a form is in several clusters,
        the one whose root is listed last."""
        out: dict[str, str] = {}
        for root, members in clusters.members.items():
            if len(members) > 1:
                for m in members:
                    for f in self.profiles[m].forms:
                        out[f.key] = str(self.nodes[root])
        return out
