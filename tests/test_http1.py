"""graphglean.llm.http.http1: responses as real servers and proxies write them, read back whole, in any byte split;
the edge cases by name; the pool's keep-alive decisions on a real socket."""

import contextlib

import h11
import httpx
import pytest
import trio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphglean.core.errors import LLMRequestError
from graphglean.llm import ChatClient
from graphglean.llm.http.http1 import (
    MAX_HEAD,
    ByteReader,
    ProtocolError,
    parse_fields,
    read_request_body,
    read_response,
    request_bytes,
)
from graphglean.llm.http.transport import Answer, PooledTransport
from graphglean.testing import FakeLLMServer
from graphglean.testing.wire.http1 import RequestReader

from .helpers import llm_config


class Pieces:
    """A receive stream that gives the bytes in the pieces given, then end of stream."""

    def __init__(self, *pieces: bytes) -> None:
        self.pieces = [p for p in pieces if p]

    async def receive_some(self, max_bytes=None) -> bytes:
        await trio.lowlevel.checkpoint()
        return self.pieces.pop(0) if self.pieces else b""


async def read(data: bytes, method: bytes = b"GET", *more: bytes):
    reader = ByteReader(Pieces(data, *more))
    return await read_response(reader, method)


def split(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts} | {0, len(data)})
    return [data[a:b] for a, b in zip(points, points[1:])]


# -- the oracle: h11 writes responses (server side) and reads them (client side) ---------------------------

_TOKEN = st.text("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&'*+-.^_`|~", min_size=1,
                 max_size=12)
_VALUE = st.text("".join(map(chr, range(0x21, 0x7F))) + " \t\xe9\xff", max_size=30).map(str.strip)
_FRAMING_NAMES = {"content-length", "transfer-encoding", "connection"}


@st.composite
def responses(draw):
    method = draw(st.sampled_from([b"GET", b"POST", b"HEAD"]))
    status = draw(st.sampled_from([200, 201, 204, 304, 400, 404, 429, 500, 503]))
    framing = draw(st.sampled_from(["length", "chunked", "close"]))
    headers = draw(st.lists(st.tuples(_TOKEN.filter(lambda n: n.lower() not in _FRAMING_NAMES), _VALUE), max_size=6))
    no_body = method == b"HEAD" or status in (204, 304)
    body = b"" if no_body else draw(st.binary(max_size=300))
    chunks = [body] if not body else split(body, draw(st.lists(st.integers(0, 400), max_size=4)))
    if framing == "length":
        headers.append(("Content-Length", str(len(body))))
    if draw(st.booleans()):
        headers.append(("Connection", "close"))
    interim = draw(st.lists(st.sampled_from([100, 102, 103]), max_size=2))
    return method, framing, interim, status, headers, chunks


def h11_server_bytes(method, framing, interim, status, headers, chunks) -> bytes:
    server = h11.Connection(h11.SERVER)
    version = b"1.0" if framing == "close" else b"1.1"  # h11 closes the body of a length-less answer to 1.0
    server.receive_data(method + b" / HTTP/" + version + b"\r\nHost: x\r\n\r\n")
    assert isinstance(server.next_event(), h11.Request)
    out = b""
    for code in interim if version == b"1.1" else ():
        out += server.send(h11.InformationalResponse(status_code=code, headers=[("Link", "</a>; rel=preload")]))
    raw = [(n.encode(), v.encode("latin-1")) for n, v in headers]
    out += server.send(h11.Response(status_code=status, headers=raw))
    for chunk in chunks:
        out += server.send(h11.Data(data=chunk)) if chunk else b""
    out += server.send(h11.EndOfMessage()) or b""
    return out


def h11_client_read(method: bytes, pieces: list[bytes]):
    """(status, raw headers, body, reusable) as h11's client reads ``pieces`` then end of stream."""
    client = h11.Connection(h11.CLIENT)
    client.send(h11.Request(method=method, target="/", headers=[("Host", "x")]))
    client.send(h11.EndOfMessage())
    feed = [*pieces, b""]
    status, headers, body = None, None, b""
    while True:
        event = client.next_event()
        if event is h11.NEED_DATA:
            client.receive_data(feed.pop(0))
        elif isinstance(event, h11.Response):
            status, headers = event.status_code, list(event.headers.raw_items())
        elif isinstance(event, h11.Data):
            body += event.data
        elif isinstance(event, h11.EndOfMessage):
            reusable = client.our_state is h11.DONE and client.their_state is h11.DONE
            return status, headers, body, reusable


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(responses(), st.lists(st.integers(0, 2000), max_size=8))
async def test_responses_written_by_h11_read_in_any_split_as_h11_reads_them(response, cuts):
    data = h11_server_bytes(*response)
    pieces = split(data, cuts)
    method = response[0]
    ours = await read_response(ByteReader(Pieces(*pieces)), method)
    assert ours == h11_client_read(method, pieces)
    assert ours[2] == b"".join(response[-1])


