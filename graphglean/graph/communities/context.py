"""What a report is written from: a community's entities and relationships, most important first, within a token
budget; a community whose members do not fit uses its sub-communities' reports in their place (as in the
GraphRAG paper), largest first, until the rest fits.

Entities and relationships are numbered by importance in the whole community (entities by degree, then
weight; relationships by their endpoints' degrees, then weight), so a number means the same whatever fits."""

from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping, Sequence

import attrs
import networkx as nx

from .records import Community, CommunityReport, edge_id

ENTITIES = "Entities (id|name|type|description)"
RELATIONSHIPS = "Relationships (id|source|target|description)"
REPORTS = "Reports of sub-communities"


def _flat(text: Any) -> str:
    return " ".join(str(text or "").split())


@attrs.define
class Line:
    """One row of the context: an entity or a relationship, its number, its text and its tokens."""

    number: int
    key: str  # node id, or relationship id
    text: str
    tokens: int
    ends: tuple[str, ...] = ()  # a relationship's two node ids


@attrs.define
class Members:
    """A community's rows in order of importance, and how an answer may name its members."""

    entities: list[Line]
    relationships: list[Line]
    names: dict[str, str]  # case-folded name or alias -> node id, for every member
    pairs: dict[frozenset[str], str]  # the two node ids of a relationship -> its id
    display: dict[str, str]  # node id -> name


@attrs.define
class ReportContext:
    """The text a report is asked from, its tokens, and what its numbers stand for."""

    text: str
    tokens: int
    members: Members
    entity_numbers: dict[str, str]  # number as text -> node id (the entities shown)
    relationship_numbers: dict[str, str]  # number as text -> relationship id (the relationships shown)
    children: list[int] = attrs.field(factory=list)  # sub-communities whose reports stand for their members


def _edge_weight(data: Mapping[str, Any]) -> float:
    try:
        w = float(data.get("weight", 1.0))
    except (TypeError, ValueError):
        return 1.0
    return w if w == w and abs(w) != float("inf") else 1.0


def members_of(graph: nx.Graph, community: Community, count: Callable[[str], int],
               degrees: tuple[Mapping[Any, int], Mapping[Any, float]] | None = None) -> Members:
    """``community``'s rows, read from ``graph`` and counted with ``count``. ``degrees``: the members' degree
    and weighted degree in the whole graph, when ``graph`` holds only the community (the Ray engine's tasks)."""
    nodes = [n for n in community.entities if n in graph]
    inside = set(nodes)
    if degrees is None:
        degree, strength = dict(graph.degree(nodes)), dict(graph.degree(nodes, weight="weight"))
    else:
        degree, strength = {n: degrees[0][n] for n in nodes}, {n: degrees[1][n] for n in nodes}
    ranked = sorted(nodes, key=lambda n: (-degree[n], -_as_float(strength[n]), str(n)))
    display = {n: _flat(graph.nodes[n].get("name") or n) for n in nodes}
    entities = []
    for k, n in enumerate(ranked, 1):
        d = graph.nodes[n]
        text = f"{k}|{display[n]}|{_flat(d.get('type') or 'unknown')}|{_flat(d.get('description'))}"
        entities.append(Line(k, n, text, count(text) + 1))  # and its line break
    place = {n: k for k, n in enumerate(ranked)}
    edges = [_oriented(graph, a, b, d, place) for a, b, d in _edges_among(graph, nodes)
             if a in inside and b in inside and a != b]
    edges.sort(key=lambda e: (-(degree[e[0]] + degree[e[1]]), -_edge_weight(e[2]), str(e[0]), str(e[1])))
    relationships, pairs = [], {}
    for k, (a, b, d) in enumerate(edges, 1):
        rid = edge_id(graph, a, b)
        text = f"{k}|{display[a]}|{display[b]}|{_flat(d.get('description'))}"
        relationships.append(Line(k, rid, text, count(text) + 1, (a, b)))
        pairs[frozenset((a, b))] = rid
    names: dict[str, str] = {}
    for n in ranked:  # the more important node keeps a name two members share
        for name in [display[n], str(n), *_aliases(graph.nodes[n])]:
            names.setdefault(name.casefold(), n)
    return Members(entities, relationships, names, pairs, display)


def _oriented(graph: nx.Graph, a: Any, b: Any, d: Mapping[str, Any],
              place: Mapping[Any, int]) -> tuple[Any, Any, Mapping[str, Any]]:
    """An edge as its row names it: a directed one as it points, an undirected one from its more important
    end (the graph's adjacency order, which follows the order nodes were added in, says nothing)."""
    if graph.is_directed() or place[a] <= place[b]:
        return a, b, d
    return b, a, d


