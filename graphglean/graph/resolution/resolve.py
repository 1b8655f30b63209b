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

from typing import Any, Callable, Mapping

import attrs
import networkx as nx
import trio

from ...core.config import Config
from ...llm.model_limits.completion_cap import CompletionCap
from ...scheduling.scheduler import Scheduler
from .blocking import candidate_pairs
from .combine import combine_clusters, informative_order
from .answers import AnswerMemo, Said
from .llm_tier import PASS, ask_llm, close_pairs, embed_profiles, questions
from .descriptions.namesakes import one_name_lines
from .profiles import Profile, profile_of
from .resolver import Clusters, ResolutionStats, Resolver
from .verdicts import SAME, Verdict


@attrs.define
class Resolution:
    graph: nx.Graph
    merges: list[dict[str, Any]]  # one line of resolution.jsonl per merge
    stats: ResolutionStats
    kept_apart: list[dict[str, Any]] = attrs.field(factory=list)  # one line per candidate pair kept apart
    one_name: list[dict[str, Any]] = attrs.field(factory=list)  # one line per node of namesakes (`namesakes`)
    failed: list[dict[str, object]] = attrs.field(factory=list)  # LLM batches that failed, as report.json lists them

    @property
    def log(self) -> list[dict[str, Any]]:
        """resolution.jsonl: the merges, the pairs kept apart, then the nodes of namesakes."""
        return self.merges + self.kept_apart + self.one_name


async def resolve_entities(graph: nx.Graph, config: Config | None = None, scheduler: Scheduler | None = None, *,
                           method: str | None = None, memo: AnswerMemo | None = None,
                           profile: Callable[[nx.Graph, Any], Profile] = profile_of) -> Resolution:
    """Merge the nodes of ``graph`` that name one entity; returns a new graph and the merge log.

    ``method``: ``rules`` (no LLM call), ``llm`` (rules, then the LLM on uncertain pairs) or ``auto``
    (default: ``config.graph.resolve.method``; auto = llm when an endpoint is configured). Without a
    ``scheduler`` the llm method makes one from ``config.llm`` for this call. ``profile`` is `profile_of` or
    what gives the same profiles faster (those made while extraction ran).
    """
    cfg = config or Config()
    rc = cfg.graph.resolve
    chosen = method or rc.method
    if chosen == "auto":
        chosen = "llm" if cfg.llm.has_endpoint else "rules"
    if chosen == "llm" and scheduler is None:
        from ...core.tokens import Tokenizer
        from ...llm.client import ChatClient

        count = Tokenizer(cfg.llm.model).count
        async with ChatClient.from_config(cfg.llm, cfg.output.dir, count_tokens=count) as client:
            return await _resolve(graph, cfg, Scheduler(client, fail_fast=cfg.fail_fast), chosen, memo, profile)
    return await _resolve(graph, cfg, scheduler, chosen, memo, profile)


async def _resolve(graph: nx.Graph, cfg: Config, scheduler: Scheduler | None, method: str,
                   memo: AnswerMemo | None, profile: Callable[[nx.Graph, Any], Profile]) -> Resolution:
    # the rule stage and the final combination take seconds on a large graph: in a worker thread, so that
    # the requests of other passes keep flowing meanwhile
    rc = cfg.graph.resolve
    stats = ResolutionStats(method=method, entities_before=graph.number_of_nodes())
    asks = method == "llm" and scheduler is not None
    r = await trio.to_thread.run_sync(Resolver.of_graph, graph, profile, abandon_on_cancel=True)
    vectors: dict[int, list[float]] = {}
    async with trio.open_nursery() as nursery:
        if asks and rc.embeddings:  # the embedding call is answered while the rules run
            nursery.start_soon(_embed, r, scheduler, memo, vectors)
        clusters, pairs, log = await trio.to_thread.run_sync(_by_rules, r, rc, method, stats,
                                                             abandon_on_cancel=True)
    if asks:
        assert scheduler is not None
        if rc.embeddings:
            close = await trio.to_thread.run_sync(close_pairs, r, vectors, rc.max_block, abandon_on_cancel=True)
            pairs = await trio.to_thread.run_sync(lambda known=pairs: sorted(set(known) | close),
                                                  abandon_on_cancel=True)
            stats.candidate_pairs = len(pairs)
        failed: list[dict[str, object]] = []
        await llm_tier(r, clusters, pairs, log, scheduler, rc, memo or AnswerMemo(), stats,
                       CompletionCap.of(cfg.llm).cap, failed)
        resolution = await trio.to_thread.run_sync(_combined, graph, r, clusters, log, pairs, stats,
                                                   abandon_on_cancel=True)
        return attrs.evolve(resolution, failed=failed)
    return await trio.to_thread.run_sync(_combined, graph, r, clusters, log, pairs, stats, abandon_on_cancel=True)


