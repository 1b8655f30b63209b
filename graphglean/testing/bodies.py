"""What the fake server's answers hold: chat-completion and embeddings bodies as OpenAI-compatible servers write
them, with token counts made roughly (a quarter of the characters) and bag-of-words embeddings."""

from __future__ import annotations

import hashlib
import math
import re
from typing import Any

from .exchange import RecordedRequest, Reply

_WORD = re.compile(r"\w+")


def hashed_embedding(text: str, dim: int = 64) -> list[float]:
    """A bag-of-words vector: texts sharing words point the same way, so similarity search means something."""
    vec = [0.0] * dim
    for word in _WORD.findall(text.lower()):
        h = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=8).digest(), "little")
        vec[h % dim] += 1.0 if (h >> 32) & 1 else -1.0
    norm = math.sqrt(sum(v * v for v in vec)) or 1.0
    return [v / norm for v in vec]


def rough_tokens(text: str) -> int:
    return len(text) // 4 + 1


def completion_body(req: RecordedRequest | None, reply: Reply, number: int) -> dict[str, Any]:
    """The chat-completion JSON an OpenAI-compatible server sends for ``reply`` (usage counted roughly)."""
    prompt_tokens = rough_tokens(req.prompt) if req is not None else 1
    return {"id": f"chatcmpl-{number}", "object": "chat.completion",
            "model": (req.body or {}).get("model", "fake") if req is not None else "fake",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": reply.text},
                         "finish_reason": reply.finish_reason}],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": rough_tokens(reply.text),
                      "total_tokens": prompt_tokens + rough_tokens(reply.text)}}


def embeddings_body(req: RecordedRequest, dim: int) -> dict[str, Any]:
    """The embeddings JSON for the request's inputs (`hashed_embedding` vectors of the ``dimensions`` the
    request asks for, as text-embedding-3 models take it, else ``dim``)."""
    inputs = (req.body or {}).get("input") or []
    asked = (req.body or {}).get("dimensions")
    dim = asked if isinstance(asked, int) and asked > 0 else dim
    if isinstance(inputs, str):
        inputs = [inputs]
    data = [{"object": "embedding", "index": i, "embedding": hashed_embedding(t, dim)} for i, t in enumerate(inputs)]
    used = sum(rough_tokens(t) for t in inputs)
    return {"object": "list", "data": data, "model": (req.body or {}).get("model"),
            "usage": {"prompt_tokens": used, "total_tokens": used}}
