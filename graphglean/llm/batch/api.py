"""`BatchEndpoint`: the Files and Batches routes of an OpenAI-compatible endpoint: upload a wave's input file,
create its batch, look at it, find it by its input file, cancel it, and download the files it wrote.

URL shapes: OpenAI and the servers that speak its protocol (``{base}/files``, ``{base}/batches``; lines go to
``/v1/chat/completions``), or Azure OpenAI (``{base}/openai/files?api-version=...``; lines go to
``/chat/completions`` and name their global batch deployment as ``model``). Failures that may pass (no
connection, a timeout, 429, 5xx) are retried within ``llm.max_retries``; looking at a batch in flight and
downloading its answers never give up on them (those answers are paid for). A refusal (401, 404, ...) is final.
"""

from __future__ import annotations

import uuid
from typing import Any, Awaitable, Callable, TypeVar

import attrs
import httpx
import trio

from ...core.errors import LLMModelError
from ..contact import FIRST_CONTACT_WAIT_S, unreachable_because
from ..endpoint import USER_AGENT, Endpoint, Failure, below
from ..refusals import read_error_body, refusal
from ..retry import RetryBudget, RetryPolicy, is_retryable_status, parse_retry_after

T = TypeVar("T")
AZURE_BATCH_API_VERSION = "2024-10-21"  # the first generally available api-version with Files and Batches
TERMINAL = frozenset({"completed", "failed", "expired", "cancelled", "gone"})
_LIST_PAGES = 20  # pages of 100 batches searched for the batch of an input file


def batch_api_version(configured: str) -> str:
    """``llm.azure.api_version`` where it has the Batch API (2024-07-01 on), else the first GA version that does."""
    return configured if configured[:10] >= "2024-07-01" else AZURE_BATCH_API_VERSION


@attrs.frozen
class BatchProblem:
    """One of the reasons a batch failed validation; ``line`` (1-based) when it is one input line's."""

    code: str
    message: str
    line: int | None = None


@attrs.frozen
class BatchState:
    """What the endpoint says of a batch. ``gone``: it does not know the batch (deleted, another account)."""

    id: str
    status: str
    input_file_id: str = ""
    output_file_id: str | None = None
    error_file_id: str | None = None
    total: int = 0
    completed: int = 0
    failed: int = 0
    problems: tuple[BatchProblem, ...] = ()
    created_at: float | None = None
    expires_at: float | None = None

    @property
    def done(self) -> bool:
        return self.status in TERMINAL

    @classmethod
    def read(cls, body: Any) -> "BatchState":
        if not isinstance(body, dict) or not isinstance(body.get("id"), str) or not isinstance(body.get("status"), str):
            raise ValueError("not a batch object")
        counts = body.get("request_counts") if isinstance(body.get("request_counts"), dict) else {}
        errors = body.get("errors")
        data = errors.get("data") if isinstance(errors, dict) else errors
        problems = tuple(BatchProblem(str(e.get("code") or ""), str(e.get("message") or ""),
                                      e["line"] if isinstance(e.get("line"), int) else None)
                         for e in (data if isinstance(data, list) else []) if isinstance(e, dict))
        return cls(body["id"], body["status"], str(body.get("input_file_id") or ""), body.get("output_file_id"),
                   body.get("error_file_id"), _count(counts, "total"), _count(counts, "completed"),
                   _count(counts, "failed"), problems, _time(body.get("created_at")), _time(body.get("expires_at")))


def _count(counts: dict[str, Any], name: str) -> int:
    value = counts.get(name)
    return value if isinstance(value, int) else 0


