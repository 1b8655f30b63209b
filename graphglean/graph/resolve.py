"""Entity resolution: one node per real-world entity, after the merge and before description summaries.

    resolution = await resolve_entities(graph, config)        # under trio; resolve_entities_sync anywhere
    resolution.graph, resolution.merges                       # the resolved graph; one record per merge

Candidates come from `blocking` (near-linear), verdicts from `evidence` (rules). Merges are made strongest
first, and a merge happens only when no pair across the two clusters is DIFFERENT, so A~B and B~C never pull
in an A that differs from C. A name with two readings that differ from each other ("Cratchit": Bob or Martha)
merges with neither. With ``method: llm`` the pairs the rules are unsure of go to the LLM in batches on the
scheduler, and its answers are merged under the same consistency check. The input graph is not changed.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping, Protocol

import attrs
import networkx as nx
import trio

from ..config import Config
from ..scheduler import Scheduler
from .blocking import candidate_pairs
from .combine import combine_clusters, informative_order
from .evidence import DIFFERENT, SAME, UNSURE, Corpus, Evidence, Profile, Verdict, profile_of
from .resolve_llm import PASS, AnswerMemo, ask_llm, questions, similar_pairs



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


@attrs.define
class Resolution:
    graph: nx.Graph
    merges: list[dict[str, Any]]  # one line of resolution.jsonl per merge
    stats: ResolutionStats


class _Clusters:
    """Union-find whose unions are refused when any pair across the two sides is DIFFERENT."""

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

    def union(self, i: int, j: int) -> bool | None:
        """True when merged, False when refused, None when already one cluster."""
        ri, rj = self.find(i), self.find(j)
        if ri == rj:
            return None
        a, b = self.members[ri], self.members[rj]
        if len(a) * len(b) > self.max_cross:
            return False
        if any(self.verdict(x, y).kind == DIFFERENT for x in a for y in b):
            return False
        if len(a) < len(b):
            ri, rj, a, b = rj, ri, b, a
        self.parent[rj] = ri
        a.extend(b)
        del self.members[rj]
        return True


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

    @classmethod
    def of_graph(cls, graph: nx.Graph) -> "Resolver":
        nodes = list(graph.nodes)
        profiles = [profile_of(graph, n) for n in nodes]
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
        links = [(i, j, v) for i, j in pairs if (v := self.verdict(i, j)).kind == SAME]
        return self._unique_readings(links)

    def _unique_readings(self, links: list[tuple[int, int, Verdict]]) -> list[tuple[int, int, Verdict]]:
        """Drop a name's links to readings that are not one entity: "Cratchit" is neither Bob nor Martha
        Cratchit, "BVC" neither of two councils with those initials. Fuller names (more words) must all be
        one entity; as full ones must not differ ("Fezziwig": Mr. or Mrs.)."""
        targets: dict[int, list[int]] = {}
        for i, j, _ in links:
            targets.setdefault(i, []).append(j)
            targets.setdefault(j, []).append(i)
        ambiguous: set[tuple[int, int]] = set()
        for x, ys in targets.items():
            ys = [y for y in ys if self.words(y) >= self.words(x)]
            if len(ys) > 64:
                ambiguous.update((min(x, y), max(x, y)) for y in ys)
                continue
            for k, y1 in enumerate(ys):
                for y2 in ys[k + 1:]:
                    v = self.verdict(y1, y2).kind
                    fuller = self.words(y1) > self.words(x) and self.words(y2) > self.words(x)
                    if v == DIFFERENT or (fuller and v != SAME):
                        ambiguous.update(((min(x, y1), max(x, y1)), (min(x, y2), max(x, y2))))
        kept = []
        for i, j, v in links:
            if (i, j) in ambiguous:
                self.memo[(i, j)] = Verdict(UNSURE, v.score * 0.6, v.rule + ", but the name has other readings")
            else:
                kept.append((i, j, v))
        return kept

    def words(self, i: int) -> int:
        f = self.profiles[i].forms[0]
        return len(f.person) if f.person else len(f.key.split())

    def cluster(self, clusters: _Clusters, links: Iterable[tuple[int, int, Verdict]], tier: str,
                log: list[dict[str, Any]], stats: ResolutionStats) -> int:
        merged = 0
        order = sorted(links, key=lambda t: (-t[2].score, self.profiles[t[0]].name, self.profiles[t[1]].name))
        for i, j, v in order:
            done = clusters.union(i, j)
            if done:
                merged += 1
                log.append({"a": self.profiles[i].name, "b": self.profiles[j].name, "rule": v.rule,
                            "score": round(v.score, 3), "tier": tier, "_link": (i, j, v.score)})
            elif done is False:
                stats.refused_merges += 1
        return merged

    def owner_clusters(self, clusters: _Clusters) -> dict[str, str]:
        """Each name form of a clustered node -> its cluster's root node; where a form is in several clusters,
        the one whose root is listed last."""
        out: dict[str, str] = {}
        for root, members in clusters.members.items():
            if len(members) > 1:
                for m in members:
                    for f in self.profiles[m].forms:
                        out[f.key] = str(self.nodes[root])
        return out


async def resolve_entities(graph: nx.Graph, config: Config | None = None, scheduler: Scheduler | None = None, *,
                           method: str | None = None, memo: AnswerMemo | None = None) -> Resolution:
    """Merge the nodes of ``graph`` that name one entity; returns a new graph and the merge log.

    ``method``: ``rules`` (no LLM call), ``llm`` (rules, then the LLM on uncertain pairs) or ``auto``
    (default: ``config.graph.resolve.method``; auto = llm when an endpoint is configured). Without a
    ``scheduler`` the llm method makes one from ``config.llm`` for this call.
    """
    cfg = config or Config()
    rc = cfg.graph.resolve
    chosen = method or rc.method
    if chosen == "auto":
        chosen = "llm" if cfg.llm.has_endpoint else "rules"
    if chosen == "llm" and scheduler is None:
        from ..llm.client import ChatClient
        from ..tokens import Tokenizer

        async with ChatClient.from_config(cfg.llm, count_tokens=Tokenizer(cfg.llm.model).count) as client:
            return await _resolve(graph, cfg, Scheduler(client, fail_fast=cfg.fail_fast), chosen, memo)
    return await _resolve(graph, cfg, scheduler, chosen, memo)


async def _resolve(graph: nx.Graph, cfg: Config, scheduler: Scheduler | None, method: str,
                   memo: AnswerMemo | None) -> Resolution:
    # the rule stage and the final combination take seconds on a large graph: in a worker thread, so that
    # the requests of other passes keep flowing meanwhile
    rc = cfg.graph.resolve
    stats = ResolutionStats(method=method, entities_before=graph.number_of_nodes())
    r, clusters, pairs, log = await trio.to_thread.run_sync(_by_rules, graph, rc, method, stats,
                                                            abandon_on_cancel=True)
    if method == "llm" and scheduler is not None:
        if rc.embeddings:
            close = await similar_pairs(r, scheduler, rc.max_block, memo)
            pairs = await trio.to_thread.run_sync(lambda known=pairs: sorted(set(known) | close),
                                                  abandon_on_cancel=True)
            stats.candidate_pairs = len(pairs)
        await llm_tier(r, clusters, pairs, log, scheduler, rc, memo or AnswerMemo(), stats, cfg.llm.max_tokens)
    return await trio.to_thread.run_sync(_combined, graph, r, clusters, log, stats, abandon_on_cancel=True)


def _by_rules(graph: nx.Graph, rc: Any, method: str,
              stats: ResolutionStats) -> tuple["Resolver", "_Clusters", list[Any], list[dict[str, Any]]]:
    """Candidate pairs and the clusters the rules make of them."""
    r = Resolver.of_graph(graph)
    pairs, stats.skipped_blocks = candidate_pairs(r.profiles, r.corpus, rc.max_block, broad=method == "llm")
    stats.candidate_pairs = len(pairs)
    clusters, log = rule_clusters(r, pairs, stats)
    return r, clusters, pairs, log


def first_round(r: "Resolver", pairs: list[tuple[int, int]]) -> "_Clusters":
    """The rules' clusters before owners are known: what `Resolver.owner_clusters` reads."""
    first = _Clusters(len(r.nodes), r.verdict)
    r.cluster(first, r.rule_links(pairs), "rules", [], ResolutionStats())
    return first


