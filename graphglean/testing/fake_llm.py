"""A scriptable OpenAI-compatible server on a real HTTP socket, for tests, benchmarks and users' own tests.

    async with FakeLLMServer(responder=my_fn, latency=0.05, rpm=600).running() as server:
        cfg.base_url = server.base_url

Answers come from a callable (``RecordedRequest -> Reply | str``) or a table of prompt substrings. It
enforces RPM/TPM limits with 429 + Retry-After, injects faults by rate or by schedule (500, 503, timeouts,
dropped connections, truncated and malformed bodies) and records every request for assertions.
Run it standalone with ``python -m graphglean.testing.serve --help``.
"""

from __future__ import annotations

import contextlib
import hashlib
import inspect
import json
import math
import random
import time
from typing import Any, AsyncIterator, Callable, Mapping

import attrs
import trio

from ..llm.http.http1 import ProtocolError
from ..llm.http.plain_socket import PlainSocket
from ..llm.limits import TokenBucket
from .batch_api import FakeBatchAPI
from .bodies import completion_body, embeddings_body, hashed_embedding, rough_tokens
from .exchange import RecordedRequest, Reply, Responder
from .local_server import LocalServer
from .prompt_cache import PromptCache
from .refusals import REFUSAL_KINDS, refusal, refusing
from .server_tokenizer import TOKENIZER_STYLES, ServerTokenizer
from .streaming import is_completion, stream_body, wants_stream, wants_usage
from .wire.http1 import Request, RequestReader, response_head
from .wire.listen import serve_plain_tcp
from .wire.timer import Timer

__all__ = ["FAULT_KINDS", "REFUSAL_KINDS", "TOKENIZER_STYLES", "FakeLLMServer", "FaultPlan", "LocalServer",
           "RecordedRequest", "Reply", "Responder", "ServerTokenizer", "completion_body", "embeddings_body", "hashed_embedding", "refusal",
           "refusing", "rough_tokens", "table_responder"]

FAULT_KINDS = ("500", "503", "timeout", "drop", "truncated", "malformed")
_REPORT_ROUTES = ("/props", "/slots", "/metrics")
_NO_STREAM = (b'{"error": {"message": "stream is not supported by this server", "type": "invalid_request_error", '
              b'"param": "stream"}}')


@attrs.define
class FaultPlan:
    """Faults by rate (seeded) and/or by schedule ``{request number: kind}``."""

    rate: float = 0.0
    kinds: tuple[str, ...] = FAULT_KINDS
    schedule: dict[int, str] = attrs.field(factory=dict)
    seed: int = 0
    _rng: random.Random = attrs.field(init=False)

    def __attrs_post_init__(self) -> None:
        self._rng = random.Random(self.seed)
        unknown = set(self.kinds) | set(self.schedule.values())
        if unknown - set(FAULT_KINDS):
            raise ValueError(f"unknown fault kinds {sorted(unknown - set(FAULT_KINDS))}; known: {FAULT_KINDS}")

    def pick(self, number: int) -> str | None:
        if number in self.schedule:
            return self.schedule[number]
        if self.rate and self._rng.random() < self.rate:
            return self._rng.choice(self.kinds)
        return None


def table_responder(table: Mapping[str, str], default: str = "") -> Responder:
    """Answer with the value of the first key that occurs in the prompt."""
    def respond(req: RecordedRequest) -> str:
        prompt = req.prompt
        for key, answer in table.items():
            if key in prompt:
                return answer
        return default
    return respond


@attrs.frozen
class _Exchange:
    """The connection an answer goes to, and whether it stays open after it."""

    stream: PlainSocket
    keep_alive: bool


