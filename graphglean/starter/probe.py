"""Finding an endpoint for a new project: ``OPENAI_API_KEY`` in the environment, and OpenAI-compatible servers
answering ``GET /v1/models`` on this machine's usual ports, all probed at once with short timeouts."""

from __future__ import annotations

import re
import urllib.parse
from typing import Any, Iterable, Mapping

import attrs
import httpx
import trio

from ..core.config.fields import url_problem
from ..core.spacy_pipeline import installed
from ..llm.credentials import endpoint_key

#: the local servers' usual ports, in the order a found one is preferred
USUAL_PORTS: tuple[tuple[int, str], ...] = ((8000, "vLLM"), (11434, "Ollama"), (8080, "llama.cpp"),
                                            (1234, "LM Studio"))
HOST = "127.0.0.1"
CONNECT_S, ANSWER_S = 0.5, 1.5  # a local server accepts at once; /v1/models is a list, not a generation
SERVICE_CONNECT_S, SERVICE_ANSWER_S = 3.0, 5.0  # the service at OPENAI_BASE_URL may be across the internet
KEY_ENV, URL_ENV = "OPENAI_API_KEY", "OPENAI_BASE_URL"  # as OpenAI's own clients read them
SERVER_KEY_ENV, MODEL_ENV = "GRAPHGLEAN_API_KEY", "GRAPHGLEAN_MODEL"  # a local server's key, and its model
LOCKED = (401, 403)  # what a server started with a key (vLLM --api-key) answers a request without it
# what servers put in a model's owned_by
_OWNERS = {"vllm": "vLLM", "library": "Ollama", "ollama": "Ollama", "llamacpp": "llama.cpp",
           "organization_owner": "LM Studio", "graphglean-testing": "graphglean's test server"}
_EMBEDDING = re.compile(r"(?i)embed|(?:^|[/:_.-])(?:bge|e5|gte|minilm|all-minilm|nomic-bert)(?:[/:_.-]|$)")
# what a hosted service lists beside its chat models: speech, images, moderation, rerankers
_NOT_CHAT = re.compile(r"(?i)whisper|(?:^|[/:_.-])tts|dall-e|moderation|rerank|image|audio|transcri|realtime")
CHAT_MODEL, EMBEDDING_MODEL = "gpt-4o-mini", "text-embedding-3-small"  # OpenAI's, preferred where listed


def _preferred(models: Iterable[str], default: str) -> str:
    """``default`` (or a gateway's ``vendor/default``) where listed, else the first of ``models``; "" for none."""
    models = list(models)
    return next((m for m in models if m == default or m.endswith("/" + default)), models[0] if models else "")


@attrs.frozen
class Server:
    """An OpenAI-compatible server that answered ``/v1/models``."""

    port: int
    kind: str  # what it says it is (owned_by), else the port's usual server
    models: tuple[str, ...]
    locked: int = 0  # what it answered without a key when it asks for one (401, 403); 0: it answered
    key_tried: bool = False  # it was asked again with GRAPHGLEAN_API_KEY (no models: it refused that too)
    url: str = ""  # the service's root as OPENAI_BASE_URL gives it; empty: this machine's port

    @property
    def needs_key(self) -> bool:
        return bool(self.locked)

    @property
    def base_url(self) -> str:
        return self.url or f"http://{HOST}:{self.port}/v1"

    @property
    def chat_model(self) -> str:
        """The chat model it lists (OpenAI's default where listed, else the first; "" when it lists none)."""
        return _preferred((m for m in self.models if not _EMBEDDING.search(m) and not _NOT_CHAT.search(m)),
                          CHAT_MODEL)

    @property
    def embedding_model(self) -> str:
        return _preferred((m for m in self.models if _EMBEDDING.search(m)), EMBEDDING_MODEL)

    def describe(self) -> str:
        if self.models:
            served = f"serving {', '.join(self.models[:4])}{', ...' if len(self.models) > 4 else ''}"
        elif self.key_tried:
            served = f"port {self.port} answered {self.locked} with the key in {SERVER_KEY_ENV} too"
        elif self.locked:
            served = f"port {self.port} answered {self.locked}: it asks for an API key"
        else:
            served = "serving no model yet"
        return f"{self.kind} at {self.base_url} ({served})"


@attrs.frozen
class Found:
    """What the probe found: whether ``OPENAI_API_KEY`` is set, the servers that answered, in port order, and
    ``OPENAI_BASE_URL`` (an OpenAI-compatible service the key is for; empty: OpenAI's own), and whether spaCy
    and its English model are installed (the offline method's named entities; else its rules)."""

    openai_key: bool
    servers: tuple[Server, ...]
    ports: tuple[int, ...]
    openai_base_url: str = ""
    spacy: bool = False
    service: Server | None = None  # the service at openai_base_url, when it listed its models to the key

    @property
    def usable(self) -> tuple[Server, ...]:
        """The servers with a chat model to fill in."""
        return tuple(s for s in self.servers if s.chat_model)

    @property
    def locked(self) -> tuple[Server, ...]:
        """The servers that asked for a key and listed no model (none was given, or it was refused)."""
        return tuple(s for s in self.servers if s.needs_key and not s.models)


def usual_name(port: int) -> str:
    return dict(USUAL_PORTS).get(port, "a server")