def rule_clusters(r: "Resolver", pairs: list[tuple[int, int]], stats: ResolutionStats,
                  owners: Mapping[str, str] | None = None) -> tuple["_Clusters", list[dict[str, Any]]]:
    """The clusters the rules make of the candidate ``pairs`` (ascending index pairs), and the merge log. Only
    pairs whose verdict is SAME or UNSURE, or that involve an owned thing ("Ghost of Marley"), can change the
    result: the others may be left out. ``owners``: the name forms' first-round clusters where they are known
    beyond ``r`` (a part of the graph); by default ``r``'s own."""
    log: list[dict[str, Any]] = []
    # first round: owners of possessives are compared through the clusters of plain names
    first = first_round(r, pairs)
    r.evidence.owner_cluster = r.owner_clusters(first) if owners is None else dict(owners)
    for pair in [p for p in pairs if any(f.head for k in p for f in r.profiles[k].forms)]:
        r.memo.pop(pair, None)
    clusters = _Clusters(len(r.nodes), r.verdict)
    stats.rule_merges = r.cluster(clusters, r.rule_links(pairs), "rules", log, stats)
    return clusters, log


async def llm_tier(r: "Resolver", clusters: "_Clusters", pairs: list[tuple[int, int]], log: list[dict[str, Any]],
                   scheduler: Scheduler, rc: Any, memo: AnswerMemo, stats: ResolutionStats,
                   max_tokens: int) -> None:
    """Ask the LLM about the UNSURE pairs across clusters and merge what it calls the same (consistently);
    ``max_tokens`` caps the re-ask of an answer cut short (see `ask_llm`)."""
    # choosing the questions and clustering the answers check verdicts of many pairs: off the trio thread
    asked = await trio.to_thread.run_sync(questions, r, clusters, pairs, rc.llm_pairs_per_entity,
                                          abandon_on_cancel=True)
    answers = await ask_llm(r, asked, scheduler, rc.llm_batch, memo, max_tokens)
    await trio.to_thread.run_sync(apply_answers, r, clusters, asked, answers, log, stats, abandon_on_cancel=True)


