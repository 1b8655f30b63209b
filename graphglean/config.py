"""The configuration: one attrs class tree, loaded from YAML with ``safe_load`` and checked key by key.

Every field carries its documentation and its check in ``metadata``, so the loader, the error messages and
``config.example.yaml`` all read from one place. Errors name the file, line and dotted key path:
``config.yaml:12: llm.max_concurrency: expected a positive integer, got -3``.
"""

from __future__ import annotations

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


def setting(default: Any, doc: str, check: Check | None = None) -> Any:
    """A configuration field with its documentation and an optional range check."""
    if isinstance(default, (list, dict)):
        factory = (lambda d=default: type(d)(d))
        return attrs.field(factory=factory, metadata={"doc": doc, "check": check})
    return attrs.field(default=default, metadata={"doc": doc, "check": check})


def section(cls: type, doc: str) -> Any:
    return attrs.field(factory=cls, metadata={"doc": doc, "check": None})


def positive(v: Any) -> str | None:
    return None if v > 0 else "a positive"


def non_negative(v: Any) -> str | None:
    return None if v >= 0 else "a non-negative"


def unit_interval(v: Any) -> str | None:
    return None if 0.0 <= v <= 1.0 else "a number in [0, 1], i.e. a"


@attrs.define
class CacheConfig:
    mode: Literal["off", "read", "write", "readwrite"] = setting(
        "readwrite", "off | read | write | readwrite: whether responses are read from and written to the cache")
    path: str = setting(".graphglean/cache.sqlite", "SQLite file of the response cache")


@attrs.define
class AzureConfig:
    deployment: str = setting("", "Azure deployment name (defaults to llm.model)")
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
    path: str = setting("examples/", "a file, a folder (read recursively, sorted) or - for stdin")
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
class GraphConfig:
    enabled: bool = setting(True, "build the entity/relationship graph")
    method: Literal["auto", "llm", "nlp"] = setting(
        "auto", "llm | nlp (offline noun phrases + co-occurrence) | auto (llm when an endpoint is configured)")
    max_gleanings: int = setting(1, "extra rounds asking for missed entities", non_negative)
    entity_types: list[str] = setting(["organization", "person", "geo", "event"], "entity types to extract")
    language: str = setting("English", "language of the descriptions")
    tuple_delimiter: str = setting("<|>", "separates the fields of a record")
    record_delimiter: str = setting("##", "separates records")
    completion_delimiter: str = setting("<|COMPLETE|>", "ends the model's answer")
    examples: str = setting("default", "default | none | path to a file of few-shot examples")
    directed: bool = setting(False, "keep relationship direction (one edge per ordered pair)")
    drop_ungrounded: bool = setting(False, "drop nodes whose name occurs in none of their chunks")
    description_max_tokens: int = setting(
        500, "joined descriptions longer than this are summarized by the LLM", positive)


@attrs.define
class EpisodicConfig:
    enabled: bool = setting(False, "extract gists and facts per chunk")
    dataset: str = setting("locomo", "picks templates: locomo* -> *_locomo, wikipedia-style names -> *_wikipedia")
    templates: str = setting("", "folder whose templates override the shipped ones")


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
    entity_backend: Literal["llm", "spacy"] = setting("llm", "llm | spacy (needs the [spacy] extra and a model)")


@attrs.define
class OutputConfig:
    dir: str = setting("output", "folder for outputs and the run store")


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
        True, "ray: also write graph.graphml and graph.json of the whole graph; false = only the JSONL tables")


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
    prices: dict = setting({}, "USD per 1M tokens by model, e.g. {my-model: {input: 0.2, output: 0.8}}")
    fail_fast: bool = setting(False, "stop the run at the first item that fails after retries")


_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}]*))?\}")


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


class _Source:
    """Line numbers of each key path in the YAML file, for messages."""

    def __init__(self, filename: str, node: yaml.Node | None) -> None:
        self.filename = filename
        self.lines: dict[tuple[str, ...], int] = {}
        if node is not None:
            self._walk(node, ())

    def _walk(self, node: yaml.Node, path: tuple[str, ...]) -> None:
        self.lines[path] = node.start_mark.line + 1
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                sub = path + (str(key.value),)
                self.lines[sub] = key.start_mark.line + 1
                self._walk(value, sub)
                self.lines[sub] = key.start_mark.line + 1

    def where(self, path: tuple[str, ...]) -> str:
        while path and path not in self.lines:
            path = path[:-1]
        return f"{self.filename}:{self.lines.get(path, 1)}"

    def error(self, path: tuple[str, ...], message: str) -> ConfigError:
        key = ".".join(path) or "(top level)"
        return ConfigError(f"{self.where(path)}: {key}: {message}")


def _describe(value: Any) -> str:
    if value is None:
        return "nothing (null)"
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, (dict, list)):
        return f"a {'mapping' if isinstance(value, dict) else 'list'}"
    return repr(value)


