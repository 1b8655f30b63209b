"""Why an endpoint refused a request, read from the HTTP status and the error body, in one place.

A refusal is fatal for the run when every request would get it (a refused key, an unknown model or
deployment, a URL path that does not exist, a parameter the endpoint does not take) and a failure of one item
otherwise (a prompt too long for the model's context, a content-filter block, any other rejected request).

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

from ..errors import LLMAuthError, LLMError, LLMModelError, LLMParameterError, LLMRequestError

#: body keys that carry the item's own content, not a setting: a refusal naming them is about the item
CONTENT_KEYS = frozenset({"messages", "input", "prompt", "model"})

_CONTEXT_CODES = frozenset({"context_length_exceeded", "exceed_context_size_error", "string_above_max_length",
                            "request_too_large", "tokens_exceeded", "context_window_exceeded"})
_CONTEXT_TEXT = re.compile(
    r"context (length|size|window)|maximum context|too many (input )?tokens|prompt is too long|input is too long"
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
_NOT_AN_API_ERROR = {"not found", "method not allowed", "404 page not found", "file not found"}


@attrs.frozen
class ErrorBody:
    """What an error body says, whatever the server's shape."""

    message: str = ""
    codes: tuple[str, ...] = ()  # error.code, error.type, error.status, innererror.code: lower case
    param: str = ""
    api: bool = False  # an API's own error object, not a web server's page for a path it does not have


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
        return ErrorBody(_one_line(err), api=_one_line(err).lower() not in _NOT_AN_API_ERROR)
    if isinstance(err, dict):
        return _from_error_object(err)
    if data.get("object") == "error" or "message" in data:
        return _from_error_object(data)
    detail = data.get("detail")
    if isinstance(detail, str):
        return ErrorBody(_one_line(detail), api=detail.strip().lower() not in _NOT_AN_API_ERROR)
    if isinstance(detail, list):  # pydantic validation errors (FastAPI servers, llama-cpp-python)
        problems = [d for d in detail if isinstance(d, dict)]
        locs = [[str(p) for p in d.get("loc") or []] for d in problems]
        message = "; ".join(f"{'.'.join(loc[1:] if loc[:1] == ['body'] else loc)}: {d.get('msg', '')}"
                            for loc, d in zip(locs, problems))
        param = next((loc[1] for loc in locs if len(loc) > 1 and loc[0] == "body"), "")
        return ErrorBody(_one_line(message), ("validation_error",), param, api=True)
    return ErrorBody(_one_line(text))


def _from_error_object(err: dict[str, Any]) -> ErrorBody:
    inner = err.get("innererror") if isinstance(err.get("innererror"), dict) else {}
    codes = tuple(str(c).lower() for c in (err.get("code"), err.get("type"), err.get("status"), inner.get("code"))
                  if c not in (None, ""))
    message = err.get("message") or err.get("msg") or ""
    return ErrorBody(_one_line(str(message)), codes, str(err.get("param") or ""), api=True)


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
        return LLMAuthError(f"the endpoint refused {what} ({where}): {said}; check llm.api_key", status, text)
    kind = _item_kind(status, body)
    if kind is not None:
        return LLMRequestError(f"the endpoint refused this request ({where}): {said}", status, text, kind=kind)
    if set(body.codes) & _MODEL_CODES or _MODEL_TEXT.search(body.message):
        return LLMModelError(f"the endpoint does not serve model {model!r} ({where}): {said}; check llm.model "
                             "(llm.azure.deployment on Azure) and llm.base_url", status, text)
    if status == 404 and not body.api:
        return LLMModelError(f"{url or 'the endpoint URL'} does not exist ({where}: {said}); check llm.base_url",
                             status, text)
    params = _params_named(body, sent)
    if params:
        return LLMParameterError(f"the endpoint does not accept {', '.join(params)} ({where}): {said}", status,
                                 text, kind="parameter", params=params)
    if 400 <= status < 500:
        return LLMRequestError(f"the endpoint refused this request ({where}): {said}", status, text)
    return LLMError(f"unexpected HTTP {status} from the endpoint: {said}", status, text)


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
