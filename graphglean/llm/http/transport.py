"""`PooledTransport`: an httpx transport with an O(1) HTTP/1.1 keep-alive pool: our own HTTP/1.1 (`http1`) on
plain TCP sockets (`PlainSocket`) or trio's TLS streams.

httpcore's pool scans every connection for every request state change, which at 256 connections cost
graphglean ~10 ms of CPU per call (measured with cProfile, benchmarks/transport.py). Here a request takes an
idle connection from a stack or opens a new one, and gives it back when the answer is read whole: the work
per call does not grow with the pool. It serves httpx (``handle_async_request``) and, cheaper, `ChatClient`
directly (``exchange``, read back as an `Answer`); ``llm.http_transport: httpx`` selects httpx's own
transport (proxies, HTTP/2) instead.
"""

from __future__ import annotations

import json
import re
import ssl
from typing import Any, Callable

import attrs
import httpx
import trio

from .http1 import ByteReader, ProtocolError, field_tokens, read_response, request_bytes
from .plain_socket import PlainSocket

Origin = tuple[str, str, int]


def _ssl_context() -> ssl.SSLContext:
    try:
        import certifi

        return ssl.create_default_context(cafile=certifi.where())
    except ImportError:  # pragma: no cover - certifi comes with httpx
        return ssl.create_default_context()


@attrs.frozen
class Answer:
    """What the client reads of a response (status, headers, body): as an ``httpx.Response`` gives them, at
    a fraction of the cost of building one. Header names are lower case; repeated headers are joined by ", "."""

    status_code: int
    headers: dict[str, str]
    content: bytes

    @classmethod
    def read(cls, status: int, raw_headers: list[tuple[bytes, bytes]], content: bytes) -> "Answer":
        headers: dict[str, str] = {}
        for name, value in raw_headers:
            key, text = name.decode("latin-1").lower(), value.decode("latin-1")
            headers[key] = f"{headers[key]}, {text}" if key in headers else text
        return cls(status, headers, content)

    def json(self) -> Any:
        return json.loads(self.content)

    @property
    def text(self) -> str:
        charset = _CHARSET.search(self.headers.get("content-type", ""))
        try:
            return self.content.decode(charset.group(1) if charset else "utf-8", errors="replace")
        except LookupError:  # a charset Python does not know
            return self.content.decode("utf-8", errors="replace")


def read_json(content: bytes) -> tuple[Any, str | None]:
    """``json.loads(content)``, and the body's text when it is UTF-8 (a BOM dropped; None when not): the one
    decoding of the body serves both, the text being what a cache stores as the server wrote it."""
    if json.detect_encoding(content) in ("utf-8", "utf-8-sig"):
        try:
            text = content.decode("utf-8-sig")
        except UnicodeDecodeError:  # not UTF-8 after all (json.loads may still read it, as surrogates)
            pass
        else:
            return json.loads(text), text
    return json.loads(content), None


_CHARSET = re.compile(r"charset=[\"']?([\w.:-]+)", re.IGNORECASE)


def origin_of(url: httpx.URL) -> Origin:
    return url.scheme, url.host, url.port or (443 if url.scheme == "https" else 80)


class _Connection:
    def __init__(self, stream: trio.abc.Stream) -> None:
        self.stream = stream
        self.reader = ByteReader(stream)
        self.reusable = False

    async def roundtrip(self, method: bytes, request: bytes, keep_alive: bool,
                        listener: Callable[[bytes], None] | None = None) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
        self.reusable = False
        await self.stream.send_all(request)
        self.reader.listener = listener
        try:
            status, headers, content, reusable = await read_response(self.reader, method)
        finally:
            self.reader.listener = None
        self.reusable = reusable and keep_alive
        return status, headers, content

    def closed_by_peer(self) -> bool:
        """An idle keep-alive socket that is readable has been closed (or spoken to) by the server."""
        stream = self.stream
        if isinstance(stream, PlainSocket):
            return stream.readable()
        if isinstance(stream, trio.SSLStream):
            stream = stream.transport_stream
        sock = getattr(stream, "socket", None)
        return sock is None or sock.is_readable()

    async def aclose(self) -> None:
        with trio.CancelScope(shield=True):
            try:
                await self.stream.aclose()
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                pass