@settings(max_examples=300, deadline=None)
@given(responses(), st.lists(st.tuples(st.integers(0, 2000), st.binary(max_size=3)), min_size=1, max_size=4),
       st.lists(st.integers(0, 2000), max_size=4))
async def test_damaged_responses_end_in_an_answer_or_a_protocol_error(response, damage, cuts):
    data = bytearray(h11_server_bytes(*response))
    for at, replacement in damage:  # overwrite, insert or delete a few bytes anywhere
        at %= len(data) + 1
        data[at: at + len(replacement) % 3] = replacement
    try:
        status, _, body, _ = await read_response(ByteReader(Pieces(*split(bytes(data), cuts))), response[0])
    except ProtocolError:
        return
    assert 200 <= status <= 999 and isinstance(body, bytes)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=400))
async def test_any_bytes_end_in_an_answer_or_a_protocol_error(data):
    try:
        await read_response(ByteReader(Pieces(data)), b"GET")
    except ProtocolError:
        pass


@st.composite
def chunked_responses(draw):
    """Chunked bodies as h11 does not write them: extensions, trailers, empty pieces kept out, any sizes."""
    body = draw(st.binary(max_size=300))
    pieces = [p for p in split(body, draw(st.lists(st.integers(0, 400), max_size=5))) if p]
    ext = st.sampled_from(["", ";a=1", ";name", ';q="x y"', " ;a=b;c"])
    hex_case = draw(st.sampled_from([str.lower, str.upper]))
    wire = b"".join(hex_case(f"{len(p):x}").encode() + draw(ext).encode() + b"\r\n" + p + b"\r\n" for p in pieces)
    trailers = draw(st.lists(st.tuples(_TOKEN, _VALUE), max_size=3))
    wire += b"0" + draw(ext).encode() + b"\r\n" + b"".join(f"{n}: {v}\r\n".encode("latin-1") for n, v in trailers)
    head = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-A: 1\r\n\r\n"
    return head + wire + b"\r\n", body


@settings(max_examples=200, deadline=None)
@given(chunked_responses(), st.lists(st.integers(0, 2000), max_size=8))
async def test_chunk_extensions_and_trailers_in_any_split(response, cuts):
    data, body = response
    pieces = split(data, cuts)
    ours = await read_response(ByteReader(Pieces(*pieces)), b"GET")
    assert ours == (200, [(b"Transfer-Encoding", b"chunked"), (b"X-A", b"1")], body, True)
    if b" ;" not in data:  # h11 refuses the whitespace RFC 9112 allows before an extension
        assert ours == h11_client_read(b"GET", pieces)


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=200), st.lists(st.integers(0, 500), max_size=5), st.lists(st.integers(0, 500), max_size=5))
async def test_requests_written_are_read_by_the_fake_servers_reader(body, cuts, body_cuts):
    chunked = bool(cuts) and cuts[0] % 2 == 0
    fields = [(b"Host", b"x")] + ([(b"Transfer-Encoding", b"chunked")] if chunked else [])
    data = request_bytes(b"POST", b"/v1/chat?x=1", fields, body) * 2  # pipelined
    reader = RequestReader(Pieces(*split(data, cuts)))
    for _ in range(2):
        request = await reader.next()
        assert (request.method, request.target, request.body, request.keep_alive) == ("POST", "/v1/chat?x=1", body,
                                                                                      True)
    assert await reader.next() is None


# -- edge cases by name ------------------------------------------------------------------------------------

async def test_http10_answer_is_read_and_not_reused_unless_kept_alive():
    assert await read(b"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok") == (200, [(b"Content-Length", b"2")],
                                                                           b"ok", False)
    kept = await read(b"HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 2\r\n\r\nok")
    assert kept[2:] == (b"ok", True)


