"""The starter ``graphglean.yaml`` for what the probe found: OpenAI (the key read from the environment when a
run starts, never written), a local OpenAI-compatible server with its model filled in, or the offline method.
Short and commented; ``config.example.yaml`` explains every other key."""

from __future__ import annotations

import json

import attrs

from ..llm.credentials import redact
from .probe import CHAT_MODEL, EMBEDDING_MODEL, KEY_ENV, MODEL_ENV, SERVER_KEY_ENV, URL_ENV, Found, Server

CONFIG_NAME, INPUT_DIR, OUTPUT_DIR = "graphglean.yaml", "input", "output"
NLP_EXTRA = "pip install 'graphglean[nlp]'"  # spaCy and its small English model
OPENAI_MODEL, OPENAI_EMBEDDING = CHAT_MODEL, EMBEDDING_MODEL


@attrs.frozen
class Choice:
    """The endpoint the starter config uses: ``openai``, ``server`` or ``offline``."""

    kind: str
    server: Server | None = None  # with kind openai: the service at OPENAI_BASE_URL, when it answered
    base_url: str = ""  # with kind openai: OPENAI_BASE_URL, a service other than OpenAI's own
    spacy: bool = True  # with kind offline: spaCy's named entities (False: its rules, spaCy not installed)

    @property
    def model(self) -> str:
        """The chat model the config names (a server's without one: none, it reads GRAPHGLEAN_MODEL)."""
        if self.server is not None and (self.kind == "server" or self.server.chat_model):
            return self.server.chat_model
        return OPENAI_MODEL if self.kind == "openai" else ""

    def uses(self) -> str:
        """The endpoint in a few words."""
        if self.kind == "openai":
            return f"{redact(self.base_url) if self.base_url else 'OpenAI'} with model {self.model}"
        if self.kind == "server" and self.server is not None:
            return self.server.describe()
        return "the offline method"

    def said(self) -> str:
        """What the config uses, for the line ``graphglean init`` prints."""
        if self.kind == "openai" and self.base_url:
            return (f"{KEY_ENV} and {URL_ENV} are set: the config uses {self.uses()} (llm.base_url reads "
                    f"{URL_ENV} when a run starts; the key stays in the environment): {self._service_said()}")
        if self.kind == "openai":
            return (f"{KEY_ENV} is set: the config uses OpenAI ({OPENAI_MODEL}; {URL_ENV}, when set, points it at "
                    "an OpenAI-compatible service); the key stays in the environment")
        if self.kind == "server":
            assert self.server is not None
            if self.server.needs_key:
                return f"found {self.server.describe()}: the config uses it; {key_advice(self.server)}"
            return f"found {self.server.describe()}: the config uses it with model {self.server.chat_model}"
        if self.spacy:
            return "the config uses the offline method (spaCy's named entities, no LLM call)"
        return ("the config uses the offline method (no LLM call) with its rules, capitalized phrases: spaCy or its "
                f"English model is not installed; for typed named entities: {NLP_EXTRA}")

    def _service_said(self) -> str:
        service = self.server
        if service is not None and service.chat_model:
            count = len(service.models)
            return (f"its /v1/models lists {count} model{'s' if count != 1 else ''}; set llm.model to another "
                    "it serves to change it")
        if service is not None and service.needs_key:
            return (f"its /v1/models refused the key in {KEY_ENV} (HTTP {service.locked}): check the key, and "
                    "set llm.model to a model that service serves")
        if service is not None and service.models:
            return (f"its /v1/models lists {len(service.models)} model{'s' if len(service.models) != 1 else ''}, no "
                    "chat model among them: set llm.model to a chat model that service serves")
        return "it listed no model at /v1/models: set llm.model to a model that service serves"


COMMENT_AT = 34  # the column comments start at


def _c(code: str, comment: str) -> str:
    """A line of YAML with its comment at `COMMENT_AT`."""
    return f"{code.ljust(COMMENT_AT - 1)} # {comment}"


def choose(found: Found) -> Choice:
    if found.openai_key:
        return Choice("openai", found.service if found.openai_base_url else None, found.openai_base_url)
    if found.usable or found.locked:
        return Choice("server", (found.usable or found.locked)[0])
    return Choice("offline", spacy=found.spacy)


def key_advice(server: Server) -> str:
    """What to set for a server that asks for an API key (the config's llm.api_key reads the variable)."""
    if server.models:
        return f"llm.api_key reads {SERVER_KEY_ENV} (which it took), and the model is {server.chat_model}"
    check = f"check the key in {SERVER_KEY_ENV}; " if server.key_tried else ""
    return (f"{check}set {SERVER_KEY_ENV} to the key it was started with (vLLM --api-key; llm.api_key reads it) "
            f"and {MODEL_ENV} to a model it serves (llm.model reads it), or set {SERVER_KEY_ENV} and run "
            "graphglean init again to fill the model in")


