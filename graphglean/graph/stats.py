"""`GraphStats`: what the graph pass counted (report.json's graph row), filled in by every stage of it."""

from __future__ import annotations

from typing import Any

import attrs


@attrs.define
class GraphStats:
    chunks: int = 0
    failed_chunks: int = 0
    cut_chunks: int = 0  # of those, chunks whose answers ended cut, kept as they were, with no record read
    records: int = 0
    entities: int = 0
    relationships: int = 0
    malformed: int = 0
    default_strengths: int = 0
    gleaning_rounds: int = 0
    checks: int = 0
    unclear_checks: int = 0
    truncated_responses: int = 0  # calls whose answer the completion cap cut
    continued_answers: int = 0  # answers continued after the cap cut them (instead of asked again)
    continuations: int = 0  # the calls that continued them
    continuation_saved_tokens: int = 0  # output tokens asking those answers again from the start would have repeated
    raised_caps: int = 0  # cut answers asked again at the model's output limit (stored by earlier versions)
    split_passages: int = 0  # passages halved: a continuation made no progress, or filled the context window
    repetition_loops: int = 0  # cut answers that were a model repeating itself
    outgrown_windows: int = 0  # chunks whose gleaning stopped at the model's context window (earlier answers kept)
    cut_records: int = 0  # unfinished last records of answers that stayed cut (kept as text, not read)
    repeated_records: int = 0  # records an answer gave again (read once)
    placeholder_rows: int = 0  # format lines copied from the prompt (no nodes)
    reasoning_records: int = 0  # records found inside a reasoning block (kept)
    repaired_names: int = 0  # names that held delimiter fragments, arrows or stray quotes at an end (cut off)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    ungrounded: int = 0  # nodes whose names occur in none of their chunks (echoed examples among them)
    echoed_examples: int = 0  # names of the prompt's examples or stock placeholders dropped, once per chunk echoing one
    summarized_descriptions: int = 0
    offline_backend: str = ""  # the nlp method's: "spacy <model> <version>" or "rules"
    nodes: int = 0
    edges: int = 0
    malformed_records: list[dict[str, str]] = attrs.field(factory=list)  # kept as text, with their chunk
    resolution: dict[str, Any] = attrs.field(factory=dict)  # ResolutionStats of the resolve stage, if it ran
    resolution_log: list[dict[str, Any]] | None = None  # resolution.jsonl: merges, pairs kept apart; None = not run
    yes_no_check: dict[str, Any] = attrs.field(factory=dict)  # how the gleaning checks were asked, and why
    off_schema: int = 0  # records, nodes and edges outside graph.schema: left out (strict) or flagged (flag)
    off_schema_records: list[dict[str, Any]] = attrs.field(factory=list)  # what strict mode left out
    structured_output: dict[str, Any] = attrs.field(factory=dict)  # the format asked for (under a schema), and why
    # stages (and chunks' parsing) that raised after the calls were paid: failure rows; the rest is written
    failed_stages: list[dict[str, Any]] = attrs.field(factory=list)
