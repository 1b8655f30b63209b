"""Communities on Ray: clustered once, in the driver, on the merged graph; reported level by level, deepest first
(a parent may be written from its children's reports), in tasks like the other LLM work, each with a
scheduler, a client and the leased rate limit of its own. The clustering and the reports are kept in the
driver's run store (``shards/communities``), so a re-run reports only what changed."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Awaitable, Callable

import attrs
import networkx as nx
import trio

from ...core.config import Config
from ...core.tokens import Tokenizer
from ...graph.communities.context import ReportContext, build_context, fits_whole, members_of
from ...graph.communities.records import Communities, Community, CommunityReport
from ...graph.communities.reporting import PASS, CommunityReports, ReportMemo, ask_reports, prompt_parts, report_key
from ...llm.accounting import CallAccount
from ...pipeline.communities import (CommunityOutcome, communities_or_none, finish_communities, reports_asked,
                                     without_communities)
from ...pipeline.context import RunContext
from ...pipeline.runstore import RunStore
from ...scheduling.scheduler import Scheduler
from ...text.chunking import Chunk
from ...text.inputs import Inputs
from .shard_task import with_client

Wave = Callable[[str, Callable[..., Any], list[tuple[Any, ...]]], Awaitable[list[Any]]]
FOLDER = "communities"  # in the run's shards folder: --fresh starts it over with them


async def ray_communities(wave: Wave, graph: nx.Graph, chunks: list[Chunk], cfg: Config, wcfg: Config, out: Path,
                          shards_root: Path, whole_graph: bool,
                          notice: Callable[[str], None]) -> tuple[CommunityOutcome, CallAccount]:
    """The merged graph's communities found and written on its nodes, their reports asked in tasks (``wave``)
    while the whole-graph files are written (with ``whole_graph``), then the tables and the view."""
    store = RunStore(shards_root / FOLDER)
    account = CallAccount()
    try:
        failed: list[dict[str, Any]] = []
        communities = await communities_or_none(graph, cfg, store, failed)
        if communities is None:
            outcome = await without_communities(graph, chunks, out, cfg, whole_graph)
            outcome.failed[:0] = failed
            return outcome, account
        ask = None
        if reports_asked(cfg):
            ctx = RunContext(cfg, Inputs(), [], Tokenizer(cfg.llm.model), shards_root / FOLDER, store, notice=notice)

            async def save(key: str, report: Any) -> None:
                await store.save(PASS, key, report)

            memo = ReportMemo(ctx.resume(PASS, *prompt_parts(cfg)), save)

            async def ask() -> CommunityReports:
                reports, used = await level_by_level(wave, graph, communities, cfg, wcfg, memo, ctx.tokenizer)
                account.add(used)
                return reports
        elif cfg.graph.communities.reports:
            notice("graph.communities.reports: needs an LLM endpoint; communities are written without reports")
        return await finish_communities(graph, communities, chunks, out, cfg, ask, whole_graph), account
    finally:
        store.close()


async def level_by_level(wave: Wave, graph: nx.Graph, communities: Communities, cfg: Config, wcfg: Config,
                         memo: ReportMemo, tokenizer: Tokenizer) -> tuple[CommunityReports, CallAccount]:
    """Each level's reports, deepest first, in up to ``runtime.workers`` tasks; unchanged ones from ``memo``."""
    cc = cfg.graph.communities
    out, account = CommunityReports(), CallAccount()
    stats = out.stats
    stats.communities, stats.levels = len(communities.items), communities.levels
    wanted = [c for c in communities.items if c.size >= cc.min_report_size]
    stats.reportable, stats.too_small = len(wanted), stats.communities - len(wanted)
    by_id = communities.by_id()
    for level in reversed(range(communities.levels)):
        jobs = await trio.to_thread.run_sync(_jobs, graph, [c for c in wanted if c.level == level], by_id, out, memo,
                                             cc, tokenizer, abandon_on_cancel=True)
        if not jobs:
            continue
        n = min(cfg.runtime.workers, len(jobs))
        for (done, failed, counts), used in await wave(f"{PASS}.level{level}", ask_batch,
                                                       [(jobs[k::n], wcfg) for k in range(n)]):
            account.add(used)
            for cid, row in done:
                out.reports[cid] = CommunityReport.from_json(row)
                await memo.keep(report_key(by_id[cid], cc), out.reports[cid])
            out.failed.update(failed)
            for k, v in counts.items():
                if k in ("made", "cached", "asked_again", "dropped_references", "cut", "context_tokens"):
                    setattr(stats, k, getattr(stats, k) + v)
    stats.failed = len(out.failed)
    return out, account


def _jobs(graph: nx.Graph, level: list[Community], by_id: dict[int, Community], out: CommunityReports,
          memo: ReportMemo, cc: Any, tokenizer: Tokenizer) -> list[tuple[Community, ReportContext]]:
    """The contexts of a level's communities that need a report; reused ones go straight to ``out``."""
    jobs = []
    count, budget = tokenizer.count, cc.report_max_input_tokens
    for c in level:
        stored = memo.done.get(report_key(c, cc))
        if stored is not None:
            out.stats.cached += 1
            out.reports[c.id] = attrs.evolve(CommunityReport.from_json(stored), community=c.id, level=c.level)
            continue
        members = members_of(graph, c, count)
        children = [] if fits_whole(members, budget, count) else \
            [(by_id[k], out.reports[k]) for k in c.children if k in out.reports]
        jobs.append((c, build_context(members, budget, count, children)))
    return jobs


async def ask_batch(jobs: list[tuple[Community, ReportContext]], cfg: Config,
                    limiter: Any) -> tuple[tuple[list[Any], dict[int, str], dict[str, int]], CallAccount]:
    """A task: the reports of ``jobs`` on a scheduler of its own; its results and the calls it made."""
    async def work(scheduler: Scheduler | None) -> Any:
        assert scheduler is not None
        return await ask_reports(scheduler, cfg, jobs)

    return await with_client(cfg, limiter, True, None, work)
