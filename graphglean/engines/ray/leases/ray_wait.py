"""A Ray ObjectRef awaited from trio."""

from __future__ import annotations

import time
from typing import Any, Callable

import attrs
import trio


@attrs.frozen
class Arrived:
    """A reply, and when it reached this process (time.monotonic), which may be well before a busy trio loop
    takes it up."""

    value: Any
    at: float


async def ray_result(submit: Callable[..., Any], *args: Any) -> Arrived:
    """The result of ``submit(*args)``, a Ray ObjectRef, awaited with no thread: Ray's completion callback
    wakes this trio task (a thread blocked in ``ray.get`` waits on the busy worker's GIL to hand it back)."""
    future = submit(*args).future()
    token, done = trio.lowlevel.current_trio_token(), trio.Event()
    arrived = [0.0]

    def wake(_: Any) -> None:
        arrived[0] = time.monotonic()
        try:
            token.run_sync_soon(done.set)
        except trio.RunFinishedError:
            pass

    future.add_done_callback(wake)
    await done.wait()
    return Arrived(future.result(), arrived[0])
