"""`Schema`: the entity types (with descriptions), the relationship patterns and the mode of ``graph.schema``, and
how a type or relation a model wrote is matched to it (case-insensitively, singular or plural: `type_key`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs
import yaml

from ...core.config import GraphConfig, schema_problem, type_key
from ...core.errors import ConfigError

Pattern = tuple[str, str, str]  # (source type, relation, target type), spelled as the schema spells them


@attrs.frozen
class Schema:
    entities: dict[str, str]  # type -> description, in the schema's order
    patterns: tuple[Pattern, ...] = ()
    mode: str = "open"  # open | flag | strict
    _types: dict[str, str] = attrs.field(init=False, eq=False, repr=False)
    _relations: dict[str, str] = attrs.field(init=False, eq=False, repr=False)
    _fits: frozenset[tuple[str, str, str]] = attrs.field(init=False, eq=False, repr=False)

    @_types.default
    def _type_keys(self) -> dict[str, str]:
        return {type_key(t): t for t in self.entities}

    @_relations.default
    def _relation_keys(self) -> dict[str, str]:
        return {type_key(r): r for _, r, _ in self.patterns}

    @_fits.default
    def _pattern_keys(self) -> frozenset[tuple[str, str, str]]:
        return frozenset((type_key(a), type_key(r), type_key(b)) for a, r, b in self.patterns)

    @classmethod
    def from_mapping(cls, value: dict[str, Any]) -> "Schema":
        """A schema from a mapping `schema_problem` found nothing wrong with."""
        entities = {str(k): str(v or "").strip() for k, v in value["entities"].items()}
        spelled = {type_key(t): t for t in entities}
        patterns = tuple((spelled[type_key(a)], r.strip(), spelled[type_key(b)])
                         for a, r, b in value.get("relationships") or [])
        return cls(entities, tuple(dict.fromkeys(patterns)), value.get("mode") or "open")

    @classmethod
    def implied(cls, entity_types: list[str]) -> "Schema":
        """The schema ``entity_types`` make (``structured_output: json_schema`` without ``graph.schema``)."""
        return cls(dict.fromkeys(dict.fromkeys(entity_types), ""))

    @property
    def types(self) -> tuple[str, ...]:
        return tuple(self.entities)

    @property
    def relations(self) -> tuple[str, ...]:
        """The relations of the patterns, each once, in their order."""
        return tuple(dict.fromkeys(r for _, r, _ in self.patterns))

    @property
    def typed_relationships(self) -> bool:
        """Whether relationships carry a relation type (the schema has patterns)."""
        return bool(self.patterns)

    def relation_keys(self) -> frozenset[str]:
        return frozenset(self._relations)

    def entity_type(self, written: str) -> str | None:
        """The schema's type a model's ``written`` type is, or None when it is none of them."""
        return self._types.get(type_key(written))

    def relation(self, written: str) -> str | None:
        return self._relations.get(type_key(written))

    def fits(self, source_type: str, relation: str, target_type: str, directed: bool) -> bool:
        """Whether a relationship of these types and relation is one of the patterns (either way round in an
        undirected graph); without patterns every relationship fits."""
        if not self.patterns:
            return True
        a, r, b = type_key(source_type), type_key(relation), type_key(target_type)
        return (a, r, b) in self._fits or (not directed and (b, r, a) in self._fits)


def schema_of(g: GraphConfig) -> Schema | None:
    """``graph.schema`` as a `Schema` (read from its file when it is a path), or None when it is not set; a
    `ConfigError` naming the key when it is not a schema, or when ``entity_types`` is set beside it."""
    value = g.schema
    if value is None:
        return None
    where = "graph.schema"
    if isinstance(value, str) and value.strip():
        where, value = value, _read(value)
    problem = schema_problem(value)
    if problem is not None:
        raise ConfigError(f"{where}: {'.'.join(problem[0]) or '(top level)'}: {problem[1]}")
    if list(g.entity_types) != GraphConfig().entity_types:
        raise ConfigError("graph.schema and graph.entity_types are both set: the schema's entities are the types "
                          "to extract; remove graph.entity_types")
    return Schema.from_mapping(value)


def asked_schema(g: GraphConfig) -> Schema | None:
    """The schema the extraction asks for: ``graph.schema``, or with ``structured_output: json_schema`` and no
    schema, the one ``entity_types`` make; None when neither."""
    schema = schema_of(g)
    if schema is None and g.structured_output == "json_schema":
        return Schema.implied(g.entity_types)
    return schema


def _read(path: str) -> Any:
    try:
        return yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except OSError as e:
        raise ConfigError(f"graph.schema: cannot read {path}: {e.strerror}") from None
    except (yaml.YAMLError, UnicodeDecodeError) as e:
        raise ConfigError(f"graph.schema: {path} is not YAML: {' '.join(str(e).split())}") from None
