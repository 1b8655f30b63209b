"""The YAML loader of the configuration: ``safe_load``-style parsing that keeps scalars as written, ``${VAR}``
interpolation, and a key-by-key check against the schema in `graphglean.core.config`. Errors name the file, line
and dotted key path: ``config.yaml:12: llm.max_concurrency: expected a positive integer, got -3``."""

from __future__ import annotations

import difflib
import os
import re
import types
import typing
from pathlib import Path
from typing import Any, Literal

import attrs
import yaml

from .config import NAME_OR_PATH, Config, missing_extra
from .errors import ConfigError

_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}]*))?\}")
_NULL = ("", "~", "null", "Null", "NULL")
_BOOL = {"true": True, "yes": True, "on": True, "false": False, "no": False, "off": False}
_JSON_BOOL = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False}
_JSON_NUMBER = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_DECIMAL = re.compile(r"[-+]?[0-9][0-9_]*")
_PREFIXED = re.compile(r"[-+]?0([xX][0-9a-fA-F_]+|[oO][0-7_]+|[bB][01_]+)")
_FLOAT = re.compile(r"[-+]?([0-9][0-9_]*(\.[0-9_]*)?|\.[0-9][0-9_]*)([eE][-+]?[0-9]+)?")
_VAR_ON_A_LINE = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*(:-[^}\n]*)?\}")
_MASK, _MASK_DIGIT, _MASK_PAD = "\ue000", 0xE010, "\ue001"
_MASKED = re.compile("\ue000([\ue010-\ue019]+)\ue001*")
_STR_TAG, _NULL_TAG, _MERGE_TAG = ("tag:yaml.org,2002:str", "tag:yaml.org,2002:null", "tag:yaml.org,2002:merge")


def interpolate(text: str, where: str) -> str:
    """Replace ``${VAR}`` and ``${VAR:-default}`` from the environment; an unset plain ``${VAR}`` is an error."""

    def sub(m: re.Match[str]) -> str:
        name, has_default, default = m.group(1), m.group(2), m.group(3)
        value = os.environ.get(name)
        if value is None or (has_default and value == ""):
            if has_default is None:
                raise ConfigError(f"{where}: environment variable {name} is not set (use ${{{name}:-default}})")
            return default or ""
        return value

    return _VAR.sub(sub, text)


def _mask(text: str) -> tuple[str, list[str]]:
    """``text`` with each ``${...}`` replaced by private-use characters of the same length, so that YAML's flow
    indicators inside it (``{top_p: ${TOP_P:-0.9}}``) parse as part of a scalar; and the replaced texts."""
    masked: list[str] = []

    def sub(m: re.Match[str]) -> str:
        code = _MASK + "".join(chr(_MASK_DIGIT + int(d)) for d in str(len(masked)))
        if len(code) > len(m.group(0)):
            return m.group(0)
        masked.append(m.group(0))
        return code + _MASK_PAD * (len(m.group(0)) - len(code))

    return _VAR_ON_A_LINE.sub(sub, text), masked


@attrs.frozen
class _Scalar:
    """A scalar as written, after interpolation. ``typed``: plain, so its text may be read as a number, boolean
    or null; otherwise quoted, a string. ``variable``: all of it was one ``${VAR}``. ``text`` None = null."""

    text: str | None
    typed: bool
    variable: bool = False

    def json_value(self) -> Any:
        """Read as JSON reads a scalar: null, true/false, a number, else the text as written."""
        text = self.text
        if text is None or not self.typed:
            return text
        if text in _JSON_BOOL:
            return _JSON_BOOL[text]
        if _JSON_NUMBER.fullmatch(text):
            return float(text) if any(c in text for c in ".eE") else int(text)
        return text


