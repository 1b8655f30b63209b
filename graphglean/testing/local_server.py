"""`LocalServer`: the fake server as a local inference server runs, for `FakeLLMServer(local=...)`.

``slots`` answers are generated at once, the rest wait in a queue (first come, first served; past ``queue``
more get a 503). An answer's tokens trickle out at ``tokens_per_s`` (each slot's own pace, or shared by the
slots that are busy: a CPU-bound server), after its prompt at ``prompt_tokens_per_s``. A streamed answer's
headers go when its request is accepted, or with its first token (``headers_at_first_token``); a whole answer
goes when it is done. A client that hangs up stops the generation only where ``cancels_on_hangup``; otherwise
it runs to its end, holding its slot (counted in ``abandoned_tokens``). ``reports_slots`` answers llama.cpp's
``/props`` and ``/slots`` (or vLLM's ``/metrics``); off, they are 404s.

`LocalServer.like` gives the routes as the real servers answer them (from their documentation and the issue
that recorded llama-cpp-python 0.3.36):

- ``llama.cpp`` (llama-server): ``/props`` ``{"total_slots"}`` and ``/slots``; headers at once (the chunked
  provider starts before the task has a slot); a closed connection cancels the task; ``stream_options``
  taken; no embeddings unless started with ``--embeddings`` (501).
- ``llama-cpp-python`` (0.3.36, run here): one request at a time (a lock held for the whole answer, taken
  before the response starts: headers with the first token); ``/props``, ``/slots``, ``/metrics`` are 404s;
  ``stream_options`` taken but no usage sent; events framed with CRLF (sse-starlette); a first chunk with the
  role alone; a request that comes ends the answer being streamed (its ``interrupt_requests``, on by default:
  the stream stops, no finish_reason); does not stop a generation on a hang-up (the issue); embeddings refused with HTTP 500 "Llama
  model must be created with embedding=True to call this method"; a ``response_format`` of type
  ``json_schema`` refused with HTTP 500, a pydantic "literal_error" naming it (``json_object`` with a
  ``schema`` works).
- ``vllm``: continuous batching up to ``--max-num-seqs`` (256), reported only as running and waiting
  requests in ``/metrics``; headers at once; an aborted request is dropped.
- ``ollama`` (``/v1``): ``OLLAMA_NUM_PARALLEL`` answers at once (1 here), a queue of ``OLLAMA_MAX_QUEUE``
  (512) then 503; no report of either; headers with the first token; the issue saw generations go on after
  a hang-up.
"""

from __future__ import annotations

import json
import math
from typing import Any, Protocol

import attrs
import trio

from .exchange import RecordedRequest, Reply
from .streaming import LAST_CHUNK, chunk_events, event_bytes, wants_usage
from .wire.http1 import response_head
from .wire.timer import Timer


class _Server(Protocol):
    """What of `FakeLLMServer` a local server's answers use."""

    timer: Timer

    async def send_json(self, conn: Any, status: int, payload: Any, headers: Any = None) -> None: ...

STYLES = ("llama.cpp", "llama-cpp-python", "vllm", "ollama")
TICK_S = 0.005  # tokens due are sent together at most this often (one write, not one per token)
_NO_EMBEDDINGS = {
    "llama.cpp": (501, {"error": {"code": 501, "message": "This server does not support embeddings. Start it with "
                                  "`--embeddings`", "type": "not_supported_error"}}),
    "llama-cpp-python": (500, {"error": {"message": "Llama model must be created with embedding=True to call this "
                                         "method", "type": "internal_server_error"}}),
}