async def test_status_line_without_reason_and_with_odd_reason():
    assert (await read(b"HTTP/1.1 204\r\n\r\n"))[:3] == (204, [], b"")
    assert (await read(b"HTTP/1.1 200 \xe9tat: fine\r\nContent-Length: 0\r\n\r\n"))[0] == 200


async def test_folded_header_is_refused():
    with pytest.raises(ProtocolError, match="folding"):
        await read(b"HTTP/1.1 200 OK\r\nX-Long: a\r\n  b\r\nContent-Length: 0\r\n\r\n")


async def test_repeated_headers_are_kept_in_order_and_joined_by_the_answer():
    status, fields, body, _ = await read(b"HTTP/1.1 200 OK\r\nSet-Cookie: a=1\r\nX-N: 1\r\nset-cookie: b=2\r\n"
                                         b"Content-Length: 0\r\n\r\n")
    assert fields[:3] == [(b"Set-Cookie", b"a=1"), (b"X-N", b"1"), (b"set-cookie", b"b=2")]
    assert Answer.read(status, fields, body).headers["set-cookie"] == "a=1, b=2"


async def test_content_length_repeated_equal_is_one_length_and_conflicting_or_bad_is_refused():
    assert (await read(b"HTTP/1.1 200 OK\r\nContent-Length: 2, 2\r\nContent-Length: 2\r\n\r\nokXX"))[2:] == (b"ok",
                                                                                                           False)
    for bad in (b"2\r\nContent-Length: 3", b"-1", b"+2", b"0x2", b"2 2", b""):
        with pytest.raises(ProtocolError, match="content-length"):
            await read(b"HTTP/1.1 200 OK\r\nContent-Length: " + bad + b"\r\n\r\nok")


