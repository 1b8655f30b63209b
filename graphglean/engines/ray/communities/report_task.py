"""A task of a level's community reports: its job file's communities (`clustering_task.ReportJob`), each
context made as a local run makes it (its members' rows ranked by their degrees in the whole graph; a
community that does not fit written from its sub-communities' reports, read from the store where the driver
kept them), then asked on a scheduler of its own with the leased rate limit."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import networkx as nx
import trio

from ....core.config import Config
from ....core.tokens import Tokenizer
from ....graph.communities.context import ReportContext, build_context, fits_whole, members_of
from ....graph.communities.records import Community, CommunityReport
from ....graph.communities.reporting import PASS, ask_reports
from ....llm.accounting import CallAccount
from ....pipeline.runstore import RunStore
from ....scheduling.scheduler import Scheduler
from ..shard_task import with_client
from ..stage_files import load
from .clustering_task import ReportJob
from .state import StoredReports


def contexts(jobs: list[ReportJob], cfg: Config, folder: Path, tokenizer: Tokenizer,
             directed: bool) -> list[tuple[Community, ReportContext]]:
    """Each job's context within ``report_max_input_tokens``."""
    cc = cfg.graph.communities
    count, budget = tokenizer.count, cc.report_max_input_tokens
    stored = StoredReports(folder, PASS)
    made = []
    try:
        for job in jobs:
            graph: nx.Graph = nx.DiGraph() if directed else nx.Graph()
            degree, strength = {}, {}
            for n, (name, kind, description, aliases), d, s in job.nodes:
                graph.add_node(n, name=name, type=kind, description=description, aliases=list(aliases))
                degree[n], strength[n] = d, s
            graph.add_edges_from((a, b, {"weight": w, "description": text}) for a, b, w, text in job.edges)
            members = members_of(graph, job.community, count, (degree, strength))
            children = []
            if not fits_whole(members, budget, count):
                reports = dict(stored.many([key for _, key in job.children]))
                children = [(kid, CommunityReport.from_json(reports[key])) for kid, key in job.children
                            if key in reports]
            made.append((job.community, build_context(members, budget, count, children)))
    finally:
        stored.close()
    return made


async def report_part(job_file: str, cfg: Config, folder: Path, directed: bool,
                      limiter: Any) -> tuple[tuple[int, dict[int, str], dict[str, int]], CallAccount]:
    """A task: the reports of one job file, each kept in the communities' store as it is made; how many were
    made, the communities that failed and why, the counts of `ReportStats`, and the calls made."""
    jobs: list[ReportJob] = load(Path(job_file))
    tokenizer = Tokenizer(cfg.llm.model)
    made = await trio.to_thread.run_sync(contexts, jobs, cfg, folder, tokenizer, directed)
    key_of = {job.community.id: job.key for job in jobs}
    store = RunStore(folder, shared=True)  # the other tasks of the level write to it too

    async def keep(community: Community, report: CommunityReport) -> None:
        await store.save(PASS, key_of[community.id], report.to_json())

    async def work(scheduler: Scheduler | None) -> Any:
        assert scheduler is not None
        done, failed, counts = await ask_reports(scheduler, cfg, made, keep)
        return len(done), failed, counts

    try:
        return await with_client(cfg, limiter, True, None, work)
    finally:
        store.close()
