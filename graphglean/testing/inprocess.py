"""The fake server's answers with no server: an httpx transport that hands each request to a responder in process.

    client = ChatClient(cfg, transport=InProcessTransport(synthetic))

It answers chat completions and embeddings exactly as `FakeLLMServer` would (same responders, same JSON bodies,
status codes and headers from `Reply`), so a benchmark measures graphglean and not the server's HTTP. For
engine ray, `ray_runtime_env` gives Ray the process set-up hook `install`, which makes every client in a
worker's shard and partition tasks use it: it is chosen only by that explicit call, never by configuration.
"""

from __future__ import annotations

import inspect
import json
import os
from typing import Any

import httpx
import trio

from .bodies import completion_body, embeddings_body
from .exchange import RecordedRequest, Reply, Responder
from .serve import load_responder

RESPONDER_ENV = "GRAPHGLEAN_INPROCESS_RESPONDER"  # module:function of the responder `install` uses


class InProcessTransport(httpx.AsyncBaseTransport):
    """Answers each request with ``responder`` after ``latency`` seconds; no socket, no HTTP parsing.
    ``record`` keeps every `RecordedRequest` in ``requests`` (off for scale runs: it grows with the calls)."""

    direct = True  # `ChatClient` sends through `exchange`, as to its own pool, skipping httpx's machinery

    def __init__(self, responder: Responder, *, latency: float = 0.0, embedding_dim: int = 64,
                 record: bool = False) -> None:
        self.responder = responder
        self.latency = latency
        self.embedding_dim = embedding_dim
        self.record = record
        self.requests: list[RecordedRequest] = []
        self.count = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        status, headers, payload = await self._serve(request.method, request.url.path, dict(request.headers),
                                                     await request.aread())
        return httpx.Response(status, content=payload, request=request, headers=headers)

    async def exchange(self, origin: Any, method: bytes, target: bytes, headers: list[tuple[bytes, bytes]],
                       body: bytes) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
        """`PooledTransport.exchange`'s interface: how `ChatClient` sends to a ``direct`` transport."""
        status, answer_headers, payload = await self._serve(
            method.decode(), target.decode().split("?", 1)[0],
            {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in headers}, body)
        return status, [(k.encode("latin-1"), v.encode("latin-1")) for k, v in answer_headers.items()], payload

    async def _serve(self, method: str, path: str, headers: dict[str, str], raw: bytes
                     ) -> tuple[int, dict[str, str], bytes]:
        if method == "GET":  # a client asking for a server's slots (/props, /metrics): none here, and not a call
            return 404, {"content-type": "application/json"}, b'{"detail": "Not Found"}'
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        req = RecordedRequest(self.count, method, path, headers, body, started=trio.current_time())
        self.count += 1
        if self.record:
            self.requests.append(req)
        if self.latency:
            await trio.sleep(self.latency)
        status, payload, answer_headers = await self._answer(req)
        req.finished = trio.current_time()
        return status, {"content-type": "application/json", **answer_headers}, payload

    async def _answer(self, req: RecordedRequest) -> tuple[int, bytes, dict[str, str]]:
        if req.path.endswith("/embeddings"):
            return 200, json.dumps(embeddings_body(req, self.embedding_dim)).encode(), {}
        if not req.path.endswith("/chat/completions") or not isinstance(req.body, dict):
            return 404, b'{"error": {"message": "unknown path or body"}}', {}
        reply = self.responder(req)
        if inspect.isawaitable(reply):
            reply = await reply
        if isinstance(reply, str):
            reply = Reply(reply)
        if reply.delay:
            await trio.sleep(reply.delay)
        if reply.body is None and reply.status >= 400:  # an error page: the text as it is
            return reply.status, reply.text.encode(), reply.headers
        payload = reply.body if reply.body is not None else completion_body(req, reply, req.number)
        return reply.status, json.dumps(payload).encode(), reply.headers


def install() -> None:
    """Ray's worker set-up hook: every client of this worker's shard and partition tasks answers in process,
    with the responder named by ``GRAPHGLEAN_INPROCESS_RESPONDER`` (default: the synthetic model)."""
    from ..engines.ray import shard_task

    responder = load_responder(os.environ.get(RESPONDER_ENV, "graphglean.testing.models.responders:synthetic"))
    shard_task.transport_factory = lambda: InProcessTransport(responder)


def ray_runtime_env(responder: str = "graphglean.testing.models.responders:synthetic") -> dict[str, Any]:
    """``ray.init(runtime_env=...)`` for a cluster whose workers answer every call in process (tests and
    benchmarks; the engine then uses that session). This process, the driver, answers so too (its first
    contact with the endpoint)."""
    os.environ[RESPONDER_ENV] = responder
    install()
    return {"worker_process_setup_hook": f"{__name__}.install", "env_vars": {RESPONDER_ENV: responder}}