@attrs.define
class LocalServer:
    slots: int = 1
    tokens_per_s: float = 20.0
    prompt_tokens_per_s: float = 0.0  # 0: the prompt takes no time
    shared_rate: bool = False  # the busy slots share tokens_per_s
    queue: int = 512
    headers_at_first_token: bool = True
    cancels_on_hangup: bool = False
    reports_slots: bool = True
    style: str = "llama.cpp"
    takes_stream_options: bool = True  # False: a 422 for it (a server that forbids unknown fields)
    sends_usage: bool = True  # False: no usage chunk, even when include_usage asks (llama-cpp-python)
    crlf: bool = False  # events end in CRLF, not LF (sse-starlette's framing: llama-cpp-python)
    embeddings: bool = True
    interrupts: bool = False  # a request that comes ends the answer being streamed (llama-cpp-python)
    stall_after: int = 0  # a server that hangs mid-answer: after this many tokens (0: never) it goes silent
    stall_s: float = 0.0  # for this long (generating no token), holding its slot
    stalls: int = 1  # in this many answers, the first ones to reach stall_after tokens
    # what happened
    generated_tokens: int = 0
    delivered_tokens: int = 0
    abandoned_tokens: int = 0  # generated for a client that had hung up
    work_s: float = 0.0  # slot time of every generation (prompt and tokens)
    queue_waits: list[float] = attrs.field(factory=list)
    hangups: int = 0
    interrupted: int = 0  # answers ended by a request that came
    busy: int = 0
    waiting: int = 0
    _slot: trio.Semaphore | None = None

    def __attrs_post_init__(self) -> None:
        if self.style not in STYLES:
            raise ValueError(f"unknown local server style {self.style!r}; known: {STYLES}")

    @classmethod
    def like(cls, style: str, **changes: Any) -> "LocalServer":
        """The server ``style`` as its routes really answer (see the module docstring), with ``changes``."""
        presets: dict[str, dict[str, Any]] = {
            "llama.cpp": dict(headers_at_first_token=False, cancels_on_hangup=True, embeddings=False),
            "llama-cpp-python": dict(slots=1, reports_slots=False, headers_at_first_token=True, embeddings=False,
                                     cancels_on_hangup=False, sends_usage=False, crlf=True, interrupts=True),
            "vllm": dict(slots=256, headers_at_first_token=False, cancels_on_hangup=True),
            "ollama": dict(slots=1, queue=512, reports_slots=False, headers_at_first_token=True,
                           cancels_on_hangup=False),
        }
        return cls(style=style, **{**presets[style], **changes})

    # -- the routes of its own ----------------------------------------------------------------------

    def report(self, path: str) -> tuple[int, bytes, str] | None:
        """(status, body, content type) for a slot report route, or None for other paths."""
        path = path.rstrip("/")
        for route in ("/props", "/slots", "/metrics"):
            if path.endswith(route) and path.removesuffix(route) in ("", "/v1"):
                break
        else:
            return None
        if not self.reports_slots or (self.style == "vllm" and route != "/metrics"):
            return 404, b'{"detail": "Not Found"}', "application/json"
        if route == "/props":
            return 200, json.dumps({"total_slots": self.slots, "default_generation_settings": {"n_ctx": 8192}}
                                   ).encode(), "application/json"
        if route == "/slots":
            rows = [{"id": i, "is_processing": i < self.busy, "n_ctx": 8192} for i in range(self.slots)]
            return 200, json.dumps(rows).encode(), "application/json"
        prefix = ("vllm:num_requests_running", "vllm:num_requests_waiting") if self.style == "vllm" else (
            "llamacpp:requests_processing", "llamacpp:requests_deferred")
        text = f'{prefix[0]}{{model_name="fake"}} {self.busy}.0\n{prefix[1]}{{model_name="fake"}} {self.waiting}.0\n'
        return 200, text.encode(), "text/plain; version=0.0.4"

    def refusal(self, req: RecordedRequest) -> tuple[int, dict[str, Any]] | None:
        """What this server answers instead of generating, for what it does not do."""
        body = req.body if isinstance(req.body, dict) else {}
        if req.path.endswith("/embeddings") and not self.embeddings and self.style in _NO_EMBEDDINGS:
            return _NO_EMBEDDINGS[self.style]
        fmt = body.get("response_format")
        if self.style == "llama-cpp-python" and isinstance(fmt, dict) and fmt.get("type") == "json_schema":
            return 500, {"error": {"message": "1 validation error:\n  {'type': 'literal_error', 'loc': ('body', "
                                   "'response_format', 'type'), 'msg': \"Input should be 'text' or 'json_object'\", "
                                   "'input': 'json_schema'}", "type": "internal_server_error", "param": None,
                                   "code": None}}
        if "stream_options" in body and not self.takes_stream_options:
            return 422, {"detail": [{"type": "extra_forbidden", "loc": ["body", "stream_options"],
                                     "msg": "Extra inputs are not permitted"}]}
        return None

    # -- generation -----------------------------------------------------------------------------------

    async def answer(self, server: _Server, conn: Any, req: RecordedRequest, reply: Reply,
                     payload: dict[str, Any], streamed: bool) -> bool:
        """Queue, generate and send ``payload`` (the whole answer's body) as this server would."""
        if self._slot is None:
            self._slot = trio.Semaphore(self.slots)
        if self.waiting >= self.queue:
            await server.send_json(conn, 503, {"error": {"message": "server busy, please try again"}})
            return True
        events = chunk_events(payload, wants_usage(req.body) and self.sends_usage) + [None] if streamed else []
        told = not streamed or self.headers_at_first_token  # head sent yet (when due at acceptance: now)
        head = response_head(200, [("content-type", "text/event-stream"), ("transfer-encoding", "chunked"),
                                   ("cache-control", "no-cache")], conn.keep_alive)
        connected = True
        if not told:
            connected = await _send(conn, head)
            told = True
        queued_at = trio.current_time()
        self.waiting += 1
        try:
            await self._slot.acquire()
        finally:
            self.waiting -= 1
        self.busy += 1
        started = trio.current_time()
        self.queue_waits.append(started - queued_at)
        try:
            if connected and _hung_up(conn):
                connected = False
                self.hangups += 1
                if self.cancels_on_hangup:
                    return False
            tokens = max(1, len(events) - 2 - bool(wants_usage(req.body) and self.sends_usage)) if streamed \
                else max(1, req.completion_tokens)
            req.completion_tokens = tokens  # as generated here, one event each
            if self.prompt_tokens_per_s:
                await server.timer.sleep(len(req.prompt) / 4 / self.prompt_tokens_per_s)
            sent_head = not streamed or not self.headers_at_first_token
            done, credit = 0, 0.0
            pending = list(events)
            stalled = False
            clock = trio.current_time()
            while done < tokens:
                if self.stall_after and done >= self.stall_after and self.stalls > 0 and not stalled:
                    self.stalls, stalled = self.stalls - 1, True
                    await server.timer.sleep(self.stall_s)
                    clock = trio.current_time()
                await server.timer.sleep(max(TICK_S, (1.0 - credit) / self._rate()))
                now = trio.current_time()  # tokens by the time that passed, however late the wake-up
                credit += (now - clock) * self._rate()
                clock = now
                due = min(tokens - done, int(credit))
                if due <= 0:
                    continue
                credit -= due
                done += due
                self.generated_tokens += due
                if connected and _hung_up(conn):
                    connected = False
                    self.hangups += 1
                    if self.cancels_on_hangup:
                        return False
                if connected:
                    self.delivered_tokens += due
                else:
                    self.abandoned_tokens += due
                if streamed and connected:
                    batch = pending[:due] if done < tokens else pending[:]
                    del pending[:len(batch)]
                    data = b"".join(event_bytes(c, self.crlf) for c in batch) + (LAST_CHUNK if not pending else b"")
                    connected = await _send(conn, (head if not sent_head else b"") + data)
                    sent_head = True
                    if not connected:
                        self.hangups += 1
                        if self.cancels_on_hangup:
                            return False
                    elif self.interrupts and self.waiting and pending:  # after a chunk sent: [DONE], no finish
                        self.interrupted += 1
                        await _send(conn, event_bytes(None, self.crlf) + LAST_CHUNK)
                        return True
            if not streamed and connected:
                await server.send_json(conn, reply.status, payload, reply.headers)
            return connected
        finally:
            self.work_s += trio.current_time() - started
            self.busy -= 1
            self._slot.release()

    def _rate(self) -> float:
        return self.tokens_per_s / max(1, self.busy) if self.shared_rate else self.tokens_per_s

    def stats(self) -> dict[str, Any]:
        return {"slots": self.slots, "generated_tokens": self.generated_tokens,
                "delivered_tokens": self.delivered_tokens, "abandoned_tokens": self.abandoned_tokens,
                "work_s": round(self.work_s, 3), "hangups": self.hangups,
                "max_queue_wait_s": round(max(self.queue_waits, default=0.0), 3),
                "mean_queue_wait_s": round(sum(self.queue_waits) / len(self.queue_waits), 3) if self.queue_waits
                else 0.0, "queued": sum(1 for w in self.queue_waits if w > 1e-3), "busy": self.busy,
                "waiting": self.waiting, "rounds": math.ceil(self.generated_tokens / max(1, self.slots))}


async def _send(conn: Any, data: bytes) -> bool:
    """Whether ``data`` reached a client still connected."""
    try:
        await conn.stream.send_all(data)
        return True
    except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
        return False


def _hung_up(conn: Any) -> bool:
    """Whether the client closed its connection while its request waited (an idle socket that is readable
    has been closed: a client sends nothing more before its answer)."""
    readable = getattr(conn.stream, "readable", None)
    return bool(readable is not None and readable())
