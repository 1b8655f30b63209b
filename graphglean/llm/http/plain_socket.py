"""`PlainSocket`: a connected TCP socket as a trio byte stream that goes through trio's scheduler only to wait.

trio's `SocketStream` makes a scheduler round trip for every send, even one the kernel takes at once, and
wraps each call in several context managers: about a fifth of `PooledTransport`'s CPU per call at 2,500
calls/s (benchmarks/transport.py). Here a send that fits the socket's buffer returns straight away, without
the trip: it is not a checkpoint, so a caller must read (or otherwise checkpoint) after it, as a client
reading the answer to its request does. ``receive_some`` is one trip: the wait for data, or a yield when data
was there already. The first read after a send waits before it tries: the peer's answer is a round trip away,
and a read that finds nothing costs a system call and an exception (a request and its answer on a socket pair:
29 µs of CPU with the try, 24.5 without).
"""

from __future__ import annotations

import errno
import os
import select
import socket
from typing import Any

import trio

_CONNECTING = {errno.EINPROGRESS, errno.EWOULDBLOCK, errno.EAGAIN, 10035}  # 10035: Windows' WSAEWOULDBLOCK


class PlainSocket(trio.abc.HalfCloseableStream):
    """Owns ``sock`` (made non-blocking). Not for two tasks sending, or two receiving, at once."""

    def __init__(self, sock: socket.socket) -> None:
        sock.setblocking(False)
        self.sock = sock
        self._answer_due = False  # sent since the last read: wait for data before trying to read
        self._poll: Any = None

    @classmethod
    async def connect(cls, family: int, address: tuple) -> "PlainSocket":
        """A TCP connection to ``address`` (a socket address of ``family``, as `getpeername` gives it), with
        Nagle off as trio's streams have it. Raises OSError when the connection is refused or fails."""
        sock = socket.socket(family, socket.SOCK_STREAM)
        try:
            sock.setblocking(False)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            err = sock.connect_ex(address)
            if err in _CONNECTING:
                await trio.lowlevel.wait_writable(sock)
                err = sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
            else:
                await trio.lowlevel.checkpoint()
            if err:
                raise OSError(err, os.strerror(err))
        except BaseException:
            sock.close()
            raise
        return cls(sock)

    @classmethod
    def take(cls, stream: trio.SocketStream) -> "PlainSocket":
        """The socket of ``stream`` (as `trio.open_tcp_stream` gives it), which is no longer usable."""
        return cls(socket.socket(fileno=stream.socket.detach()))

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        await trio.lowlevel.checkpoint_if_cancelled()
        view = memoryview(data)
        while view:
            try:
                sent = self.sock.send(view)
            except BlockingIOError:
                await self.wait_send_all_might_not_block()
                continue
            except OSError as e:
                raise self._broken(e) from e
            view = view[sent:]
        self._answer_due = True

    async def wait_send_all_might_not_block(self) -> None:
        await trio.lowlevel.wait_writable(self.sock)

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        if self._answer_due:
            self._answer_due = False
        else:
            await trio.lowlevel.checkpoint_if_cancelled()
            try:
                data = self.sock.recv(max_bytes or 65536)
            except BlockingIOError:
                pass
            except OSError as e:
                raise self._broken(e) from e
            else:
                await trio.lowlevel.cancel_shielded_checkpoint()  # what was read must not be lost to a cancel
                return data
        while True:
            await trio.lowlevel.wait_readable(self.sock)
            try:
                return self.sock.recv(max_bytes or 65536)
            except BlockingIOError:
                pass
            except OSError as e:
                raise self._broken(e) from e

    def _broken(self, e: OSError) -> trio.BrokenResourceError | trio.ClosedResourceError:
        """The error trio's streams raise for ``e``: closed here, or broken by the peer or the network."""
        if self.sock.fileno() < 0:
            return trio.ClosedResourceError("the socket was closed")
        return trio.BrokenResourceError(f"socket connection broken: {e}")

    def readable(self) -> bool:
        """Whether a read would not wait: data came, or the peer closed."""
        if not hasattr(select, "poll"):  # Windows
            return bool(select.select([self.sock], [], [], 0)[0])
        if self._poll is None:  # kept: a pool asks each time it hands the connection out
            self._poll = select.poll()
            self._poll.register(self.sock, select.POLLIN)
        return bool(self._poll.poll(0))

    async def send_eof(self) -> None:
        await trio.lowlevel.checkpoint()
        try:
            self.sock.shutdown(socket.SHUT_WR)
        except OSError as e:
            raise self._broken(e) from e

    async def aclose(self) -> None:
        if self.sock.fileno() >= 0:
            trio.lowlevel.notify_closing(self.sock)
            self.sock.close()
        self._poll = None  # it watches the descriptor's number, which the system may give another socket
        await trio.lowlevel.checkpoint()
