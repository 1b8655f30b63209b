"""What a server says of the model it serves: its context window and output limit, read once per run.

- ``GET /models``: vLLM's ``max_model_len``; ``context_length`` / ``context_window`` / ``max_context_length``
  (OpenRouter, LM Studio and other proxies); an output limit as ``max_completion_tokens``,
  ``max_output_tokens`` or OpenRouter's ``top_provider.max_completion_tokens``;
- ``GET /props`` at the server's root: llama.cpp's ``default_generation_settings.n_ctx`` (a slot's window, what
  a request really has; ``meta.n_ctx_train`` of its ``/models`` is only what the model was trained for) and
  ``n_predict`` when it sets one.

A server that answers neither (Ollama's OpenAI routes, llama-cpp-python) leaves both unknown.
"""

from __future__ import annotations

from typing import Any

import attrs

from ..endpoint import Endpoint

_WINDOW_KEYS = ("max_model_len", "context_length", "context_window", "max_context_length", "loaded_context_length")
_OUTPUT_KEYS = ("max_completion_tokens", "max_output_tokens")


@attrs.frozen
class ServedLimits:
    output: int | None = None  # tokens one answer may have
    window: int | None = None  # prompt and answer together


def _positive(value: Any) -> int | None:
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0 else None


def _first(data: dict[str, Any], keys: tuple[str, ...]) -> int | None:
    return next((v for k in keys if (v := _positive(data.get(k))) is not None), None)


def from_models(body: Any, model: str) -> ServedLimits:
    """The limits a ``/models`` answer gives for ``model`` (or for its only model)."""
    entries = [e for e in (body.get("data") or []) if isinstance(e, dict)] if isinstance(body, dict) else []
    entry = next((e for e in entries if e.get("id") == model), entries[0] if len(entries) == 1 else None)
    if entry is None:
        return ServedLimits()
    provider = entry.get("top_provider") if isinstance(entry.get("top_provider"), dict) else {}
    return ServedLimits(_first(entry, _OUTPUT_KEYS) or _first(provider, _OUTPUT_KEYS),
                        _first(entry, _WINDOW_KEYS) or _first(provider, ("context_length",)))


def from_props(body: Any) -> ServedLimits:
    """The limits llama.cpp's ``/props`` gives: a slot's window, and the answer length it is started with."""
    settings = body.get("default_generation_settings") if isinstance(body, dict) else None
    if not isinstance(settings, dict):
        return ServedLimits()
    params = settings.get("params") if isinstance(settings.get("params"), dict) else {}
    return ServedLimits(_positive(params.get("n_predict", settings.get("n_predict"))), _positive(settings.get("n_ctx")))


async def served_limits(endpoint: Endpoint, model: str) -> ServedLimits:
    """What the endpoint's server reports of ``model`` (see the module docstring); unknown parts are None."""
    found = from_models(await endpoint.get_json(endpoint.url("models", model)), model)
    if found.window is None:
        root = endpoint.url("models", model).rsplit("/", 1)[0]
        root = root[:-3] if root.endswith("/v1") else root
        props = from_props(await endpoint.get_json(root + "/props"))
        found = ServedLimits(found.output or props.output, props.window)
    return found
