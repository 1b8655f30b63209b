"""Entity resolution on the partitioned merge (engine ray): the local resolver's decisions, made without
holding the graph in one process. The steps, each a wave of tasks:

    `resolve_candidates`  adjacency, node tables, blocks, candidate pairs kept by pair partition
    `decision_batches`    the kept pairs cut into batches of whole components (one planning task)
    `batch_decisions`     each batch decided (owners' clusters first where a batch names owned things;
                          with the llm method its questions asked in the local calls, then its answers applied)
    `resolve_finish`      nodes combined and finished by key partition, edges re-keyed and finished

Every task holds about a partition's share of the graph, or a batch of about ``kept nodes ÷ partitions`` (more
only when one component is larger). Blocks, verdicts, questions, clusters, merged nodes and the order rows are
listed in are those of the local engine: the rows and resolution.jsonl are the local run's.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Awaitable, Callable, Protocol

import attrs
import trio

from ....core.config import Config
from ....core.tokens import Tokenizer
from ....graph.extract import GraphStats
from ....graph.resolution.answers import answer_scope
from ....graph.resolution.resolve import PASS, AnswerMemo, ResolutionStats
from ....llm.accounting import CallAccount
from ....pipeline.runstore import RunStore
from ....scheduling.scheduler import Scheduler
from ..schema_parts import write_off_schema
from ..shard_task import with_client
from ..stage_files import ordered_table
from .batch_decisions import ask_part, decide_batch, gather_decisions, order_questions, settle_batch
from .batch_resolver import owner_table, write_owner_entries
from .candidates import adjacency, block_candidates, node_table, pair_verdicts
from .decision_batches import BatchPlan, plan_batches
from .decision_tables import decision_table
from .finish import finish_edges, finish_nodes
from .method import embedded, llm_graph, method_of
from .node_tables import NodeTables
from .word_tables import CorpusCounts, word_table


class Wave(Protocol):
    """Runs one task per argument set (``work(*args, limiter)``) and returns their results in order; the
    progress shows ``stage`` by tasks, and the items of the tasks that write a ``progress.json`` into their
    folder of ``watch``."""

    def __call__(self, stage: str, work: Callable[..., Awaitable[Any]], argsets: list[tuple[Any, ...]],
                 watch: list[Path] | None = None) -> Awaitable[list[Any]]: ...


# -- the steps as tasks -------------------------------------------------------------------------------------
# Each task is ``work(*args, limiter)`` run under trio in a Ray worker (`ray_engine.stage_main`); ``limiter``
# is the worker's share of the global rate limit, used by the steps that call the LLM; ``watch`` is the
# folder its scheduler writes its progress to.

async def adjacency_task(dirs: list[str], q: int, cfg: Config, folder: str, limiter: Any) -> None:
    adjacency([Path(d) for d in dirs], q, cfg, Path(folder))


class StoredAnswers:
    """The resolution's answers in a run store, read one by one as `AnswerMemo.done` (a task asks for its own
    few; the store holds the whole graph's embeddings)."""

    def __init__(self, store: RunStore) -> None:
        self.store = store

    def get(self, key: str, default: Any = None) -> Any:
        found = self.store.get(PASS, key)
        return default if found is None else found


def _stored_memo(store: RunStore) -> AnswerMemo:
    """A memo of the run's store (``store_dir``), so a re-run asks and embeds nothing twice even with the
    response cache off."""
    async def save(key: str, answer: Any) -> None:
        await store.save(PASS, key, answer)

    return AnswerMemo(StoredAnswers(store), save)  # type: ignore[arg-type]


async def node_table_task(dirs: list[str], p: int, cfg: Config, folder: str, store_dir: str, watch: str,
                          limiter: Any) -> tuple[CorpusCounts, CallAccount]:
    async def work(scheduler: Scheduler | None) -> CorpusCounts:
        if scheduler is None:
            return await node_table([Path(d) for d in dirs], p, cfg, Path(folder), None)
        store = RunStore(store_dir, shared=True)
        try:
            return await node_table([Path(d) for d in dirs], p, cfg, Path(folder), scheduler, _stored_memo(store))
        finally:
            store.close()

    return await with_client(cfg, limiter, embedded(cfg), watch, work)


async def word_table_task(q: int, partitions: int, folder: str, limiter: Any) -> None:
    word_table(q, partitions, Path(folder))


async def blocks_task(b: int, cfg: Config, counts: CorpusCounts, folder: str, limiter: Any) -> int:
    return block_candidates(b, cfg, counts, Path(folder))


