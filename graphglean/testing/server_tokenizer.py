"""Tokenizer endpoints as real servers run them: the /tokenize, /extras/tokenize and /detokenize routes of
llama.cpp, llama-cpp-python and vLLM, for `FakeLLMServer(tokenizer_api=...)`."""

from __future__ import annotations

from typing import Any

import attrs

TOKENIZER_STYLES = ("llama.cpp", "llama-cpp-python", "vllm")


@attrs.define
class ServerTokenizer:
    """A local server's tokenize/detokenize routes, shaped as ``style`` runs them:

    - ``llama.cpp``: ``/tokenize {content, add_special}`` -> ``{tokens}``; ``/detokenize {tokens}`` -> ``{content}``
    - ``llama-cpp-python``: ``/extras/tokenize {input}`` -> ``{tokens}``, BOS first whatever is asked (it
      ignores ``add_special_tokens``); ``/extras/detokenize {tokens}`` -> ``{text}``
    - ``vllm``: ``/tokenize {prompt, add_special_tokens}`` -> ``{count, max_model_len, tokens}``;
      ``/detokenize {tokens}`` -> ``{prompt}``

    ``vocab`` maps texts to ids; other text gets one id per character. ``bos`` is added where the style
    adds special tokens; ``hang`` makes the routes never answer, ``busy`` answer 503 that many times first."""

    vocab: dict[str, list[int]]
    style: str = "llama.cpp"
    bos: int | None = None
    hang: bool = False
    empty_refused: bool = False  # answer 400 for an empty text, as some servers do
    busy: int = 0  # answer this many requests 503 first, as a server still loading its model does

    def __attrs_post_init__(self) -> None:
        if self.style not in TOKENIZER_STYLES:
            raise ValueError(f"unknown tokenizer style {self.style!r}; known: {TOKENIZER_STYLES}")

    @property
    def paths(self) -> tuple[str, str]:
        return ("/extras/tokenize", "/extras/detokenize") if self.style == "llama-cpp-python" else (
            "/tokenize", "/detokenize")

    def ids(self, text: str) -> list[int]:
        return list(self.vocab[text]) if text in self.vocab else [1000 + ord(c) for c in text]

    def text(self, ids: list[int]) -> str:
        by_ids = {tuple(v): k for k, v in self.vocab.items()}
        return "".join(by_ids.get((i,), chr(i - 1000) if i >= 1000 else "") for i in ids)

    def answer(self, path: str, body: Any) -> tuple[int, Any] | None:
        """(status, JSON body) for a tokenizer route, or None for any other path."""
        tokenize, detokenize = self.paths
        body = body if isinstance(body, dict) else {}
        if self.busy > 0 and path.endswith((tokenize, detokenize)):
            self.busy -= 1
            return 503, {"error": {"message": "Loading model", "type": "unavailable_error"}}
        if path.endswith(detokenize) and path.removesuffix(detokenize) in ("", "/v1"):
            text = self.text([int(i) for i in body.get("tokens") or []])
            key = {"llama.cpp": "content", "llama-cpp-python": "text", "vllm": "prompt"}[self.style]
            return 200, {key: text}
        if not (path.endswith(tokenize) and path.removesuffix(tokenize) in ("", "/v1")):
            return None
        key = {"llama.cpp": "content", "llama-cpp-python": "input", "vllm": "prompt"}[self.style]
        if key not in body:
            return 422, {"detail": [{"type": "missing", "loc": ["body", key], "msg": "Field required"}]}
        text = str(body[key])
        if not text and self.empty_refused:
            return 400, {"error": {"message": "empty input", "type": "invalid_request_error"}}
        special = {"llama.cpp": bool(body.get("add_special", False)), "llama-cpp-python": True,
                   "vllm": bool(body.get("add_special_tokens", True))}[self.style]
        ids = ([self.bos] if special and self.bos is not None else []) + self.ids(text)
        if self.style == "vllm":
            return 200, {"count": len(ids), "max_model_len": 4096, "tokens": ids}
        return 200, {"tokens": ids}
