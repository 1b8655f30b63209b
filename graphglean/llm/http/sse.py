"""A streamed chat completion (server-sent events of ``chat.completion.chunk``s) read back into the body the
same answer has unstreamed: content, reasoning, refusal, logprobs, finish_reason and usage, so a streamed
answer is parsed, cached and counted exactly as a whole one."""

from __future__ import annotations

import json
from typing import Any

from ...text.surrogates import whole_characters

EVENT_STREAM = "text/event-stream"


def is_event_stream(headers: dict[str, str], content: bytes) -> bool:
    """Whether an answer is a stream of events (a server may answer a streamed request whole, as JSON)."""
    kind = headers.get("content-type", "")
    return kind.startswith(EVENT_STREAM) or (not kind.startswith("application/json") and content[:5] == b"data:")


def events(content: bytes) -> list[Any]:
    """The JSON of each event's data (``[DONE]`` and comments left out), parsed in one call. The usual stream
    (``data: {...}`` events, one line each) is cut apart without a loop; anything else (comments, CRLF, an
    event of several data lines) is read line by line."""
    body = content.strip()
    if b"\r" in body:  # CRLF line ends (sse-starlette's)
        body = body.replace(b"\r\n", b"\n")
    if body.startswith(b"data: ") and b"\r" not in body:
        parts = body[6:].split(b"\n\ndata: ")
        if parts[-1] == b"[DONE]":
            parts.pop()
        if not any(b"\n" in p for p in parts):
            try:
                return json.loads(b"[" + b",".join(parts) + b"]")
            except ValueError:
                pass
    return _events_line_by_line(content)


def _events_line_by_line(content: bytes) -> list[Any]:
    payloads: list[bytes] = []
    lines: list[bytes] = []
    for line in content.split(b"\n") + [b""]:
        line = line.rstrip(b"\r")
        if not line:
            if lines:
                payloads.append(b"\n".join(lines))
                lines = []
        elif line.startswith(b"data:"):
            data = line[5:]
            lines.append(data[1:] if data[:1] == b" " else data)
    out = []
    for p in payloads:
        if p.strip() == b"[DONE]":
            continue
        try:
            out.append(json.loads(p))
        except ValueError as e:
            raise ValueError(f"unparseable stream event {p[:80]!r} ({e})") from None
    return out


def completion_of(chunks: list[Any]) -> dict[str, Any]:
    """The ``chat.completion`` body of a stream's chunks (choice 0). Its ``usage`` is None when the server sent
    none (it did not take ``stream_options``); ``pieces`` counts the chunks that carried text. ValueError for an
    error event or anything that is not a chat completion chunk."""
    text: list[str] = []
    reasoning: dict[str, list[str]] = {}
    refusal: list[str] = []
    logprobs: list[Any] = []
    finish = usage = None
    saw_content, pieces = False, 0
    try:
        for chunk in chunks:
            choices = chunk.get("choices")
            if choices:
                choice = choices[0]
                if choice.get("index", 0) != 0:
                    choice = next((c for c in choices if c.get("index", 0) == 0), {})
                delta = choice.get("delta") or {}
                content = delta.get("content")
                if content:
                    text.append(content)
                    pieces += 1
                    saw_content = True
                if content is None or len(delta) > 1:  # the rarer parts: the role, reasoning, a refusal
                    saw_content = saw_content or content == ""
                    for key in ("reasoning_content", "reasoning"):
                        if delta.get(key):
                            reasoning.setdefault(key, []).append(str(delta[key]))
                            pieces += 1
                    if delta.get("refusal"):
                        refusal.append(str(delta["refusal"]))
                elif content == "":
                    saw_content = True
                found = choice.get("logprobs")
                if found and found.get("content"):
                    logprobs.extend(found["content"])
                if choice.get("finish_reason") is not None:
                    finish = choice["finish_reason"]
            if chunk.get("usage"):
                usage = chunk["usage"]
            if "error" in chunk:
                error = chunk["error"]
                message = error.get("message") if isinstance(error, dict) else error
                raise ValueError(f"the server ended the stream with an error: {str(message)[:200]}")
    except (AttributeError, TypeError, IndexError) as e:
        raise ValueError(f"not a stream of chat completion chunks ({type(e).__name__})") from None
    if not chunks:
        raise ValueError("an empty stream (no event)")
    head = chunks[0]
    joined = whole_characters("".join(text))  # a character split between two events is whole again
    message: dict[str, Any] = {"role": "assistant", "content": joined if joined or saw_content and not reasoning
                               else None}
    for key, parts in reasoning.items():
        message[key] = whole_characters("".join(parts))
    if refusal:
        message["refusal"] = whole_characters("".join(refusal))
    return {"id": head.get("id", ""), "object": "chat.completion", "created": head.get("created", 0),
            "model": head.get("model", ""),
            "choices": [{"index": 0, "message": message, "logprobs": {"content": logprobs} if logprobs else None,
                         "finish_reason": finish}],
            "usage": usage, "pieces": pieces}
