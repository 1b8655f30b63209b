"""The streamed form of a chat request, and what a refusal of it means."""

from __future__ import annotations

import re
from typing import Any

from ..core.errors import LLMRequestError

_USAGE = {"include_usage": True}
_STREAMING = re.compile(r"\bstream", re.I)


def streamed_body(body: dict[str, Any], content: bytes | None, usage: bool) -> tuple[dict[str, Any], bytes | None]:
    """(payload, bytes sent) of ``body`` asked as a stream (``usage``: with ``stream_options.include_usage``).
    The bytes are the canonical body's with the stream keys added at its end, not encoded again: only the
    cache key must be canonical, and it is the unstreamed body's."""
    extra: dict[str, Any] = {"stream": True, "stream_options": _USAGE} if usage else {"stream": True}
    if content is None:
        return {**body, **extra}, None
    tail = b',"stream":true,"stream_options":{"include_usage":true}}' if usage else b',"stream":true}'
    return {**body, **extra}, content[:-1] + tail


def refused_streaming(error: LLMRequestError) -> str | None:
    """``stream_options`` or ``stream`` when ``error`` refuses that part of a streamed request, else None."""
    if error.is_about("stream_options") or "stream_options" in str(error):
        return "stream_options"
    if error.is_about("stream") or (error.kind == "rejected" and _STREAMING.search(str(error))):
        return "stream"
    return None
