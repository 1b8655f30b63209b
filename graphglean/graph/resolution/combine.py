"""Combining resolved clusters into one graph: one node per cluster under its most informative name, with
every name in ``aliases``, lists united, counts and weights summed, and self-loops the merge made dropped."""

from __future__ import annotations

import unicodedata
from typing import Any, Callable, Iterable

import networkx as nx

from .names import name_size
from .profiles import Profile, aliases_of


def _informative(p: Profile, data: dict[str, Any]) -> tuple[Any, ...]:
    """The most complete form first (`names.name_size`: "United States" over "U.S.", "John Smith" over "J.
    Smith", "Springfield, Missouri" over "Springfield"), its accents written ("São Paulo" over "Sao Paulo"), then
    a name over its web domain ("Zillow" over "zillow.com"), then the most frequent."""
    f = p.forms[0]
    whole, initials = name_size(f)
    accents = sum(1 for c in unicodedata.normalize("NFD", f.surface) if unicodedata.combining(c))
    return (-whole, -initials, -accents, bool(f.site), -int(data.get("frequency") or 0), len(f.surface), f.surface)


def _union(lists: Iterable[Iterable[Any]]) -> list[Any]:
    out: dict[Any, None] = {}
    for values in lists:
        for v in values or []:
            out.setdefault(v if not isinstance(v, list) else tuple(v), None)
    return [list(v) if isinstance(v, tuple) else v for v in out]


def _merge_attrs(datas: list[dict[str, Any]]) -> dict[str, Any]:
    """Lists united in order, counts and weights summed, flags or-ed; the rest from the first."""
    merged = dict(datas[0])
    for key in dict.fromkeys(k for d in datas for k in d if k != "aliases"):
        values = [d[key] for d in datas if key in d]
        if all(isinstance(v, list) for v in values):
            merged[key] = _union(values)
        elif key in ("frequency", "weight") and all(isinstance(v, (int, float)) for v in values):
            merged[key] = sum(values)
        elif all(isinstance(v, bool) for v in values):
            merged[key] = any(values)
    types = merged.get("types")
    if isinstance(types, list):
        merged["type_conflict"] = len(types) > 1
    if "descriptions" in merged:
        merged["description"] = "\n".join(merged["descriptions"])
    return merged


def informative_order(members: Iterable[Any], profile: Callable[[Any], Profile],
                      data: Callable[[Any], dict[str, Any]]) -> list[Any]:
    """``members`` most informative first: the first is the node a cluster keeps."""
    return sorted(members, key=lambda m: _informative(profile(m), data(m)))


def combined_node(members: list[Any], datas: list[dict[str, Any]], names: list[str]) -> dict[str, Any]:
    """The attributes of one cluster's node from its members, their attributes and names (most informative
    first); a cluster of one gets its ``aliases`` too."""
    merged = _merge_attrs(datas)
    merged["aliases"] = _union([names] + [aliases_of(d) for d in datas])
    merged["name"] = names[0]
    if len(members) > 1:
        merged["merged_from"] = [str(m) for m in members]
    return merged


def merged_edge(into: dict[str, Any], data: dict[str, Any]) -> dict[str, Any]:
    """An edge's attributes after another edge was merged into it (folded in the order the edges are found)."""
    return _merge_attrs([into, data])


def combine_clusters(g: nx.Graph, groups: dict[Any, list[Any]],
                     profiles: dict[Any, Profile]) -> tuple[nx.Graph, dict[Any, Any]]:
    """A new graph with one node per group (keyed by its most informative member) and the edges between
    groups; returns it and the node each group became."""
    out: nx.Graph = g.__class__()
    out.graph.update(g.graph)
    position = {n: i for i, n in enumerate(g.nodes)}
    keep: dict[Any, Any] = {}
    became: dict[Any, Any] = {}
    for root, members in sorted(groups.items(), key=lambda kv: min(position[m] for m in kv[1])):
        members = informative_order(members, profiles.__getitem__, lambda m: g.nodes[m])
        node = members[0]
        out.add_node(node, **combined_node(members, [g.nodes[m] for m in members], [profiles[m].name for m in members]))
        keep[root] = node
        became.update((m, node) for m in members)
    for a, b, data in g.edges(data=True):
        ca, cb = became[a], became[b]
        if ca == cb and a != b:
            continue  # a self-loop only the merge made
        if out.has_edge(ca, cb):
            out.edges[ca, cb].update(merged_edge(out.edges[ca, cb], data))
        else:
            out.add_edge(ca, cb, **data)
    return out, keep