def apply_answers(r: "Resolver", clusters: "_Clusters", asked: list[tuple[int, int]],
                  answers: Mapping[tuple[int, int], bool], log: list[dict[str, Any]], stats: ResolutionStats) -> None:
    """Merge the ``asked`` pairs the LLM called the same (consistently); the others are DIFFERENT from now on."""
    stats.llm_pairs = len(asked)
    stats.llm_unanswered = sum(1 for p in asked if p not in answers)
    links = []
    for i, j in (p for p in asked if p in answers):
        if answers[(i, j)]:
            links.append((i, j, Verdict(SAME, 0.7, f"LLM: {r.verdict(i, j).rule or 'no rule applies'}")))
        else:
            r.llm_different.add((i, j))
    stats.llm_merges = r.cluster(clusters, links, "llm", log, stats)


def merged_groups(r: "Resolver", clusters: "_Clusters", log: list[dict[str, Any]]) -> list[list[Any]]:
    """The clusters of more than one node, each as its nodes, most informative (the one kept) first; fills in
    each log line's ``into`` (the kept node's name)."""
    groups: dict[int, list[Any]] = {}
    for root, members in clusters.members.items():
        if len(members) > 1:
            order = informative_order(members, lambda m: r.profiles[m], lambda m: r.facts.data(r.nodes[m]))
            groups[root] = order
    for line in log:
        line["into"] = r.profiles[groups[clusters.find(line.pop("_link")[0])][0]].name
    return [[r.nodes[m] for m in order] for order in groups.values()]


def _combined(graph: nx.Graph, r: "Resolver", clusters: "_Clusters", log: list[dict[str, Any]],
              stats: ResolutionStats) -> Resolution:
    groups = {root: [r.nodes[m] for m in members] for root, members in clusters.members.items()}
    out, kept = combine_clusters(graph, groups, {n: p for n, p in zip(r.nodes, r.profiles)})
    for line in log:
        line["into"] = out.nodes[kept[clusters.find(line.pop("_link")[0])]]["name"]
    stats.entities_after = out.number_of_nodes()
    return Resolution(out, log, stats)


def run_method(cfg: Config, offline: bool) -> str:
    """The method a run's resolution stage uses: the configured one; for ``auto``, llm with an endpoint for a
    graph the LLM built, else rules (the offline graph asks no LLM unless ``method: llm`` says so)."""
    chosen = cfg.graph.resolve.method
    if chosen != "auto":
        return chosen
    return "llm" if not offline and cfg.llm.has_endpoint else "rules"


def asks_llm(cfg: Config, offline: bool) -> bool:
    """Whether a run's resolution stage asks the LLM (see `run_method`)."""
    return cfg.graph.resolve.enabled and run_method(cfg, offline) == "llm"


def resolve_entities_sync(graph: nx.Graph, config: Config | None = None, **kw: Any) -> Resolution:
    """`resolve_entities` from synchronous code, including a Jupyter cell where an asyncio loop is running."""
    from ..sync import run_sync

    return run_sync(resolve_entities, graph, config, **kw)


__all__ = ["PASS", "AnswerMemo", "Resolution", "ResolutionStats", "asks_llm", "resolve_entities", "run_method",
           "resolve_entities_sync"]
