"""A chat completion as the server-sent events of a streamed answer, as OpenAI-compatible servers send them:
a first chunk with the role, one chunk per token of reasoning and content (with its logprobs), a last one with
the finish_reason, the usage in a chunk of its own when ``stream_options.include_usage`` asked, then
``data: [DONE]``; each event is one HTTP chunk of a ``Transfer-Encoding: chunked`` body."""

from __future__ import annotations

import json
from typing import Any


def pieces(text: str) -> list[str]:
    """The text in pieces of four characters: about one token each."""
    return [text[i:i + 4] for i in range(0, len(text), 4)]


def wants_stream(body: Any) -> bool:
    return isinstance(body, dict) and body.get("stream") is True


def wants_usage(body: Any) -> bool:
    options = body.get("stream_options") if isinstance(body, dict) else None
    return isinstance(options, dict) and options.get("include_usage") is True


def is_completion(payload: Any) -> bool:
    return (isinstance(payload, dict) and isinstance(payload.get("choices"), list) and payload["choices"]
            and isinstance(payload["choices"][0], dict) and "message" in payload["choices"][0])


def chunk_events(payload: dict[str, Any], usage: bool, split: bool = True) -> list[bytes]:
    """The events of ``payload``, a chat completion body, in order (the usage chunk only when ``usage``), each
    the JSON of one chunk: a token each (``split``), or each part of the answer in one. Chunks differ only in
    their delta: their JSON is made from one template."""
    head = {"id": payload.get("id", "chatcmpl-0"), "object": "chat.completion.chunk",
            "created": payload.get("created", 0), "model": payload.get("model", "fake")}
    before = json.dumps({**head, "choices": [{"index": 0, "delta": None}]})[:-len('null}]}')].encode()
    choice = payload["choices"][0]
    message = choice.get("message") or {}

    def chunk(delta: dict[str, Any], finish: str | None = None, logprobs: Any = None) -> bytes:
        tail = b', "logprobs": ' + json.dumps(logprobs).encode() + b', "finish_reason": ' + json.dumps(finish).encode()
        return before + json.dumps(delta).encode() + tail + b"}]}"

    def text(key: str, piece: str) -> bytes:  # the common chunk, without a dict
        return before + b'{"' + key.encode() + b'": ' + json.dumps(piece).encode() + _PLAIN_TAIL

    cut = pieces if split else (lambda whole: [whole] if whole else [])
    out = [chunk({"role": "assistant", "content": ""})]
    for key in ("reasoning_content", "reasoning"):
        out += [text(key, p) for p in cut(message.get(key) or "")]
    tokens = ((choice.get("logprobs") or {}).get("content") or []) if isinstance(choice.get("logprobs"), dict) else []
    content = message.get("content") or ""
    if tokens and "".join(str(t.get("token", "")) for t in tokens) == content:
        out += [chunk({"content": t["token"]}, logprobs={"content": [t]}) for t in tokens]
    else:
        out += [text("content", p) for p in cut(content)]
    if message.get("refusal"):
        out.append(chunk({"refusal": message["refusal"]}))
    out.append(chunk({}, choice.get("finish_reason")))
    if usage and payload.get("usage"):
        out.append(json.dumps({**head, "choices": [], "usage": payload["usage"]}).encode())
    return out


_PLAIN_TAIL = b'}, "logprobs": null, "finish_reason": null}]}'


def event_bytes(chunk: bytes | None, crlf: bool = False) -> bytes:
    """One event (None: ``[DONE]``) framed as one HTTP chunk (its lines ended by CRLF: ``crlf``)."""
    data = b"data: " + (b"[DONE]" if chunk is None else chunk) + (b"\r\n\r\n" if crlf else b"\n\n")
    return b"%x\r\n%s\r\n" % (len(data), data)


LAST_CHUNK = b"0\r\n\r\n"


def stream_body(payload: dict[str, Any], usage: bool) -> bytes:
    """The whole streamed answer at once (a fast server): its content in one event (as a server sends what
    it has when the client reads late), every event in one HTTP chunk, then the end."""
    data = b"".join(b"data: " + c + b"\n\n" for c in chunk_events(payload, usage, split=False)) + b"data: [DONE]\n\n"
    return b"%x\r\n%s\r\n" % (len(data), data) + LAST_CHUNK
