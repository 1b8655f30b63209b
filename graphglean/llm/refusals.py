"""Why an endpoint refused a request, read from the HTTP status and the error body, in one place.

A refusal is a failure of one item when it is about the item's content (a prompt too long for the model's
context, a content-filter block) or is any other 400/413/422 that names no setting. It is fatal for the run
when every request would get it: a refused key (401/402/403), an unknown model or deployment, any other 404
(every request goes to the same URL), a parameter the endpoint does not take.

Error bodies differ by server; all of these are read:
OpenAI/Azure ``{"error": {"message", "type", "param", "code", "innererror"?}}``; vLLM ``{"object": "error",
"message", "type", "param", "code": 400}``; llama.cpp ``{"error": {"code": 400, "message", "type"}}``; Ollama
``{"error": "text"}``; FastAPI/pydantic ``{"detail": [{"loc", "msg"}]}`` or ``{"detail": "Not Found"}``; Google's
``[{"error": {"code", "message", "status"}}]``; and plain text or HTML.
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterable

import attrs

from ..core.errors import (LLMAuthError, LLMCapabilityError, LLMError, LLMModelError, LLMParameterError,
                           LLMRequestError, about_setting)

#: body keys that carry the item's own content, not a setting: a refusal naming them is about the item
CONTENT_KEYS = frozenset({"messages", "input", "prompt", "model"})

_CONTEXT_CODES = frozenset({"context_length_exceeded", "exceed_context_size_error", "string_above_max_length",
                            "request_too_large", "tokens_exceeded", "context_window_exceeded"})
_CONTEXT_TEXT = re.compile(
    r"context[ _](length|size|window)|maximum context|too many (input )?tokens|prompt is too long|input is too long"
    r"|exceeds? (the )?(maximum|max|available|model)|reduce the length|token limit|(input|prompt) too long"
    r"|longer than the model|max_model_len", re.I)
_FILTER_CODES = frozenset({"content_filter", "responsibleaipolicyviolation", "content_policy_violation",
                           "moderation_blocked", "safety", "prohibited_content"})
_FILTER_TEXT = re.compile(r"content (management |safety )?polic|content filter|flagged|safety (system|filter)"
                          r"|blocked (by|due to)", re.I)
_MODEL_CODES = frozenset({"model_not_found", "deploymentnotfound", "modelnotfound", "model_not_available"})
_MODEL_TEXT = re.compile(r"\b(model|deployment)\b[^.]{0,120}?\b(does not exist|doesn't exist|not found|no such"
                         r"|is not available|unknown)|\b(unknown|invalid|no such) (model|deployment)\b"
                         r"|\bmodel_not_found\b", re.I)


@attrs.frozen
class ErrorBody:
    """What an error body says, whatever the server's shape."""

    message: str = ""
    codes: tuple[str, ...] = ()  # error.code, error.type, error.status, innererror.code: lower case
    param: str = ""


def read_error_body(text: str) -> ErrorBody:
    try:
        data: Any = json.loads(text)
    except ValueError:
        return ErrorBody(_one_line(re.sub(r"<[^>]+>", " ", text)))
    if isinstance(data, list) and data and isinstance(data[0], dict):
        data = data[0]
    if not isinstance(data, dict):
        return ErrorBody(_one_line(str(data)))
    err = data.get("error")
    if isinstance(err, str):
        return ErrorBody(_one_line(err))
    if isinstance(err, dict):
        return _from_error_object(err)
    if data.get("object") == "error" or "message" in data:
        return _from_error_object(data)
    detail = data.get("detail")
    if isinstance(detail, str):
        return ErrorBody(_one_line(detail))
    if isinstance(detail, list):  # pydantic validation errors (FastAPI servers, llama-cpp-python)
        problems = [d for d in detail if isinstance(d, dict)]
        locs = [[str(p) for p in d.get("loc") or []] for d in problems]
        message = "; ".join(f"{'.'.join(loc[1:] if loc[:1] == ['body'] else loc)}: {d.get('msg', '')}"
                            for loc, d in zip(locs, problems))
        param = next((loc[1] for loc in locs if len(loc) > 1 and loc[0] == "body"), "")
        return ErrorBody(_one_line(message), ("validation_error",), param)
    return ErrorBody(_one_line(text))


def _from_error_object(err: dict[str, Any]) -> ErrorBody:
    inner = err.get("innererror") if isinstance(err.get("innererror"), dict) else {}
    codes = tuple(str(c).lower() for c in (err.get("code"), err.get("type"), err.get("status"), inner.get("code"))
                  if c not in (None, ""))
    message = err.get("message") or err.get("msg") or ""
    return ErrorBody(_one_line(str(message)), codes, str(err.get("param") or ""))


