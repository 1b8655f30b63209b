"""A wave's input file and the files its batch writes: one JSONL line per request (``custom_id``, ``method``,
``url``, ``body``), cut into batches at the endpoint's limits; the answers read back by ``custom_id`` and judged
as an online answer is."""

from __future__ import annotations

import json
from typing import Any, Callable, Iterable, TypeVar

import attrs

from ..records import ChatResult, canonical_json, parse_chat_body
from ..refusals import refusal
from ..retry import is_retryable_status

T = TypeVar("T")
#: error codes of a line that got no answer through no fault of its own: asked again in the next wave
PASSING_CODES = frozenset({"batch_expired", "batch_cancelled", "batch_failed", "server_error", "internal_error",
                           "rate_limit_exceeded", "timeout", "no_answer"})


@attrs.frozen
class LineResult:
    """What a batch says of one request: the HTTP status and body of its answer, or (``status`` None) the
    error that kept it from one (``{"code", "message"}``)."""

    status: int | None
    body: Any = None
    error: dict[str, Any] | None = None


def no_answer(why: str) -> LineResult:
    """A request its batch ended without answering (expired, cancelled, failed, or a line that could not be read)."""
    return LineResult(None, error={"code": "no_answer", "message": why})


def input_line(custom_id: str, url: str, body: dict[str, Any]) -> bytes:
    return (canonical_json({"custom_id": custom_id, "method": "POST", "url": url, "body": body}) + "\n").encode(
        "utf-8", "surrogatepass")


def split(items: list[T], size: Callable[[T], int], max_lines: int, max_bytes: int) -> list[list[T]]:
    """``items`` in order, cut into parts of at most ``max_lines`` items and ``max_bytes`` (an item larger than
    that alone makes a part)."""
    parts: list[list[T]] = []
    part: list[T] = []
    used = 0
    for item in items:
        n = size(item)
        if part and (len(part) >= max_lines or used + n > max_bytes):
            parts.append(part)
            part, used = [], 0
        part.append(item)
        used += n
    if part:
        parts.append(part)
    return parts


def read_results(content: bytes, into: dict[str, LineResult]) -> int:
    """Add the lines of an output or error file to ``into`` (a good answer is never replaced by an error);
    the number of lines that could not be read (their requests get no answer, so they are asked again)."""
    unreadable = 0
    for raw in content.splitlines():
        if not raw.strip():
            continue
        try:
            line = json.loads(raw)
        except ValueError:
            unreadable += 1
            continue
        result = _result(line) if isinstance(line, dict) and isinstance(line.get("custom_id"), str) else None
        if result is None:
            unreadable += 1
        elif line["custom_id"] not in into or into[line["custom_id"]].status != 200:
            into[line["custom_id"]] = result
    return unreadable


def _result(line: dict[str, Any]) -> LineResult | None:
    response, error = line.get("response"), line.get("error")
    if isinstance(response, dict) and isinstance(response.get("status_code"), int):
        body = response.get("body")
        if isinstance(body, str):  # some servers write the body as JSON text
            try:
                body = json.loads(body)
            except ValueError:
                pass
        return LineResult(response["status_code"], body)
    if isinstance(error, dict):
        return LineResult(None, error=error)
    return None


def judged(result: LineResult, sent: Iterable[str], model: str, url: str) -> tuple[ChatResult, Any] | str:
    """(the answer, its body to store) when it is good; why to ask again when its failure may pass (a 5xx, a
    429, a broken body, no answer); the refusal raised when it is final, as online (`refusal`)."""
    if result.status == 200:
        try:
            return parse_chat_body(result.body), result.body
        except ValueError as e:
            return f"unparseable answer ({e})"
    if result.status is not None:
        if is_retryable_status(result.status):
            return f"HTTP {result.status}"
        text = result.body if isinstance(result.body, str) else json.dumps(result.body, ensure_ascii=False)
        raise refusal(result.status, text, sent=sent, model=model, url=url)
    error = result.error or {}
    code = str(error.get("code") or "")
    if code in PASSING_CODES:
        return f"{code}: {error.get('message') or 'no answer'}"
    raise refusal(400, json.dumps({"error": error}, ensure_ascii=False), sent=sent, model=model, url=url)