async def pairs_task(c: int, cfg: Config, counts: CorpusCounts, folder: str, limiter: Any) -> tuple[int, int]:
    return pair_verdicts(c, cfg, counts, Path(folder))


async def plan_task(partitions: int, folder: str, similar: bool, limiter: Any) -> BatchPlan:
    return plan_batches(partitions, Path(folder), similar)


async def owners_task(k: int, cfg: Config, documents: int, folder: str, limiter: Any) -> None:
    P = cfg.runtime.graph_partitions
    tables = NodeTables(Path(folder), P)
    try:
        write_owner_entries(k, Path(folder), documents, tables, P)
    finally:
        tables.close()


async def owner_table_task(q: int, batches: int, folder: str, limiter: Any) -> None:
    owner_table(q, batches, Path(folder))


async def decide_task(k: int, cfg: Config, documents: int, folder: str, owned: bool, asks: bool,
                      limiter: Any) -> int:
    return decide_batch(k, cfg, documents, Path(folder), owned, asks)


async def order_task(batches: int, per_part: int, cfg: Config, folder: str, store_dir: str, limiter: Any) -> int:
    store = RunStore(store_dir, shared=True)
    try:
        return order_questions(batches, per_part, Path(folder), _stored_memo(store), answer_scope(cfg.llm))
    finally:
        store.close()


async def ask_task(t: int, per_part: int, cfg: Config, folder: str, store_dir: str, watch: str,
                   limiter: Any) -> CallAccount:
    """Part ``t`` of the questions, with a client of its own; answers kept in the run's store."""
    store = RunStore(store_dir, shared=True)
    try:
        _, account = await with_client(
            cfg, limiter, True, watch,
            lambda scheduler: ask_part(t, per_part, cfg, Path(folder), scheduler,  # type: ignore[arg-type]
                                       _stored_memo(store)))
        return account
    finally:
        store.close()


async def settle_task(k: int, partitions: int, folder: str, limiter: Any) -> None:
    settle_batch(k, partitions, Path(folder))


async def decision_table_task(p: int, batches: int, folder: str, limiter: Any) -> None:
    decision_table(p, batches, Path(folder))


async def gather_task(batches: int, partitions: int, stats: ResolutionStats, folder: str, log_path: str,
                      limiter: Any) -> dict[str, Any]:
    return gather_decisions(batches, partitions, stats, Path(folder), Path(log_path))


async def finish_task(finish: Callable[..., Awaitable[None]], p: int, cfg: Config, folder: str, merge_dir: str,
                      watch: str, limiter: Any) -> tuple[dict[str, Any], CallAccount]:
    """``finish`` (`finish_nodes` or `finish_edges`) of partition ``p``: the counts it adds (and the stages that
    raised, as ``failed_stages``), and its calls."""
    stats = GraphStats()

    async def work(scheduler: Scheduler | None) -> None:
        await finish(p, cfg, Path(folder), Path(merge_dir), scheduler, Tokenizer(cfg.llm.model), stats)
        write_off_schema(stats, Path(merge_dir), "nodes" if finish is finish_nodes else "edges", p)

    _, account = await with_client(cfg, limiter, llm_graph(cfg), watch, work)
    return {"ungrounded": stats.ungrounded, "echoed_examples": stats.echoed_examples,
            "summarized_descriptions": stats.summarized_descriptions, "off_schema": stats.off_schema,
            "failed_stages": stats.failed_stages}, account


# -- the driver ---------------------------------------------------------------------------------------------

@attrs.define
class ResolvedMerge:
    found: dict[str, int]  # ungrounded, echoed_examples, summarized_descriptions, off_schema
    account: CallAccount  # the LLM calls of the merge (summaries, resolution)
    stats: dict[str, Any]  # `ResolutionStats`
    nodes: int = 0
    edges: int = 0
    failed_stages: list[dict[str, Any]] = attrs.field(factory=list)  # stages of the finish tasks that raised
    batches: int = 0  # decision batches, and the nodes of the largest (the most one decision task holds)
    largest_batch: int = 0


def questions_per_part(questions: int, batch: int, partitions: int) -> int:
    """Questions an ask task takes: whole calls of ``batch``, about a partition's share."""
    return batch * max(1, math.ceil(math.ceil(questions / batch) / partitions))


@attrs.define
class _Steps:
    """The waves of one resolved merge, with the folder each task's progress is read from."""

    wave: Wave
    folder: Path

    async def run(self, stage: str, work: Callable[..., Awaitable[Any]], argsets: list[tuple[Any, ...]],
                  watched: bool = False) -> list[Any]:
        """``watched``: each task gets a folder for its scheduler's progress (its last argument)."""
        if not watched:
            return await self.wave(stage, work, argsets)
        folders = [self.folder / "progress" / f"{stage}-{i:05d}" for i in range(len(argsets))]
        return await self.wave(stage, work, [(*args, str(w)) for args, w in zip(argsets, folders)], folders)


