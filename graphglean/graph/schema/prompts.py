"""The graph pass's prompts under a schema: the tuple format with the types described (and a relation field when
the schema has relationship patterns), and the JSON format of structured output. Few-shot examples are written
in the format asked: the configured examples (``graph.examples``; by default the shipped ones with relations)
are read as records and written again as typed records or as JSON."""

from __future__ import annotations

import json
import re

import attrs

from ...core.config import GraphConfig
from ...core.prompts import load_template, render
from ..extraction.parser import RecordParser
from ..extraction.prompts import GraphPrompts, examples_text
from ..records import ParseResult
from .json_schema import json_schema
from .ontology import Schema

RECORDS_READ = "records_read"  # the JSON resume prompt's field: the records of the cut answer already read
_EXAMPLE_NOTE = "(The example's types and relations are its own: use those listed above.)\n"
_RECORDS_BLOCK = re.compile(r"(?ms)^(Records:[ \t]*\n)(.*?)(?=^[ \t]*(?:Example\b|Passage:)|\Z)")


@attrs.frozen
class SchemaPrompts:
    """Both formats' prompts of one configuration and schema."""

    tuple_format: GraphPrompts
    json_format: GraphPrompts

    @classmethod
    def of(cls, g: GraphConfig, schema: Schema) -> "SchemaPrompts":
        fields = _fields(g, schema)
        tuple_fields = {**fields, "examples": _examples(g, schema, "tuple"),
                        "relationship_record": _tuple_relationship(g, schema)}
        json_fields = {**fields, "examples": _examples(g, schema, "json"),
                       "relationship_fields": _json_relationship(schema)}
        typed = GraphPrompts(render(load_template("graph_extraction_typed"), **tuple_fields),
                             render(load_template("graph_continue"), **fields).strip(),
                             render(load_template("graph_loop"), **fields).strip(), fields,
                             render(load_template("graph_resume"), **fields).strip())
        as_json = GraphPrompts(render(load_template("graph_extraction_json"), **json_fields),
                               render(load_template("graph_continue_json"), **fields).strip(),
                               typed.loop_prompt, fields, render(load_template("graph_resume_json"), **fields).strip())
        return cls(typed, as_json)

    def fingerprint(self, schema: Schema) -> tuple[str, ...]:
        """What of these prompts shapes the answers (both formats: a run may use either)."""
        j = self.json_format
        return (j.extraction_template, j.continue_prompt, j.resume_prompt,
                json.dumps(json_schema(schema), sort_keys=True, ensure_ascii=False))


def graph_prompts(g: GraphConfig, schema: Schema | None) -> GraphPrompts:
    """The tuple-format prompts: the configuration's own without a schema (the same texts as always), else typed."""
    return GraphPrompts.from_config(g) if schema is None else SchemaPrompts.of(g, schema).tuple_format


def _fields(g: GraphConfig, schema: Schema) -> dict[str, str]:
    return {"tuple_delimiter": g.tuple_delimiter, "record_delimiter": g.record_delimiter,
            "completion_delimiter": g.completion_delimiter, "language": g.language,
            "entity_types": ", ".join(schema.types), "entity_type_list": type_list(schema),
            "relation_doc": _relation_doc(schema)}


def type_list(schema: Schema) -> str:
    """One line per type: ``- PERSON: a human being``."""
    return "\n".join(f"- {t}: {d}" if d else f"- {t}" for t, d in schema.entities.items())


def _relation_doc(schema: Schema) -> str:
    if not schema.typed_relationships:
        return ""
    patterns = "\n".join(f"    {a} {r} {b}" for a, r, b in schema.patterns)
    return (f"  relation: the relation, written as listed, between a source and a target of these types:\n"
            f"{patterns}\n")


def _tuple_relationship(g: GraphConfig, schema: Schema) -> str:
    d = g.tuple_delimiter
    relation = f"<relation>{d}" if schema.typed_relationships else ""
    return f'("relationship"{d}<source>{d}<target>{d}{relation}<description>{d}<strength>)'


def _json_relationship(schema: Schema) -> str:
    relation = '"relation": ..., ' if schema.typed_relationships else ""
    return f'{{"source": ..., "target": ..., {relation}"description": ..., "strength": ...}}'


def _examples(g: GraphConfig, schema: Schema, form: str) -> str:
    """The few-shot examples as ``form`` (tuple or json) writes them."""
    if g.examples == "none":
        return ""
    if g.examples == "default":
        fields = {"tuple_delimiter": g.tuple_delimiter, "record_delimiter": g.record_delimiter,
                  "completion_delimiter": g.completion_delimiter}
        text = render(load_template("graph_examples_typed"), **fields)
    else:
        text = examples_text(g)
    # a relation field is read where the examples have one (the shipped ones do), and left out when not asked
    parser = RecordParser(g.tuple_delimiter, g.record_delimiter, g.completion_delimiter, schema.types,
                          relations=schema.is_relation)
    own: set[bool] = set()

    def rewrite(m: re.Match[str]) -> str:
        parsed = parser.parse_any(m.group(2))
        if not parsed.records:
            return m.group(0)
        own.update(schema.entity_type(e.type) is not None for e in parsed.entities)
        if schema.typed_relationships:
            own.update(schema.relation(r.relation) is not None for r in parsed.relationships)
        parsed.entities = [attrs.evolve(e, type=schema.entity_type(e.type) or e.type) for e in parsed.entities]
        if form == "json":
            return "JSON:\n" + records_json(parsed, schema.typed_relationships) + "\n"
        return m.group(1) + _typed_records(parsed, g, schema.typed_relationships) + "\n"

    text = _RECORDS_BLOCK.sub(rewrite, text)
    if False in own:  # the example's types or relations are not the schema's
        text = _EXAMPLE_NOTE + text if not text.startswith("\n") else "\n" + _EXAMPLE_NOTE + text[1:]
    return text


def records_json(parsed: ParseResult, typed: bool) -> str:
    """Records as the JSON object the structured format asks for (one line per record)."""
    entities = [json.dumps({"name": e.name, "type": e.type, "description": e.description}, ensure_ascii=False)
                for e in parsed.entities]
    relationships = []
    for r in parsed.relationships:
        row = {"source": r.source_name, "target": r.target_name}
        if typed:
            row["relation"] = r.relation
        row.update(description=r.description, strength=int(r.weight) if r.weight == int(r.weight) else r.weight)
        relationships.append(json.dumps(row, ensure_ascii=False))
    return ('{"entities": [\n  ' + ",\n  ".join(entities) + '\n ],\n "relationships": [\n  '
            + ",\n  ".join(relationships) + "\n ]}")


def _typed_records(parsed: ParseResult, g: GraphConfig, typed: bool) -> str:
    d = g.tuple_delimiter
    lines = [f'("entity"{d}{e.name}{d}{e.type}{d}{e.description})' for e in parsed.entities]
    for r in parsed.relationships:
        relation = f"{r.relation}{d}" if typed else ""
        strength = int(r.weight) if r.weight == int(r.weight) else r.weight
        lines.append(f'("relationship"{d}{r.source_name}{d}{r.target_name}{d}{relation}{r.description}{d}{strength})')
    return (g.record_delimiter + "\n").join(lines) + "\n" + g.completion_delimiter
