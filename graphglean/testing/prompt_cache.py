"""`PromptCache`: what a serving engine's prompt cache would hold, for the fake server to report cached tokens.

It remembers the conversations the server has processed, prompt and answer alike (vLLM's prefix cache and
llama.cpp's slots keep the answer's tokens too), as hashes of their rendered text at block boundaries, and
says how much of a new prompt's start it has seen: the prefix an endpoint serves from its cache. Like OpenAI's,
a prefix counts from ``min_tokens`` (1,024) up, in steps of ``block_tokens`` (128); tokens are counted as
the fake server counts them, four characters each.
"""

from __future__ import annotations

import hashlib
from typing import Any

CHARS_PER_TOKEN = 4


def rendered(messages: list[dict[str, Any]]) -> str:
    """The conversation as one text, as a chat template would lay it out (a role marker before each turn)."""
    return "".join(f"<|{m.get('role', '')}|>{m.get('content') or ''}" for m in messages)


class PromptCache:
    def __init__(self, min_tokens: int = 1024, block_tokens: int = 128, max_blocks: int = 2_000_000) -> None:
        self.min_tokens = min_tokens
        self.block = max(1, block_tokens) * CHARS_PER_TOKEN  # characters
        self.max_blocks = max_blocks
        self._seen: set[bytes] = set()

    def _digests(self, text: str) -> list[bytes]:
        """The hash of each whole block's prefix of ``text``, in order."""
        data = text.encode("utf-8", "surrogatepass")
        digest, out = hashlib.blake2b(digest_size=16), []
        for start in range(0, len(data) - self.block + 1, self.block):
            digest.update(data[start:start + self.block])
            out.append(digest.copy().digest())
        return out

    def cached(self, messages: list[dict[str, Any]]) -> int:
        """Tokens of the prompt of ``messages`` served from the cache (0 below ``min_tokens``)."""
        hits = 0
        for d in self._digests(rendered(messages)):
            if d not in self._seen:
                break
            hits += 1
        tokens = hits * self.block // CHARS_PER_TOKEN
        return tokens if tokens >= self.min_tokens else 0

    def add(self, messages: list[dict[str, Any]], answer: str) -> None:
        """Remember the conversation of ``messages`` and the ``answer`` the server gave to it."""
        if len(self._seen) > self.max_blocks:  # a long benchmark: start over rather than grow without end
            self._seen.clear()
        self._seen.update(self._digests(rendered([*messages, {"role": "assistant", "content": answer}])))
