"""A chat completion as server-sent events, as OpenAI streams it when a request says ``"stream": true``: one
``chat.completion.chunk`` with the role, the content in pieces, one with the finish reason, a usage chunk when
``stream_options.include_usage`` asks for it, then ``data: [DONE]``."""

from __future__ import annotations

import json
from typing import Any

PIECE_CHARS = 24  # characters of content per chunk: several chunks for any real answer, as a model streams


def wants_stream(body: Any) -> bool:
    return isinstance(body, dict) and body.get("stream") is True


def sse_body(completion: dict[str, Any], include_usage: bool) -> bytes:
    """The event stream of a non-streamed ``completion`` body (`fake_llm.completion_body`)."""
    choice = completion["choices"][0]
    content = choice["message"].get("content") or ""
    head = {"id": completion["id"], "object": "chat.completion.chunk", "created": 0, "model": completion["model"]}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {**head, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    events = [chunk({"role": "assistant", "content": ""})]
    events += [chunk({"content": content[i:i + PIECE_CHARS]}) for i in range(0, len(content), PIECE_CHARS)]
    events.append(chunk({}, choice.get("finish_reason") or "stop"))
    if include_usage:
        events.append({**head, "choices": [], "usage": completion.get("usage")})
    lines = [f"data: {json.dumps(e, ensure_ascii=False)}\n\n" for e in events] + ["data: [DONE]\n\n"]
    return "".join(lines).encode("utf-8")


def include_usage(body: dict[str, Any]) -> bool:
    options = body.get("stream_options")
    return isinstance(options, dict) and bool(options.get("include_usage"))
