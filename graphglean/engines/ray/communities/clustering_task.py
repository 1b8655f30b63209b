"""The task that clusters a Ray run's graph: it reads the merged tables (``entities.jsonl``,
``relationships.jsonl``) as a `Network`, never the whole graph as networkx, clusters it from the last run's
communities (tables whose bytes are unchanged carry the clustering over without being read), keeps the
result for the next run, and writes each level's report jobs: the communities with no stored report, each with
its members' rows, their degrees in the whole graph and its inner edges, cut into one file per report task.

It is the one task that holds the whole network; the driver asks Ray for memory in proportion to the tables."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import attrs

from ....core.config import Config
from ....graph.communities.detect import carried_over, cluster_network
from ....graph.communities.network import EdgeInfo, Network, NodeInfo, network_of_rows
from ....graph.communities.records import Communities, Community
from ....graph.communities.reporting import PASS, report_key
from ..partitions import network_of_parts, table_rows
from ..stage_files import dump
from .state import StoredReports, load_state, save_state, tables_digest

JOBS = "jobs"
MEMORY_PER_TABLE_BYTE = 4  # what the network and its clustering take, by the size of the tables (measured: ~3)


@attrs.frozen
class ReportJob:
    """One community to report on, with all its context is made from."""

    community: Community
    nodes: list[tuple[Any, NodeInfo, int, float]]  # member, its row, degree and weighted degree in the graph
    edges: list[EdgeInfo]  # the edges inside it, in the graph's order
    children: list[tuple[Community, str]]  # reportable sub-communities and their `report_key`
    key: str


def cluster_tables(entities: Path, relationships: Path, merge_dir: Path, cfg: Config, folder: Path, parts: int,
                   reports: bool, limiter: Any) -> dict[str, Any]:
    """Cluster the tables' graph (see the module; ``merge_dir``: where the partitions' network files are);
    returns the counts of the report and the job files of each level with work (``parts`` files at most a
    level)."""
    cc = cfg.graph.communities
    previous, tables_before = load_state(folder)
    tables = tables_digest([entities, relationships], cc, cfg.graph.directed)
    network: Network | None = None

    def read() -> Network:
        return (network_of_parts(merge_dir, cfg.runtime.graph_partitions, cfg.graph.directed)
                or network_of_rows(table_rows(entities), table_rows(relationships), cfg.graph.directed))

    if previous is not None and tables == tables_before:
        communities = carried_over(previous)
    else:
        network = read()
        communities = cluster_network(network, cc, previous)
    save_state(folder, communities, tables)
    shutil.rmtree(folder / JOBS, ignore_errors=True)
    wanted = [c for c in communities.items if c.size >= cc.min_report_size]
    found = {"communities": len(communities.items), "community_levels": communities.levels,
             "community_run": communities.run,
             "communities_changed": sum(c.changed_run == communities.run for c in communities.items),
             "reportable": len(wanted), "too_small": len(communities.items) - len(wanted), "cached": 0, "jobs": {}}
    if not reports:
        return found
    stored = StoredReports(folder, PASS)
    try:
        kept = stored.keys()
    finally:
        stored.close()
    todo = [c for c in wanted if report_key(c, cc) not in kept]
    found["cached"] = len(wanted) - len(todo)
    if todo:
        if network is None:
            network = read()
        found["jobs"] = _write_jobs(_jobs(network, communities, todo, cfg), folder / JOBS, parts)
    return found


def _jobs(network: Network, communities: Communities, todo: list[Community], cfg: Config) -> list[ReportJob]:
    cc = cfg.graph.communities
    by_id = communities.by_id()
    degree, strength = network.degrees()
    index = {c.id: i for i, c in enumerate(todo)}
    path: dict[Any, list[int]] = {}  # a node's communities to report on, coarsest first
    for c in sorted(todo, key=lambda c: c.level):
        for n in c.entities:
            path.setdefault(n, []).append(index[c.id])
    inner: list[list[EdgeInfo]] = [[] for _ in todo]
    get = path.get
    for edge in network.edges:
        at, bt = get(edge[0]), get(edge[1])
        if at is None or bt is None or edge[0] == edge[1]:
            continue
        # communities nest, and the ones left out (reports kept) are left out of both ends' lists alike: the
        # communities of both ends are the lists' common start
        for i, j in zip(at, bt):
            if i != j:
                break
            inner[i].append(edge)
    jobs = []
    for i, c in enumerate(todo):
        nodes = [(n, network.nodes[n], degree[n], strength[n]) for n in c.entities if n in network.nodes]
        children = [(by_id[k], report_key(by_id[k], cc)) for k in c.children
                    if k in by_id and by_id[k].size >= cc.min_report_size]
        jobs.append(ReportJob(c, nodes, inner[i], children, report_key(c, cc)))
    return jobs


def _write_jobs(jobs: list[ReportJob], folder: Path, parts: int) -> dict[int, list[str]]:
    """Each level's jobs in up to ``parts`` files, by community id, dealt round so that each file gets large and
    small ones alike."""
    folder.mkdir(parents=True, exist_ok=True)
    files: dict[int, list[str]] = {}
    for level in sorted({j.community.level for j in jobs}):
        mine = sorted((j for j in jobs if j.community.level == level), key=lambda j: j.community.id)
        n = max(1, min(parts, len(mine)))
        for k in range(n):
            path = folder / f"{level:02d}-{k:04d}.pkl"
            dump(mine[k::n], path)
            files.setdefault(level, []).append(str(path))
    return files