class FakeLLMServer:
    def __init__(self, responder: Responder | None = None, *, table: Mapping[str, str] | None = None,
                 latency: float = 0.0, token_latency: float = 0.0, rpm: int = 0, tpm: int = 0,
                 faults: FaultPlan | None = None,
                 hang_s: float = 3600.0, embedding_dim: int = 64, reject_logit_bias: bool = False,
                 tokenizer: Callable[[str], list[int]] | None = None, tokenize_path: str = "/tokenize",
                 tokenizer_api: ServerTokenizer | None = None, host: str = "127.0.0.1", port: int = 0,
                 batch_api: FakeBatchAPI | None = None, prompt_cache: PromptCache | bool = True,
                 local: LocalServer | None = None, refuse_stream: bool = False,
                 models: tuple[str, ...] = (), api_key: str = "") -> None:
        if responder is None:
            responder = table_responder(table or {})
        self.responder = responder
        self.latency = latency
        self.token_latency = token_latency  # seconds per output token, after ``latency``: a model's decoding
        self.faults = faults or FaultPlan()
        self.hang_s = hang_s
        self.embedding_dim = embedding_dim
        self.reject_logit_bias = reject_logit_bias
        self.refuse_stream = refuse_stream  # a server that answers whole only: a 400 for ``stream``
        self.tokenizer = tokenizer
        self.tokenize_path = tokenize_path
        self.tokenizer_api = tokenizer_api
        self.batch_api = batch_api or FakeBatchAPI()  # the Files and Batches routes (batch mode)
        self.host, self.port = host, port
        self.addresses: list[Any] = []  # the sockets' addresses it listens on, once started
        self.rpm, self.tpm = rpm, tpm
        # answers report the prompt tokens a serving engine would take from its cache (False: none)
        self.prompt_cache = PromptCache() if prompt_cache is True else (prompt_cache or None)
        self._rpm: TokenBucket | None = None
        self._tpm: TokenBucket | None = None
        self.requests: list[RecordedRequest] = []
        self.report_requests: list[RecordedRequest] = []  # GET /props, /slots, /metrics
        self.in_flight = 0
        self.max_in_flight = 0
        self.status_counts: dict[int, int] = {}
        self.faults_injected: dict[str, int] = {}
        self.timer = self._timer = Timer()
        self.local = local  # slots, a queue and tokens at a pace: a local inference server (`LocalServer`)
        self.models = tuple(models)  # GET /v1/models lists these (none: that route is a 404, as before)
        self.api_key = api_key  # set: a request without "Authorization: Bearer <it>" is a 401 (vLLM --api-key)

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    def chat_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path.endswith("/chat/completions")]

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator["FakeLLMServer"]:
        async with trio.open_nursery() as nursery:
            await self.start(nursery)
            try:
                yield self
            finally:
                nursery.cancel_scope.cancel()

    async def start(self, nursery: trio.Nursery) -> None:
        clock = trio.current_time
        self._rpm = TokenBucket(self.rpm, clock) if self.rpm else None
        self._tpm = TokenBucket(self.tpm, clock) if self.tpm else None
        await nursery.start(self._timer.run)
        self.addresses = await nursery.start(serve_plain_tcp, self._connection, self.port, self.host or None)
        self.port = self.addresses[0][1]

    # -- HTTP/1.1 ------------------------------------------------------------------------------------

    async def _connection(self, stream: PlainSocket) -> None:
        # sending an answer makes no scheduler trip (the read that follows is the checkpoint)
        reader = RequestReader(stream)
        try:
            while True:
                request = await reader.next()
                if request is None:
                    return
                keep = await self._serve(_Exchange(stream, request.keep_alive), request)
                if not keep or not request.keep_alive:
                    return
        except (trio.BrokenResourceError, trio.ClosedResourceError, ProtocolError):
            pass
        finally:
            with trio.move_on_after(0.5) as scope:
                scope.shield = True
                await stream.aclose()

    async def _send(self, conn: "_Exchange", status: int, payload: bytes,
                    headers: Mapping[str, str] | None = None, truncate: bool = False) -> None:
        hdrs = [("content-type", (headers or {}).get("content-type", "application/json")),
                ("content-length", str(len(payload)))]
        hdrs += [(k, v) for k, v in (headers or {}).items() if k != "content-type"]
        self.status_counts[status] = self.status_counts.get(status, 0) + 1
        head = response_head(status, hdrs, conn.keep_alive)
        # one write: head and body in separate segments cost a syscall here and a wake-up in the client
        await conn.stream.send_all(head + (payload[: len(payload) // 2] if truncate else payload))

    async def send_json(self, conn: "_Exchange", status: int, payload: Any,
                        headers: Mapping[str, str] | None = None) -> None:
        await self._send(conn, status, json.dumps(payload).encode(), headers)

    async def _send_stream(self, conn: "_Exchange", req: RecordedRequest, payload: dict[str, Any],
                           headers: Mapping[str, str]) -> None:
        """The whole answer as a stream of events, at once (a fast server)."""
        hdrs = [("content-type", "text/event-stream"), ("transfer-encoding", "chunked"), *headers.items()]
        self.status_counts[200] = self.status_counts.get(200, 0) + 1
        await conn.stream.send_all(response_head(200, hdrs, conn.keep_alive) + stream_body(payload, wants_usage(req.body)))

    async def _serve(self, conn: "_Exchange", request: Request) -> bool:
        raw = request.body
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        headers = dict(request.headers)
        req = RecordedRequest(len(self.requests), request.method, request.target.split("?")[0],
                              headers, body, started=trio.current_time())
        if req.method == "GET" and req.path.rstrip("/").endswith(_REPORT_ROUTES):
            # a client asking for the server's slots: not an LLM call (not counted, not rate limited)
            self.report_requests.append(req)
            report = self.local.report(req.path) if self.local is not None else None
            status, payload, kind = report or (404, b'{"detail": "Not Found"}', "application/json")
            await self._send(conn, status, payload, {"content-type": kind})
            return True
        if self.api_key and headers.get("authorization") != f"Bearer {self.api_key}":
            await self.send_json(conn, 401, {"error": {"message": "Unauthorized", "code": 401}})
            return True
        if req.method == "GET" and req.path.rstrip("/").endswith("/models") and self.models:
            self.report_requests.append(req)  # what the server serves: not an LLM call either
            await self.send_json(conn, 200, {"object": "list", "data": [
                {"id": m, "object": "model", "created": 0, "owned_by": "graphglean-testing"} for m in self.models]})
            return True
        self.requests.append(req)
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            if self.batch_api.handles(req.path):
                return await self._batch_route(conn, req, raw, request.target)
            return await self._answer(conn, req)
        finally:
            self.in_flight -= 1
            req.finished = trio.current_time()

    async def _answer(self, conn: "_Exchange", req: RecordedRequest) -> bool:
        if self.tokenizer_api is not None and req.method == "POST":
            answer = self.tokenizer_api.answer(req.path, req.body)
            if answer is not None:
                if self.tokenizer_api.hang:
                    await self._timer.sleep(self.hang_s)
                    return False
                await self._send(conn, answer[0], json.dumps(answer[1]).encode())
                return True
        if req.path.endswith(("/tokenize", "/extras/tokenize")) and req.method == "POST":
            if self.tokenizer is None or not req.path.endswith(self.tokenize_path):
                await self._send(conn, 404, b'{"error": "not found"}')
                return True
            text = next((req.body.get(k) for k in ("prompt", "content", "input") if k in (req.body or {})), "")
            await self._send(conn, 200, json.dumps({"tokens": self.tokenizer(str(text))}).encode())
            return True
        if req.path.endswith("/stats"):
            await self._send(conn, 200, json.dumps(self.stats()).encode())
            return True
        if req.path.endswith("/log"):
            await self._send(conn, 200, json.dumps(self.request_log()).encode())
            return True
        limited = self._rate_limited(req)
        if limited is not None:
            await self._send(conn, 429, b'{"error": {"message": "Rate limit reached", "type": "requests"}}',
                             {"retry-after-ms": str(int(limited * 1000) + 1), "retry-after": str(math.ceil(limited))})
            return True
        fault = self.faults.pick(req.number)
        if fault is not None:
            self.faults_injected[fault] = self.faults_injected.get(fault, 0) + 1
            return await self._fault(conn, fault)
        if self.refuse_stream and isinstance(req.body, dict) and req.body.get("stream"):
            await self._send(conn, 400, _NO_STREAM)
            return True
        # a server lists its models at once (a client's first contact): no generation's latency
        if self.latency and not (req.method == "GET" and req.path.rstrip("/").endswith("/models")):
            await self._timer.sleep(self.latency)
        refused = self.local.refusal(req) if self.local is not None else None
        if refused is not None:
            await self.send_json(conn, *refused)
            return True
        if req.path.endswith("/embeddings") and self.embedding_dim <= 0:  # a chat-only server
            model = (req.body or {}).get("model") if isinstance(req.body, dict) else None
            await self._send(conn, 404, json.dumps(
                {"error": {"message": f"model '{model}' not found", "code": "model_not_found"}}).encode())
            return True
        if req.path.endswith("/embeddings"):
            await self._send(conn, 200, self._embeddings(req))
            return True
        if not req.path.endswith("/chat/completions") or not isinstance(req.body, dict):
            await self._send(conn, 404, b'{"error": {"message": "unknown path or body"}}')
            return True
        if self.reject_logit_bias and req.logit_bias:
            await self._send(conn, 400, b'{"error": {"message": "logit_bias is not supported"}}')
            return True
        reply = self.responder(req)
        if not isinstance(reply, (str, Reply)) and inspect.isawaitable(reply):
            reply = await reply
        if isinstance(reply, str):
            reply = Reply(reply)
        req.completion_tokens = rough_tokens(reply.text) if reply.status < 400 else 0
        if self.local is None:
            await self._decode(req)
        if reply.delay:
            await self._timer.sleep(reply.delay)
        if reply.body is None and reply.status >= 400:  # an error page: the text as it is
            await self._send(conn, reply.status, reply.text.encode(), reply.headers)
            return True
        payload = reply.body if reply.body is not None else self._completion(req, reply)
        streamed = wants_stream(req.body) and reply.status == 200 and is_completion(payload)
        if self.local is not None and reply.status == 200:
            return await self.local.answer(self, conn, req, reply, payload, streamed)
        if streamed:
            await self._send_stream(conn, req, payload, reply.headers)
            return True
        await self._send(conn, reply.status, json.dumps(payload).encode(), reply.headers)
        return True

    async def _batch_route(self, conn: "_Exchange", req: RecordedRequest, raw: bytes, target: str) -> bool:
        fault = self.faults.pick(req.number)
        if fault is not None:
            self.faults_injected[fault] = self.faults_injected.get(fault, 0) + 1
            return await self._fault(conn, fault)
        status, payload = await self.batch_api.answer(self, req, raw, target)
        await self._send(conn, status, payload)
        return True

    async def reply_to(self, req: RecordedRequest) -> tuple[int, Any]:
        """The status and JSON body (text, for an error page) the server answers chat request ``req`` with,
        without a socket: what a batch's line gets."""
        if self.reject_logit_bias and req.logit_bias:
            return 400, {"error": {"message": "logit_bias is not supported", "param": "logit_bias"}}
        reply = self.responder(req)
        if not isinstance(reply, (str, Reply)) and inspect.isawaitable(reply):
            reply = await reply
        reply = Reply(reply) if isinstance(reply, str) else reply
        if reply.body is None and reply.status >= 400:
            return reply.status, reply.text
        return reply.status, reply.body if reply.body is not None else self._completion(req, reply)

    async def _decode(self, req: RecordedRequest) -> None:
        """Take ``token_latency`` per output token, as a model decoding the answer would."""
        if self.token_latency and req.completion_tokens:
            await self._timer.sleep(self.token_latency * req.completion_tokens)

    async def _fault(self, conn: "_Exchange", kind: str) -> bool:
        if kind in ("500", "503"):
            await self._send(conn, int(kind), b'{"error": {"message": "injected server error"}}')
            return True
        if kind == "timeout":
            await self._timer.sleep(self.hang_s)
            return False
        if kind == "drop":
            return False
        if kind == "truncated":
            await self._send(conn, 200, json.dumps(self._completion(None, Reply("x" * 200))).encode(),
                             truncate=True)
            return False
        await self._send(conn, 200, b'{"id": "chatcmpl-broken", "choices": [{"mess')  # malformed
        return True

    def _rate_limited(self, req: RecordedRequest) -> float | None:
        """Seconds until the request would fit, or None when it fits now (and is taken from the buckets)."""
        if self._rpm is None and self._tpm is None:
            return None
        cost = rough_tokens(req.prompt) + (req.max_tokens or 0)
        waits = [b.wait_time(n) for b, n in ((self._rpm, 1), (self._tpm, cost)) if b is not None]
        if any(w > 0 for w in waits):
            return max(waits)
        for b, n in ((self._rpm, 1), (self._tpm, cost)):
            if b is not None:
                b.take(n)
        return None

    def _completion(self, req: RecordedRequest | None, reply: Reply) -> dict[str, Any]:
        body = completion_body(req, reply, len(self.requests))
        if req is not None and self.prompt_cache is not None:
            req.cached_tokens = min(self.prompt_cache.cached(req.messages), body["usage"]["prompt_tokens"])
            body["usage"]["prompt_tokens_details"] = {"cached_tokens": req.cached_tokens}
            self.prompt_cache.add(req.messages, reply.text)
        return body

    def _embeddings(self, req: RecordedRequest) -> bytes:
        return json.dumps(embeddings_body(req, self.embedding_dim)).encode()

    def request_log(self) -> list[dict[str, Any]]:
        """One row per chat request: when it was read and answered (trio clock), its tokens, and
        ``chain``, a hash of its first message (the calls of one multi-turn conversation share it)."""
        def chain(r: RecordedRequest) -> str:
            first = str(r.messages[0].get("content") or "") if r.messages else ""
            return hashlib.sha256(first.encode("utf-8", "surrogatepass")).hexdigest()[:16]

        return [{"number": r.number, "started": r.started, "finished": r.finished,
                 "prompt_tokens": rough_tokens(r.prompt), "completion_tokens": r.completion_tokens,
                 "cached_tokens": r.cached_tokens, "turns": r.assistant_turns, "chain": chain(r)}
                for r in self.chat_requests()]

    def stats(self) -> dict[str, Any]:
        """Counts of requests, statuses and faults, and ``process_cpu_s``: the CPU time of the process the server
        runs in (a benchmark's difference of two readings is the server's work between them, start-up left out);
        a local server's slots, tokens and queue waits."""
        return {"requests": len(self.requests), "chat_requests": len(self.chat_requests()), "in_flight": self.in_flight,
                "max_in_flight": self.max_in_flight, "status_counts": self.status_counts,
                "faults_injected": self.faults_injected, "process_cpu_s": time.process_time(),
                **({"local": self.local.stats()} if self.local is not None else {})}