async def test_bytes_after_the_answer_make_the_connection_unusable():
    assert (await read(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 200"))[2:] == (b"ok", False)


async def test_chunked_beats_content_length_and_the_connection_is_not_reused():
    data = b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n"
    assert (await read(data))[2:] == (b"ok", False)
    http10 = b"HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n"
    assert (await read(http10))[2:] == (b"ok", False)


async def test_chunked_with_extensions_trailers_and_bare_line_feeds():
    data = b"HTTP/1.1 200 OK\nTransfer-Encoding: chunked\n\n3;x=1\nabc\n2 ; y\r\nde\r\n0;z\r\nDigest: a\nX: b\r\n\r\n"
    assert await read(data) == (200, [(b"Transfer-Encoding", b"chunked")], b"abcde", True)


@pytest.mark.parametrize("data,match", [
    (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "chunk size"),
    (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nokX\r\n0\r\n\r\n", "line end"),
    (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + b"1" * 2000, "line longer"),
    (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", "transfer coding 'gzip, chunked'"),
    (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nbad trailer\r\n\r\n", "bad header line"),
])
async def test_malformed_chunked_bodies_are_refused(data, match):
    with pytest.raises(ProtocolError, match=match):
        await read(data)


async def test_close_delimited_body_is_read_to_the_end_and_not_reused():
    assert await read(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nsome ", b"GET", b"more") == (
        200, [(b"Content-Type", b"text/plain")], b"some more", False)


async def test_interim_answers_are_skipped():
    data = (b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </s.css>; rel=preload\r\n\r\n"
            b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
    assert await read(data) == (200, [(b"Content-Length", b"2")], b"ok", True)


async def test_switching_protocols_unasked_is_refused():
    with pytest.raises(ProtocolError, match="101"):
        await read(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n")


@pytest.mark.parametrize("method,status", [(b"HEAD", 200), (b"GET", 204), (b"GET", 304), (b"HEAD", 404)])
async def test_no_body_for_head_204_and_304_whatever_the_length_says(method, status):
    data = b"HTTP/1.1 %d X\r\nContent-Length: 10\r\n\r\n" % status
    reader = ByteReader(Pieces(data, b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"))
    assert (await read_response(reader, method))[2:] == (b"", True)
    assert (await read_response(reader, b"GET"))[2] == b"ok"  # the next answer on the same connection


@pytest.mark.parametrize("connection", [b"close", b"Close", b"keep-alive, close", b"Upgrade, CLOSE"])
async def test_connection_close_is_not_reused(connection):
    assert (await read(b"HTTP/1.1 200 OK\r\nConnection: " + connection + b"\r\nContent-Length: 0\r\n\r\n"))[3] is False


@pytest.mark.parametrize("data,match", [
    (b"", "before answering"),
    (b"HTTP/1.1 200 OK\r\nContent-Le", "middle of a message head"),
    (b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort", "5 bytes into a body of 10"),
    (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab", "into a body of 5"),
    (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nabcde\r\n", "middle of a chunked body"),
])
async def test_server_closing_before_or_mid_answer(data, match):
    with pytest.raises(ProtocolError, match=match):
        await read(data)


@pytest.mark.parametrize("data,match", [
    (b"HTTP/2 200 OK\r\n\r\n", "status line"),
    (b"HTTP/1.1 20 OK\r\n\r\n", "status line"),
    (b"<html>hello</html>\r\n\r\n", "status line"),
    (b"HTTP/1.1 099 X\r\n\r\n", "status code 99"),
    (b"HTTP/1.1 200 OK\r\nX-A : 1\r\n\r\n", "bad header line"),
    (b"HTTP/1.1 200 OK\r\nno colon\r\n\r\n", "bad header line"),
    (b"HTTP/1.1 200 OK\r\nX-A: a\rb\r\n\r\n", "bad header line"),
    (b"HTTP/1.1 200 OK\r\nX-A: a\x00b\r\n\r\n", "bad header line"),
    (b"HTTP/1.1 200 OK\r\nX-A: " + b" " * 60000 + b"\x01\r\n\r\n", "bad header line"),  # no quadratic backtracking
])
async def test_malformed_heads_are_refused(data, match):
    with pytest.raises(ProtocolError, match=match):
        await read(data)


async def test_a_head_that_never_ends_is_refused_once_it_passes_the_bound():
    class Endless:
        reads = 0

        async def receive_some(self, max_bytes=None):
            self.reads += 1
            return b"HTTP/1.1 200 OK\r\n" if self.reads == 1 else b"X-Filler: " + b"y" * 1000 + b"\r\n"

    stream = Endless()
    with pytest.raises(ProtocolError, match=f"longer than {MAX_HEAD}"):
        await read_response(ByteReader(stream), b"GET")
    assert stream.reads < MAX_HEAD // 1000 + 5


def test_request_writer_frames_the_body_and_refuses_injected_lines():
    assert request_bytes(b"POST", b"/a", [(b"Host", b"x")], b"hi") == (
        b"POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nhi")
    assert request_bytes(b"GET", b"/", [(b"Host", b"x")], b"") == b"GET / HTTP/1.1\r\nHost: x\r\n\r\n"
    assert request_bytes(b"POST", b"/", [], b"") == b"POST / HTTP/1.1\r\nContent-Length: 0\r\n\r\n"
    chunked = request_bytes(b"POST", b"/", [(b"Transfer-Encoding", b"chunked")], b"hello")
    assert chunked.endswith(b"\r\n\r\n5\r\nhello\r\n0\r\n\r\n")
    for fields in ([(b"X-Key", b"a\r\nX-Evil: 1")], [(b"X Key", b"a")], [(b"", b"a")], [(b"K", b"a\nb")]):
        with pytest.raises(ValueError, match="bad header field"):
            request_bytes(b"GET", b"/", fields, b"")
    good = [(b"Host", b"x"), (b"Accept", b"*/*\t")]
    for bad in ((b"X-Key", b"a\r\nX-Evil: 1"), (b"X Key", b"a"), (b"", b"a"), (b"X:Key", b"a"), (b"K", b"\x00")):
        with pytest.raises(ValueError, match=f"bad header field {bad[0].decode()!r}"):  # found among good ones
            request_bytes(b"GET", b"/", good + [bad] + good, b"")
    with pytest.raises(ValueError, match="bad request line"):
        request_bytes(b"GET", b"/a b", [], b"")


async def test_request_bodies_framed_by_length_chunks_or_nothing():
    fields = parse_fields([b"Transfer-Encoding: chunked"])
    assert await read_request_body(ByteReader(Pieces(b"3\r\nabc\r\n0\r\n\r\n")), fields) == b"abc"
    assert await read_request_body(ByteReader(Pieces(b"ignored")), []) == b""
    with pytest.raises(ProtocolError, match="transfer coding"):
        await read_request_body(ByteReader(Pieces(b"")), parse_fields([b"Transfer-Encoding: gzip"]))


# -- the pool on a real socket -----------------------------------------------------------------------------

@contextlib.asynccontextmanager
async def scripted_server(answers: list[tuple[bytes, bool]]):
    """A server that answers each request with the next (bytes, then close?) and counts connections."""
    seen = {"connections": 0, "bodies": []}

    async def handle(stream):
        seen["connections"] += 1
        reader = RequestReader(stream)
        async with stream:
            while (request := await reader.next()) is not None:
                seen["bodies"].append(request.body)
                data, close = answers.pop(0)
                await stream.send_all(data)
                if close:
                    return

    async with trio.open_nursery() as nursery:
        listeners = await nursery.start(trio.serve_tcp, handle, 0)
        seen["origin"] = ("http", "127.0.0.1", listeners[0].socket.getsockname()[1])
        yield seen
        nursery.cancel_scope.cancel()


OK = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"


async def _get(pool, server, body=b""):
    return await pool.exchange(server["origin"], b"POST" if body else b"GET", b"/", [(b"Host", b"x")], body)


async def test_pool_reuses_a_kept_alive_connection():
    async with scripted_server([(OK, False)] * 3) as server:
        pool = PooledTransport(4)
        for _ in range(3):
            assert await _get(pool, server) == (200, [(b"Content-Length", b"2")], b"ok")
        await pool.aclose()
    assert server["connections"] == 1


@pytest.mark.parametrize("answer", [
    b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok",
    b"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok",
    b"HTTP/1.1 200 OK\r\n\r\nok",  # no length: the body ends where the connection does
])
async def test_pool_opens_a_new_connection_after_one_that_ends(answer):
    async with scripted_server([(answer, True), (OK, False)]) as server:
        pool = PooledTransport(4)
        assert (await _get(pool, server))[2] == b"ok"
        assert (await _get(pool, server))[2] == b"ok"
        await pool.aclose()
    assert server["connections"] == 2


@pytest.mark.parametrize("answer", [b"", b"HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nok", b"garbage\r\n\r\n"])
async def test_pool_turns_a_broken_answer_into_remote_protocol_error_and_recovers(answer):
    async with scripted_server([(answer, True), (OK, False)]) as server:
        pool = PooledTransport(4)
        with pytest.raises(httpx.RemoteProtocolError):
            await _get(pool, server)
        assert (await _get(pool, server))[2] == b"ok"
        await pool.aclose()
    assert server["connections"] == 2


async def test_pool_through_httpx_sends_a_streamed_body_chunked():
    async def parts():
        yield b"hello "
        yield b"world"

    async with scripted_server([(OK, False)]) as server:
        url = "http://127.0.0.1:%d/" % server["origin"][2]
        async with httpx.AsyncClient(transport=PooledTransport(4)) as client:
            response = await client.post(url, content=parts())
    assert response.status_code == 200 and response.text == "ok"
    assert server["bodies"] == [b"hello world"]


async def test_a_key_with_a_line_break_fails_at_once_without_showing_the_key():
    key = "sk-SECRET-123\nX-Injected: 1"
    async with FakeLLMServer(lambda r: "ok").running() as s:
        async with ChatClient(llm_config(s, api_key=key)) as c:
            with pytest.raises(LLMRequestError, match="cannot be sent: bad header field 'Authorization'") as e:
                await c.chat(c.request([{"role": "user", "content": "hi"}]))
    assert s.requests == [] and "SECRET" not in str(e.value)


async def test_pool_replaces_a_kept_alive_connection_the_server_closed_while_idle():
    closed = trio.Event()
    seen = {"connections": 0}

    async def handle(stream):
        seen["connections"] += 1
        reader = RequestReader(stream)
        async with stream:
            if await reader.next() is not None:
                await stream.send_all(OK)  # says keep-alive, then drops the connection (an idle timeout)
        closed.set()

    async with trio.open_nursery() as nursery:
        listeners = await nursery.start(trio.serve_tcp, handle, 0)
        server = {"origin": ("http", "127.0.0.1", listeners[0].socket.getsockname()[1])}
        pool = PooledTransport(4)
        assert (await _get(pool, server))[2] == b"ok"
        await closed.wait()
        await trio.sleep(0.05)  # the close reaches the client's socket
        closed = trio.Event()
        assert (await _get(pool, server))[2] == b"ok"  # no error: the pool saw the close and reconnected
        await pool.aclose()
        nursery.cancel_scope.cancel()
    assert seen["connections"] == 2