class PooledTransport(httpx.AsyncBaseTransport):
    def __init__(self, max_connections: int = 64, connect_timeout_s: float = 10.0) -> None:
        self._idle: dict[Origin, list[_Connection]] = {}
        self._slots = trio.Semaphore(max_connections)
        self._connect_timeout = connect_timeout_s
        self._ssl: ssl.SSLContext | None = None
        self._reached: dict[Origin, tuple[int, Any]] = {}  # origin -> (family, address) a connection reached
        self._finding: dict[Origin, trio.Event] = {}  # origins being connected to by name

    def connected(self) -> bool:
        """Whether a connection was ever made (to any origin)."""
        return bool(self._reached)

    async def _connect(self, origin: Origin) -> _Connection:
        scheme, host, port = origin
        try:
            with trio.fail_after(self._connect_timeout):
                plain = await self._open_socket(origin)
                if scheme == "https":
                    self._ssl = self._ssl or _ssl_context()
                    tcp = trio.SocketStream(trio.socket.from_stdlib_socket(plain.sock))
                    stream: trio.abc.Stream = trio.SSLStream(tcp, self._ssl, server_hostname=host,
                                                             https_compatible=True)
                    await stream.do_handshake()
                else:
                    stream = plain
        except trio.TooSlowError:
            raise httpx.ConnectTimeout(f"no connection to {host}:{port} within {self._connect_timeout:g} s") from None
        except (OSError, trio.BrokenResourceError, ssl.SSLError) as e:
            raise httpx.ConnectError(f"cannot connect to {host}:{port}: {e}") from None
        return _Connection(stream)

    async def _open_socket(self, origin: Origin) -> PlainSocket:
        """A TCP connection to ``origin``: straight to the address the last one reached, else (first, or that
        address failing) by name, trying each address (`trio.open_tcp_stream`). The name is resolved once a pool,
        not once a connection: opening 256 connections the long way took ~55 ms of CPU, a direct one ~0.05 ms."""
        while (reached := self._reached.get(origin)) is None and (found := self._finding.get(origin)) is not None:
            await found.wait()  # another connection is finding the way: it is one connection's time away
        if reached is not None:
            try:
                return await PlainSocket.connect(*reached)
            except OSError:
                self._reached.pop(origin, None)  # moved, or down: ask the name again
        found = self._finding[origin] = trio.Event()
        try:
            plain = PlainSocket.take(await trio.open_tcp_stream(origin[1], origin[2]))
            self._reached[origin] = (plain.sock.family, plain.sock.getpeername())
        finally:
            del self._finding[origin]
            found.set()
        return plain

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        url = request.url
        body = await request.aread()
        status, headers, content = await self.exchange(origin_of(url), request.method.encode("ascii"), url.raw_path,
                                                       list(request.headers.raw), body)
        return httpx.Response(status, headers=headers, content=content, request=request)

    streams = True  # `exchange` takes a listener: a streamed answer's pieces as they arrive

    async def exchange(self, origin: Origin, method: bytes, target: bytes, headers: list[tuple[bytes, bytes]],
                       body: bytes, listener: Callable[[bytes], None] | None = None
                       ) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
        """One request on a pooled connection: (status, headers, body). ``headers`` must name the host (a body
        they do not frame gets a Content-Length). A request that cannot be written (a header value with a line
        break) raises ``httpx.LocalProtocolError``. ``listener`` is told of each piece of the answer received;
        a request cancelled (or timed out) mid-answer closes its connection, so a server that honours a
        disconnect stops generating."""
        try:
            request = request_bytes(method, target, headers, body)
        except ValueError as e:
            raise httpx.LocalProtocolError(str(e)) from None
        keep_alive = b"close" not in field_tokens(headers, b"connection")
        try:  # a free slot is taken without yielding: the send that follows is the checkpoint
            self._slots.acquire_nowait()
        except trio.WouldBlock:
            await self._slots.acquire()
        try:
            conn = await self._take(origin)
            try:
                status, headers, content = await conn.roundtrip(method, request, keep_alive, listener)
            except (ProtocolError, trio.BrokenResourceError, trio.ClosedResourceError, OSError) as e:
                await conn.aclose()
                raise httpx.RemoteProtocolError(f"connection broken: {e}") from None
            except BaseException:
                await conn.aclose()  # cancelled mid-answer: the connection's state is unknown
                raise
            if conn.reusable:
                self._idle.setdefault(origin, []).append(conn)
            else:
                await conn.aclose()
            return status, headers, content
        finally:
            self._slots.release()

    async def _take(self, origin: Origin) -> _Connection:
        """An idle connection the server has not closed meanwhile, or a new one."""
        idle = self._idle.get(origin) or []
        while idle:
            conn = idle.pop()
            if not conn.closed_by_peer():
                return conn
            await conn.aclose()
        return await self._connect(origin)

    async def aclose(self) -> None:
        for conns in self._idle.values():
            for conn in conns:
                await conn.aclose()
        self._idle.clear()

