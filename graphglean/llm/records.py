"""Requests and results of LLM calls, as plain attrs records."""

from __future__ import annotations

import functools
import hashlib
import json
from typing import Any, Callable

import attrs

from ..text.surrogates import whole_characters

# json.dumps with these arguments makes a new encoder for every call (a fifth of a request body's encoding)
_CANONICAL = json.JSONEncoder(sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def canonical_json(value: Any) -> str:
    """``json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))``."""
    return _CANONICAL.encode(value)


@attrs.frozen
class ChatRequest:
    """One chat-completion request. Every field that can change the output is part of the cache key."""

    messages: tuple[dict[str, str], ...] = attrs.field(converter=tuple)
    model: str = ""
    temperature: float | None = None
    max_tokens: int | None = None
    seed: int | None = None
    stop: tuple[str, ...] | None = None
    logit_bias: dict[str, float] | None = attrs.field(default=None, hash=False)
    response_format: dict[str, Any] | None = attrs.field(default=None, hash=False)
    extra: dict[str, Any] = attrs.field(factory=dict, hash=False)
    #: whether an answer's text is a real answer to this request (e.g. the JSON that was asked for); one that
    #: is not is still returned, but never cached or journaled, so a later run asks again. Not sent, not keyed.
    valid: Callable[[str], bool] | None = attrs.field(default=None, eq=False, hash=False, repr=False)

    def body(self) -> dict[str, Any]:
        """The JSON body sent to ``/chat/completions``."""
        body: dict[str, Any] = {"model": self.model, "messages": list(self.messages)}
        for name in ("temperature", "max_tokens", "seed", "logit_bias", "response_format"):
            value = getattr(self, name)
            if value is not None:
                body[name] = value
        if self.stop:
            body["stop"] = list(self.stop)
        body.update(self.extra)
        return body

    def canonical_body(self) -> str:
        """The body as compact JSON with sorted keys: what the client sends, and what the cache key hashes."""
        return canonical_json(self.body())

    def wire_body(self) -> bytes:
        """`canonical_body` as the UTF-8 bytes sent (and hashed by `cache_key`)."""
        return self.canonical_body().encode("utf-8", "surrogatepass")

    def cache_key(self, endpoint: str = "", canonical: str | bytes | None = None) -> str:
        """sha256 of the endpoint and the canonical body (``canonical``: made already, as text or as its
        `wire_body` bytes): one model name on two servers is two models. The same as hashing
        ``canonical_json([endpoint, body])``, without encoding the body a second time."""
        body = self.wire_body() if canonical is None else canonical
        if isinstance(body, str):
            body = body.encode("utf-8", "surrogatepass")
        digest = hashlib.sha256(_key_head(endpoint))
        # hashlib lets go of the GIL for 2 KB or more at once: fed in smaller pieces, the hash of a prompt does
        # not hand the interpreter to the run's database threads and wait to get it back
        view = memoryview(body)
        for start in range(0, len(view), _UNDER_GIL_RELEASE):
            digest.update(view[start:start + _UNDER_GIL_RELEASE])
        digest.update(b"]")
        return digest.hexdigest()


_UNDER_GIL_RELEASE = 2047  # CPython's hashlib keeps the GIL for updates shorter than 2048 bytes


@functools.lru_cache(maxsize=64)
def _key_head(endpoint: str) -> bytes:
    return ("[" + canonical_json(endpoint) + ",").encode("utf-8", "surrogatepass")


@attrs.frozen
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0  # of the prompt tokens, those the endpoint served from its prompt cache

    def __add__(self, other: "Usage") -> "Usage":
        return Usage(self.prompt_tokens + other.prompt_tokens, self.completion_tokens + other.completion_tokens,
                     self.cached_tokens + other.cached_tokens)

    @property
    def total(self) -> int:
        return self.prompt_tokens + self.completion_tokens


@attrs.frozen
class ChatResult:
    text: str
    finish_reason: str | None
    usage: Usage
    latency_s: float = 0.0
    raw: dict[str, Any] = attrs.field(factory=dict, eq=False, repr=False)
    cached: bool = False
    attempts: int = 1
    refusal: str = ""  # the endpoint's own refusal field (OpenAI ``message.refusal``), when it declined

    @property
    def truncated(self) -> bool:
        return self.finish_reason == "length"

    @property
    def filtered(self) -> bool:
        """The endpoint's content filter stopped the answer."""
        return self.finish_reason == "content_filter"


@attrs.frozen
class EmbeddingResult:
    vectors: list[list[float]]
    usage: Usage
    cached: bool = False


def parse_chat_body(body: Any) -> ChatResult:
    """The parts of an OpenAI chat-completion body graphglean uses; ValueError when it is not one."""
    try:
        choice = body["choices"][0]
        message = choice.get("message") or {}
        text = message.get("content")
        if text is None:  # a server that parses reasoning out (vLLM, llama.cpp) found no answer after it: the
            # answer is its reasoning, marked as such (an unclosed block), so free text never keeps it as an
            # answer, and records written inside it are still read
            reasoning = message.get("reasoning_content")
            text = f"<think>{reasoning}" if isinstance(reasoning, str) and reasoning else ""
        if not isinstance(text, str):
            raise ValueError("message content is not text")
        text = whole_characters(text)
        usage = body.get("usage") or {}
        refusal = message.get("refusal")
        prompt = int(usage.get("prompt_tokens") or 0)
        return ChatResult(text, choice.get("finish_reason"),
                          Usage(prompt, int(usage.get("completion_tokens") or 0), min(prompt, cached_tokens(body))),
                          raw=body, refusal=whole_characters(refusal) if isinstance(refusal, str) else "")
    except (KeyError, IndexError, TypeError, AttributeError) as e:
        raise ValueError(f"not a chat completion ({type(e).__name__}: {e})") from None


def cached_tokens(body: dict[str, Any]) -> int:
    """Prompt tokens an answer says came from the endpoint's prompt cache, as each server family says it:
    OpenAI, vLLM and most proxies ``usage.prompt_tokens_details.cached_tokens``; DeepSeek
    ``usage.prompt_cache_hit_tokens``; Anthropic-style ``usage.cache_read_input_tokens``; llama.cpp's server
    ``timings.cache_n``. 0 when none says."""
    usage = body.get("usage") or {}
    details = usage.get("prompt_tokens_details") or {}
    timings = body.get("timings") or {}
    for value in (details.get("cached_tokens") if isinstance(details, dict) else None,
                  usage.get("prompt_cache_hit_tokens"), usage.get("cache_read_input_tokens"),
                  timings.get("cache_n") if isinstance(timings, dict) else None):
        if isinstance(value, (int, float)) and value > 0:
            return int(value)
    return 0


def parse_embeddings_body(body: Any) -> tuple[list[list[float]], Usage]:
    """The vectors and usage of an embeddings answer; ValueError for a body that is not one."""
    try:
        data = sorted(body["data"], key=lambda d: d.get("index", 0))
        if not all(isinstance(d["embedding"], list) for d in data):
            raise ValueError("an embedding is not a list")
        usage = Usage(int((body.get("usage") or {}).get("prompt_tokens") or 0), 0)
    except (KeyError, TypeError, AttributeError) as e:
        raise ValueError(f"not an embeddings answer ({type(e).__name__})") from None
    return [d["embedding"] for d in data], usage


def replayable(req: ChatRequest, result: ChatResult) -> bool:
    """Whether an answer may be stored and replayed on a later run: complete, neither filtered, refused nor
    empty, and valid for what its pass asked (``req.valid``). Anything else is asked again next time."""
    # a YES/NO check asked with max_tokens=1 is complete even when the server says "length"
    if (result.truncated and req.max_tokens != 1) or result.filtered or result.refusal or not result.text.strip():
        return False
    try:
        return req.valid is None or bool(req.valid(result.text))
    except Exception:  # a predicate that cannot read the answer does not vouch for it
        return False


def timed(r: ChatResult, latency_s: float, attempts: int, cached: bool = False) -> ChatResult:
    """``attrs.evolve(r, latency_s=..., attempts=..., cached=...)`` at a third of its cost (once a call)."""
    return ChatResult(r.text, r.finish_reason, r.usage, latency_s, r.raw, cached, attempts, r.refusal)
