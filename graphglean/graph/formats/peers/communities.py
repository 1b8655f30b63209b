"""Communities and their reports as the peer indexes read them: the graph pass's communities (one row each in
``communities.jsonl``) and reports (``community_reports.jsonl``), as records. `read_communities` reads those
files; `Communities.from_rows` takes the same rows from memory."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable

import attrs

from ....core.errors import InputError
from ..readback import json_rows

COMMUNITIES_FILE = "communities.jsonl"
REPORTS_FILE = "community_reports.jsonl"


@attrs.frozen
class Community:
    id: str
    level: int  # 0 = the coarsest
    parent: str | None
    children: tuple[str, ...]
    entities: tuple[str, ...]  # entity names (or graph node keys)
    size: int
    changed: str = ""  # the run in which it last changed (an ISO time when it is one)


@attrs.frozen
class Finding:
    summary: str
    explanation: str
    references: tuple[str, ...] = ()


@attrs.frozen
class Report:
    community: str
    title: str
    summary: str
    rating: float
    rating_explanation: str
    findings: tuple[Finding, ...]
    context_tokens: int = 0


@attrs.frozen
class Communities:
    communities: tuple[Community, ...] = ()
    reports: tuple[Report, ...] = ()

    @classmethod
    def from_rows(cls, communities: Iterable[dict[str, Any]], reports: Iterable[dict[str, Any]],
                  where: str = "communities") -> "Communities":
        """From rows as the graph pass writes them; a row missing a field is an `InputError` naming ``where``."""
        return cls(tuple(_community(r, f"{where} row {i}") for i, r in enumerate(communities, 1)),
                   tuple(_report(r, f"{where} report {i}") for i, r in enumerate(reports, 1)))


def read_communities(out_dir: str | Path) -> Communities:
    """The communities and reports a run wrote to ``out_dir`` (none when it wrote neither file)."""
    out = Path(out_dir)
    found: dict[str, list[Community | Report]] = {COMMUNITIES_FILE: [], REPORTS_FILE: []}
    for name, read in ((COMMUNITIES_FILE, _community), (REPORTS_FILE, _report)):
        path = out / name
        if path.is_file():
            found[name] = [read(row, f"{path}:{number}") for number, row in json_rows(path)]
    return Communities(tuple(found[COMMUNITIES_FILE]), tuple(found[REPORTS_FILE]))  # type: ignore[arg-type]


def _field(row: dict[str, Any], where: str, *names: str, default: Any = ...) -> Any:
    for name in names:
        if name in row and row[name] is not None:
            return row[name]
    if default is not ...:
        return default
    raise InputError(f"{where}: no {names[0]}")


def _texts(value: Any, where: str, name: str) -> tuple[str, ...]:
    if not isinstance(value, (list, tuple)):
        raise InputError(f"{where}: {name} is not a list")
    return tuple(str(v) for v in value)


def _community(row: dict[str, Any], where: str) -> Community:
    try:
        entities = _texts(_field(row, where, "entities", "entity_names", "entity_ids"), where, "entities")
        parent = _field(row, where, "parent", default=None)
        return Community(id=str(_field(row, where, "id", "community")), level=int(_field(row, where, "level")),
                         parent=None if parent in (None, "", -1, "-1") else str(parent),
                         children=_texts(_field(row, where, "children", default=[]), where, "children"),
                         entities=entities, size=int(_field(row, where, "size", default=len(entities))),
                         changed=str(_field(row, where, "changed_run", "changed", "last_changed", "run", "period",
                                            default="")))
    except (TypeError, ValueError) as e:
        raise InputError(f"{where}: not a community ({e})") from None


def _finding(value: Any, where: str) -> Finding:
    if isinstance(value, str):
        return Finding(value, "")
    if not isinstance(value, dict):
        raise InputError(f"{where}: a finding is neither text nor an object")
    refs = _field(value, where, "references", "refs", default=[])
    if isinstance(refs, dict):  # the graph pass's: {"entities": [...], "relationships": [...]}
        refs = [*refs.get("entities", []), *refs.get("relationships", [])]
    return Finding(str(_field(value, where, "summary", default="")),
                   str(_field(value, where, "explanation", default="")),
                   _texts(refs if isinstance(refs, list) else [refs], where, "references"))


def _report(row: dict[str, Any], where: str) -> Report:
    try:
        findings = _field(row, where, "findings", default=[])
        if not isinstance(findings, list):
            raise InputError(f"{where}: findings is not a list")
        return Report(community=str(_field(row, where, "community", "community_id")),
                      title=str(_field(row, where, "title")), summary=str(_field(row, where, "summary", default="")),
                      rating=float(_field(row, where, "rating", "rank", default=0.0)),
                      rating_explanation=str(_field(row, where, "rating_explanation", default="")),
                      findings=tuple(_finding(f, where) for f in findings),
                      context_tokens=int(_field(row, where, "context_tokens", default=0)))
    except (TypeError, ValueError) as e:
        raise InputError(f"{where}: not a community report ({e})") from None