def _llm_openai(choice: Choice) -> list[str]:
    model, embedding = f"  model: {OPENAI_MODEL}", f"  embedding_model: {OPENAI_EMBEDDING}"
    listed = choice.server is not None and bool(choice.server.chat_model)
    if listed:
        assert choice.server is not None
        model = _c(f"  model: {_quoted(choice.model)}", f"listed by the service at {URL_ENV}")
        embedding = _c(f"  embedding_model: {_quoted(choice.server.embedding_model)}", "and an embedding model "
                       "it lists") if choice.server.embedding_model else _c(embedding, "it lists none: set one "
                                                                                  "it serves for embeddings")
    elif choice.base_url:
        model = _c(model, f"set to a model the service at {URL_ENV} serves")
        embedding = _c(embedding, "and to an embedding model it serves")
    return ["llm:",
            _c(f"  base_url: ${{{URL_ENV}:-}}", "read from the environment when a run starts; empty = OpenAI"),
            _c(f"  api_key: ${{{KEY_ENV}}}", "read from the environment when a run starts; never written anywhere"),
            model, embedding]


def _llm_server(server: Server) -> list[str]:
    key = _c(f"  api_key: ${{{SERVER_KEY_ENV}}}", "the server asks for its key (vLLM --api-key); never written") \
        if server.needs_key else _c("  # api_key: ${MY_SERVER_KEY}", "if the server asks for a key (vLLM --api-key)")
    model = f"  model: {_quoted(server.chat_model)}" if server.chat_model else \
        _c(f"  model: ${{{MODEL_ENV}}}", "a model it serves (its /v1/models lists them, given the key)")
    lines = ["llm:", _c(f"  base_url: {server.base_url}", f"{server.kind}, found by graphglean init"), key, model]
    if server.embedding_model:
        lines.append(f"  embedding_model: {_quoted(server.embedding_model)}")
    return lines


def _llm_offline(choice: Choice) -> list[str]:
    how = ["       # Offline: spaCy's named entities (spaCy and its English model are installed)." if choice.spacy
           else f"       # Offline: rules find capitalized phrases (no spaCy); {NLP_EXTRA} for named entities."]
    return ["llm:   # no endpoint was found: the graph is built offline. To use an LLM, set OPENAI_API_KEY, or",
            "       # GRAPHGLEAN_BASE_URL and GRAPHGLEAN_MODEL for a local OpenAI-compatible server.", *how,
            _c("  base_url: ${GRAPHGLEAN_BASE_URL:-}", "e.g. http://127.0.0.1:8000/v1; empty = OpenAI"),
            f"  api_key: ${{{KEY_ENV}:-}}",
            f"  model: ${{GRAPHGLEAN_MODEL:-{OPENAI_MODEL}}}"]


def _quoted(text: str) -> str:
    """A model id as a YAML scalar that reads back as the same text (``llama3.1:8b``, ``null``, ``7b``): double
    quoted, JSON's escapes being YAML's."""
    return json.dumps(text, ensure_ascii=False)


def _others(found: Found, chosen: Server | None) -> list[str]:
    others = [s for s in found.servers if s is not chosen]
    if not others:
        return []
    lines = ["# Also found (to use one, set llm.base_url and llm.model to its URL and a model it serves):"]
    return lines + [f"#   {s.describe()}" for s in others]


def _graph(choice: Choice) -> list[str]:
    llm = choice.kind != "offline"
    lines = ["graph:",
             "  method: llm" if llm else _c("  method: auto", "the LLM once an endpoint is set; offline until then"),
             _c("  max_gleanings: 1", "extra rounds asking the model for entities it missed"),
             "  entity_types: [organization, person, geo, event]"]
    server = choice.server
    if server is not None and (choice.kind == "server" or server.models) and not server.embedding_model:
        lines += ["  resolve:",
                  _c("    embeddings: false", "the server lists no embedding model: names and rules merge entities")]
    if llm:
        lines += [_c("  communities:", "for graphglean query --method global: one report call per"),
                  _c("    enabled: true", "community of 3+ entities (reused while it is unchanged)")]
    else:
        lines += ["  communities:",
                  _c("    enabled: false", "reports need an LLM; turn on with one for query --method global")]
    return lines


def starter_yaml(found: Found, choice: Choice) -> str:
    """The text of the starter ``graphglean.yaml``."""
    llm = {"openai": _llm_openai, "offline": _llm_offline}.get(choice.kind)
    head = ["# graphglean.yaml, written by graphglean init. Relative paths are relative to this file.",
            "#   graphglean run graphglean.yaml --dry-run      # the calls, tokens and cost, without calling",
            "#   graphglean run graphglean.yaml                # the graph and the files in output/",
            "#   graphglean query output \"Who is Scrooge?\"     # ask the graph (docs/query.md)",
            "# Every other key, with its default, is in config.example.yaml of graphglean's source.",
            ""]
    body = llm(choice) if llm is not None else _llm_server(choice.server)  # type: ignore[arg-type]
    body += _others(found, choice.server)
    body += ["",
             "input:",
             _c(f"  path: {INPUT_DIR}/", "a file, a folder (read recursively), JSONL, LoCoMo, or - for stdin"),
             "",
             "output:",
             _c(f"  dir: {OUTPUT_DIR}", "the graph's files, report.json, the run store; one run at a time"),
             _c("  formats: [graphml, json, jsonl, html, neo4j]", "also parquet, graphrag, lightrag (docs/peers.md)"),
             "",
             *_graph(choice),
             "",
             "# The other passes, off here (each has its docs page):",
             _c("summary: {enabled: false}", "document summaries at a chosen detail (docs/summaries.md)"),
             _c("episodic: {enabled: false}", "gists and facts of each chunk (docs/episodic.md)"),
             _c("enrich: {enabled: false}", "chat messages: intent, entities, embeddings (docs/enrichment.md)"),
             ""]
    return "\n".join(head + body)