class _Source:
    """The YAML text being loaded: line numbers of key paths, scalars as written, and the folder that
    relative paths are relative to."""

    def __init__(self, filename: str, node: yaml.Node | None, text: str = "", base_dir: str = "",
                 masked: list[str] | None = None) -> None:
        self.filename, self.text, self.base_dir, self.masked = filename, text, base_dir, masked or []
        self.lines: dict[tuple[str, ...], int] = {}
        self.texts: dict[tuple[str, ...], str] = {}  # scalars as written, ${VAR} and all
        self.resolver = yaml.resolver.Resolver()
        if node is not None:
            self._walk(node, ())

    def _walk(self, node: yaml.Node, path: tuple[str, ...]) -> None:
        self.lines.setdefault(path, node.start_mark.line + 1)
        if isinstance(node, yaml.ScalarNode):
            self.texts.setdefault(path, self.unmask(str(node.value)))
        elif isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                sub = path + (self.unmask(str(key.value)),)
                self.lines.setdefault(sub, key.start_mark.line + 1)
                self._walk(value, sub)
        elif isinstance(node, yaml.SequenceNode):
            for i, item in enumerate(node.value):
                self._walk(item, path + (str(i),))

    def where(self, path: tuple[str, ...]) -> str:
        while path and path not in self.lines:
            path = path[:-1]
        return f"{self.filename}:{self.lines.get(path, 1)}"

    def error(self, path: tuple[str, ...], message: str) -> ConfigError:
        key = ".".join(p if p.isprintable() else repr(p) for p in path) or "(top level)"
        return ConfigError(" ".join(f"{self.where(path)}: {key}: {message}".splitlines()))

    def unmask(self, text: str) -> str:
        return _MASKED.sub(lambda m: self.masked[int("".join(str(ord(c) - _MASK_DIGIT) for c in m.group(1)))], text)

    def scalar(self, node: yaml.ScalarNode, path: tuple[str, ...]) -> _Scalar:
        """The scalar's own text, never YAML 1.1's reading of it (``no``, ``0613``, ``2024-06-01``)."""
        raw, typed = node.value, node.style is None
        if typed and node.tag != self.resolver.resolve(yaml.ScalarNode, raw, (True, False)):
            if node.tag == _NULL_TAG:  # an explicit tag: !!str keeps the text, !!null is null
                return _Scalar(None, True)
            typed = node.tag != _STR_TAG
        if typed and raw == "":
            self._refuse_value_like_comment(node, path)
        text = raw = self.unmask(raw)
        variable = _VAR.fullmatch(raw.strip()) is not None
        if "${" in raw:
            text = interpolate(raw, f"{self.where(path)}: {'.'.join(path)}")
        if (typed and text.strip() in _NULL) or (variable and not text.strip()):  # an empty variable is unset
            return _Scalar(None, True, variable)
        return _Scalar(text, typed, variable)

    def _refuse_value_like_comment(self, node: yaml.Node, path: tuple[str, ...]) -> None:
        """``key: ##`` is an empty value and a comment; a comment that is not ``# words`` was meant as the value."""
        rest = self.text[node.start_mark.index:].split("\n", 1)[0].strip()
        if rest.startswith("#") and (len(rest) == 1 or not rest[1].isspace()):
            word = rest.split()[0]
            where = "- " if path[-1].isdigit() else f"{path[-1]}: "  # a list item or a key
            raise self.error(path, f"the value is empty because {word} starts a YAML comment; to mean the text "
                             f"{word}, quote it: {where}\"{word}\"")

    def pairs(self, node: yaml.MappingNode, path: tuple[str, ...]) -> list[tuple[str, yaml.Node]]:
        """The mapping's (key text, value node) pairs, ``<<`` merges applied; a repeated key is an error."""
        seen: dict[str, int] = {}
        for key, _ in node.value:
            if key.tag == _MERGE_TAG:
                continue
            if not isinstance(key, yaml.ScalarNode):
                raise self.error(path, f"line {key.start_mark.line + 1}: a key must be plain text")
            name = self.unmask(key.value)
            if name in seen:
                raise ConfigError(f"{self.filename}:{key.start_mark.line + 1}: {'.'.join(path + (name,))}: "
                                  f"repeated key (first on line {seen[name]}); one of them would be ignored")
            seen[name] = key.start_mark.line + 1
        if len(seen) < len(node.value):
            try:
                yaml.constructor.SafeConstructor().flatten_mapping(node)
            except yaml.MarkedYAMLError as e:
                raise self.error(path, f"cannot merge (<<): {e.problem}") from None
        return list(dict((self.unmask(str(k.value)), v) for k, v in node.value).items())  # explicit keys win

    def path(self, value: str, keywords: tuple[str, ...]) -> str:
        """A path written in the file, relative to the file's folder; ``~`` is the home folder."""
        if not value or value in keywords:
            return value
        if NAME_OR_PATH in keywords and not (os.sep in value or "/" in value or value.startswith(("~", "."))):
            return value  # a package name, e.g. a spaCy pipeline, not a relative path
        expanded = os.path.expanduser(value)
        return expanded if os.path.isabs(expanded) else os.path.join(self.base_dir, expanded)


def _describe(value: Any) -> str:
    if value is None:
        return "nothing (null)"
    if isinstance(value, yaml.MappingNode):
        return "a mapping"
    if isinstance(value, yaml.SequenceNode):
        return "a list"
    if isinstance(value, _Scalar):
        return _describe(value.json_value())
    if isinstance(value, (dict, list)):
        return f"a {'mapping' if isinstance(value, dict) else 'list'}"
    return repr(value)


