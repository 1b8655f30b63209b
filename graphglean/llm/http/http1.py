"""HTTP/1.1 messages on a byte stream: `PooledTransport` writes requests and reads responses with it, the fake
server (graphglean.testing) reads requests with the same pieces (buffered reading, header blocks, message
framing, chunked bodies).

h11 took ~60 µs of CPU to write a request and read its answer, a fifth of the client's CPU per call; this
takes ~15 µs (timeit, one chat answer). It reads what servers and proxies send: HTTP/1.0 and 1.1 status
lines, Content-Length, chunked bodies (extensions and trailers), bodies delimited by the connection's close,
interim 1xx answers (skipped), no body for HEAD, 204 and 304. Anything else (folded or malformed header lines,
conflicting lengths, a head over `MAX_HEAD`, a close mid-message) raises `ProtocolError` at once, never waits
for more.
"""

from __future__ import annotations

import re
from typing import Callable, Iterable, Protocol

MAX_HEAD = 64 * 1024  # start line + header lines (or a chunk line, or trailers); a peer sending more is refused
RECEIVE_SIZE = 65536

Fields = list[tuple[bytes, bytes]]

# possessive: a long run of spaces must not make the match quadratic
_FIELD = re.compile(rb"([!#$%&'*+.^_`|~0-9A-Za-z-]+):[ \t]*+([\t\x20-\x7e\x80-\xff]*)")
_TOKEN = re.compile(rb"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_VALUE = re.compile(rb"[\t\x20-\x7e\x80-\xff]*")
_TARGET = re.compile(rb"[\x21-\x7e\x80-\xff]+")
_REQUEST_LINE = re.compile(rb"([!#$%&'*+.^_`|~0-9A-Za-z-]+) ([\x21-\x7e\x80-\xff]+) HTTP/1\.(\d)")
_STATUS = re.compile(rb"HTTP/1\.(\d) (\d{3})(?: [\t\x20-\x7e\x80-\xff]*)?")
_HEAD_END = re.compile(rb"\r?\n\r?\n")
_DIGITS = re.compile(rb"\d+")
_HEX = re.compile(rb"[0-9A-Fa-f]{1,16}")
_NO_BODY_STATUS = (204, 304)
_BODY_METHODS = (b"POST", b"PUT", b"PATCH")


class ProtocolError(Exception):
    """The peer sent something that is not HTTP/1.x, or closed the connection in the middle of a message."""


class ReceiveStream(Protocol):
    async def receive_some(self, max_bytes: int | None = None) -> bytes | bytearray: ...


class ByteReader:
    """Bytes from a receive stream, with look-ahead: what is read past one message is kept for the next."""

    def __init__(self, stream: ReceiveStream) -> None:
        self._stream = stream
        self._buf = bytearray()
        self.listener: Callable[[bytes], None] | None = None  # told of every piece received (a stream's clock)

    @property
    def pending(self) -> bool:
        """Whether bytes past the last message have been received."""
        return bool(self._buf)

    async def _fill(self) -> bool:
        data = await self._stream.receive_some(RECEIVE_SIZE)
        self._buf += data
        if self.listener is not None:
            self.listener(data)
        return bool(data)

    async def head(self) -> list[bytes] | None:
        """The lines of the next head (start line and header lines; CRLF or bare LF ends a line), or None when
        the stream ended before a message began. Empty lines before a message are skipped."""
        buf = self._buf
        scanned = 0
        while True:
            if buf and buf[0] in b"\r\n":
                del buf[: len(buf) - len(buf.lstrip(b"\r\n"))]
                scanned = 0
            end = _HEAD_END.search(buf, scanned)
            if end is not None:
                head = bytes(buf[: end.start()])
                del buf[: end.end()]
                return head.replace(b"\r\n", b"\n").split(b"\n")
            if len(buf) > MAX_HEAD:
                raise ProtocolError(f"message head longer than {MAX_HEAD} bytes")
            scanned = max(0, len(buf) - 3)
            if not await self._fill():
                if buf:
                    raise ProtocolError("connection closed in the middle of a message head")
                return None

    async def exactly(self, n: int) -> bytes:
        buf = self._buf
        while len(buf) < n:
            if not await self._fill():
                raise ProtocolError(f"connection closed {len(buf)} bytes into a body of {n}")
        data = bytes(buf[:n])
        del buf[:n]
        return data

    async def to_eof(self) -> bytes:
        """Everything until the peer closes the connection."""
        while await self._fill():
            pass
        data = bytes(self._buf)
        self._buf.clear()
        return data

    async def line(self, limit: int = MAX_HEAD) -> bytes:
        """The next line without its CRLF (or LF)."""
        buf = self._buf
        end = buf.find(b"\n")
        while end < 0:
            if len(buf) > limit + 1:
                raise ProtocolError(f"line longer than {limit} bytes")
            if not await self._fill():
                raise ProtocolError("connection closed in the middle of a chunked body")
            end = buf.find(b"\n")
        if end > limit + 1:
            raise ProtocolError(f"line longer than {limit} bytes")
        line = bytes(buf[: end - 1 if end and buf[end - 1] == 13 else end])
        del buf[: end + 1]
        return line

    async def chunked(self) -> tuple[bytes, Fields]:
        """A chunked body and its trailer fields; chunk extensions are read past."""
        body = bytearray()
        while True:
            line = await self.line(1024)
            size = line.split(b";", 1)[0].strip(b" \t")
            if not _HEX.fullmatch(size):
                raise ProtocolError(f"bad chunk size line {_show(line)}")
            n = int(size, 16)
            if n == 0:
                return bytes(body), await self._trailers()
            body += await self.exactly(n)
            end = await self.exactly(1)
            if end == b"\r":
                end = await self.exactly(1)
            if end != b"\n":
                raise ProtocolError("chunk data not followed by a line end")

    async def _trailers(self) -> Fields:
        lines, size = [], 0
        while line := await self.line(MAX_HEAD):
            size += len(line) + 2
            if size > MAX_HEAD:
                raise ProtocolError(f"trailers longer than {MAX_HEAD} bytes")
            lines.append(line)
        return parse_fields(lines)


def parse_fields(lines: Iterable[bytes]) -> Fields:
    """Header (or trailer) lines as (name, value) pairs, in order, names as sent, values without the
    whitespace around them. Folded lines, names with spaces and control characters in values are refused."""
    fields = []
    for line in lines:
        match = _FIELD.fullmatch(line)
        if match is None:
            if line[:1] in (b" ", b"\t"):
                raise ProtocolError(f"folded header line {_show(line)} (obsolete line folding is not accepted)")
            raise ProtocolError(f"bad header line {_show(line)}")
        fields.append((match[1], match[2].rstrip(b" \t")))
    return fields


def field_tokens(fields: Fields, name: bytes) -> list[bytes]:
    """The comma-separated, lower-cased tokens of every ``name`` field (``name`` in lower case)."""
    out = []
    for key, value in fields:
        if len(key) == len(name) and key.lower() == name:
            out += [token.strip(b" \t").lower() for token in value.split(b",")]
    return [token for token in out if token]


def content_length(fields: Fields) -> int | None:
    """The Content-Length, or None without one; repeated copies must agree."""
    found: set[bytes] = set()
    for key, value in fields:
        if len(key) == 14 and key.lower() == b"content-length":
            found.update(v.strip(b" \t") for v in value.split(b","))
    if not found:
        return None
    if len(found) > 1 or not all(_DIGITS.fullmatch(v) for v in found):
        raise ProtocolError(f"bad content-length {b', '.join(sorted(found)).decode('latin-1')!r}")
    return int(found.pop())


def keeps_alive(minor: int, fields: Fields) -> bool:
    """Whether the connection stays open after this message, by its HTTP version and Connection field."""
    tokens = field_tokens(fields, b"connection")
    return b"close" not in tokens and (minor >= 1 or b"keep-alive" in tokens)


def chunked_framing(fields: Fields) -> bool:
    """Whether the body is chunked (False: no Transfer-Encoding); other transfer codings are refused."""
    codings = [c for c in field_tokens(fields, b"transfer-encoding") if c != b"identity"]
    if codings and codings != [b"chunked"]:
        raise ProtocolError(f"unsupported transfer coding {b', '.join(codings).decode('latin-1')!r}")
    return bool(codings)


def request_line(line: bytes) -> tuple[bytes, bytes, int]:
    """(method, target, HTTP/1 minor version) of a request line."""
    match = _REQUEST_LINE.fullmatch(line)
    if match is None:
        raise ProtocolError(f"bad request line {_show(line)}")
    return match[1], match[2], int(match[3])


async def read_request_body(reader: ByteReader, fields: Fields) -> bytes:
    """A request's body, framed as its fields say (no framing: no body)."""
    if chunked_framing(fields):
        return (await reader.chunked())[0]
    return await reader.exactly(content_length(fields) or 0)


async def read_response(reader: ByteReader, method: bytes) -> tuple[int, Fields, bytes, bool]:
    """(status, fields, body, whether the connection may carry another request) of the next final response to
    a ``method`` request; interim 1xx responses are read past."""
    while True:
        lines = await reader.head()
        if lines is None:
            raise ProtocolError("the server closed the connection before answering")
        status_line = _STATUS.fullmatch(lines[0])
        if status_line is None:
            raise ProtocolError(f"bad status line {_show(lines[0])}")
        minor, status = int(status_line[1]), int(status_line[2])
        fields = parse_fields(lines[1:])
        if status >= 200:
            break
        if status < 100:
            raise ProtocolError(f"bad status code {status}")
        if status == 101:
            raise ProtocolError("101 Switching Protocols to a request that asked for no upgrade")
    reusable = keeps_alive(minor, fields)
    if method == b"HEAD" or status in _NO_BODY_STATUS:
        body = b""
    elif chunked_framing(fields):
        body, _ = await reader.chunked()
        # a length beside the chunking, or chunking in HTTP/1.0, is a framing the next message cannot trust
        reusable = reusable and minor >= 1 and not field_tokens(fields, b"content-length")
    else:
        length = content_length(fields)
        if length is None:
            body, reusable = await reader.to_eof(), False
        else:
            body = await reader.exactly(length)
    return status, fields, body, reusable and not reader.pending


def request_bytes(method: bytes, target: bytes, fields: Fields, body: bytes) -> bytes:
    """An HTTP/1.1 request. ``fields`` should name the host; a body (or a POST, PUT or PATCH) gets a
    Content-Length when the fields give it no framing, and is chunked when they say ``Transfer-Encoding:
    chunked``."""
    if not _TOKEN.fullmatch(method) or not _TARGET.fullmatch(target):
        raise ValueError(f"bad request line {_show(method + b' ' + target)}")
    _check_fields(fields)
    parts = [method, b" ", target, b" HTTP/1.1\r\n"]
    framed = chunked = False
    for name, value in fields:
        parts += [name, b": ", value, b"\r\n"]
        if len(name) == 14 and name.lower() == b"content-length":
            framed = True
        elif len(name) == 17 and name.lower() == b"transfer-encoding":
            framed = chunked = b"chunked" in value.lower()
    if not framed and (body or method in _BODY_METHODS):  # an empty POST says so: some servers want a length
        parts += [b"Content-Length: ", str(len(body)).encode(), b"\r\n"]
    parts.append(b"\r\n")
    if chunked:
        parts += [b"%x\r\n" % len(body), body, b"\r\n0\r\n\r\n"] if body else [b"0\r\n\r\n"]
    else:
        parts.append(body)
    return b"".join(parts)


def _check_fields(fields: Fields) -> None:
    """Raise ValueError for a field with a bad name or a control character in its value. Checked all at once:
    a name joined to the next by "-" (a name character) and a value by a tab (allowed in values) match as the
    parts do (two regular expressions per field were over half the time of writing a chat request: ~9 -> ~4 µs)."""
    names = [name for name, _ in fields]
    if (all(names) and _TOKEN.fullmatch(b"-".join(names) or b"-")
            and _VALUE.fullmatch(b"\t".join(value for _, value in fields))):
        return
    bad = next(name for name, value in fields if not _TOKEN.fullmatch(name) or not _VALUE.fullmatch(value))
    raise ValueError(f"bad header field {_show(bad)} (control characters or a bad name)")


def _show(line: bytes) -> str:
    return repr(line[:80].decode("latin-1"))
