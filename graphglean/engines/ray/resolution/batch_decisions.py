"""The decisions of a partitioned resolution, batch by batch (`decision_batches`), equal to those of the one
local resolver over the whole graph:

    each batch: the rules' clusters ─► (llm) its questions, in the local order ─► state saved
    (llm) the questions of all batches merged in that order, cut into the local calls ─► asked in parts
    (llm) each batch: its answers applied ─► merged groups and merge log lines, each with its place in the
          local log
    each key partition: its part of the merged groups as a table (`decision_tables`)
    one pass: the log lines merged in order into resolution.jsonl (streaming), the counts summed
"""

from __future__ import annotations

import heapq
from collections import defaultdict
from pathlib import Path
from typing import Any

import attrs

from ....core.config import Config
from ....graph.resolution.answers import AnswerMemo, Said, stored_answer
from ....graph.resolution.llm_tier import (
    ask_about,
    mark_similar,
    pair_id,
    question_cards,
    question_strength,
    questions,
)
from ....graph.resolution.resolve import ResolutionStats, Resolver, apply_answers, merged_groups, rule_clusters
from ....llm.model_limits.completion_cap import CompletionCap
from ....scheduling.scheduler import Scheduler
from ..stage_files import dump, load, ordered_table, read_ordered, write_ordered
from .batch_resolver import kept_or_built, owners_read
from .decision_tables import write_group_parts
from .node_tables import NodeTables

_SUMMED = ("rule_merges", "llm_pairs", "llm_merges", "llm_unanswered", "refused_merges", "kept_apart")


@attrs.define
class BatchState:
    """A batch between its questions and their answers."""

    r: Resolver
    clusters: Any  # the resolver's union-find (`rule_clusters`)
    asked: list[tuple[int, int]]
    log: list[dict[str, Any]]
    stats: ResolutionStats
    pairs: list[tuple[int, int]]  # the batch's candidate pairs (with those of close embeddings)


def decide_batch(k: int, cfg: Config, documents: int, folder: Path, owned: bool, asks: bool) -> int:
    """Batch ``k``'s rule clusters (``documents``: the graph's nodes; ``owned``: it reads the owner tables).
    With ``asks`` (the llm method) its questions are written for `order_questions` and its state kept, else
    its decisions; returns how many questions it has."""
    P, rc = cfg.runtime.graph_partitions, cfg.graph.resolve
    tables, r = NodeTables(folder, P), None
    try:
        r, pairs, similar = kept_or_built(k, folder, documents, tables)
        stats = ResolutionStats()
        clusters, log = rule_clusters(r, pairs, stats, owners_read(r, P, folder) if owned else {})
        if not asks:
            _settled(k, r, clusters, log, stats, {}, P, folder, pairs)
            return 0
        if rc.embeddings:
            pairs = sorted(set(pairs) | mark_similar(r, similar))
        asked = questions(r, clusters, pairs, rc.llm_pairs_per_entity)
        rows = []
        for i, j in asked:  # by `ask_order`, each with its place among the questions (`questions`' order)
            (a, b), pair = question_cards(r, i, j), pair_id(r, i, j)
            at = [*question_strength(r, i, j, r.verdict(i, j)), r.nodes[i], r.nodes[j]]
            rows.append(([a, b, pair], {"k": k, "i": i, "j": j, "a": a, "b": b, "pair": pair, "at": at}))
        write_ordered(rows, folder / f"asked-{k:05d}.jsonl")
        dump(BatchState(r, clusters, asked, log, stats, pairs), folder / f"state-{k:05d}.pkl")
        return len(asked)
    finally:  # a Ray worker process lives on: no table left open
        tables.close()
        if r is not None and r.facts.tables is not tables:  # type: ignore[attr-defined]
            r.facts.tables.close()  # type: ignore[attr-defined]


def order_questions(batches: int, per_part: int, folder: Path, memo: AnswerMemo, scope: str) -> int:
    """Every batch's questions merged in the order they are asked (`ask_order`); those ``memo`` has an answer
    to (in ``scope``: `answers.answer_scope`) are answered from it, the others cut into parts of ``per_part``
    (whole calls), as the local engine asks them. Returns the number of parts."""
    streams = [read_ordered(folder / f"asked-{k:05d}.jsonl") for k in range(batches)]
    known: list[list[Any]] = [[] for _ in range(batches)]
    parts, part = 0, []
    for _, row in heapq.merge(*streams, key=lambda t: t[0]):
        said = stored_answer(memo, scope, row["pair"])
        if isinstance(said, Said):
            known[row["k"]].append((row["at"], row["i"], row["j"], said))
        if said is not None:  # answered, or left out of a complete answer: not asked again
            continue
        part.append((row["k"], row["i"], row["j"], row["a"], row["b"], row["pair"], row["at"]))
        if len(part) == per_part:
            dump(part, folder / f"ask-{parts:05d}.pkl")
            parts, part = parts + 1, []
    if part:
        dump(part, folder / f"ask-{parts:05d}.pkl")
        parts += 1
    for k, rows in enumerate(known):  # every batch gets its file: a retry leaves no earlier one
        dump(rows, folder / f"answers-{k:05d}-saved.pkl")
    return parts


