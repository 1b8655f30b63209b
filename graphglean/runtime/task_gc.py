"""The garbage collector during a worker's task.

A task allocates millions of short-lived containers (requests, answers, records) in a process that already
holds a large heap (Ray's modules and the worker's state). With CPython's default thresholds, the young
generation is collected every 700 allocations and each full collection walks the whole heap: in a shard that
was a tenth of its CPU. During a task the heap from before it is frozen (no collection walks it) and the young
generation is collected every `YOUNG_THRESHOLD` allocations; both are restored afterwards. Reference counting
still frees nearly everything at once; only cycles wait a little longer.
"""

from __future__ import annotations

import contextlib
import gc
from typing import Iterator

YOUNG_THRESHOLD = 10_000


@contextlib.contextmanager
def task_gc() -> Iterator[None]:
    """Run the block with the task's collector settings (see the module); the process's are restored after."""
    before = gc.get_threshold()
    gc.collect()  # what an earlier task left is not frozen with the heap
    gc.freeze()
    gc.set_threshold(max(before[0], YOUNG_THRESHOLD), *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)
        gc.unfreeze()
