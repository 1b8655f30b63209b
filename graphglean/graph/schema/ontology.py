"""`Schema`: the entity types (with descriptions), the relationship patterns and the mode of ``graph.schema``, and
how a type or relation a model wrote is matched to it (case-insensitively, singular or plural: `type_key`)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Callable

import attrs
import yaml

from ...core.config import GraphConfig, schema_shape
from ...core.errors import ConfigError
from ...text.words import words as word_list

Pattern = tuple[str, str, str]  # (source type, relation, target type), spelled as the schema spells them
_IRREGULAR = {"people": "person", "persons": "person", "men": "man", "women": "woman", "children": "child"}


def type_key(name: str) -> str:
    """What a type or relation name is matched by: its words case-folded and joined by ``_``, the last one
    singular (``Persons``, ``PEOPLE`` and ``person`` are one type; ``works for`` is ``WORKS_FOR``)."""
    words = word_list(name.casefold())
    if not words:
        return ""
    last = words[-1]
    if last in _IRREGULAR:
        last = _IRREGULAR[last]
    elif last.endswith("ies") and len(last) > 4:
        last = last[:-3] + "y"
    elif re.search(r"(?:ss|x|ch|sh|z)es$", last):
        last = last[:-2]
    elif last.endswith("s") and not last.endswith(("ss", "us", "is")) and len(last) > 3:
        last = last[:-1]
    return "_".join([*words[:-1], last])


def schema_problem(value: Any) -> tuple[tuple[str, ...], str] | None:
    """What is wrong with a ``graph.schema`` mapping (its shape, `schema_shape`; then its names: two that are one
    type, a pattern whose types are not the schema's), as (key path inside it, what), or None."""
    problem = schema_shape(value)
    if problem is not None or isinstance(value, str):
        return problem
    seen: dict[str, str] = {}
    for name in value["entities"]:
        if type_key(str(name)) in seen:
            return ("entities", str(name)), (f"names the type {seen[type_key(str(name))]} again (types match "
                                             "case-insensitively, singular or plural)")
        seen[type_key(str(name))] = str(name)
    for i, (source, _, target) in enumerate(value.get("relationships") or []):
        for end in (source, target):
            if type_key(end) not in seen:
                return ("relationships", str(i)), f"{end} is not one of the entity types ({', '.join(seen.values())})"
    return None


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

    def is_relation(self, written: str) -> bool:
        return type_key(written) in self._relations

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
    lines: Callable[[tuple[str, ...]], str] = lambda path: "graph.schema" + "".join("." + p for p in path)
    if isinstance(value, str) and value.strip():
        value, lines = _read(value)
    problem = schema_problem(value)
    if problem is not None:
        raise ConfigError(f"{lines(problem[0])}: {problem[1]}")
    if list(g.entity_types) != GraphConfig().entity_types:
        raise ConfigError("graph.schema and graph.entity_types are both set: the schema's entities are the types "
                          "to extract; remove graph.entity_types")
    return Schema.from_mapping(value)


def schema_contents(g: GraphConfig) -> list[Any] | None:
    """What ``graph.schema`` holds, for a fingerprint: its types, patterns and mode (read from its file when it
    is a path: an edited file is another schema), None when it is not set."""
    schema = schema_of(g)
    return None if schema is None else [schema.entities, [list(p) for p in schema.patterns], schema.mode]


def asked_schema(g: GraphConfig) -> Schema | None:
    """The schema the extraction asks for: ``graph.schema``, or with ``structured_output: json_schema`` and no
    schema, the one ``entity_types`` make; None when neither."""
    schema = schema_of(g)
    if schema is None and g.structured_output == "json_schema":
        return Schema.implied(g.entity_types)
    return schema


def _read(path: str) -> tuple[Any, Callable[[tuple[str, ...]], str]]:
    """The mapping a schema file holds, and where a key path inside it is (``file:line: key``)."""
    try:
        node = yaml.compose(Path(path).read_text(encoding="utf-8"), Loader=yaml.SafeLoader)
    except OSError as e:
        raise ConfigError(f"graph.schema: cannot read {path}: {e.strerror}") from None
    except UnicodeDecodeError as e:
        raise ConfigError(f"graph.schema: {path}: not UTF-8 text (invalid byte at offset {e.start})") from None
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        line = mark.line + 1 if mark else 1
        raise ConfigError(f"{path}:{line}: YAML syntax error: {e.problem or e.context}") from None

    def where(key: tuple[str, ...]) -> str:
        found, line = node, 1
        for part in key:
            if isinstance(found, yaml.MappingNode):
                found = next((v for k, v in found.value if str(k.value) == part), None)
            elif isinstance(found, yaml.SequenceNode) and part.isdigit() and int(part) < len(found.value):
                found = found.value[int(part)]
            else:
                found = None
            if found is None:
                break
            line = found.start_mark.line + 1
        return f"{path}:{line}: {'.'.join(key) or '(top level)'}"

    return _as_written(node), where


def _as_written(node: yaml.Node | None) -> Any:
    """A YAML node's value with every scalar the text as written (``NO: Norway`` is the type NO, not false)."""
    if isinstance(node, yaml.MappingNode):
        return {str(k.value): _as_written(v) for k, v in node.value}
    if isinstance(node, yaml.SequenceNode):
        return [_as_written(v) for v in node.value]
    if node is None or (node.style is None and node.value in ("", "~", "null", "Null", "NULL")):
        return None
    return str(node.value)
