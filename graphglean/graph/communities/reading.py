"""Reading a report out of what a model answered: JSON in fences, with prose around it, cut short, under other key
names, as a list, or a Markdown report with headings. References to entities and relationships are resolved
against the community (by number, id or name); those it does not hold are dropped and counted."""

from __future__ import annotations

import re
from typing import Any, Mapping

from ...core.answers import parse_json_output, strip_reasoning
from .context import ReportContext
from .records import CommunityReport, Finding

_TITLE = ("title", "name", "community_title", "report_title", "community_name", "heading")
_SUMMARY = ("summary", "executive_summary", "overview", "description", "community_summary", "abstract")
_RATING = ("rating", "impact_rating", "impact_severity_rating", "importance", "importance_rating", "score",
           "severity", "impact")
_WHY = ("rating_explanation", "rating_reason", "rating_rationale", "explanation_of_rating", "rationale",
        "rating_justification", "justification")
_FINDINGS = ("findings", "key_findings", "insights", "key_insights", "detailed_findings", "points")
_F_SUMMARY = ("summary", "title", "finding", "insight", "headline", "name")
_F_TEXT = ("explanation", "details", "detail", "description", "text", "content", "evidence_summary")
_F_REFS = ("references", "refs", "reference", "data", "data_references", "sources", "evidence", "supporting_data")
_DATA = re.compile(r"\[\s*data\s*:([^\]]*)\]", re.I)
_KIND = re.compile(r"(entit(?:y|ies)|relationships?|relations?|edges?|nodes?)\s*\(([^)]*)\)", re.I)
_NUMBER = re.compile(r"^\s*(?:(e|entity|n|node|r|rel|relationship|edge)\s*)?(?:#\s*)?(\d+)\s*$", re.I)
_PAIR = re.compile(r"(?<!\s)\s*(?:->|→|<->|—|–|\s-\s|,|\|)\s*")  # from a run of blanks' start only
_FIRST_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


class NotAReport(ValueError):
    """An answer no report can be read from."""


def _key(k: Any) -> str:
    return re.sub(r"[\s\-]+", "_", str(k).strip().lower())


def _pick(row: Mapping[str, Any], names: tuple[str, ...]) -> Any:
    for name in names:
        if name in row and row[name] not in (None, "", [], {}):
            return row[name]
    return None


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, (list, tuple)):
        return " ".join(_text(v) for v in value)
    if isinstance(value, dict):
        return " ".join(_text(v) for v in value.values())
    return " ".join(str(value).split())


