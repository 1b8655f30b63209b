"""The fake server's HTTP/1.1: read one request from a byte stream, write one response.

h11 did this at about 0.1 ms of CPU per call, a third of the server's work at 2,500 calls/s: enough to
starve the benchmark's single server process. This reads what HTTP/1.1 clients send (Content-Length or
chunked bodies, keep-alive, pipelining) and answers with a Content-Length body; anything it cannot read
ends the connection, as a server's 400 would.
"""

from __future__ import annotations

from http import HTTPStatus

import attrs
import trio

MAX_HEAD = 64 * 1024


class BadRequest(Exception):
    """The peer sent something that is not an HTTP/1.1 request."""


@attrs.define
class Request:
    method: str
    target: str
    headers: list[tuple[str, str]]  # names in lower case, in the order sent
    body: bytes
    keep_alive: bool


class RequestReader:
    """Requests from one connection; bytes read past a request are kept for the next (pipelining)."""

    def __init__(self, stream: trio.abc.ReceiveStream) -> None:
        self._stream = stream
        self._buf = bytearray()

    async def _fill(self) -> bool:
        data = await self._stream.receive_some(65536)
        self._buf += data
        return bool(data)

    async def next(self) -> Request | None:
        """The next request, or None when the peer closed the connection between requests."""
        end = self._buf.find(b"\r\n\r\n")
        while end < 0:
            if len(self._buf) > MAX_HEAD:
                raise BadRequest("request head too large")
            if not await self._fill():
                if self._buf.strip():
                    raise BadRequest("connection closed mid-request")
                return None
            end = self._buf.find(b"\r\n\r\n")
        head = bytes(self._buf[:end]).decode("utf-8", errors="replace")
        del self._buf[: end + 4]
        line, *fields = head.lstrip("\r\n").split("\r\n")
        parts = line.split(" ")
        if len(parts) != 3 or not parts[2].startswith("HTTP/1."):
            raise BadRequest(f"bad request line {line[:80]!r}")
        method, target, version = parts
        headers = []
        for field in fields:
            name, sep, value = field.partition(":")
            if not sep or not name or name != name.strip():
                raise BadRequest(f"bad header line {field[:80]!r}")
            headers.append((name.lower(), value.strip()))
        named = dict(headers)
        if "chunked" in named.get("transfer-encoding", "").lower():
            body = await self._chunked()
        else:
            try:
                length = int(named.get("content-length", "0"))
            except ValueError:
                raise BadRequest("bad content-length") from None
            body = await self._exactly(length)
        connection = named.get("connection", "").lower()
        keep_alive = "close" not in connection and (version != "HTTP/1.0" or "keep-alive" in connection)
        return Request(method, target, headers, body, keep_alive)

    async def _exactly(self, n: int) -> bytes:
        while len(self._buf) < n:
            if not await self._fill():
                raise BadRequest("connection closed mid-body")
        data = bytes(self._buf[:n])
        del self._buf[:n]
        return data

    async def _line(self) -> bytes:
        end = self._buf.find(b"\r\n")
        while end < 0:
            if len(self._buf) > MAX_HEAD:
                raise BadRequest("chunk line too long")
            if not await self._fill():
                raise BadRequest("connection closed mid-body")
            end = self._buf.find(b"\r\n")
        line = bytes(self._buf[:end])
        del self._buf[: end + 2]
        return line

    async def _chunked(self) -> bytes:
        body = bytearray()
        while True:
            try:
                size = int(bytes((await self._line()).split(b";")[0]).strip(), 16)
            except ValueError:
                raise BadRequest("bad chunk size") from None
            if size == 0:
                while await self._line():  # trailers, up to the empty line
                    pass
                return bytes(body)
            body += await self._exactly(size)
            if await self._line():
                raise BadRequest("chunk not followed by CRLF")


def response_head(status: int, headers: list[tuple[str, str]], keep_alive: bool) -> bytes:
    """Status line and headers; ``headers`` must carry the content-length."""
    try:
        reason = HTTPStatus(status).phrase
    except ValueError:
        reason = ""
    lines = [f"HTTP/1.1 {status} {reason}"] + [f"{name}: {value}" for name, value in headers]
    if not keep_alive:
        lines.append("connection: close")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("utf-8")
