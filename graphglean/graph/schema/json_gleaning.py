"""`JsonGleaningLoop`: the gleaning loop (`GleaningLoop`) with answers in JSON under ``response_format:
json_schema``. Gleaning rounds ask for the missing records as a new object of the same shape; the YES/NO checks
stay one-token questions with logit bias, asked without ``response_format``.

A cut JSON answer cannot be continued mid-text under a schema (a guided decoder starts a new object). So its
whole items are read, and the model is asked for the records that remain as a new object, naming those read;
each answer is stored as it came (the parse of a chunk merges their lists). A rest that brings no new record
while still cut is no progress: the passage is halved, as for the tuple format.
"""

from __future__ import annotations

from typing import Any

from ...core.answers import without_reasoning
from ...core.prompts import render
from ...core.repetition import is_loop
from ...llm.records import ChatResult
from ...scheduling.scheduler import PassLLM
from ..extraction.chunk_extraction import Tally
from ..extraction.gleaning import GleaningLoop, LoopCheck, _Answer
from ..extraction.json_records import read_json
from ..extraction.prompts import GraphPrompts
from ..extraction.record_reader import RecordReader
from ..records import ParseResult
from .json_schema import FORMS, response_format
from .ontology import Schema
from .prompts import RECORDS_READ
from .structured import StructuredChoice

Record = tuple[str, ...]


class JsonGleaningLoop(GleaningLoop):
    def __init__(self, llm: PassLLM, prompts: GraphPrompts, max_gleanings: int, check: LoopCheck, schema: Schema,
                 choice: StructuredChoice, **kw: Any) -> None:
        super().__init__(llm, prompts, max_gleanings, check, **kw)
        self.forms = {form: {"response_format": response_format(schema, form)} for form in FORMS}
        self.choice = choice
        self._relations = schema.is_relation if schema.typed_relationships else None

    def request_params(self) -> dict[str, Any]:
        return self.forms[self.choice.form]  # the form of response_format the run takes (`StructuredChoice`)

    async def _ask(self, messages: list[dict[str, str]], tally: Tally) -> ChatResult:
        return await self.choice.request(lambda: GleaningLoop._ask(self, messages, tally))

    async def _answer(self, messages: list[dict[str, str]], tally: Tally, passage: str) -> _Answer:
        result = await self._ask(messages, tally)
        answer = _Answer(result.text, result.truncated, [{"role": "assistant", "content": result.text}], [],
                         parts=[(result.text, result.truncated)])
        read = self._read(result.text, result.truncated)
        tokens = result.usage.completion_tokens
        while result.truncated:
            answer.ending = self._stop(answer, tokens, passage)
            if answer.ending != "done":
                return answer
            ask = {"role": "user", "content": render(self.prompts.resume_prompt, **{RECORDS_READ: records_read(read)})}
            more = await self._rest(messages, answer, ask, tally)
            if more is None:
                return answer
            result = more
            rest = self._read(result.text, result.truncated)
            tally.continued += 1
            answer.parts.append((result.text, result.truncated))  # type: ignore[union-attr]
            answer.text, answer.truncated = result.text, result.truncated
            answer.turns += [ask, {"role": "assistant", "content": result.text}]
            tokens += result.usage.completion_tokens
            if result.truncated and not _new(rest, read):
                answer.ending = "stuck"
                return answer
            read.extend(rest)
        return answer

    def _read(self, text: str, truncated: bool) -> ParseResult:
        result = ParseResult()
        read_json(text, RecordReader(result, None, 0, frozenset(), self._relations), truncated)
        return result

    def _looping(self, text: str) -> bool:
        parsed = self._read(without_reasoning(text), True)
        return (parsed.repeated > 2 and 4 * parsed.repeated >= parsed.records) or is_loop(text)

    def _records(self, text: str, cut: bool) -> int:
        return self._read(text, cut).records


def records_read(result: ParseResult) -> str:
    """The records of a cut answer already read, as the request for the rest names them."""
    lines = [f"- entity {e.name}" for e in result.entities]
    lines += [f"- relationship {r.source_name} -> {r.target_name}" + (f" ({r.relation})" if r.relation else "")
              for r in result.relationships]
    return "\n".join(lines) or "(none)"


def _keys(result: ParseResult) -> set[Record]:
    return ({("entity", e.name.casefold()) for e in result.entities}
            | {("relationship", r.source_name.casefold(), r.target_name.casefold()) for r in result.relationships})


def _new(rest: ParseResult, read: ParseResult) -> bool:
    """Whether the rest of a cut answer holds a record not read before."""
    return bool(_keys(rest) - _keys(read))
