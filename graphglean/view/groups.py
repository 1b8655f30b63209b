"""The page's communities: which community each drawn node is in at each level (what the layout groups and the
colours follow), and the reports with their findings' entities as node numbers (links in the page).

A graph without communities is grouped for the layout alone: level-0 Leiden communities of the drawn nodes,
so that any graph's first screen shows its clusters apart."""

from __future__ import annotations

from typing import Any

import networkx as nx

from ..core.config import Config
from ..graph.communities.detect import ATTRIBUTE, find_communities


def add_communities(payload: dict[str, Any], graph: nx.Graph, communities: list[dict[str, Any]] | None,
                    reports: list[dict[str, Any]] | None) -> None:
    """Each drawn node's ``c`` (community ids, coarsest first); ``communities`` (id, level, parent, size,
    title) and ``reports`` when there are any; ``grouped_for_layout`` when the groups were made here."""
    nodes = payload["nodes"]
    by_text = {str(n): n for n in graph.nodes}
    drawn = [by_text[n["id"]] for n in nodes]
    ids = [graph.nodes[n].get(ATTRIBUTE) for n in drawn]
    if not any(isinstance(c, list) and c for c in ids):
        payload["grouped_for_layout"] = True
        ids = _layout_groups(graph, drawn)
        communities = [{"id": k, "level": 0, "parent": None, "size": sum(1 for c in ids if c == [k])}
                       for k in sorted({c[0] for c in ids if c})]
        reports = None
    for node, c in zip(nodes, ids):
        if isinstance(c, list) and c:
            node["c"] = [int(k) for k in c]
    titles = {r["community"]: r.get("title", "") for r in reports or []}
    payload["communities"] = [{"id": c["id"], "level": c["level"], "parent": c.get("parent"), "size": c["size"],
                               "title": titles.get(c["id"], "")} for c in communities or []]
    if reports:
        number = {n: i for i, n in enumerate(drawn)}
        payload["reports"] = [_report(r, number) for r in reports]


def _report(row: dict[str, Any], number: dict[str, int]) -> dict[str, Any]:
    findings = []
    for f in row.get("findings") or []:
        if not isinstance(f, dict):
            continue
        refs = f.get("references") if isinstance(f.get("references"), dict) else {}
        cited = refs.get("entities") if isinstance(refs.get("entities"), list) else []
        findings.append({"summary": str(f.get("summary", "")), "explanation": str(f.get("explanation", "")),
                         "nodes": [number[e] for e in cited if isinstance(e, (str, int)) and e in number]})
    return {"community": row["community"], "level": row["level"], "title": row.get("title", ""),
            "summary": row.get("summary", ""), "rating": row.get("rating"),
            "rating_explanation": row.get("rating_explanation", ""), "findings": findings}


def _layout_groups(graph: nx.Graph, drawn: list[Any]) -> list[list[int] | None]:
    """Level-0 communities of the drawn part of ``graph`` (ids in order of size), for the layout only."""
    cfg = Config()
    cfg.graph.communities.levels = 1
    found = find_communities(graph.subgraph(drawn), cfg)
    of = {n: c.id for c in found.items for n in c.entities}
    return [[of[n]] if n in of else None for n in drawn]
