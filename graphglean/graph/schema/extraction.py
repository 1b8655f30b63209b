"""What the graph pass uses of a schema, in one place: the parser of its answers, the loop that asks for them
(the tuple format's, or JSON's and the tuple format's behind the run's `StructuredChoice`), the fingerprint of
its prompts and the graph held to the schema. Without ``graph.schema`` (and without ``structured_output:
json_schema``) each is what the pass has always used, so a default run sends what it always sent."""

from __future__ import annotations

from typing import Any, Callable

import networkx as nx

from ...core.config import Config, GraphConfig
from ...llm.model_limits.completion_cap import CompletionCap
from ...scheduling.scheduler import PassLLM
from ..extraction.gleaning import GleaningLoop, LoopCheck
from ..extraction.parser import RecordParser
from ..extraction.prompts import GraphPrompts
from .conformance import conform_graph, count_flagged
from .json_gleaning import JsonGleaningLoop
from .ontology import Schema, asked_schema, schema_of
from .prompts import SchemaPrompts
from .reader import SchemaParser
from .structured import FormatMemo, StructuredChoice, StructuredExtraction


def record_parser(g: GraphConfig) -> RecordParser:
    """The parser of the pass's answers: a `SchemaParser` (JSON or typed records, held to the schema) under a
    schema, else the tuple format's."""
    schema = asked_schema(g)
    if schema is None:
        return RecordParser(g.tuple_delimiter, g.record_delimiter, g.completion_delimiter, tuple(g.entity_types))
    return SchemaParser(g, schema)


def uses_json(cfg: Config, schema: Schema | None) -> bool:
    """Whether the run asks for JSON at all (``auto`` only with a schema)."""
    mode = cfg.graph.structured_output
    return schema is not None and (mode == "json_schema" or (mode == "auto" and cfg.graph.schema is not None))


def chunk_extractor(llm: PassLLM, cfg: Config, check: LoopCheck, caps: CompletionCap, count: Callable[[str], int],
                    valid: Callable[[str], bool], report: dict[str, Any],
                    memo: FormatMemo | None = None) -> GleaningLoop | StructuredExtraction:
    """What extracts a chunk (``.run(chunk_id, text)``); ``report`` is told which format was used, and why;
    ``memo`` keeps the run's decision of the format (`StructuredChoice`)."""
    g = cfg.graph
    schema = asked_schema(g)
    kw = dict(caps=caps, max_splits=g.max_splits, valid=valid, count=count)
    if schema is None:
        return GleaningLoop(llm, GraphPrompts.from_config(g), g.max_gleanings, check, **kw)  # type: ignore[arg-type]
    prompts = SchemaPrompts.of(g, schema)
    as_tuples = GleaningLoop(llm, prompts.tuple_format, g.max_gleanings, check, **kw)  # type: ignore[arg-type]
    if not uses_json(cfg, schema):
        report.update(format="tuple", why=f"graph.structured_output {g.structured_output}")
        return as_tuples
    # batch mode does not wait a batch's day for one answer: every chunk tries, a refusal falls back each
    choice = StructuredChoice(g.structured_output, probes=not cfg.llm.batch.enabled, report=report, memo=memo)
    as_json = JsonGleaningLoop(llm, prompts.json_format, g.max_gleanings, check, schema, choice,
                               **kw)  # type: ignore[arg-type]
    return StructuredExtraction(as_json, as_tuples, choice)


def prompt_fingerprint(cfg: Config) -> tuple[Any, ...]:
    """What of the pass's prompts shapes its answers (the run store's fingerprint): the tuple format's four
    texts, and under a schema the JSON format's and its JSON schema too."""
    g = cfg.graph
    schema = asked_schema(g)
    if schema is None:
        p = GraphPrompts.from_config(g)
        return p.extraction_template, p.continue_prompt, p.loop_prompt, p.resume_prompt
    prompts = SchemaPrompts.of(g, schema)
    p = prompts.tuple_format
    extra = prompts.fingerprint(schema) if uses_json(cfg, schema) else ()
    return (p.extraction_template, p.continue_prompt, p.loop_prompt, p.resume_prompt, *extra)


def hold_to_schema(graph: nx.Graph, g: GraphConfig) -> tuple[list[dict[str, Any]], int]:
    """The merged graph held to ``graph.schema`` (nothing without one): the rows strict mode left out, and how
    many nodes and edges outside it there were (left out or flagged)."""
    schema = schema_of(g)
    if schema is None:
        return [], 0
    rows = conform_graph(graph, schema)
    return rows, len(rows) + count_flagged(graph)
