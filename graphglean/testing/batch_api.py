"""The fake server's Files and Batches API, in OpenAI's shapes (``/v1/files``, ``/v1/batches``) and Azure
OpenAI's (``/openai/files?api-version=...``): upload a JSONL of requests, create a batch of it, look at it, list
the batches, cancel one, download its output and error files, delete a file.

    server = FakeLLMServer(synthetic, batch_api=FakeBatchAPI(completion_delay=0.2, failed_lines=0.1, expire={0}))

A batch is validated when first looked at, then answers its lines with the server's own responder (the same
answers as online) ``completion_delay`` seconds (its value then) after it was created; its counts of answered
lines grow in between. Faults: ``failed_lines``, the share of requests (chosen by their custom_id, seeded)
whose first answer is a 500 in the error file; ``expire``, batches (numbered in the order they were created,
from 0) that expire with half their lines answered and the rest in the error file as ``batch_expired``;
``fail_validation``, batches that fail validation with an error code of their own (``CODE``, or ``CODE:LINE``
for an error that names an input line, from 1). A line the responder refuses (a `Reply` with a 4xx status) is
in the error file with that status and body, as an endpoint's refusal of one request.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
import time
from typing import Any, Iterable, Mapping
from urllib.parse import parse_qs

import attrs
import trio

from .exchange import RecordedRequest

ENDPOINTS = ("/v1/chat/completions", "/chat/completions")


@attrs.define
class FakeBatch:
    id: str
    number: int
    input_file_id: str
    endpoint: str
    completion_window: str
    metadata: dict[str, Any]
    created: float  # trio clock
    created_at: int  # epoch seconds, as the API shows it
    delay: float = 0.0  # seconds from creation to its answers (the API's completion_delay when it was created)
    status: str = "validating"
    lines: list[dict[str, Any]] = attrs.field(factory=list, repr=False)
    output_file_id: str | None = None
    error_file_id: str | None = None
    completed: int = 0
    failed: int = 0
    errors: list[dict[str, Any]] = attrs.field(factory=list)

    def body(self) -> dict[str, Any]:
        total = len(self.lines)
        hours = int(self.completion_window.rstrip("h") or 24)
        return {"id": self.id, "object": "batch", "endpoint": self.endpoint, "input_file_id": self.input_file_id,
                "completion_window": self.completion_window, "status": self.status,
                "output_file_id": self.output_file_id, "error_file_id": self.error_file_id,
                "created_at": self.created_at, "expires_at": self.created_at + hours * 3600,
                "errors": {"object": "list", "data": self.errors} if self.errors else None,
                "request_counts": {"total": total, "completed": self.completed, "failed": self.failed},
                "metadata": self.metadata}


class FakeBatchAPI:
    """Files and batches kept in memory. ``uploaded_lines`` holds the custom_id of every line ever uploaded
    (a request submitted twice shows twice); ``answered_lines`` counts the lines answered."""

    def __init__(self, completion_delay: float = 0.0, *, failed_lines: float = 0.0, seed: int = 0,
                 expire: Iterable[int] = (), fail_validation: Mapping[int, str] | None = None) -> None:
        self.completion_delay = completion_delay
        self.failed_lines = failed_lines
        self.seed = seed
        self.expire = set(expire)
        self.fail_validation = dict(fail_validation or {})
        self.files: dict[str, dict[str, Any]] = {}
        self.contents: dict[str, bytes] = {}
        self.batches: dict[str, FakeBatch] = {}
        self.uploaded_lines: list[str] = []
        self.calls: list[tuple[str, str]] = []  # (method, target) of every request to these routes
        self.answered_lines = 0
        self._first_tries: set[str] = set()
        self._file_numbers = itertools.count()

    @staticmethod
    def handles(path: str) -> bool:
        return re.search(r"/(files|batches)(/|$)", path) is not None

    async def answer(self, server: Any, req: RecordedRequest, raw: bytes, target: str) -> tuple[int, bytes]:
        """(status, body) for a request to the Files or Batches routes."""
        self.calls.append((req.method, target))
        query = {k: v[0] for k, v in parse_qs(target.partition("?")[2]).items()}
        route = re.search(r"/(files|batches)(?:/([^/]+))?(?:/(content|cancel))?$", req.path)
        if route is None:
            return _error(404, "unknown path")
        kind, ident, action = route.groups()
        if kind == "files":
            return self._files(req, raw, ident, action)
        if req.method == "POST" and ident is None:
            return self._create(req.body)
        if req.method == "GET" and ident is None:
            return self._list(query)
        batch = self.batches.get(ident or "")
        if batch is None:
            return _error(404, f"No batch found with id '{ident}'")
        if action == "cancel" and req.method == "POST":
            if batch.status in ("validating", "in_progress", "finalizing"):
                batch.status = "cancelling"
        await self._advance(server, batch)
        return 200, json.dumps(batch.body()).encode()

    # -- files ----------------------------------------------------------------------------------------

    def _files(self, req: RecordedRequest, raw: bytes, ident: str | None, action: str | None) -> tuple[int, bytes]:
        if req.method == "POST" and ident is None:
            try:
                fields = _multipart(raw, req.headers.get("content-type", ""))
            except ValueError as e:
                return _error(400, f"cannot read the upload: {e}")
            if fields.get("purpose", (None, b""))[1] != b"batch":
                return _error(400, "purpose must be 'batch'")
            if "file" not in fields:
                return _error(400, "no file in the upload")
            name, content = fields["file"]
            file_id = f"file-{next(self._file_numbers):06d}"
            self.files[file_id] = {"id": file_id, "object": "file", "bytes": len(content), "purpose": "batch",
                                   "filename": name or "upload.jsonl", "created_at": int(time.time())}
            self.contents[file_id] = content
            for line in content.splitlines():
                try:
                    self.uploaded_lines.append(json.loads(line).get("custom_id"))
                except (ValueError, AttributeError):
                    self.uploaded_lines.append(None)  # type: ignore[arg-type]
            return 200, json.dumps(self.files[file_id]).encode()
        if ident not in self.files:
            return _error(404, f"No such File object: {ident}")
        if req.method == "DELETE":  # its contents stay readable here, for tests
            del self.files[ident]
            return 200, json.dumps({"id": ident, "object": "file", "deleted": True}).encode()
        if action == "content":
            return 200, self.contents[ident]
        return 200, json.dumps(self.files[ident]).encode()

    def _store(self, name: str, lines: list[dict[str, Any]]) -> str:
        file_id = f"file-{next(self._file_numbers):06d}"
        content = "".join(json.dumps(line) + "\n" for line in lines).encode()
        self.files[file_id] = {"id": file_id, "object": "file", "bytes": len(content), "purpose": "batch_output",
                               "filename": name, "created_at": int(time.time())}
        self.contents[file_id] = content
        return file_id

    # -- batches --------------------------------------------------------------------------------------

    def _create(self, body: Any) -> tuple[int, bytes]:
        if not isinstance(body, dict) or body.get("input_file_id") not in self.files:
            return _error(400, "input_file_id: no such file")
        if body.get("endpoint") not in ENDPOINTS:
            return _error(400, f"endpoint must be one of {', '.join(ENDPOINTS)}")
        if not re.fullmatch(r"[1-9][0-9]*h", str(body.get("completion_window", ""))):
            return _error(400, "completion_window must be like 24h")
        number = len(self.batches)
        batch = FakeBatch(f"batch_{number:06d}", number, body["input_file_id"], body["endpoint"],
                          body["completion_window"], dict(body.get("metadata") or {}), trio.current_time(),
                          int(time.time()), self.completion_delay)
        self.batches[batch.id] = batch
        return 200, json.dumps(batch.body()).encode()

    def _list(self, query: dict[str, str]) -> tuple[int, bytes]:
        newest = sorted(self.batches.values(), key=lambda b: -b.number)
        if "after" in query:
            after = self.batches.get(query["after"])
            newest = [b for b in newest if after is None or b.number < after.number]
        limit = int(query.get("limit", "20"))
        page = newest[:limit]
        return 200, json.dumps({"object": "list", "data": [b.body() for b in page], "has_more": len(newest) > limit,
                                "first_id": page[0].id if page else None,
                                "last_id": page[-1].id if page else None}).encode()

    async def _advance(self, server: Any, batch: FakeBatch) -> None:
        """The batch's state at this moment: validated at the first look, answered once its delay is over."""
        if batch.status == "validating":
            self._validate(batch)
        if batch.status not in ("in_progress", "cancelling"):
            return
        total = len(batch.lines)
        elapsed = trio.current_time() - batch.created
        share = 1.0 if batch.delay <= 0 else min(1.0, elapsed / batch.delay)
        batch.completed = int(share * total)
        if batch.status == "cancelling":
            await self._finish(server, batch, "cancelled", batch.completed, "batch_cancelled")
        elif share >= 1.0 and batch.number in self.expire:
            await self._finish(server, batch, "expired", total // 2, "batch_expired")
        elif share >= 1.0:
            await self._finish(server, batch, "completed", total, "")

    def _validate(self, batch: FakeBatch) -> None:
        lines, errors, seen = [], [], set()
        for n, raw in enumerate(self.contents[batch.input_file_id].splitlines(), start=1):
            try:
                line = json.loads(raw)
            except ValueError:
                errors.append({"code": "invalid_json_line", "message": "This line is not parseable as valid JSON.",
                               "param": None, "line": n})
                continue
            problem = _line_problem(line, batch.endpoint, seen)
            if problem:
                errors.append({"code": "invalid_request", "message": problem, "param": None, "line": n})
            lines.append(line)
        if batch.number in self.fail_validation:
            code, _, line_number = self.fail_validation[batch.number].partition(":")
            errors.append({"code": code, "message": f"injected validation failure ({code})", "param": None,
                           "line": int(line_number) if line_number else None})
        batch.lines = lines
        batch.errors = errors
        batch.status = "failed" if errors else "in_progress"

    async def _finish(self, server: Any, batch: FakeBatch, status: str, answer: int, unanswered: str) -> None:
        output, failed = [], []
        for i, line in enumerate(batch.lines):
            if i >= answer:
                failed.append({"id": f"batch_req_{i}", "custom_id": line["custom_id"], "response": None,
                               "error": {"code": unanswered, "message": f"This request was not run: {unanswered}"}})
                continue
            status_code, body = await self._run_line(server, line)
            entry = {"id": f"batch_req_{i}", "custom_id": line["custom_id"],
                     "response": {"status_code": status_code, "request_id": f"req_{i}", "body": body}, "error": None}
            (output if status_code == 200 else failed).append(entry)
        batch.completed, batch.failed = len(output), len(failed)
        batch.output_file_id = self._store(f"{batch.id}_output.jsonl", output) if output else None
        batch.error_file_id = self._store(f"{batch.id}_error.jsonl", failed) if failed else None
        batch.status = status

    async def _run_line(self, server: Any, line: dict[str, Any]) -> tuple[int, Any]:
        self.answered_lines += 1
        if self._fails_first(line["custom_id"]):
            return 500, {"error": {"message": "injected line failure", "type": "server_error"}}
        return await server.reply_to(RecordedRequest(-1, "POST", line["url"], {}, line["body"],
                                                     started=trio.current_time()))

    def _fails_first(self, custom_id: str) -> bool:
        if not self.failed_lines or custom_id in self._first_tries:
            return False
        self._first_tries.add(custom_id)
        digest = hashlib.sha256(f"{self.seed}:{custom_id}".encode()).digest()
        return int.from_bytes(digest[:8], "big") / 2**64 < self.failed_lines


def _line_problem(line: Any, endpoint: str, seen: set[str]) -> str:
    if not isinstance(line, dict) or not isinstance(line.get("custom_id"), str):
        return "custom_id: a string is required"
    if line["custom_id"] in seen:
        return f"custom_id {line['custom_id']!r} is not unique"
    seen.add(line["custom_id"])
    if line.get("method") != "POST" or line.get("url") != endpoint:
        return f"method must be POST and url {endpoint}"
    if not isinstance(line.get("body"), dict) or not isinstance(line["body"].get("messages"), list):
        return "body: a chat completion request is required"
    return ""


def _error(status: int, message: str) -> tuple[int, bytes]:
    return status, json.dumps({"error": {"message": message, "type": "invalid_request_error"}}).encode()


def _multipart(raw: bytes, content_type: str) -> dict[str, tuple[str | None, bytes]]:
    """The fields of a multipart/form-data body: name -> (filename, bytes)."""
    found = re.search(r'boundary="?([^";]+)"?', content_type)
    if not content_type.startswith("multipart/form-data") or found is None:
        raise ValueError("not multipart/form-data")
    fields: dict[str, tuple[str | None, bytes]] = {}
    for part in raw.split(b"--" + found.group(1).encode())[1:]:
        if part.startswith(b"--"):
            break
        head, sep, value = part.removeprefix(b"\r\n").partition(b"\r\n\r\n")
        if not sep:
            raise ValueError("a part without headers")
        disposition = next((h for h in head.decode("utf-8", "replace").split("\r\n")
                            if h.lower().startswith("content-disposition")), "")
        name = re.search(r'\bname="([^"]*)"', disposition)
        filename = re.search(r'\bfilename="([^"]*)"', disposition)
        if name is None:
            raise ValueError("a part without a name")
        fields[name.group(1)] = (filename.group(1) if filename else None, value.removesuffix(b"\r\n"))
    return fields
