"""Communities on Ray, as the driver runs them: a task clusters the merged tables (`clustering_task`, given
memory in proportion to them; the driver never holds the graph for it), tasks ask each level's reports,
deepest first, with the leased rate limit (`report_task`), and a task writes the community tables
(`tables_task`). The driver keeps the reports in ``shards/communities/run.sqlite`` as they come, by their
community's content, so a re-run asks only for what changed; with ``single_graph`` it also writes the whole
graph's files (its nodes annotated with their communities) while the reports are asked, then the view."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Awaitable, Callable

import attrs
import networkx as nx
import trio

from ....core.config import Config
from ....core.errors import Contained
from ....graph.communities.detect import annotate
from ....graph.communities.reporting import PASS, ReportStats, prompt_parts
from ....graph.formats.communities import COMMUNITIES, REPORTS
from ....llm.accounting import CallAccount
from ....pipeline.communities import CommunityOutcome, reports_asked
from ....pipeline.context import RunContext, failure_row
from ....pipeline.outputs import chunk_rows, write_graph_outputs
from ....pipeline.runstore import RunStore
from ....text.chunking import Chunk
from ....text.inputs import Inputs
from ....view import FILENAME as VIEW_FILENAME
from ....view import ChunkText, write_view
from .clustering_task import MEMORY_PER_TABLE_BYTE, cluster_tables
from .report_task import report_part
from .state import load_state
from .tables_task import write_tables

Wave = Callable[..., Awaitable[list[Any]]]  # `Tasks.wave` with the run's progress
FOLDER = "communities"  # in the run's shards folder: --fresh starts it over with them
_COUNTS = ("made", "cached", "asked_again", "dropped_references", "cut", "context_tokens")


async def _cluster(*args: Any) -> dict[str, Any]:
    return await trio.to_thread.run_sync(cluster_tables, *args)


async def _tables(*args: Any) -> list[str]:
    return await trio.to_thread.run_sync(write_tables, *args)


async def ray_communities(wave: Wave, tables: tuple[Path, Path], merge_dir: Path, graph: nx.Graph | None,
                          chunks: list[Chunk], cfg: Config, wcfg: Config, out: Path, shards_root: Path,
                          notice: Callable[[str], None], stage: Callable[[str], None], memory: int | None = None
                          ) -> tuple[CommunityOutcome, CallAccount]:
    """The communities of the graph of ``tables`` (entities, relationships; their partitions' files in
    ``merge_dir``) and their reports; with ``graph`` (the whole graph, ``single_graph``), also its files and the
    view, which ``cfg.output`` asks for."""
    folder = shards_root / FOLDER
    asked = reports_asked(cfg)
    account = CallAccount()
    outcome = CommunityOutcome()
    if asked:
        _open_reports(cfg, folder, notice)
    elif cfg.graph.communities.reports:
        notice("graph.communities.reports: needs an LLM endpoint; communities are written without reports")
    need = MEMORY_PER_TABLE_BYTE * sum(p.stat().st_size for p in tables) + (256 << 20)
    options = {"num_cpus": 1, **({"memory": min(need, memory)} if memory else {})}
    found = (await wave("communities", _cluster, [(*tables, merge_dir, cfg, folder, cfg.runtime.workers, asked)],
                        **options))[0]
    stage("communities")
    without_view = cfg.output.formats
    if graph is not None:
        annotate(graph, load_state(folder)[0])  # type: ignore[arg-type]
        without_view = [f for f in cfg.output.formats if f != "html"]
    async with trio.open_nursery() as nursery:
        if graph is not None:
            nursery.start_soon(_whole_graph_files, graph, chunks, out, cfg, without_view, outcome)
        stats = None
        with Contained("graph.communities.reports", "graph.communities.reports: false skips it", outcome.failed,
                       "communities are written without reports"):
            stats = await _reports(wave, found, wcfg, folder, cfg, account, outcome) if asked else None
    stage("community_reports")
    outcome.files += (await wave("community_tables", _tables, [(folder, tables[0], out, cfg, asked)]))[0]
    if graph is not None and "html" in cfg.output.formats:
        outcome.files.append(str(await trio.to_thread.run_sync(_view, graph, chunks, out, cfg)))
    stage("community_tables")
    outcome.extra = {k: found[k] for k in ("communities", "community_levels", "community_run", "communities_changed")}
    if stats is not None:
        outcome.extra["community_reports"] = stats
    return outcome, account


def _open_reports(cfg: Config, folder: Path, notice: Callable[[str], None]) -> None:
    """The reports' pass opened in the store: those made with another prompt or model are dropped (the tasks
    keep the new ones there)."""
    store = RunStore(folder)
    try:
        # no tokenizer: its tables are tens of MB, and the driver counts no token
        RunContext(cfg, Inputs(), [], None, folder, store, notice=notice).open_pass(  # type: ignore[arg-type]
            PASS, *prompt_parts(cfg))
    finally:
        store.close()


async def _whole_graph_files(graph: nx.Graph, chunks: list[Chunk], out: Path, cfg: Config, formats: list[str],
                             outcome: CommunityOutcome) -> None:
    output = attrs.evolve(cfg.output, formats=formats)
    paths = await trio.to_thread.run_sync(write_graph_outputs, graph, chunks, out, output, outcome.failed)
    outcome.files += [str(p) for p in paths]


async def _reports(wave: Wave, found: dict[str, Any], wcfg: Config, folder: Path, cfg: Config,
                   account: CallAccount, outcome: CommunityOutcome) -> dict[str, Any]:
    """Each level's reports, deepest first, in up to ``runtime.workers`` tasks, kept in the store as each task
    ends; the report's counts."""
    stats = ReportStats(communities=found["communities"], levels=found["community_levels"],
                        reportable=found["reportable"], too_small=found["too_small"], cached=found["cached"])
    failed: dict[int, str] = {}
    for level in sorted(found["jobs"], reverse=True):
        files = found["jobs"][level]
        results = await wave(f"{PASS}.level{level}", report_part,
                             [(f, wcfg, folder, cfg.graph.directed) for f in files])
        for (_, missed, counts), used in results:  # the reports are in the store: the tasks kept them
            account.add(used)
            failed.update(missed)
            for k in _COUNTS:
                setattr(stats, k, getattr(stats, k) + counts.get(k, 0))
    stats.failed = len(failed)
    outcome.failed += [failure_row(f"community {cid}", why) for cid, why in sorted(failed.items())]
    return attrs.asdict(stats)


def _view(graph: nx.Graph, chunks: list[Chunk], out: Path, cfg: Config) -> Path:
    """graph.html, with the community tables just written."""
    def lines(name: str) -> list[dict[str, Any]] | None:
        path = out / f"{name}.jsonl"
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()] if path.exists() \
            else None

    texts = [ChunkText.from_json(r) for r in chunk_rows(chunks)]
    return write_view(graph, texts, out / VIEW_FILENAME, max_nodes=cfg.output.view_max_nodes,
                      title=out.resolve().name, communities=lines(COMMUNITIES), reports=lines(REPORTS))
