"""The communities of a run's graph: found (starting from the last run's, kept in the run store), written on the
nodes, reported on the run's scheduler while the graph's files are written, and written as tables and in the
view. Reports are kept in the run store by their community's content: a re-run asks only for what changed."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any, Awaitable, Callable

import attrs
import networkx as nx
import trio

from ..core.config import Config
from ..core.errors import Contained
from ..graph.communities.detect import ATTRIBUTE, annotate, community_names, find_communities
from ..graph.communities.records import Communities
from ..graph.communities.reporting import PASS, CommunityReports, ReportMemo, prompt_parts, report_communities
from ..graph.formats.communities import COMMUNITIES, remove_community_tables, write_community_tables
from ..text.chunking import Chunk
from ..view import FILENAME as VIEW_FILENAME
from ..view import ChunkText, write_view
from .context import RunContext, failure_row
from .outputs import Writer, chunk_rows, write_each, write_graph_outputs
from .runstore import RunStore

STATE = PASS + ".state"  # the last clustering, read by the next run (never discarded: ids must stay stable)


def load_state(store: RunStore) -> Communities | None:
    """The communities the last run in this output folder found (None before the first)."""
    store.open_pass(STATE, "")
    row = store.get(STATE, "state")
    return None if row is None else Communities.from_state(row)


def reports_asked(cfg: Config) -> bool:
    """Whether a run asks the LLM for community reports."""
    cc = cfg.graph.communities
    return cfg.graph.enabled and cc.enabled and cc.reports and cfg.llm.has_endpoint


def report_memo(ctx: RunContext) -> ReportMemo:
    """Reports of earlier runs in this folder, by community content (none when the prompt or model changed)."""
    store = ctx.store
    assert store is not None

    async def save(key: str, report: Any) -> None:
        await store.save(PASS, key, report)

    return ReportMemo(ctx.resume(PASS, *prompt_parts(ctx.cfg)), save)


@attrs.define
class CommunityOutcome:
    files: list[str] = attrs.field(factory=list)
    extra: dict[str, Any] = attrs.field(factory=dict)
    failed: list[dict[str, Any]] = attrs.field(factory=list)


async def write_graph_with_communities(ctx: RunContext, graph: nx.Graph) -> CommunityOutcome:
    """The graph's files, with its communities and their reports when ``graph.communities`` is on."""
    cfg, out = ctx.cfg, ctx.out_dir
    if not cfg.graph.communities.enabled:
        return await without_communities(graph, ctx.chunks, out, cfg)
    assert ctx.store is not None
    failed: list[dict[str, Any]] = []
    communities = await communities_or_none(graph, cfg, ctx.store, failed)
    if communities is None:
        outcome = await without_communities(graph, ctx.chunks, out, cfg)
        outcome.failed[:0] = failed
        return outcome
    scheduler = ctx.scheduler if reports_asked(cfg) else None
    if cfg.graph.communities.reports and scheduler is None:
        ctx.notice("graph.communities.reports: needs an LLM endpoint; communities are written without reports")
    ask = None
    if scheduler is not None:
        ask = functools.partial(report_communities, graph, communities, cfg, scheduler, memo=report_memo(ctx),
                                tokenizer=ctx.tokenizer)
    return await finish_communities(graph, communities, ctx.chunks, out, cfg, ask)


async def communities_or_none(graph: nx.Graph, cfg: Config, store: RunStore,
                              failed: list[dict[str, Any]]) -> Communities | None:
    """The graph's communities, started from the last run's (``store`` keeps them for the next), written on its
    nodes; None when finding them raised (a failure row in ``failed``: the graph is then written without them)."""
    with Contained("graph.communities", "graph.communities.enabled: false skips it", failed,
                   "the graph is written without communities"):
        previous = load_state(store)
        communities = await trio.to_thread.run_sync(lambda: find_communities(graph, cfg, previous=previous),
                                                    abandon_on_cancel=True)
        await store.save(STATE, "state", communities.state_json())
        annotate(graph, communities)
        return communities
    for data in graph.nodes.values():  # nothing half-annotated
        data.pop(ATTRIBUTE, None)
    return None


async def without_communities(graph: nx.Graph, chunks: list[Chunk], out: Path, cfg: Config,
                              whole_graph: bool = True) -> CommunityOutcome:
    """The graph's files without communities (tables of an older run removed); none but those with
    ``whole_graph`` false (the Ray engine without ``single_graph``)."""
    remove_community_tables(out)
    failed: list[dict[str, Any]] = []
    paths = await trio.to_thread.run_sync(write_graph_outputs, graph, chunks, out, cfg.output, failed) \
        if whole_graph else []
    return CommunityOutcome([str(p) for p in paths], failed=failed)


async def finish_communities(graph: nx.Graph, communities: Communities, chunks: list[Chunk], out: Path, cfg: Config,
                             ask: Callable[[], Awaitable[CommunityReports]] | None,
                             whole_graph: bool = True) -> CommunityOutcome:
    """The reports (``ask``, when given) asked while the graph's files but the view are written (with
    ``whole_graph``: the Ray engine without ``single_graph`` writes none); then the community tables and the
    view, which lists the reports. The Ray engine runs it too."""
    reports: CommunityReports | None = None
    without_view = attrs.evolve(cfg.output, formats=[f for f in cfg.output.formats if f != "html"])
    paths: list[Path] = []
    failed: list[dict[str, Any]] = []  # files that could not be written: failed items, the others are written
    async with trio.open_nursery() as nursery:
        if ask is not None:
            async def asking() -> None:
                nonlocal reports
                with Contained("graph.communities.reports", "graph.communities.reports: false skips it", failed,
                               "communities are written without reports"):
                    reports = await ask()

            nursery.start_soon(asking)
        if whole_graph:
            paths += await trio.to_thread.run_sync(write_graph_outputs, graph, chunks, out, without_view, failed)
    paths += await trio.to_thread.run_sync(_tables_and_view, graph, communities, reports, chunks, out, cfg,
                                           whole_graph, failed)
    outcome = CommunityOutcome([str(p) for p in paths], failed=failed)
    outcome.extra = {"communities": len(communities.items), "community_levels": communities.levels,
                     "community_run": communities.run,
                     "communities_changed": sum(c.changed_run == communities.run for c in communities.items)}
    if reports is not None:
        outcome.extra["community_reports"] = attrs.asdict(reports.stats)
        outcome.failed += [failure_row(f"community {cid}", why) for cid, why in sorted(reports.failed.items())]
    return outcome


def _tables_and_view(graph: nx.Graph, communities: Communities, reports: CommunityReports | None,
                     chunks: list[Chunk], out: Path, cfg: Config, view: bool, failed: list[dict[str, Any]]) -> list[Path]:
    names = community_names(graph)
    rows = [c.to_json(names) for c in sorted(communities.items, key=lambda c: (c.level, c.id))]
    report_rows = None if reports is None else [r.to_json() for r in reports.ordered()]
    writers: list[Writer] = [([out / f"{COMMUNITIES}.jsonl"], lambda: write_community_tables(
        rows, report_rows, out, "parquet" in cfg.output.formats), "graph.communities.enabled: false skips it")]
    if view and "html" in cfg.output.formats:
        texts = [ChunkText.from_json(r) for r in chunk_rows(chunks)]
        writers.append(([out / VIEW_FILENAME], lambda: write_view(
            graph, texts, out / VIEW_FILENAME, max_nodes=cfg.output.view_max_nodes, title=out.resolve().name,
            communities=rows, reports=report_rows), "output.formats without html skips it"))
    return write_each(writers, failed)
