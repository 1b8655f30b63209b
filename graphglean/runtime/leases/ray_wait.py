"""A Ray ObjectRef awaited from trio."""

from __future__ import annotations

from typing import Any, Callable

import trio


async def ray_result(submit: Callable[..., Any], *args: Any) -> Any:
    """The result of ``submit(*args)``, a Ray ObjectRef, awaited with no thread: Ray's completion callback
    wakes this trio task (a thread blocked in ``ray.get`` waits on the busy worker's GIL to hand it back)."""
    future = submit(*args).future()
    token, done = trio.lowlevel.current_trio_token(), trio.Event()

    def wake(_: Any) -> None:
        try:
            token.run_sync_soon(done.set)
        except trio.RunFinishedError:
            pass

    future.add_done_callback(wake)
    await done.wait()
    return future.result()
