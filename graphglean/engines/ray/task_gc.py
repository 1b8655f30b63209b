"""The garbage collector during a worker's task.

A task allocates millions of short-lived containers (requests, answers, records) in a process that already
holds a large heap (Ray's modules and the worker's state). With CPython's default thresholds, the young
generation is collected every 700 allocations and each full collection walks the whole heap: in a shard that
was a tenth of its CPU. During a task the heap from before it is frozen (no collection walks it) and the young
generation is collected every `YOUNG_THRESHOLD` allocations; both are restored afterwards. Reference counting
still frees nearly everything at once; the task's cycles are collected as it ends, while the heap from before
it is still frozen (a Ray worker's whole heap took ~60 ms to walk: a task's start-up). A full collection before
freezing, for what ran between tasks, is made at most every `FULL_EVERY_S`.
"""

from __future__ import annotations

import contextlib
import gc
import time
from typing import Iterator

YOUNG_THRESHOLD = 10_000
FULL_EVERY_S = 30.0
NEVER = 2**30  # a threshold no count reaches in a task
_last_full = [float("-inf")]  # this process's last full collection before a task (time.monotonic)


@contextlib.contextmanager
def task_gc() -> Iterator[None]:
    """Run the block with the task's collector settings (see the module); the process's are restored after."""
    before = gc.get_threshold()
    now = time.monotonic()
    if now - _last_full[0] >= FULL_EVERY_S:
        gc.collect()  # what ran before the task is not frozen with the heap
        _last_full[0] = now
    gc.freeze()
    gc.set_threshold(max(before[0], YOUNG_THRESHOLD), *before[1:])
    try:
        yield
    finally:
        gc.collect()  # the task's own cycles; the frozen heap is not walked
        gc.set_threshold(*before)
        gc.unfreeze()


@contextlib.contextmanager
def settled() -> Iterator[None]:
    """Run the block without full collections: a merge task's loaded records (millions of containers,
    long-lived, none in a cycle) are then not walked again and again by the full collections that building its
    rows sets off, which made the task's CPU grow faster than its partition (+60% a relationship for 8x the
    partition). Young objects are still collected; the task's older cycles as it ends (`task_gc`)."""
    before = gc.get_threshold()
    gc.set_threshold(before[0], before[1], NEVER)
    try:
        yield
    finally:
        gc.set_threshold(*before)