def _coerce(tp: Any, value: Any, path: tuple[str, ...], src: _Source) -> Any:
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        inner = [a for a in args if a is not type(None)]
        return _coerce(inner[0], value, path, src)
    if origin is Literal:
        if value not in args:
            raise src.error(path, f"expected one of {', '.join(map(str, args))}, got {_describe(value)}")
        return value
    if attrs.has(tp):
        return _build(tp, value, path, src)
    if tp is bool:
        if not isinstance(value, bool):
            raise src.error(path, f"expected true or false, got {_describe(value)}")
        return value
    if tp is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise src.error(path, f"expected an integer, got {_describe(value)}")
        return value
    if tp is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise src.error(path, f"expected a number, got {_describe(value)}")
        return float(value)
    if tp is str:
        if value is None:
            return ""
        if not isinstance(value, (str, int, float)) or isinstance(value, bool):
            raise src.error(path, f"expected a string, got {_describe(value)}")
        return str(value)
    if origin is list or tp is list:
        if not isinstance(value, list):
            raise src.error(path, f"expected a list, got {_describe(value)}")
        item = args[0] if args else Any
        return [_coerce(item, v, path + (str(i),), src) if item is not Any else v for i, v in enumerate(value)]
    if tp is dict or origin is dict:
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise src.error(path, f"expected a mapping, got {_describe(value)}")
        return value
    return value


def _build(cls: type, data: Any, path: tuple[str, ...], src: _Source) -> Any:
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise src.error(path, f"expected a mapping, got {_describe(data)}")
    fields = {f.name: f for f in attrs.fields(cls)}
    kwargs = {}
    for key, value in data.items():
        sub = path + (str(key),)
        if key not in fields:
            near = ", ".join(sorted(fields))
            raise src.error(sub, f"unknown key (known keys here: {near})")
        field = fields[key]
        if isinstance(value, str) and attrs.has(field.type) is False:
            value = _interpolated(value, sub, src)
        coerced = _coerce(field.type, value, sub, src)
        check = field.metadata.get("check")
        if check is not None and coerced is not None:
            article = check(coerced)
            if article is not None:
                raise src.error(sub, f"expected {article} {_kind(field.type)}, got {_describe(coerced)}")
        kwargs[key] = coerced
    return cls(**kwargs)


def _kind(tp: Any) -> str:
    return {int: "integer", float: "number", dict: "mapping of integer token ids"}.get(tp, "value")


def _interpolated(value: str, path: tuple[str, ...], src: _Source) -> Any:
    """Interpolate a scalar; a value made entirely of a variable takes the type YAML gives the result."""
    if "${" not in value:
        return value
    out = interpolate(value, f"{src.where(path)}: {'.'.join(path)}")
    if _VAR.fullmatch(value.strip()) and out.strip():
        try:
            parsed = yaml.safe_load(out)
        except yaml.YAMLError:
            return out
        if isinstance(parsed, (int, float, bool)):
            return parsed
    return out


def _resolve_types() -> None:
    for cls in (CacheConfig, AzureConfig, LLMConfig, InputConfig, ChunkingConfig, GraphConfig, EpisodicConfig,
                SummaryConfig, EnrichConfig, OutputConfig, RuntimeConfig, PriceConfig, Config):
        attrs.resolve_types(cls, globals(), locals())


_resolve_types()


def _cross_checks(cfg: Config, src: _Source) -> None:
    if cfg.chunking.overlap >= cfg.chunking.size:
        raise src.error(("chunking", "overlap"),
                        f"must be less than chunking.size ({cfg.chunking.size}), got {cfg.chunking.overlap}")
    if cfg.runtime.engine == "ray":
        _ray_checks(cfg, src)
    for model, price in cfg.prices.items():
        cfg.prices[model] = _build(PriceConfig, price, ("prices", str(model)), src)


def _ray_checks(cfg: Config, src: _Source) -> None:
    import importlib.util

    if importlib.util.find_spec("ray") is None:  # found without importing it: engine local never loads Ray
        raise src.error(("runtime", "engine"), "ray is not installed; install the extra: pip install 'graphglean[ray]'")
    if cfg.input.path == "-":
        raise src.error(("input", "path"), "engine ray reads files (shards are planned from them), not stdin")


def load_config_text(text: str, filename: str = "<config>") -> Config:
    """Parse and check a YAML configuration given as text."""
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        line = mark.line + 1 if mark else 1
        raise ConfigError(f"{filename}:{line}: YAML syntax error: {e.problem or e.context}") from None
    except yaml.YAMLError as e:
        raise ConfigError(f"{filename}: YAML error: {e}") from None
    src = _Source(filename, node)
    cfg = _build(Config, data, (), src)
    _cross_checks(cfg, src)
    return cfg


def load_config(path: str | os.PathLike[str]) -> Config:
    """Load a configuration file; every problem is a `ConfigError` naming file, line and key."""
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
    return load_config_text(text, str(p))


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
