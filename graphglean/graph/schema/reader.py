"""`SchemaParser`: the records of an answer under a schema, whichever format it came in (JSON or the tuple format,
with its relation field), held to the schema chunk by chunk (`conform_records`)."""

from __future__ import annotations

from ...core.config import GraphConfig
from ..extraction.parser import RecordParser
from ..extraction.record_reader import RecordReader
from ..records import ParseResult, Provenance
from .conformance import conform_records
from .json_answers import is_json_answer, read_json_answer
from .ontology import Schema


class SchemaParser(RecordParser):
    def __init__(self, g: GraphConfig, schema: Schema) -> None:
        super().__init__(g.tuple_delimiter, g.record_delimiter, g.completion_delimiter, schema.types,
                         relations=schema.is_relation if schema.typed_relationships else None)
        self.schema, self.directed = schema, g.directed
        self._schema_types = frozenset(t.lower() for t in schema.types)

    def parse(self, text: str, source: Provenance | None = None, first_position: int = 0,
              truncated: bool = False) -> ParseResult:
        """`RecordParser.parse`, and a JSON answer read as the structured format; JSON that no repair makes
        readable is read as the tuple format is (which keeps what it cannot read)."""
        if is_json_answer(text):
            result = ParseResult()
            reader = RecordReader(result, source, first_position, self._schema_types,
                                  self.schema.is_relation if self.schema.typed_relationships else None)
            if read_json_answer(text, reader, truncated):
                return result
            result = super().parse(text, source, first_position, truncated)
            if not result.records and not result.malformed and not truncated:
                result.malformed.append(text.strip())  # JSON nothing could read: kept, never dropped
            return result
        return super().parse(text, source, first_position, truncated)

    def conform(self, result: ParseResult, chunk_id: str) -> None:
        """A chunk's records held to the schema (after their names were checked against its text)."""
        conform_records(result, self.schema, chunk_id, self.directed)
