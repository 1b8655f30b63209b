"""PlainSocket: trio's stream contract on a plain TCP socket, with no scheduler trip where nothing waits."""

import socket

import pytest
import trio
import trio.testing

from graphglean.llm.http.plain_socket import PlainSocket


def pair():
    a, b = socket.socketpair()
    return PlainSocket(a), PlainSocket(b)


async def test_a_send_larger_than_the_buffers_waits_for_the_reader():
    a, b = pair()
    payload = bytes(range(256)) * 40000  # 10 MB: far more than the kernel buffers
    received = bytearray()

    async def read_all():
        while len(received) < len(payload):
            received.extend(await b.receive_some(65536))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(read_all)
        await a.send_all(payload)
    assert bytes(received) == payload
    await a.aclose()
    await b.aclose()


async def test_end_of_stream_and_readable_when_the_peer_closes():
    a, b = pair()
    assert not b.readable()
    await a.send_all(b"last")
    await a.aclose()
    assert b.readable()
    assert await b.receive_some() == b"last"
    assert await b.receive_some() == b""
    await b.aclose()
    await b.aclose()  # closing twice is harmless


async def test_a_cancelled_read_loses_nothing_and_closing_wakes_a_waiting_reader():
    a, b = pair()
    with trio.CancelScope() as scope:  # cancelled: nothing is read
        scope.cancel()
        await b.receive_some()
    await a.send_all(b"kept")
    assert await b.receive_some() == b"kept"

    async def reader():
        with pytest.raises(trio.ClosedResourceError):
            await b.receive_some()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(reader)
        await trio.testing.wait_all_tasks_blocked()
        await b.aclose()
    await a.aclose()


async def test_a_read_that_finds_data_waiting_is_still_a_checkpoint():
    a, b = pair()
    await a.send_all(b"ready")
    with trio.testing.assert_checkpoints():
        assert await b.receive_some() == b"ready"
    await a.aclose()
    await b.aclose()


async def test_errors_are_trios_broken_and_closed_resource_errors():
    a, b = pair()
    await a.send_all(b"unread")
    await b.aclose()
    with pytest.raises(trio.BrokenResourceError):
        for _ in range(100):  # the peer's close shows on the first send or a later one
            await a.send_all(b"x" * 65536)
    with pytest.raises(trio.ClosedResourceError):
        await b.receive_some()
    await a.aclose()


async def test_connect_reaches_a_listener_with_nagle_off_and_a_refusal_is_an_oserror():
    listener = trio.socket.socket()
    await listener.bind(("127.0.0.1", 0))
    listener.listen()
    address = listener.getsockname()
    conn = await PlainSocket.connect(socket.AF_INET, address)
    server, _ = await listener.accept()
    await conn.send_all(b"ping")
    assert await server.recv(4) == b"ping"
    assert conn.sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
    await conn.aclose()
    server.close()
    listener.close()
    with pytest.raises(OSError):
        await PlainSocket.connect(socket.AF_INET, address)  # nobody listens there now


async def test_a_pool_finds_its_way_to_an_origin_once_and_again_when_the_address_fails(monkeypatch):
    from graphglean.llm.http import transport
    from graphglean.testing import FakeLLMServer

    by_name = []
    open_tcp_stream = trio.open_tcp_stream

    async def counted(host, port, **kw):
        by_name.append((host, port))
        return await open_tcp_stream(host, port, **kw)

    monkeypatch.setattr(transport.trio, "open_tcp_stream", counted)
    async with FakeLLMServer(lambda r: "ok").running() as s:
        import httpx

        url = httpx.URL(s.base_url)
        pool = transport.PooledTransport(64)
        origin = transport.origin_of(url)
        conns = []

        async def connect():
            conns.append(await pool._connect(origin))

        async with trio.open_nursery() as nursery:  # 32 at once: one goes by name, the others follow it
            for _ in range(32):
                nursery.start_soon(connect)
        assert len(by_name) == 1 and len(conns) == 32
        closed = trio.socket.socket()  # an address nobody listens on: as if the host had moved
        await closed.bind(("127.0.0.1", 0))
        pool._reached[origin] = (socket.AF_INET, closed.getsockname())
        closed.close()
        conns.append(await pool._connect(origin))
        assert len(by_name) == 2 and pool._reached[origin][1][1] == url.port
        for c in conns:
            await c.aclose()


class _CountingSocket(socket.socket):
    """A socket that counts its recv calls."""

    recvs = 0

    def recv(self, *args):
        self.recvs += 1
        return super().recv(*args)


async def test_the_read_after_a_send_waits_for_the_answer_before_trying_and_other_reads_try_first():
    raw_a, raw_b = socket.socketpair()
    a, b = PlainSocket(_CountingSocket(fileno=raw_a.detach())), PlainSocket(raw_b)
    async with trio.open_nursery() as nursery:
        await a.send_all(b"question")
        nursery.start_soon(a.receive_some)  # the answer is a round trip away: it waits, no read tried first
        await trio.testing.wait_all_tasks_blocked()
        assert a.sock.recvs == 0
        assert await b.receive_some() == b"question"
        await b.send_all(b"answer")
    assert a.sock.recvs == 1
    await b.send_all(b"more")
    await trio.testing.wait_all_tasks_blocked()
    with trio.testing.assert_checkpoints():
        assert await a.receive_some() == b"more"  # no send before it: read at once, one call, still a checkpoint
    assert a.sock.recvs == 2
    await a.send_all(b"x")  # an answer already waiting when the wait begins is read without delay
    with trio.fail_after(5):
        await b.send_all(b"early")
        assert await a.receive_some() == b"early"
    await a.aclose()
    await b.aclose()
