"""GraphRAG 3.3's output tables as rows, with the column names and Arrow types its own indexer writes (pandas 3
through pyarrow: ``large_string`` text, ``int64`` numbers, ``list<string>`` id lists), so `graphrag query`
reads them as its own: documents, text_units, entities, relationships, communities, community_reports.

Ids are stable across runs (a node's id is made of its title), relationships name their ends by entity title,
community numbers are unique across levels with ``parent`` -1 at the top, and each text unit's entity and
relationship ids are rebuilt from the entities' and relationships' text units.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from datetime import datetime, timezone
from typing import Any, Callable, Iterator

import attrs

from .....text.chunking import Chunk
from ..communities import Communities, Finding, Report
from ..index import Document, EngineGraph

_IDS = uuid.UUID("5a0c4b1e-3f6d-4f5e-9a51-6f1b2f0e7c11")  # graphglean's namespace of GraphRAG ids


def stable_id(kind: str, *parts: str) -> str:
    return str(uuid.uuid5(_IDS, "\x00".join((kind, *parts))))


def _arrow() -> dict[str, Any]:
    import pyarrow as pa

    text, number, ids = pa.large_string(), pa.int64(), pa.list_(pa.string())
    findings = pa.list_(pa.struct([("explanation", pa.string()), ("summary", pa.string())]))
    return {
        "documents": [("id", text), ("human_readable_id", number), ("title", text), ("text", text),
                      ("text_unit_ids", ids), ("creation_date", text), ("raw_data", pa.null())],
        "text_units": [("id", text), ("human_readable_id", number), ("text", text), ("n_tokens", number),
                       ("document_id", text), ("entity_ids", ids), ("relationship_ids", ids), ("covariate_ids", ids)],
        "entities": [("id", text), ("human_readable_id", number), ("title", text), ("type", text),
                     ("description", text), ("text_unit_ids", ids), ("frequency", number), ("degree", number)],
        "relationships": [("id", text), ("human_readable_id", number), ("source", text), ("target", text),
                          ("description", text), ("weight", pa.float64()), ("combined_degree", number),
                          ("text_unit_ids", ids)],
        "communities": [("id", text), ("human_readable_id", number), ("community", number), ("level", number),
                        ("parent", number), ("children", pa.list_(number)), ("title", text), ("entity_ids", ids),
                        ("relationship_ids", ids), ("text_unit_ids", ids), ("period", text), ("size", number)],
        "community_reports": [("id", text), ("human_readable_id", number), ("community", number), ("level", number),
                              ("parent", number), ("children", pa.list_(number)), ("title", text),
                              ("summary", text), ("full_content", text), ("rank", pa.float64()),
                              ("rating_explanation", text), ("findings", findings), ("full_content_json", text),
                              ("period", text), ("size", number)],
    }


TABLES = ("documents", "text_units", "entities", "relationships", "communities", "community_reports")


def schemas() -> dict[str, Any]:
    """Each table's `pyarrow.Schema`, as GraphRAG 3.3 writes it."""
    import pyarrow as pa

    return {name: pa.schema(fields) for name, fields in _arrow().items()}


def arrow_table(name: str, rows: list[dict[str, Any]]) -> Any:
    import pyarrow as pa

    schema = schemas()[name]
    return pa.Table.from_pylist(rows, schema=schema) if rows else schema.empty_table()


PARQUET_GROUP = 20_000  # rows made into Arrow and written at a time, at most
PARQUET_GROUP_BYTES = 4 << 20  # and about this much text (the documents table holds whole documents)


def write_parquet(name: str, rows: list[dict[str, Any]], sink: Any) -> None:
    """Table ``name`` of ``rows`` as Parquet into ``sink``, a row group at a time (a corpus's rows are never all
    in Arrow at once)."""
    import pyarrow.parquet as pq

    with pq.ParquetWriter(sink, schemas()[name]) as writer:
        for group in _row_groups(rows):
            writer.write_table(arrow_table(name, group))