async def resolved_merge(wave: Wave, shard_dirs: list[Path], cfg: Config, merge_dir: Path, out: Path,
                         store_dir: Path) -> ResolvedMerge:
    """The partitioned merge with entity resolution: writes entities.jsonl, relationships.jsonl and
    resolution.jsonl into ``out`` (the local engine's files)."""
    P = cfg.runtime.graph_partitions
    folder = merge_dir / "resolve"
    folder.mkdir(parents=True, exist_ok=True)
    steps, f, store = _Steps(wave, folder), str(folder), str(store_dir)
    # the store made here, not by the tasks that open it together: two making it at once (WAL set up, tables
    # made) can find it locked
    await trio.to_thread.run_sync(lambda: RunStore(store_dir).close())
    result = ResolvedMerge({"ungrounded": 0, "echoed_examples": 0, "summarized_descriptions": 0, "off_schema": 0},
                           CallAccount(), {})
    await steps.run("resolve.adjacency", adjacency_task, [([str(d) for d in shard_dirs], q, cfg, f) for q in range(P)])
    counts = CorpusCounts()
    for part, calls in await steps.run("resolve.nodes", node_table_task,
                                       [([str(d) for d in shard_dirs], p, cfg, f, store) for p in range(P)], True):
        counts.add(part)
        result.account.add(calls)
    await steps.run("resolve.words", word_table_task, [(q, P, f) for q in range(P)])
    stats = ResolutionStats(method=method_of(cfg), entities_before=counts.nodes)
    stats.skipped_blocks = sum(await steps.run("resolve.blocks", blocks_task, [(b, cfg, counts, f) for b in range(P)]))
    found = await steps.run("resolve.pairs", pairs_task, [(c, cfg, counts, f) for c in range(P)])
    stats.candidate_pairs, stats.kept_apart = sum(n for n, _ in found), sum(apart for _, apart in found)
    await _decide(steps, cfg, stats, store, out / "resolution.jsonl", result)
    for stage, finish in (("merge.nodes", finish_nodes), ("merge.edges", finish_edges)):
        # edges need every node partition's names and dropped keys
        for found, acc in await steps.run(stage, finish_task, [(finish, p, cfg, f, str(merge_dir)) for p in range(P)],
                                          True):
            result.account.add(acc)
            result.failed_stages += found.pop("failed_stages")
            for k, v in found.items():
                result.found[k] += v
    result.nodes = ordered_table([merge_dir / f"nodes-{p:04d}.jsonl" for p in range(P)], out / "entities.jsonl")
    result.edges = ordered_table([merge_dir / f"edges-{p:04d}.jsonl" for p in range(P)],
                                 out / "relationships.jsonl")
    return result


async def _decide(steps: _Steps, cfg: Config, stats: ResolutionStats, store: str, log_path: Path,
                  result: ResolvedMerge) -> None:
    """The kept pairs decided batch by batch, into decision tables and the merge log; fills in ``result``'s
    stats, calls and batches."""
    P, rc, f, n = cfg.runtime.graph_partitions, cfg.graph.resolve, str(steps.folder), stats.entities_before
    asks = stats.method == "llm"
    [plan] = await steps.run("resolve.plan", plan_task, [(P, f, asks and rc.embeddings)])
    B = result.batches = plan.batches
    result.largest_batch = max(plan.sizes, default=0)
    if plan.any_owned:  # the owners' clusters are the whole graph's
        await steps.run("resolve.owners", owners_task, [(k, cfg, n, f) for k in range(B)])
        await steps.run("resolve.owner_tables", owner_table_task, [(q, B, f) for q in range(P)])
    asked = await steps.run("resolve.decide", decide_task, [(k, cfg, n, f, plan.owned[k], asks) for k in range(B)])
    if asks:
        per_part = questions_per_part(sum(asked), rc.llm_batch, P)
        [parts] = await steps.run("resolve.order", order_task, [(B, per_part, cfg, f, store)])
        for calls in await steps.run("resolve.ask", ask_task, [(t, per_part, cfg, f, store) for t in range(parts)],
                                     True):
            result.account.add(calls)
        await steps.run("resolve.settle", settle_task, [(k, P, f) for k in range(B)])
    await steps.run("resolve.decisions", decision_table_task, [(p, B, f) for p in range(P)])
    [result.stats] = await steps.run("resolve.gather", gather_task, [(B, P, stats, f, str(log_path))])