def _as_float(value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return 0.0


def _aliases(data: Mapping[str, Any]) -> list[str]:
    found = data.get("aliases") or []
    return [_flat(a) for a in found if isinstance(a, str)] if isinstance(found, (list, tuple)) else []


def _edges_among(graph: nx.Graph, nodes: list[Any]) -> Iterable[tuple[Any, Any, Mapping[str, Any]]]:
    """Each edge between two of ``nodes`` once, from the end that comes first in ``nodes`` (a subgraph view
    lists a small subgraph's nodes in set order, so the ends, and the context made of them, followed the
    process's string hashing)."""
    inside, seen = set(nodes), set()
    for a in nodes:
        for b, data in graph.adj[a].items():
            if b in inside and (graph.is_directed() or b not in seen):
                yield a, b, data
        seen.add(a)


def child_summary(number: int, report: CommunityReport, size: int) -> str:
    """A sub-community's report as it stands in its parent's context."""
    lines = [f"Report {number} ({size} entities): {_flat(report.title)}", _flat(report.summary)]
    lines += [f"- {_flat(f.summary)}: {_flat(f.explanation)}" for f in report.findings]
    return "\n".join(lines)


def _fit(lines: list[Line], budget: int) -> tuple[list[Line], int]:
    """The leading ``lines`` that fit in ``budget`` tokens, and their tokens."""
    used, kept = 0, []
    for line in lines:
        if used + line.tokens > budget:
            break
        kept.append(line)
        used += line.tokens
    return kept, used


def _raw_rows(members: Members, keep: set[str] | None, budget: int) -> tuple[list[Line], list[Line], int]:
    """Entities and relationships of the members in ``keep`` (None = all), most important first, within
    ``budget``: each relationship with its two entities, then the remaining entities by degree."""
    entities = [e for e in members.entities if keep is None or e.key in keep]
    by_key = {e.key: e for e in entities}
    rels = [r for r in members.relationships if all(end in by_key for end in r.ends)] if keep is not None \
        else members.relationships
    chosen: dict[str, Line] = {}
    kept_rels, used = [], 0
    for r in rels:
        new = [by_key[end] for end in dict.fromkeys(r.ends) if end not in chosen]
        need = r.tokens + sum(e.tokens for e in new)
        if used + need > budget:
            break
        chosen.update((e.key, e) for e in new)
        kept_rels.append(r)
        used += need
    rest, extra = _fit([e for e in entities if e.key not in chosen], budget - used)
    chosen.update((e.key, e) for e in rest)
    return sorted(chosen.values(), key=lambda e: e.number), kept_rels, used + extra


def _raw_tokens(members: Members, keep: set[str] | None) -> int:
    ents = sum(e.tokens for e in members.entities if keep is None or e.key in keep)
    rels = sum(r.tokens for r in members.relationships if keep is None or all(end in keep for end in r.ends))
    return ents + rels


def build_context(members: Members, budget: int, count: Callable[[str], int],
                  children: Sequence[tuple[Community, CommunityReport]] = ()) -> ReportContext:
    """The context of a community within ``budget`` tokens: all its rows when they fit; else the reports of
    ``children`` (largest first) in place of their members until the rest fits; else the rows that fit, by
    importance."""
    heads = count(ENTITIES) + count(RELATIONSHIPS) + 4
    if _raw_tokens(members, None) + heads <= budget or not children:
        return _render(members, _raw_rows(members, None, budget - heads), [], count)
    order = sorted(children, key=lambda cr: (-cr[0].size, cr[0].id))
    texts = [child_summary(k, report, c.size) for k, (c, report) in enumerate(order, 1)]
    costs = [count(t) + 2 for t in texts]  # and the blank line after it
    everyone = {e.key for e in members.entities}
    used: list[int] = []
    covered: set[str] = set()
    for k, (c, _) in enumerate(order):
        used.append(k)
        covered |= set(c.entities)
        rest = everyone - covered
        if sum(costs[i] for i in used) + _raw_tokens(members, rest) + heads + count(REPORTS) <= budget:
            break
    shown, spent = [], count(REPORTS)
    for i in used:
        if spent + costs[i] > budget:
            break
        shown.append(i)
        spent += costs[i]
    covered = set().union(*(order[i][0].entities for i in shown)) if shown else set()
    rows = _raw_rows(members, everyone - covered, budget - spent - heads)
    return _render(members, rows, [(order[i][0].id, texts[i]) for i in shown], count)


def _render(members: Members, rows: tuple[list[Line], list[Line], int], reports: list[tuple[int, str]],
            count: Callable[[str], int]) -> ReportContext:
    entities, relationships, _ = rows
    parts = []
    if reports:
        parts.append(REPORTS + "\n" + "\n\n".join(text for _, text in reports))
    parts.append(ENTITIES + "\n" + "\n".join(e.text for e in entities))
    parts.append(RELATIONSHIPS + "\n" + "\n".join(r.text for r in relationships))
    text = "\n\n".join(parts)
    return ReportContext(text, count(text), members, {str(e.number): e.key for e in entities},
                         {str(r.number): r.key for r in relationships}, [cid for cid, _ in reports])


def fits_whole(members: Members, budget: int, count: Callable[[str], int]) -> bool:
    """Whether every row of the community fits in ``budget`` (then it needs no sub-community's report)."""
    return _raw_tokens(members, None) + count(ENTITIES) + count(RELATIONSHIPS) + 4 <= budget