def _row_groups(rows: list[dict[str, Any]]) -> Iterator[list[dict[str, Any]]]:
    """``rows`` cut into groups of at most `PARQUET_GROUP` rows and about `PARQUET_GROUP_BYTES` of text (a
    single empty group for no rows: the file still gets its schema)."""
    start, size = 0, 0
    for i, row in enumerate(rows):
        size += sum(len(v) if isinstance(v, str) else 16 * len(v) if isinstance(v, list) else 8 for v in row.values())
        if i + 1 - start >= PARQUET_GROUP or size >= PARQUET_GROUP_BYTES:
            yield rows[start:i + 1]
            start, size = i + 1, 0
    if start < len(rows) or not rows:
        yield rows[start:]


@attrs.define
class GraphRAGTables:
    rows: dict[str, list[dict[str, Any]]]
    dropped: list[str] = attrs.field(factory=list)  # communities or reports without the other, one line each

    def embedded_texts(self) -> dict[str, list[tuple[str, str]]]:
        """The (row id, text) pairs of each LanceDB table GraphRAG's searches read."""
        return {"entity_description": [(e["id"], f"{e['title']}:{e['description']}") for e in self.rows["entities"]],
                "community_full_content": [(r["id"], r["full_content"]) for r in self.rows["community_reports"]],
                "text_unit_text": [(t["id"], t["text"]) for t in self.rows["text_units"]]}


def graphrag_tables(view: EngineGraph, documents: list[Document], chunks: list[Chunk], communities: Communities,
                    name_of: Callable[[str], str], now: datetime | None = None) -> GraphRAGTables:
    """Every table's rows; ``name_of`` is GraphRAG's naming (community members are resolved through it)."""
    now = now or datetime.now(timezone.utc)
    entities = sorted(view.entities, key=lambda e: e.name)
    entity_rows = [{"id": stable_id("entity", e.name), "human_readable_id": i, "title": e.name, "type": e.type,
                    "description": e.description, "text_unit_ids": list(e.chunk_ids), "frequency": e.frequency,
                    "degree": e.degree} for i, e in enumerate(entities)]
    degree = {e.name: e.degree for e in entities}
    relationships = sorted(view.relationships, key=lambda r: (r.source, r.target))
    relationship_rows = [{"id": stable_id("relationship", r.source, r.target), "human_readable_id": i,
                          "source": r.source, "target": r.target, "description": r.description,
                          "weight": float(r.weight), "combined_degree": degree[r.source] + degree[r.target],
                          "text_unit_ids": list(r.chunk_ids)} for i, r in enumerate(relationships)]
    rows = {"documents": _documents(documents, now), "text_units": _text_units(chunks, entity_rows, relationship_rows),
            "entities": entity_rows, "relationships": relationship_rows}
    tables = GraphRAGTables(rows)
    tables.rows["communities"], tables.rows["community_reports"] = _communities(
        communities, view, name_of, entity_rows, relationship_rows, now, tables.dropped)
    return tables


def _documents(documents: list[Document], now: datetime) -> list[dict[str, Any]]:
    created = now.strftime("%Y-%m-%d %H:%M:%S %z")
    return [{"id": d.id, "human_readable_id": i, "title": d.title, "text": d.text, "text_unit_ids": list(d.chunk_ids),
             "creation_date": created, "raw_data": None} for i, d in enumerate(documents)]


def _text_units(chunks: list[Chunk], entities: list[dict[str, Any]],
                relationships: list[dict[str, Any]]) -> list[dict[str, Any]]:
    found: dict[str, dict[str, list[str]]] = {c.id: {"entity_ids": [], "relationship_ids": []} for c in chunks}
    for column, rows in (("entity_ids", entities), ("relationship_ids", relationships)):
        for row in rows:
            for unit in row["text_unit_ids"]:
                if unit in found:
                    found[unit][column].append(row["id"])
    return [{"id": c.id, "human_readable_id": i, "text": c.text, "n_tokens": c.tokens, "document_id": c.doc_id,
             **found[c.id], "covariate_ids": []} for i, c in enumerate(chunks)]


def full_content(report: Report, explanation: Callable[[Finding], str] = lambda f: f.explanation) -> str:
    """A report as GraphRAG's markdown (`CommunityReportsExtractor._get_text_output`)."""
    sections = "\n\n".join(f"## {f.summary}\n\n{explanation(f)}" for f in report.findings)
    return f"# {report.title}\n\n{report.summary}\n\n{sections}"