async def ask_part(t: int, per_part: int, cfg: Config, folder: Path, scheduler: Scheduler,
                   memo: AnswerMemo) -> None:
    """Part ``t`` of the questions asked; the answers written by batch, with each question's place."""
    part = load(folder / f"ask-{t:05d}.pkl")
    said = await ask_about([(a, b) for _, _, _, a, b, _, _ in part], [pair for *_, pair, _ in part], scheduler,
                           cfg.graph.resolve.llm_batch, memo, CompletionCap.of(cfg.llm).cap)
    out: dict[int, list[tuple[list[Any], int, int, Said]]] = defaultdict(list)
    for n, (k, i, j, _, _, _, at) in enumerate(part):
        rows = out[k]  # every batch of the part gets its file, answered or not: a retry leaves no earlier one
        if n in said:
            rows.append((at, i, j, said[n]))
    for k, rows in out.items():
        dump(rows, folder / f"answers-{k:05d}-{t:05d}.pkl")


def settle_batch(k: int, partitions: int, folder: Path) -> None:
    """Batch ``k``'s answers applied as the local resolver applies them; its decisions written."""
    state: BatchState = load(folder / f"state-{k:05d}.pkl")
    found = sorted(row for path in sorted(folder.glob(f"answers-{k:05d}-*.pkl")) for row in load(path))
    answers = {(i, j): same for _, i, j, same in found}
    apply_answers(state.r, state.clusters, state.asked, answers, state.log, state.stats)
    _settled(k, state.r, state.clusters, state.log, state.stats, {(i, j): n for n, i, j, _ in found}, partitions,
             folder, state.pairs)
    state.r.facts.tables.close()  # type: ignore[attr-defined]


def _settled(k: int, r: Resolver, clusters: Any, log: list[dict[str, Any]], stats: ResolutionStats,
             asked_at: dict[tuple[int, int], Any], partitions: int, folder: Path, pairs: list[tuple[int, int]]) -> None:
    """The merged groups, and the log lines each with its place in the local log: tier, then as
    `Resolver.cluster` sorts, ties in the order the links were found (pair order; questions' order); then the
    batch's pairs kept apart (`Resolver.kept_apart`)."""
    placed = []
    for line in log:
        i, j, score = line["_link"]
        tie = [r.nodes[i], r.nodes[j]] if line["tier"] == "rules" else [asked_at[(i, j)]]
        placed.append(([int(line["tier"] != "rules"), -score, line["a"], line["b"], *tie], line))
    groups = merged_groups(r, clusters, log)
    apart = r.kept_apart(clusters, pairs)
    stats.kept_apart = len(apart)
    write_ordered(placed + apart, folder / f"log-{k:05d}.jsonl")
    write_group_parts(k, groups, partitions, folder)
    stats.entities_after = -sum(len(g) - 1 for g in groups)  # what the batch takes from the count
    dump(attrs.asdict(stats), folder / f"stats-{k:05d}.pkl")


def gather_decisions(batches: int, partitions: int, stats: ResolutionStats, folder: Path,
                     log_path: Path) -> dict[str, Any]:
    """The batches' logs, the pair partitions' pairs kept apart and the key partitions' nodes of namesakes
    merged in order at ``log_path`` (streaming); returns ``stats`` with the batches' counts added."""
    stats.entities_after = stats.entities_before
    for k in range(batches):
        found = load(folder / f"stats-{k:05d}.pkl")
        for name in (*_SUMMED, "entities_after"):
            setattr(stats, name, getattr(stats, name) + found[name])
    names = [folder / f"names-{p:04d}.jsonl" for p in range(partitions)]
    stats.one_name = sum(1 for path in names for _ in read_ordered(path))
    ordered_table([folder / f"log-{k:05d}.jsonl" for k in range(batches)]
                  + [folder / f"apart-{c:04d}.jsonl" for c in range(partitions)] + names, log_path)
    return attrs.asdict(stats)