def _time(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _json(resp: httpx.Response) -> Any:
    try:
        return resp.json()
    except ValueError:
        raise ValueError("the answer is not JSON") from None


class BatchEndpoint(Endpoint):
    """Open it (`open`) before the first call and close it (`close_http`); `last_trouble` is the latest failure
    being retried (for progress lines), empty once a call went through."""

    last_trouble = ""

    @property
    def azure(self) -> bool:
        return self.cfg.provider == "azure"

    def route(self, path: str) -> str:
        if self.azure:
            version = batch_api_version(self.cfg.azure.api_version)
            return below(self.cfg.base_url, f"openai/{path}", f"api-version={version}")
        return self.url(path)

    @property
    def line_url(self) -> str:
        """The ``url`` of an input line, and the batch's ``endpoint``."""
        return "/chat/completions" if self.azure else "/v1/chat/completions"

    def line_body(self, body: dict[str, Any]) -> dict[str, Any]:
        """The body as online mode sends it; on Azure its ``model`` is the global batch deployment."""
        if self.azure and self.cfg.azure.deployment:
            return {**body, "model": self.cfg.azure.deployment}
        return body

    # -- the routes ----------------------------------------------------------------------------------

    async def upload(self, name: str, lines: list[bytes]) -> str:
        """Upload a wave's JSONL lines as one file (purpose ``batch``); its file id. ``lines`` is emptied once
        they are in the request's body: a 200 MB file is held twice at most, not once a line and once more."""
        boundary = uuid.uuid4().hex
        head = (f'--{boundary}\r\nContent-Disposition: form-data; name="purpose"\r\n\r\nbatch\r\n--{boundary}\r\n'
                f'Content-Disposition: form-data; name="file"; filename="{name}"\r\n'
                "Content-Type: application/jsonl\r\n\r\n").encode()
        body = b"".join((head, *lines, f"\r\n--{boundary}--\r\n".encode()))
        lines.clear()
        return await self._call("POST", "files", _file_id, content=body, timeout=self._transfer_s(len(body)),
                                headers={"content-type": f"multipart/form-data; boundary={boundary}"})

    async def create(self, file_id: str, metadata: dict[str, str]) -> BatchState:
        """Create the batch of an uploaded file. An attempt whose outcome is unknown (a timeout, a 5xx) is
        followed by a look for a batch of that file before the next: a batch is never created twice."""
        body = {"input_file_id": file_id, "endpoint": self.line_url,
                "completion_window": self.cfg.batch.completion_window, "metadata": metadata}
        return await self._call("POST", "batches", _state, json=body, recover=lambda: self.find(file_id))

    async def look(self, batch_id: str) -> BatchState:
        return await self._call("GET", f"batches/{batch_id}", _state, patient=True,
                                gone=BatchState(batch_id, "gone"))

    async def cancel(self, batch_id: str) -> BatchState:
        return await self._call("POST", f"batches/{batch_id}/cancel", _state, gone=BatchState(batch_id, "gone"))

    async def find(self, file_id: str) -> BatchState | None:
        """The batch created from input file ``file_id``, among the account's latest batches."""
        after = None
        for _ in range(_LIST_PAGES):
            params = {"limit": "100", **({"after": after} if after else {})}
            page = await self._call("GET", "batches", _json, params=params)
            data = page.get("data") if isinstance(page, dict) else None
            if not isinstance(data, list) or not data:
                return None
            for item in data:
                if isinstance(item, dict) and item.get("input_file_id") == file_id:
                    return BatchState.read(item)
            after = data[-1].get("id") if isinstance(data[-1], dict) else None
            if not page.get("has_more") or not after:
                return None
        return None

    async def delete(self, file_id: str) -> None:
        await self._call("DELETE", f"files/{file_id}", lambda resp: None, gone=None)

    async def content(self, file_id: str) -> bytes:
        """A file's bytes (a batch's output or error file); empty when the endpoint no longer has it (its answers
        are then asked again)."""
        return await self._call("GET", f"files/{file_id}/content", lambda resp: resp.content, patient=True,
                                timeout=max(self.cfg.timeout_s, 600.0), gone=b"")

    # -- one call, retried -----------------------------------------------------------------------------

    def _transfer_s(self, size: int) -> float:
        return self.cfg.timeout_s + size / 1e6  # a megabyte a second at the least

    async def _call(self, method: str, path: str, read: Callable[[httpx.Response], T], *, patient: bool = False,
                    recover: Callable[[], Awaitable[T | None]] | None = None, gone: T | None = None,
                    timeout: float | None = None, **send: Any) -> T:
        """``read`` of the answer to one request, retried while its failures may pass (forever when ``patient``,
        at most ``poll_s`` apart). ``recover`` looks, after a failed attempt, for what it may have done anyway;
        ``gone``: what a 404 means (else a 404 says the endpoint has no such route)."""
        assert self._http is not None, "open the endpoint first"
        url = self.route(path)
        budget = RetryBudget(RetryPolicy(max_retries=self.cfg.max_retries), trio.current_time())
        failures: list[Failure] = []
        while True:
            outcome = await self._once(method, url, timeout or self.cfg.timeout_s, send, gone is not None)
            if isinstance(outcome, httpx.Response) and outcome.status_code == 404:
                return gone  # type: ignore[return-value]
            if isinstance(outcome, httpx.Response):
                try:
                    result = read(outcome)
                    self.last_trouble = ""
                    return result
                except ValueError as e:
                    outcome = Failure(f"unreadable answer ({e})", outcome.status_code)
            failures.append(outcome)
            self.last_trouble = outcome.reason
            if outcome.unreachable and not patient and (dead := self.dead_on_arrival(failures)) is not None:
                raise dead  # never reached: a wrong llm.base_url or a server not started, said at once
            if recover is not None and (found := await recover()) is not None:
                return found
            budget.spend(False)
            wait = budget.next_wait(outcome.retry_after)
            if outcome.unreachable and not self.reached:
                wait = FIRST_CONTACT_WAIT_S
            if patient:
                wait = min(wait, self.cfg.batch.poll_s)
            elif budget.exhausted(trio.current_time(), wait):
                raise self._give_up(failures, url)
            await trio.sleep(wait)

    async def _once(self, method: str, url: str, timeout: float, send: dict[str, Any], gone_ok: bool
                    ) -> httpx.Response | Failure:
        """One request: its answer (a 404 too when ``gone_ok``), or why it may be tried again; a refusal raises."""
        assert self._http is not None
        headers = {**self._headers(), "user-agent": USER_AGENT, **send.get("headers", {})}
        try:
            with trio.move_on_after(timeout):  # our pool does not apply httpx's timeouts
                resp = await self._http.request(method, url, **{**send, "headers": headers})
                self.reached = True
                status = resp.status_code
                if status < 300 or (status == 404 and gone_ok):
                    return resp
                text = self.redact(resp.text)[:2000]
                if is_retryable_status(status):
                    return Failure(f"HTTP {status}", status, text[:500], parse_retry_after(resp.headers))
                settings = [k for k in ("endpoint", "completion_window") if k in (send.get("json") or {})]
                raise self._refused(status, text, url, settings)
            return Failure(f"no complete answer within {timeout:g} s")
        except httpx.TimeoutException as e:
            return Failure(f"timed out ({type(e).__name__})", connection=isinstance(e, httpx.ConnectTimeout))
        except (httpx.ConnectError, httpx.UnsupportedProtocol) as e:
            return Failure(f"cannot connect ({self.redact(str(e)) or type(e).__name__})", connection=True,
                           unreachable=unreachable_because(e))
        except httpx.TransportError as e:
            return Failure(f"connection broken ({type(e).__name__})")

    def _refused(self, status: int, text: str, url: str, settings: list[str]) -> Exception:
        """What a refusal means: no such routes, or as online (`refusal`; naming one of the batch's ``settings``
        it is fatal, as a refused parameter is)."""
        where = self.redact(url.split("?", 1)[0])
        if status in (404, 405):  # every call of the wave goes to these routes
            said = read_error_body(text).message or "(no message)"
            return LLMModelError(f"{where}: HTTP {status}: the endpoint has no Files and Batches API here ({said}); "
                                 "llm.batch needs one (OpenAI, an Azure OpenAI global batch deployment, a server "
                                 "that implements them): check llm.base_url, or set llm.batch.enabled: false",
                                 status, text, kind="model")
        return refusal(status, text, url=where, sent=settings)


def _file_id(resp: httpx.Response) -> str:
    body = _json(resp)
    if not isinstance(body, dict) or not isinstance(body.get("id"), str):
        raise ValueError("not a file object")
    return body["id"]


def _state(resp: httpx.Response) -> BatchState:
    return BatchState.read(_json(resp))
