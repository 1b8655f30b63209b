"""The global search: a map-reduce over the community reports. Reports (of levels up to ``level``, highest
rated first) are packed into contexts within the token budget; each context is asked, concurrently on the
scheduler, for the points that help answer the question, scored 0-100 and citing its reports (map); the points,
best first, are then asked for one answer (reduce)."""

from __future__ import annotations

from typing import Any, Callable

import attrs

from ..core.answers import json_answer, parse_json_output, strip_reasoning
from ..core.errors import InputError
from ..graph.communities.records import CommunityReport
from .context import COMMUNITY, Budget, Context

DEFAULT_LEVEL = 2  # GraphRAG's community_level: reports of levels 0-2


@attrs.frozen
class Point:
    text: str
    score: float
    batch: int
    position: int


def no_reports(out_dir: Any, communities: list[Any] | None, reports: list[CommunityReport] | None) -> str | None:
    """Why the global search cannot run on this folder (one line), or None."""
    if reports:
        return None
    if communities is None:
        return (f"{out_dir} has no community reports, which --method global reads: set graph.communities.enabled: "
                "true in the run's config (reports need an LLM endpoint) and run it again; or use --method local")
    if reports is None:
        return (f"{out_dir} has communities but no reports: they need an LLM endpoint and "
                "graph.communities.reports: true; run again with one, or use --method local")
    return (f"{out_dir}: no community has graph.communities.min_report_size entities, so there are no reports; "
            "use --method local")


def chosen_reports(reports: list[CommunityReport], level: int) -> list[CommunityReport]:
    """Reports of levels up to ``level`` (all of the shallowest level when none is that shallow), highest rated
    first."""
    top = min(r.level for r in reports)
    shallow = [r for r in reports if r.level <= max(level, top)]
    return sorted(shallow, key=lambda r: (-(r.rating if r.rating is not None else 0.0), r.level, r.community))


def map_contexts(reports: list[CommunityReport], entities: dict[int, tuple[str, ...]], limit: int,
                 count: Callable[[str], int]) -> list[Context]:
    """The reports packed in order into contexts of at most ``limit`` tokens (a report longer than that is cut
    to fit one alone)."""
    contexts: list[Context] = []
    pending = list(reports)
    while pending:
        context = Context()
        section = Budget(context, limit, count).section("Reports", 1.0)
        while pending:
            r = pending[0]
            members = entities.get(r.community, ())
            text = r.full_text
            added = section.add(COMMUNITY, lambda label, t=text: f"[{label}] {t}", name=r.title, text=text,
                                community=r.community, entities=members)
            if added is None and not context.sources:  # too long alone: as much of it as fits
                words = text.split()
                while added is None and len(words) > 20:
                    words = words[: len(words) * 3 // 4]
                    text = " ".join(words) + " ..."
                    added = section.add(COMMUNITY, lambda label, t=text: f"[{label}] {t}", name=r.title,
                                        text=text, community=r.community, entities=members)
                if added is None:
                    raise InputError(f"community {r.community}'s report does not fit in {limit} tokens even cut "
                                     "short: raise --max-context-tokens")
            if added is None:
                break
            pending.pop(0)
        contexts.append(context)
    return contexts


def relabelled(contexts: list[Context]) -> list[Context]:
    """Labels unique over all contexts (C1... across the batches), so the reduce step cites one numbering."""
    number = 0
    for context in contexts:
        mapping = {}
        for label, source in list(context.sources.items()):
            number += 1
            mapping[label] = f"C{number}"
        context.sources = {mapping[k]: attrs.evolve(s, label=mapping[k]) for k, s in context.sources.items()}
        context.sections = [(h, [_relabel(line, mapping) for line in lines]) for h, lines in context.sections]
    return contexts


def _relabel(line: str, mapping: dict[str, str]) -> str:
    head, _, rest = line.partition("] ")
    return f"[{mapping.get(head[1:], head[1:])}] {rest}"


def read_points(text: str, batch: int) -> list[Point]:
    """The scored points of a map answer (JSON ``{"points": [{"description", "score"}]}``, leniently); none
    when it holds no JSON."""
    if not json_answer(text):
        return []
    data = parse_json_output(strip_reasoning(text))
    items = data.get("points") if isinstance(data, dict) else data
    points = []
    for i, item in enumerate(items if isinstance(items, list) else []):
        if isinstance(item, str):
            description, score = item, 50.0
        elif isinstance(item, dict):
            description = str(item.get("description") or item.get("point") or item.get("text") or "")
            try:
                score = float(item.get("score", 50))
            except (TypeError, ValueError):
                score = 50.0
        else:
            continue
        if description.strip() and score > 0:
            points.append(Point(" ".join(description.split()), score, batch, i))
    return points


def reduce_context(points: list[Point], limit: int, count: Callable[[str], int]) -> str:
    """The points, best first, as the reduce step's notes, within ``limit`` tokens."""
    lines, used = [], 0
    for p in sorted(points, key=lambda p: (-p.score, p.batch, p.position)):
        line = f"- (importance {p.score:g}) {p.text}"
        tokens = count(line) + 1
        if used + tokens > limit:
            break
        lines.append(line)
        used += tokens
    return "\n".join(lines)