def _one_line(text: str, limit: int = 300) -> str:
    return " ".join(text.split())[:limit]


def refusal(status: int, text: str, *, sent: Iterable[str] = (), model: str = "", url: str = "") -> LLMError:
    """The error for a non-retryable answer ``status`` with body ``text`` (already redacted). ``sent`` are
    the keys of the request body, so a refusal is only read as about a parameter that was actually sent."""
    body = read_error_body(text)
    named = next((c for c in body.codes if not c.isdigit()), "")
    where = f"HTTP {status}" + (f", {named}" if named else "")
    said = body.message or "(no message)"
    if status in (401, 402, 403):
        what = "the account (payment required)" if status == 402 else "the API key"
        return about_setting(LLMAuthError(f"the endpoint refused {what} ({where}): {said}; check llm.api_key", status, text),
                      "llm.api_key")
    kind = _item_kind(status, body)
    if kind is not None:
        return LLMRequestError(f"the endpoint refused this request ({where}): {said}", status, text, kind=kind)
    if set(body.codes) & _MODEL_CODES or _MODEL_TEXT.search(body.message):
        return about_setting(LLMModelError(f"the endpoint does not serve model {model!r} ({where}): {said}; check "
                                    "llm.model (llm.azure.deployment on Azure) and llm.base_url", status, text,
                                    kind="model"), "llm.model")
    if status == 404:  # every request goes to this URL with this model: not about one item
        return LLMModelError(f"{url or 'the endpoint URL'} was not found ({where}: {said}); check llm.base_url, "
                             "llm.model (llm.azure.deployment and api_version on Azure)", status, text, kind="model")
    params = _params_named(body, sent)
    if params:
        return LLMParameterError(f"the endpoint does not accept {', '.join(params)} ({where}): {said}", status,
                                 text, kind="parameter", params=params)
    if 400 <= status < 500:
        return LLMRequestError(f"the endpoint refused this request ({where}): {said}", status, text)
    return LLMError(f"unexpected HTTP {status} from the endpoint: {said}", status, text)


_NO_EMBEDDINGS = re.compile(r"embedding=True|--embeddings?\b|(does not|doesn't|not) support(s|ed)? embeddings"
                            r"|embeddings? (are |is )?not (supported|enabled|available)|not an embedding model"
                            r"|pooling", re.I)
_NOT_OFFERED = re.compile(r"not (supported|implemented|allowed)|unsupported|unknown (parameter|field|type)"
                          r"|invalid (value|type)", re.I)


def server_refusal(status: int, text: str, *, sent: Iterable[str] = (), path: str = "") -> LLMError | None:
    """The refusal inside a 5xx that is not a passing fault, or None: a server that says it serves no
    embeddings (llama-cpp-python's HTTP 500 "Llama model must be created with embedding=True", llama.cpp's
    501 "start it with --embeddings"), or one that names a parameter that was sent (its 500 for a
    ``response_format`` of type ``json_schema``). Asking again would get the same answer."""
    body = read_error_body(text)
    where = f"HTTP {status}"
    said = body.message or "(no message)"
    if path.endswith("embeddings") and (_NO_EMBEDDINGS.search(said) or status == 501):
        return LLMCapabilityError(f"the endpoint serves no embeddings ({where}: {said})", status, text,
                                  kind="capability", params=("embeddings",))
    params = _params_named(body, sent)
    if params and (_NOT_OFFERED.search(said) or status == 501 or any(p in said for p in ("json_schema",))):
        return LLMParameterError(f"the endpoint does not accept {', '.join(params)} ({where}): {said}", status,
                                 text, kind="parameter", params=params)
    if "response_format" in sent and "json_schema" in said:
        return LLMParameterError(f"the endpoint does not accept response_format json_schema ({where}): {said}",
                                 status, text, kind="parameter", params=("response_format",))
    return None


def _item_kind(status: int, body: ErrorBody) -> str | None:
    """``context_length`` or ``content_filter`` when the refusal is about this item's content."""
    codes = set(body.codes)
    if status == 413 or codes & _CONTEXT_CODES or _CONTEXT_TEXT.search(body.message):
        return "context_length"
    if codes & _FILTER_CODES or _FILTER_TEXT.search(body.message):
        return "content_filter"
    return None


def _params_named(body: ErrorBody, sent: Iterable[str]) -> tuple[str, ...]:
    """The settings the refusal names, among those sent (never the item's own content)."""
    candidates = [k for k in sent if k not in CONTENT_KEYS]
    named = [k for k in candidates if k == body.param.split(".")[0].split("[")[0]
             or re.search(rf"(?<![\w.]){re.escape(k)}(?!\w)", body.message)]
    return tuple(named)
