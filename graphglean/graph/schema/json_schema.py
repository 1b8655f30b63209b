"""The JSON schema of an extraction answer, built from a `Schema` so that OpenAI's strict mode takes it: every
object closed (``additionalProperties: false``) with every field required, types and relations as enums, and
descriptions where a reader (or a guided decoder's prompt) needs them. No keyword strict mode refuses
(``minimum``, ``pattern``, ``format``)."""

from __future__ import annotations

from typing import Any

from .ontology import Schema

NAME = "graph_records"


def json_schema(schema: Schema) -> dict[str, Any]:
    """The schema of ``{"entities": [...], "relationships": [...]}``."""
    types = "; ".join(f"{t}: {d}" if d else t for t, d in schema.entities.items())
    entity = _closed({
        "name": {"type": "string", "description": "the entity's name as the passage writes it"},
        "type": {"type": "string", "enum": list(schema.types), "description": f"its type, one of: {types}"},
        "description": {"type": "string", "description": "everything the passage says about the entity"},
    })
    fields: dict[str, Any] = {
        "source": {"type": "string", "description": "the name of one of the entities"},
        "target": {"type": "string", "description": "the name of another of the entities"},
    }
    if schema.typed_relationships:
        patterns = "; ".join(f"{a} {r} {b}" for a, r, b in schema.patterns)
        fields["relation"] = {"type": "string", "enum": list(schema.relations),
                              "description": f"the relation from source to target, one of: {patterns}"}
    fields["description"] = {"type": "string", "description": "how the two are related, and why"}
    fields["strength"] = {"type": "integer", "description": "from 1 (weak) to 10 (strong)"}
    return _closed({"entities": {"type": "array", "items": entity},
                    "relationships": {"type": "array", "items": _closed(fields)}})


FORMS = ("json_schema", "json_object")


def response_format(schema: Schema, form: str = "json_schema") -> dict[str, Any]:
    """``response_format`` of a structured extraction request: OpenAI's ``json_schema`` form, or the
    ``json_object`` form with the schema beside it, which llama-cpp-python's server turns into a grammar (its
    JSON schema mode; it refuses the other form)."""
    if form == "json_object":
        return {"type": "json_object", "schema": json_schema(schema)}
    return {"type": "json_schema", "json_schema": {"name": NAME, "strict": True, "schema": json_schema(schema)}}


def _closed(properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}
