"""The fake server's HTTP/1.1: read one request from a byte stream, write one response.

h11 did this at about 0.1 ms of CPU per call, a third of the server's work at 2,500 calls/s: enough to
starve the benchmark's single server process. Requests are read with the client's own HTTP/1.1 pieces
(`graphglean.llm.http.http1`: Content-Length or chunked bodies, keep-alive, pipelining); answers carry a
Content-Length body. Anything it cannot read raises `ProtocolError`, and the server ends the connection, as a
server's 400 would.
"""

from __future__ import annotations

import functools
from http import HTTPStatus

import attrs
import trio

from ...llm.http.http1 import ByteReader, keeps_alive, parse_fields, read_request_body, request_line


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
        self._reader = ByteReader(stream)

    async def next(self) -> Request | None:
        """The next request, or None when the peer closed the connection between requests."""
        lines = await self._reader.head()
        if lines is None:
            return None
        method, target, minor = request_line(lines[0])
        fields = parse_fields(lines[1:])
        body = await read_request_body(self._reader, fields)
        headers = [(name.decode("ascii").lower(), value.decode("utf-8", errors="replace")) for name, value in fields]
        return Request(method.decode("ascii"), target.decode("utf-8", errors="replace"), headers, body,
                       keeps_alive(minor, fields))


def response_head(status: int, headers: list[tuple[str, str]], keep_alive: bool) -> bytes:
    """Status line and headers; ``headers`` must carry the content-length."""
    lines = [_status_line(status)] + [f"{name}: {value}" for name, value in headers]
    if not keep_alive:
        lines.append("connection: close")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("utf-8")


@functools.lru_cache(maxsize=None)
def _status_line(status: int) -> str:
    try:
        reason = HTTPStatus(status).phrase
    except ValueError:
        reason = ""
    return f"HTTP/1.1 {status} {reason}"
