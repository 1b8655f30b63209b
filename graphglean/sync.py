"""Running graphglean's trio functions from synchronous code."""

from __future__ import annotations

import concurrent.futures
import functools
import sys
from typing import Any, Awaitable, Callable, TypeVar

import trio

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


def run_sync(fn: Callable[..., Awaitable[T]], *args: Any, **kwargs: Any) -> T:
    """``trio.run(fn, ...)``; where an asyncio loop already runs in this thread (a Jupyter cell), trio gets a
    thread of its own, since one thread cannot host two event loops."""
    call = functools.partial(trio.run, functools.partial(fn, *args, **kwargs))
    if not _asyncio_loop_running():
        return call()
    with concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="graphglean-trio") as pool:
        return pool.submit(call).result()
