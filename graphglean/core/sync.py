"""The boundary between graphglean's trio functions and code that is not trio: synchronous callers (scripts,
Jupyter cells) and asyncio callers (``await`` in a notebook, asyncio applications).

Callers get the one error that matters (`errors.single`), never trio's exception groups, and an interrupt
(Ctrl-C, interrupting a notebook cell, cancelling the awaiting asyncio task) stops the work promptly: requests
not yet sent are never sent.
"""

from __future__ import annotations

import concurrent.futures
import functools
import sys
import threading
from typing import Any, Awaitable, Callable, TypeVar

import trio

from .errors import single

T = TypeVar("T")


def _asyncio_loop_running() -> bool:
    asyncio = sys.modules.get("asyncio")  # not imported by anyone: then no asyncio loop can be running
    if asyncio is None:
        return False
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def _in_trio() -> bool:
    try:
        trio.lowlevel.current_trio_token()
    except RuntimeError:
        return False
    return True


class _TrioThread:
    """One ``trio.run`` in a thread of its own (one thread cannot host two event loops), cancellable from
    any other thread."""

    def __init__(self, fn: Callable[..., Awaitable[T]], args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        self.future: concurrent.futures.Future[Any] = concurrent.futures.Future()
        self.future.set_running_or_notify_cancel()  # only `cancel` stops it: the answers in flight are stored
        self._call = functools.partial(fn, *args, **kwargs)
        self._lock = threading.Lock()
        self._token: trio.lowlevel.TrioToken | None = None
        self._scope: trio.CancelScope | None = None
        self._cancelled = False
        # a daemon: a second interrupt may leave it behind, and it must not keep the interpreter alive
        self._thread = threading.Thread(target=self._main, name="graphglean-trio", daemon=True)
        self._thread.start()

    def _main(self) -> None:
        try:
            self.future.set_result(trio.run(self._run))
        except BaseException as e:
            self.future.set_exception(single(e))

    async def _run(self) -> Any:
        with trio.CancelScope() as scope:
            with self._lock:
                self._token, self._scope = trio.lowlevel.current_trio_token(), scope
                if self._cancelled:
                    scope.cancel()
            return await self._call()
        raise KeyboardInterrupt  # cancelled from outside before it finished

    def cancel(self) -> None:
        with self._lock:
            self._cancelled = True
            if self._token is not None and self._scope is not None:
                try:
                    self._token.run_sync_soon(self._scope.cancel)
                except trio.RunFinishedError:
                    pass

    def stop(self) -> None:
        """Cancel, and wait for the run to wind down (answers being stored, connections closed)."""
        self.cancel()
        self._thread.join()


def run_sync(fn: Callable[..., Awaitable[T]], *args: Any, **kwargs: Any) -> T:
    """``fn(*args, **kwargs)`` under trio, from synchronous code. Where an asyncio loop already runs in this
    thread (a Jupyter cell), trio runs in a thread of its own and an interrupt of this thread cancels it."""
    if not _asyncio_loop_running():
        try:
            return trio.run(functools.partial(fn, *args, **kwargs))
        except BaseExceptionGroup as group:
            raise single(group) from None
    run = _TrioThread(fn, args, kwargs)
    try:
        return run.future.result()
    except KeyboardInterrupt:
        run.stop()
        raise


async def _await_from_asyncio(fn: Callable[..., Awaitable[T]], args: tuple[Any, ...], kwargs: dict[str, Any]) -> T:
    import asyncio

    run = _TrioThread(fn, args, kwargs)
    try:
        return await asyncio.wrap_future(run.future)
    except BaseException:  # the awaiting task was cancelled, or interrupted
        run.stop()
        raise


def entry_point(fn: Callable[..., Awaitable[T]]) -> Callable[..., Awaitable[T]]:
    """Marks a public async function. Under trio it raises the one error that matters instead of trio's
    exception group; awaited under asyncio, it runs on trio in a thread of its own, cancelled with the
    awaiting task."""

    @functools.wraps(fn)
    async def wrapper(*args: Any, **kwargs: Any) -> T:
        if not _in_trio() and _asyncio_loop_running():
            return await _await_from_asyncio(fn, args, kwargs)
        try:
            return await fn(*args, **kwargs)
        except BaseExceptionGroup as group:
            raise single(group) from None

    return wrapper
