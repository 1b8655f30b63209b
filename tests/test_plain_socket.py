"""PlainSocket: trio's stream contract on a plain TCP socket, with no scheduler trip where nothing waits."""

import socket

import pytest
import trio
import trio.testing

from graphglean.llm.plain_socket import PlainSocket


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
