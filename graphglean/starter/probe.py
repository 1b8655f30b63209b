"""Finding an endpoint for a new project: ``OPENAI_API_KEY`` in the environment, and OpenAI-compatible servers
answering ``GET /v1/models`` on this machine's usual ports, all probed at once with short timeouts."""

from __future__ import annotations

import re
from typing import Any, Iterable, Mapping

import attrs
import httpx
import trio

from ..core.spacy_pipeline import installed

#: the local servers' usual ports, in the order a found one is preferred
USUAL_PORTS: tuple[tuple[int, str], ...] = ((8000, "vLLM"), (11434, "Ollama"), (8080, "llama.cpp"),
                                            (1234, "LM Studio"))
HOST = "127.0.0.1"
CONNECT_S, ANSWER_S = 0.5, 1.5  # a local server accepts at once; /v1/models is a list, not a generation
KEY_ENV, URL_ENV = "OPENAI_API_KEY", "OPENAI_BASE_URL"  # as OpenAI's own clients read them
SERVER_KEY_ENV, MODEL_ENV = "GRAPHGLEAN_API_KEY", "GRAPHGLEAN_MODEL"  # a local server's key, and its model
LOCKED = (401, 403)  # what a server started with a key (vLLM --api-key) answers a request without it
# what servers put in a model's owned_by
_OWNERS = {"vllm": "vLLM", "library": "Ollama", "ollama": "Ollama", "llamacpp": "llama.cpp",
           "organization_owner": "LM Studio", "graphglean-testing": "graphglean's test server"}
_EMBEDDING = re.compile(r"(?i)embed|(?:^|[/:_.-])(?:bge|e5|gte|minilm|all-minilm|nomic-bert)(?:[/:_.-]|$)")


@attrs.frozen
class Server:
    """An OpenAI-compatible server that answered ``/v1/models``."""

    port: int
    kind: str  # what it says it is (owned_by), else the port's usual server
    models: tuple[str, ...]
    locked: int = 0  # what it answered without a key when it asks for one (401, 403); 0: it answered
    key_tried: bool = False  # it was asked again with GRAPHGLEAN_API_KEY (no models: it refused that too)

    @property
    def needs_key(self) -> bool:
        return bool(self.locked)

    @property
    def base_url(self) -> str:
        return f"http://{HOST}:{self.port}/v1"

    @property
    def chat_model(self) -> str:
        """The first model it lists that is not an embedding model ("" when it lists none)."""
        return next((m for m in self.models if not _EMBEDDING.search(m)), "")

    @property
    def embedding_model(self) -> str:
        return next((m for m in self.models if _EMBEDDING.search(m)), "")

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
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    with trio.move_on_after(CONNECT_S + ANSWER_S):
        try:
            response = await client.get(f"http://{HOST}:{port}/v1/models", headers=headers)
            if response.status_code in LOCKED:
                return Server(port, usual_name(port), (), locked=response.status_code, key_tried=bool(key))
            listed = _models(response.json()) if response.status_code == 200 else None
        except (httpx.HTTPError, ValueError):
            return None
        if listed is None:
            return None
        models, owner = listed
        return Server(port, _OWNERS.get(owner.lower(), usual_name(port)), models, key_tried=bool(key))
    return None


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
    """``OPENAI_API_KEY`` (its presence, never its value), ``OPENAI_BASE_URL`` and the servers on ``ports`` (the
    usual ones; a server asking for a key is asked again with ``GRAPHGLEAN_API_KEY`` when it is set)."""
    ports = tuple(ports) if ports is not None else tuple(p for p, _ in USUAL_PORTS)
    servers = await probe_servers(ports, (environ.get(SERVER_KEY_ENV) or "").strip())
    return Found(bool((environ.get(KEY_ENV) or "").strip()), tuple(servers), ports,
                 (environ.get(URL_ENV) or "").strip(), installed(""))