def _is_null(node: yaml.Node, path: tuple[str, ...], src: _Source) -> bool:
    return isinstance(node, yaml.ScalarNode) and src.scalar(node, path).text is None


def _coerce(tp: Any, node: yaml.Node, path: tuple[str, ...], src: _Source) -> Any:
    """The value of ``node`` as type ``tp``; strings are the text as written, whatever YAML 1.1 makes of it."""
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        if type(None) in args and _is_null(node, path, src):
            return None
        return _coerce(next(a for a in args if a is not type(None)), node, path, src)
    if attrs.has(tp):
        return _build(tp, node, path, src)
    if origin is list or tp is list:
        if not isinstance(node, yaml.SequenceNode):
            raise src.error(path, f"expected a list, got {_describe_node(node, path, src)}")
        item = args[0] if args else Any
        return [_coerce(item, v, path + (str(i),), src) for i, v in enumerate(node.value)]
    if origin is dict or tp is dict:
        if _is_null(node, path, src):
            return {}
        if not isinstance(node, yaml.MappingNode):
            raise src.error(path, f"expected a mapping, got {_describe_node(node, path, src)}")
        item = args[1] if args else Any
        return {key: _coerce(item, v, path + (key,), src) for key, v in src.pairs(node, path)}
    if tp is Any:
        return _free(node, path, src)
    if not isinstance(node, yaml.ScalarNode):
        raise src.error(path, f"expected {_expected(tp)}, got {_describe(node)}")
    return _scalar_as(tp, src.scalar(node, path), path, src)


def _scalar_as(tp: Any, s: _Scalar, path: tuple[str, ...], src: _Source) -> Any:
    text = s.text
    if typing.get_origin(tp) is Literal:
        for choice in typing.get_args(tp):
            if text == str(choice):
                return choice
    elif tp is str:
        return "" if text is None else text
    elif text is not None and (s.typed or s.variable):  # "${RPM}" is a number where a number is wanted
        if tp is bool and text.lower() in _BOOL:
            return _BOOL[text.lower()]
        if tp in (int, float) and (number := _number(text, tp is float)) is not None:
            return tp(number)
    elif tp not in (bool, int, float):
        return s.json_value()
    raise src.error(path, f"expected {_expected(tp)}, got {_describe(s)}")


def _number(text: str, fraction: bool) -> int | float | None:
    """An integer as people write one (``1_000``, ``0613`` = 613, ``0x1F``), or with ``fraction`` a decimal."""
    digits = text.replace("_", "")
    if _DECIMAL.fullmatch(text):
        return int(digits, 10)
    if _PREFIXED.fullmatch(text):
        return int(digits, 0)
    return float(digits) if fraction and _FLOAT.fullmatch(text) else None


def _expected(tp: Any) -> str:
    if typing.get_origin(tp) is Literal:
        return f"one of {', '.join(map(str, typing.get_args(tp)))}"
    return {bool: "true or false", int: "an integer", float: "a number", str: "a string"}.get(tp, "a value")


def _describe_node(node: yaml.Node, path: tuple[str, ...], src: _Source) -> str:
    return _describe(src.scalar(node, path) if isinstance(node, yaml.ScalarNode) else node)


def _free(node: yaml.Node, path: tuple[str, ...], src: _Source) -> Any:
    """A value of free form (``extra_body``): scalars read as JSON reads them, keys as written."""
    if isinstance(node, yaml.SequenceNode):
        return [_free(v, path + (str(i),), src) for i, v in enumerate(node.value)]
    if isinstance(node, yaml.MappingNode):
        return {key: _free(v, path + (key,), src) for key, v in src.pairs(node, path)}
    return src.scalar(node, path).json_value()


def _build(cls: type, node: yaml.Node | None, path: tuple[str, ...], src: _Source) -> Any:
    if node is None or _is_null(node, path, src):
        pairs: list[tuple[str, yaml.Node]] = []
    elif isinstance(node, yaml.MappingNode):
        pairs = src.pairs(node, path)
    else:
        raise src.error(path, f"expected a mapping, got {_describe_node(node, path, src)}")
    fields = {f.name: f for f in attrs.fields(cls)}
    kwargs = {}
    for key, value in pairs:
        sub = path + (key,)
        if key not in fields:
            close = difflib.get_close_matches(str(key), fields, n=1, cutoff=0.7)  # "modle", "max_concurency"
            said = f"did you mean {close[0]}? " if close else ""
            raise src.error(sub, f"unknown key ({said}known keys here: {', '.join(sorted(fields))})")
        field = fields[key]
        coerced = _coerce(field.type, value, sub, src)
        check = field.metadata.get("check")
        if check is not None and coerced is not None:
            article = check(coerced)
            if isinstance(article, tuple):
                raise src.error(sub + article[0], article[1])
            if article is not None:
                raise src.error(sub, f"expected {article} {_kind(field.type)}, got {_describe(coerced)}")
        keywords = field.metadata.get("path")
        if keywords is not None and isinstance(coerced, str):
            coerced = src.path(coerced, keywords)
        kwargs[key] = coerced
    return cls(**kwargs)