def parse_ports(text: str) -> tuple[int, ...]:
    """``8000,11434`` as ports; `ValueError` naming what is not a port."""
    ports = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        if not part.isdigit() or not 0 < int(part) < 65536:
            raise ValueError(f"not a port number: {part!r}")
        ports.append(int(part))
    return tuple(dict.fromkeys(ports))


def _models(body: Any) -> tuple[tuple[str, ...], str] | None:
    """The model ids of a ``/v1/models`` answer and what owns the first, or None when it is not one."""
    data = body.get("data") if isinstance(body, dict) else None
    if not isinstance(data, list):
        return None
    entries = [e for e in data if isinstance(e, dict) and isinstance(e.get("id"), str) and e["id"]]
    owner = str(entries[0].get("owned_by") or "") if entries else ""
    return tuple(e["id"] for e in entries), owner


async def _probe(client: httpx.AsyncClient, port: int, key: str) -> Server | None:
    return await _listing(client, f"http://{HOST}:{port}/v1", key, Server(port, usual_name(port), ()),
                          CONNECT_S + ANSWER_S)


async def _listing(client: httpx.AsyncClient, base_url: str, key: str, server: Server, wait_s: float
                   ) -> Server | None:
    """``server`` with the models ``base_url``'s ``/models`` lists (asked with ``key``), or with the status of
    its refusal when it asks for a key; None when it gives no such list within ``wait_s``."""
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    with trio.move_on_after(wait_s):
        try:
            response = await client.get(base_url.rstrip("/") + "/models", headers=headers)
            if response.status_code in LOCKED:
                return attrs.evolve(server, locked=response.status_code, key_tried=bool(key))
            listed = _models(response.json()) if response.status_code == 200 else None
        except (httpx.HTTPError, httpx.InvalidURL, ValueError):  # (a URL that is none: see `probe_service`)
            return None
        if listed is None:
            return None
        models, owner = listed
        return attrs.evolve(server, kind=_OWNERS.get(owner.lower(), server.kind), models=models,
                            key_tried=bool(key))
    return None


async def probe_service(base_url: str, key: str) -> Server | None:
    """The service at ``OPENAI_BASE_URL`` and the models it lists to ``key`` (the key it is set for), or None
    (also when it is no URL: the config reads it when a run starts, and says so there)."""
    if not _is_url(base_url):
        return None
    port = urllib.parse.urlsplit(base_url).port or 0
    timeout = httpx.Timeout(SERVICE_ANSWER_S, connect=SERVICE_CONNECT_S)
    async with httpx.AsyncClient(timeout=timeout) as client:  # the environment's proxy, as OpenAI's clients
        return await _listing(client, base_url, key, Server(port, "the service", (), url=base_url),
                              SERVICE_CONNECT_S + SERVICE_ANSWER_S)


def _is_url(text: str) -> bool:
    return bool(text) and url_problem(text) is None


def same_server(a: str, b: str) -> bool:
    """Whether two endpoint roots name one server (`endpoint_key`: host case, a trailing slash, default ports and
    this machine's names aside)."""
    return _is_url(a) and _is_url(b) and endpoint_key(a) == endpoint_key(b)


async def _probe_all(ports: list[int], key: str) -> dict[int, Server]:
    found: dict[int, Server] = {}
    timeout = httpx.Timeout(ANSWER_S, connect=CONNECT_S)
    # trust_env off: a proxy from the environment must not stand between us and this machine's own ports
    async with httpx.AsyncClient(timeout=timeout, trust_env=False) as client:
        async def one(port: int) -> None:
            server = await _probe(client, port, key)
            if server is not None:
                found[port] = server

        async with trio.open_nursery() as nursery:
            for port in ports:
                nursery.start_soon(one, port)
    return found


async def probe_servers(ports: Iterable[int], key: str = "") -> list[Server]:
    """The servers answering ``/v1/models`` on ``ports`` of this machine, in the order of ``ports``; those that
    ask for an API key asked again with ``key`` (sent to no other)."""
    ports = list(ports)
    found = await _probe_all(ports, "")
    locked = [p for p, s in found.items() if s.needs_key]
    if key and locked:
        for port, server in (await _probe_all(locked, key)).items():
            found[port] = attrs.evolve(server, locked=found[port].locked)
    return [found[p] for p in ports if p in found]


async def find_endpoints(environ: Mapping[str, str], ports: Iterable[int] | None = None) -> Found:
    """``OPENAI_API_KEY`` (its presence, never its value), ``OPENAI_BASE_URL`` and the models it lists to that
    key, and the servers on ``ports`` (the usual ones; a server asking for a key is asked again with
    ``GRAPHGLEAN_API_KEY`` when it is set), all at once."""
    ports = tuple(ports) if ports is not None else tuple(p for p, _ in USUAL_PORTS)
    key, url = (environ.get(KEY_ENV) or "").strip(), (environ.get(URL_ENV) or "").strip()
    found: dict[str, Any] = {"servers": [], "service": None}

    async def servers() -> None:
        found["servers"] = await probe_servers(ports, (environ.get(SERVER_KEY_ENV) or "").strip())

    async def service() -> None:
        found["service"] = await probe_service(url, key)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(servers)
        if key and url:
            nursery.start_soon(service)
    local = tuple(s for s in found["servers"] if not (key and url and same_server(s.base_url, url)))
    return Found(bool(key), local, ports, url, installed(""), found["service"])