def _period(changed: str, now: datetime) -> str:
    try:
        return datetime.fromisoformat(changed).date().isoformat()
    except ValueError:
        return now.date().isoformat()


def _communities(found: Communities, view: EngineGraph, name_of: Callable[[str], str],
                 entities: list[dict[str, Any]], relationships: list[dict[str, Any]], now: datetime,
                 dropped: list[str]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    reports = {r.community: r for r in found.reports}
    kept = sorted((c for c in found.communities if c.id in reports), key=lambda c: (c.level, c.id))
    known = {c.id for c in found.communities}
    unreported = sum(c.id not in reports for c in found.communities)
    if unreported:  # one line for them all: most are below min_report_size, which is no fault
        dropped.append(f"{unreported} communit{'y has' if unreported == 1 else 'ies have'} no report (fewer "
                       "entities than graph.communities.min_report_size, or a report that failed: report.json "
                       "counts those)")
    dropped += [f"report of community {r.community}: no such community" for r in found.reports
                if r.community not in known]
    number = {c.id: i for i, c in enumerate(kept)}
    children: dict[str, set[int]] = {c.id: {number[k] for k in c.children if k in number} for c in kept}
    for c in kept:
        if c.parent in children:
            children[c.parent].add(number[c.id])
    by_name = {e["title"]: e for e in entities}
    titles = set(by_name)
    touching: dict[str, list[dict[str, Any]]] = {}  # relationships by the entities at their ends
    for r in relationships:
        touching.setdefault(r["source"], []).append(r)
        touching.setdefault(r["target"], []).append(r)

    def member(name: str) -> str | None:
        for found_name in (view.names.get(name), view.names.get(name.casefold()), name_of(name)):
            if found_name in titles:
                return found_name
        return None

    community_rows, report_rows = [], []
    for c in kept:
        members = list(dict.fromkeys(m for m in map(member, c.entities) if m is not None))
        inside = set(members)
        edges = list({r["id"]: r for m in members for r in touching.get(m, ())
                      if r["source"] in inside and r["target"] in inside}.values())
        units = ([u for r in edges for u in r["text_unit_ids"]]
                 or [u for m in members for u in by_name[m]["text_unit_ids"]])
        shared = {"community": number[c.id], "level": c.level,
                  "parent": number.get(c.parent, -1) if c.parent is not None else -1,
                  "children": sorted(children[c.id]), "period": _period(c.changed, now),
                  "size": len(members) or c.size}
        community_rows.append({"id": stable_id("community", c.id), "human_readable_id": number[c.id], **shared,
                               "title": f"Community {number[c.id]}", "entity_ids": [by_name[m]["id"] for m in members],
                               "relationship_ids": sorted(r["id"] for r in edges), "text_unit_ids": sorted(set(units))})
        report_rows.append(_report_row(reports[c.id], shared, lambda n: by_name.get(member(n) or "")))
    return community_rows, report_rows


def _report_row(report: Report, shared: dict[str, Any],
                entity: Callable[[str], dict[str, Any] | None]) -> dict[str, Any]:
    def explanation(f: Finding) -> str:
        ids = [str(row["human_readable_id"]) for row in map(entity, f.references) if row is not None]
        if not ids or "[Data:" in f.explanation:
            return f.explanation
        more = ", +more" if len(ids) > 5 else ""
        return f"{f.explanation} [Data: Entities ({', '.join(ids[:5])}{more})]".strip()

    content = full_content(report, explanation)
    findings = [{"explanation": explanation(f), "summary": f.summary} for f in report.findings]
    as_json = json.dumps({"title": report.title, "summary": report.summary,
                          "findings": [{"summary": f["summary"], "explanation": f["explanation"]} for f in findings],
                          "rating": report.rating, "rating_explanation": report.rating_explanation},
                         indent=4, ensure_ascii=False)
    return {"id": hashlib.sha512(content.encode("utf-8")).hexdigest(), "human_readable_id": shared["community"],
            **{k: shared[k] for k in ("community", "level", "parent", "children")}, "title": report.title,
            "summary": report.summary, "full_content": content, "rank": float(report.rating),
            "rating_explanation": report.rating_explanation, "findings": findings, "full_content_json": as_json,
            "period": shared["period"], "size": shared["size"]}