async def _embed(r: "Resolver", scheduler: Scheduler, memo: AnswerMemo | None, into: dict[int, list[float]]) -> None:
    into.update(await embed_profiles(r.profiles, scheduler, memo))


def _by_rules(r: "Resolver", rc: Any, method: str,
              stats: ResolutionStats) -> tuple["Clusters", list[Any], list[dict[str, Any]]]:
    """Candidate pairs and the clusters the rules make of them."""
    pairs, stats.skipped_blocks = candidate_pairs(r.profiles, r.corpus, rc.max_block, broad=method == "llm")
    stats.candidate_pairs = len(pairs)
    clusters, log = rule_clusters(r, pairs, stats)
    return clusters, pairs, log


def first_round(r: "Resolver", pairs: list[tuple[int, int]]) -> "Clusters":
    """The rules' clusters before owners are known: what `Resolver.owner_clusters` reads."""
    first = Clusters(len(r.nodes), r.verdict)
    r.cluster(first, r.rule_links(pairs), "rules", [], ResolutionStats())
    return first


def rule_clusters(r: "Resolver", pairs: list[tuple[int, int]], stats: ResolutionStats,
                  owners: Mapping[str, str] | None = None) -> tuple["Clusters", list[dict[str, Any]]]:
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
    clusters = Clusters(len(r.nodes), r.verdict)
    stats.rule_merges = r.cluster(clusters, r.rule_links(pairs), "rules", log, stats)
    return clusters, log


async def llm_tier(r: "Resolver", clusters: "Clusters", pairs: list[tuple[int, int]], log: list[dict[str, Any]],
                   scheduler: Scheduler, rc: Any, memo: AnswerMemo, stats: ResolutionStats,
                   max_tokens: int, failed: list[dict[str, object]] | None = None) -> None:
    """Ask the LLM about the UNSURE pairs across clusters and merge what it calls the same (consistently);
    ``max_tokens`` caps the re-ask of an answer cut short (see `ask_llm`)."""
    # choosing the questions and clustering the answers check verdicts of many pairs: off the trio thread
    asked = await trio.to_thread.run_sync(questions, r, clusters, pairs, rc.llm_pairs_per_entity,
                                          abandon_on_cancel=True)
    answers = await ask_llm(r, asked, scheduler, rc.llm_batch, memo, max_tokens, failed)
    await trio.to_thread.run_sync(apply_answers, r, clusters, asked, answers, log, stats, abandon_on_cancel=True)


def apply_answers(r: "Resolver", clusters: "Clusters", asked: list[tuple[int, int]],
                  answers: Mapping[tuple[int, int], Said], log: list[dict[str, Any]], stats: ResolutionStats) -> None:
    """Merge the ``asked`` pairs the LLM called the same (consistently); the others are DIFFERENT from now on.
    The model's answer line about each pair goes into resolution.jsonl beside the decision."""
    stats.llm_pairs = len(asked)
    stats.llm_unanswered = sum(1 for p in asked if p not in answers)
    links = []
    for i, j in (p for p in asked if p in answers):
        r.llm_said[(i, j)] = answers[(i, j)].line
        if answers[(i, j)].same:
            links.append((i, j, Verdict(SAME, 0.7, f"LLM: {r.verdict(i, j).rule or 'no rule applies'}")))
        else:
            r.llm_different.add((i, j))
    stats.llm_merges = r.cluster(clusters, links, "llm", log, stats)


def merged_groups(r: "Resolver", clusters: "Clusters", log: list[dict[str, Any]]) -> list[list[Any]]:
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


def _combined(graph: nx.Graph, r: "Resolver", clusters: "Clusters", log: list[dict[str, Any]],
              pairs: list[tuple[int, int]], stats: ResolutionStats) -> Resolution:
    groups = {root: [r.nodes[m] for m in members] for root, members in clusters.members.items()}
    out, kept = combine_clusters(graph, groups, {n: p for n, p in zip(r.nodes, r.profiles)})
    for line in log:
        line["into"] = out.nodes[kept[clusters.find(line.pop("_link")[0])]]["name"]
    stats.entities_after = out.number_of_nodes()
    apart = [line for _, line in r.kept_apart(clusters, pairs)]
    stats.kept_apart = len(apart)
    namesakes = [line for _, line in one_name_lines(graph.nodes(data=True))]
    stats.one_name = len(namesakes)
    return Resolution(out, log, stats, apart, namesakes)


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
    from ...core.sync import run_sync

    return run_sync(resolve_entities, graph, config, **kw)


__all__ = ["PASS", "AnswerMemo", "Resolution", "ResolutionStats", "asks_llm", "resolve_entities", "run_method",
           "resolve_entities_sync"]
