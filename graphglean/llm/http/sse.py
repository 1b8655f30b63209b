"""A streamed chat completion (server-sent events of ``chat.completion.chunk``s) read back into the body the
same answer has unstreamed: content, reasoning, refusal, logprobs, finish_reason and usage, so a streamed
answer is parsed, cached and counted exactly as a whole one."""

from __future__ import annotations

import json
from typing import Any

EVENT_STREAM = "text/event-stream"


def is_event_stream(headers: dict[str, str], content: bytes) -> bool:
    """Whether an answer is a stream of events (a server may answer a streamed request whole, as JSON)."""
    kind = headers.get("content-type", "")
    return kind.startswith(EVENT_STREAM) or (not kind.startswith("application/json") and content[:5] == b"data:")


def events(content: bytes) -> list[Any]:
    """The JSON of each event's data (``[DONE]`` and comments left out), parsed in one call."""
    payloads: list[bytes] = []
    lines: list[bytes] = []
    for line in content.split(b"\n"):
        line = line.rstrip(b"\r")
        if not line:
            if lines:
                payloads.append(b"\n".join(lines))
                lines = []
        elif line.startswith(b"data:"):
            data = line[5:]
            lines.append(data[1:] if data[:1] == b" " else data)
    if lines:
        payloads.append(b"\n".join(lines))
    payloads = [p for p in payloads if p.strip() != b"[DONE]"]
    try:
        return json.loads(b"[" + b",".join(payloads) + b"]")
    except ValueError:
        for p in payloads:  # name the event that is broken
            try:
                json.loads(p)
            except ValueError as e:
                raise ValueError(f"unparseable stream event {p[:80]!r} ({e})") from None
        raise


def completion_of(chunks: list[Any]) -> dict[str, Any]:
    """The ``chat.completion`` body of a stream's chunks (choice 0). Its ``usage`` is None when the server sent
    none (it did not take ``stream_options``); ``pieces`` counts the chunks that carried text. ValueError for an
    error event or anything that is not a chat completion chunk."""
    text: list[str] = []
    reasoning: dict[str, list[str]] = {}
    refusal: list[str] = []
    logprobs: list[Any] = []
    finish = usage = None
    saw_content, pieces, head = False, 0, {}
    for chunk in chunks:
        if not isinstance(chunk, dict):
            raise ValueError("a stream event is not a JSON object")
        if "error" in chunk:
            error = chunk["error"]
            message = error.get("message") if isinstance(error, dict) else error
            raise ValueError(f"the server ended the stream with an error: {str(message)[:200]}")
        head = head or chunk
        usage = chunk.get("usage") or usage
        for choice in chunk.get("choices") or ():
            if not isinstance(choice, dict) or choice.get("index", 0) != 0:
                continue
            delta = choice.get("delta") or {}
            content = delta.get("content")
            if isinstance(content, str):
                saw_content = True
                if content:
                    text.append(content)
                    pieces += 1
            for key in ("reasoning_content", "reasoning"):
                if isinstance(delta.get(key), str) and delta[key]:
                    reasoning.setdefault(key, []).append(delta[key])
                    pieces += 1
            if isinstance(delta.get("refusal"), str):
                refusal.append(delta["refusal"])
            found = choice.get("logprobs")
            if isinstance(found, dict) and isinstance(found.get("content"), list):
                logprobs.extend(found["content"])
            if choice.get("finish_reason") is not None:
                finish = choice["finish_reason"]
    if not head:
        raise ValueError("an empty stream (no event)")
    joined = "".join(text)
    message: dict[str, Any] = {"role": "assistant", "content": joined if joined or saw_content and not reasoning
                               else None}
    for key, parts in reasoning.items():
        message[key] = "".join(parts)
    if refusal:
        message["refusal"] = "".join(refusal)
    body = {"id": head.get("id", ""), "object": "chat.completion", "created": head.get("created", 0),
            "model": head.get("model", ""),
            "choices": [{"index": 0, "message": message, "logprobs": {"content": logprobs} if logprobs else None,
                         "finish_reason": finish}],
            "usage": usage, "pieces": pieces}
    return body