def _normalized(value: Any) -> Any:
    if isinstance(value, dict):
        return {_key(k): _normalized(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_normalized(v) for v in value]
    return value


def _report_object(value: Any) -> dict[str, Any] | None:
    """The object that holds the report: the answer itself, its first such item, or one nested under one key."""
    value = _normalized(value)
    if isinstance(value, list):
        found = (_report_object(v) for v in value)
        return next((f for f in found if f is not None), None)
    if not isinstance(value, dict):
        return None
    if _pick(value, _TITLE) is not None or _pick(value, _SUMMARY) is not None:
        return value
    nested = [v for v in value.values() if isinstance(v, (dict, list))]
    return _report_object(nested[0]) if len(nested) == 1 else None


def rating_of(value: Any) -> float | None:
    """A 0-10 rating from a number or text ("7.5", "8/10", "High (8)"); None when there is none."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        number = float(value)
    else:
        found = _FIRST_NUMBER.search(str(value))
        if found is None:
            return None
        number = float(found.group(0))
        if re.search(r"/\s*100\b", str(value)) or "%" in str(value):
            number /= 10
    return min(10.0, max(0.0, number)) if number == number else None


class References:
    """Resolves what a finding cites against one community; counts what the community does not hold."""

    def __init__(self, ctx: ReportContext) -> None:
        self.ctx = ctx
        self.dropped = 0
        self.ids = set(ctx.members.pairs.values())

    def resolve(self, refs: Any, text: str) -> tuple[list[str], list[str]]:
        entities: dict[str, None] = {}
        relationships: dict[str, None] = {}
        for kind, token in [*self._tokens(refs, None), *self._inline(text)]:
            found = self._one(kind, token)
            if found is None:
                self.dropped += 1
            elif found[0] == "e":
                entities.setdefault(found[1])
            else:
                relationships.setdefault(found[1])
        return list(entities), list(relationships)

    def _inline(self, text: str) -> list[tuple[str | None, Any]]:
        found: list[tuple[str | None, Any]] = []
        for data in _DATA.finditer(text):
            found += self._tokens(data.group(1), None)
        return found

    def _tokens(self, refs: Any, kind: str | None) -> list[tuple[str | None, Any]]:
        if refs is None or refs == "":
            return []
        if isinstance(refs, dict):
            out: list[tuple[str | None, Any]] = []
            for k, v in refs.items():
                out += self._tokens(v, _kind(k) or kind)
            return out
        if isinstance(refs, (list, tuple)):
            return [t for v in refs for t in self._tokens(v, kind)]
        if isinstance(refs, str) and _KIND.search(refs):
            return [(_kind(m.group(1)), t) for m in _KIND.finditer(refs) for t in _split(m.group(2))]
        if isinstance(refs, str) and kind is not None and "," in refs and not _PAIR.fullmatch(refs):
            return [(kind, t) for t in _split(refs)]
        return [(kind, refs)]

    def _one(self, kind: str | None, token: Any) -> tuple[str, str] | None:
        ctx = self.ctx
        if isinstance(token, bool):
            return None
        text = str(token).strip()
        number = _NUMBER.match(text)
        if number is not None:
            prefix = (number.group(1) or "").lower()
            is_rel = kind == "r" or prefix.startswith("r") or (prefix == "edge")
            table = ctx.relationship_numbers if is_rel else ctx.entity_numbers
            key = table.get(number.group(2))
            return None if key is None else ("r" if is_rel else "e", key)
        members = ctx.members
        if kind != "r" and text.casefold() in members.names:
            return "e", members.names[text.casefold()]
        if text in self.ids:
            return "r", text
        ends = [p for p in _PAIR.split(text) if p]
        if len(ends) == 2:
            a, b = (members.names.get(e.strip().strip("\"'").casefold()) for e in ends)
            rid = members.pairs.get(frozenset((a, b))) if a is not None and b is not None else None
            if rid is not None:
                return "r", rid
        return None


def _kind(name: Any) -> str | None:
    k = _key(name)
    if k.startswith(("entit", "node")):
        return "e"
    if k.startswith(("relation", "edge")):
        return "r"
    return None


def _split(text: str) -> list[str]:
    return [t.strip() for t in text.split(",") if t.strip() and not t.strip().lstrip("+").startswith("more")]


def _findings(value: Any, refs: References) -> list[Finding]:
    if isinstance(value, dict):  # {summary: explanation, ...}
        value = [{"summary": k, "explanation": v} for k, v in value.items()]
    if not isinstance(value, list):
        value = [value] if value else []
    found = []
    for item in value:
        if isinstance(item, dict):
            summary, text = _text(_pick(item, _F_SUMMARY)), _text(_pick(item, _F_TEXT))
            raw = _pick(item, _F_REFS)
        else:
            summary, text, raw = _text(item), "", None
        if not summary and not text:
            continue
        entities, relationships = refs.resolve(raw, f"{summary} {text}")
        found.append(Finding(summary or text.split(". ")[0], text, entities, relationships))
    return found


def read_report(answer: str, ctx: ReportContext, community: int, level: int, cut: bool = False) -> CommunityReport:
    """The report in ``answer`` on community ``community``; `NotAReport` when it holds none."""
    try:
        row = _report_object(parse_json_output(answer))
    except ValueError:
        row = None
    if row is None:
        row = _markdown(answer)
    if row is None:
        raise NotAReport(f"no report in the answer: {' '.join(answer.split())[:120]!r}")
    refs = References(ctx)
    findings = _findings(_pick(row, _FINDINGS), refs)
    title, summary = _text(_pick(row, _TITLE)), _text(_pick(row, _SUMMARY))
    rating = _pick(row, _RATING)
    why = _pick(row, _WHY)
    if isinstance(rating, dict):  # {"score": 7, "explanation": "..."}
        why = why or _pick(rating, _WHY + ("explanation", "reason"))
        rating = _pick(rating, ("score", "value", "rating"))
    return CommunityReport(community, level, title or summary.split(". ")[0][:120], summary, rating_of(rating),
                           _text(why), findings, ctx.tokens, refs.dropped, cut)


# blanks within the line: \s crossing line ends let each line start scan every blank line after it (minutes on
# an answer of blank lines)
_HEADING = re.compile(r"^[ \t]*(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$", re.M)


def _markdown(answer: str) -> dict[str, Any] | None:
    """A report written as Markdown: the first heading is its title, the text before the next its summary,
    and each further heading a finding."""
    text = strip_reasoning(answer)
    heads = list(_HEADING.finditer(text))
    if not heads:
        return None
    title = heads[0].group(2).strip("*_ ")
    bodies = [text[h.end():(heads[k + 1].start() if k + 1 < len(heads) else len(text))].strip()
              for k, h in enumerate(heads)]
    summary = bodies[0]
    findings = [{"summary": h.group(2).strip("*_ "), "explanation": b} for h, b in zip(heads[1:], bodies[1:])]
    rating = re.search(r"rating\W{0,3}\s*(\d+(?:\.\d+)?)", text, re.I)
    if not summary and not findings:
        return None
    return {"title": title, "summary": summary, "findings": findings,
            "rating": rating.group(1) if rating else None}


def holds_report(answer: str) -> bool:
    """Whether a report can be read from ``answer`` (for ``ChatRequest.valid``: a non-report is never cached)."""
    try:
        if _report_object(parse_json_output(answer)) is not None:
            return True
    except ValueError:
        pass
    return _markdown(answer) is not None