def _kind(tp: Any) -> str:
    return {int: "integer", float: "number", dict: "mapping of integer token ids"}.get(tp, "value")


def _cross_checks(cfg: Config, src: _Source) -> None:
    if cfg.chunking.overlap >= cfg.chunking.size:
        raise src.error(("chunking", "overlap"),
                        f"must be less than chunking.size ({cfg.chunking.size}), got {cfg.chunking.overlap}")
    missing = missing_extra(cfg.output.formats)
    if missing:
        raise src.error(("output", "formats"), missing)
    if cfg.runtime.engine == "ray":
        _ray_checks(cfg, src)
    if cfg.graph.schema is not None and ("graph", "entity_types") in src.lines:
        raise src.error(("graph", "entity_types"), "graph.schema and graph.entity_types are both set: the schema's "
                        "entities are the types to extract; remove graph.entity_types")


def _ray_checks(cfg: Config, src: _Source) -> None:
    import importlib.util

    if importlib.util.find_spec("ray") is None:  # found without importing it: engine local never loads Ray
        raise src.error(("runtime", "engine"), "ray is not installed; install the extra: pip install 'graphglean[ray]'")
    if cfg.input.path == "-":
        raise src.error(("input", "path"), "engine ray reads files (shards are planned from them), not stdin")


def load_config_text(text: str, filename: str = "<config>", base_dir: str | os.PathLike[str] = "") -> Config:
    """Parse and check a YAML configuration given as text; relative paths in it are relative to ``base_dir``
    (default: the current folder)."""
    try:
        masked_text, masked = _mask(text)
        node = yaml.compose(masked_text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        line = mark.line + 1 if mark else 1
        raise ConfigError(f"{filename}:{line}: YAML syntax error: {e.problem or e.context}") from None
    except yaml.YAMLError as e:
        raise ConfigError(f"{filename}: YAML error: {e}") from None
    src = _Source(filename, node, text, os.fspath(base_dir), masked)
    cfg = _build(Config, node, (), src)
    _cross_checks(cfg, src)
    return cfg


def load_config(path: str | os.PathLike[str]) -> Config:
    """Load a configuration file; every problem is a `ConfigError` naming file, line and key. Relative paths
    in the file are relative to the file's folder."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{p}: configuration file not found") from None
    except IsADirectoryError:
        raise ConfigError(f"{p}: is a folder, not a configuration file") from None
    except UnicodeDecodeError as e:
        raise ConfigError(f"{p}: not UTF-8 text (invalid byte at offset {e.start})") from None
    except OSError as e:
        raise ConfigError(f"{p}: cannot read: {e.strerror}") from None
    return load_config_text(text, str(p), "" if p.parent == Path(".") else p.parent)


def key_location(path: str | os.PathLike[str], key: str) -> str | None:
    """``file:line`` of the dotted ``key`` in the configuration file at ``path`` (None: not there, or unreadable)."""
    src, keys = _read(path), tuple(key.split("."))
    return src.where(keys) if src is not None and keys in src.lines else None


def key_variables(path: str | os.PathLike[str], key: str) -> list[str]:
    """The environment variables the dotted ``key``'s value reads in the file at ``path`` (none: written out)."""
    text = getattr(_read(path), "texts", {}).get(tuple(key.split(".")), "")
    return list(dict.fromkeys(m[0] for m in _VAR.findall(text)))


def _read(path: str | os.PathLike[str]) -> _Source | None:
    try:
        masked_text, masked = _mask(text := Path(path).read_text(encoding="utf-8"))
        return _Source(str(path), yaml.compose(masked_text, Loader=yaml.SafeLoader), text, "", masked)
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return None


def field_docs(cls: type = Config, prefix: str = "") -> list[tuple[str, Any, str]]:
    """(dotted key, default, doc) for every leaf setting, for documentation and its test."""
    rows = []
    for f in attrs.fields(cls):
        key = f"{prefix}{f.name}"
        if attrs.has(f.type):
            rows.extend(field_docs(f.type, key + "."))
        else:
            default = f.default.factory() if isinstance(f.default, attrs.Factory) else f.default
            rows.append((key, default, f.metadata.get("doc", "")))
    return rows


