"""`SchemaParser`: the records of an answer under a schema, whichever format it came in (JSON or the tuple format,
with its relation field, both read by `RecordParser`), held to the schema chunk by chunk (`conform_records`)."""

from __future__ import annotations

from ...core.config import GraphConfig
from ..extraction.json_records import looks_like_json, opens_with_json
from ..extraction.parser import RecordParser
from ..records import ParseResult, Provenance
from .conformance import conform_records
from .ontology import Schema


class SchemaParser(RecordParser):
    def __init__(self, g: GraphConfig, schema: Schema) -> None:
        super().__init__(g.tuple_delimiter, g.record_delimiter, g.completion_delimiter, schema.types,
                         relations=schema.is_relation if schema.typed_relationships else None)
        self.schema, self.directed = schema, g.directed

    def parse(self, text: str, source: Provenance | None = None, first_position: int = 0,
              truncated: bool = False) -> ParseResult:
        """`RecordParser.parse`; an answer that opens like JSON and gives nothing at all is kept as malformed
        text, never dropped."""
        result = super().parse(text, source, first_position, truncated)
        if not (result.records or result.malformed or result.cut or result.placeholders or result.repeated
                or truncated) and looks_like_json(text) and not opens_with_json(text):
            result.malformed.append(text.strip())
        return result

    def conform(self, result: ParseResult, chunk_id: str) -> None:
        """A chunk's records held to the schema (after their names were checked against its text)."""
        conform_records(result, self.schema, chunk_id, self.directed)
