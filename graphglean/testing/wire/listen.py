"""`serve_plain_tcp`: a TCP server whose handlers get `PlainSocket`s, every waiting connection accepted at once.

`trio.serve_tcp` accepts one connection per scheduler trip and wraps each in a `trio.SocketStream` (which the
fake server then unwrapped): ~0.075 ms of the server's CPU per connection, up to its first wait for a request,
so 256 clients connecting at once queued ~19 ms of work ahead of their first requests. Here one wake-up of the
listening socket accepts every connection waiting in its backlog: ~0.05 ms per connection.
"""

from __future__ import annotations

import errno
import socket
from typing import Any, Awaitable, Callable

import trio

from ...llm.http.plain_socket import PlainSocket

# as trio's listeners: out of descriptors or memory, wait and try again; a connection gone before it was
# accepted, skip it
_RESOURCE_ERRORS = {errno.EMFILE, errno.ENFILE, errno.ENOMEM, errno.ENOBUFS}
_GONE_ERRORS = {errno.ECONNABORTED, errno.EPROTO, getattr(errno, "EPERM", -1)}


async def serve_plain_tcp(handler: Callable[[PlainSocket], Awaitable[Any]], port: int, host: str | None = None,
                          *, task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
    """Listen on ``host`` (None: every interface, as `trio.serve_tcp`) and ``port`` (0: a free one) and run
    ``handler`` in a task of its own for each connection, until cancelled. Started with ``nursery.start``, it
    gives the listening sockets' addresses."""
    listeners = await trio.open_tcp_listeners(port, host=host)
    socks = [socket.socket(fileno=listener.socket.detach()) for listener in listeners]
    try:
        for sock in socks:
            sock.setblocking(False)
        async with trio.open_nursery() as nursery:
            for sock in socks:
                nursery.start_soon(_accept, sock, handler, nursery)
            task_status.started([sock.getsockname() for sock in socks])
    finally:
        for sock in socks:
            trio.lowlevel.notify_closing(sock)
            sock.close()


async def _accept(listener: socket.socket, handler: Callable[[PlainSocket], Awaitable[Any]],
                  nursery: trio.Nursery) -> None:
    while True:
        await trio.lowlevel.wait_readable(listener)
        while True:
            try:
                sock, _ = listener.accept()
            except BlockingIOError:
                break
            except OSError as e:
                if e.errno in _RESOURCE_ERRORS:
                    await trio.sleep(0.1)
                    break
                if e.errno in _GONE_ERRORS:
                    continue
                raise
            try:
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            except OSError:  # reset already: its handler will find out
                pass
            nursery.start_soon(handler, PlainSocket(sock))
