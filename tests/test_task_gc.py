"""A worker's task runs with the garbage collector set for it, and leaves the process's settings as they were."""

from __future__ import annotations

import contextlib
import gc

from graphglean.engines.ray import tasks as ray_engine
from graphglean.engines.ray.task_gc import YOUNG_THRESHOLD, task_gc


def test_a_task_freezes_the_heap_before_it_and_collects_its_young_objects_less_often():
    before = gc.get_threshold()
    kept = [[k] for k in range(1000)]  # the heap from before the task
    with task_gc():
        assert gc.get_freeze_count() >= len(kept)
        assert gc.get_threshold() == (max(before[0], YOUNG_THRESHOLD), *before[1:])
        cycle: list = []
        cycle.append(cycle)  # a cycle made in the task is still collected
        del cycle
        assert gc.collect() >= 1
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0


def test_a_failed_task_restores_the_settings_too():
    before = gc.get_threshold()
    with contextlib.suppress(RuntimeError), task_gc():
        raise RuntimeError("task failed")
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0


def test_every_ray_task_body_runs_under_the_task_settings(monkeypatch):
    @contextlib.asynccontextmanager
    async def no_leases(actor, batch):
        yield None

    monkeypatch.setattr(ray_engine, "_limiter", no_leases)
    seen = []

    async def work(limiter):
        seen.append((gc.get_threshold()[0], gc.get_freeze_count() > 0))
        return "done"

    assert ray_engine._in_trio(None, None, work) == "done"
    assert seen == [(max(gc.get_threshold()[0], YOUNG_THRESHOLD), True)]


def test_a_task_frees_its_cycles_as_it_ends_and_walks_the_whole_heap_at_most_every_interval(monkeypatch):
    import weakref

    from graphglean.engines.ray import task_gc as module

    class Node:
        pass

    with task_gc():
        node = Node()
        node.me = node  # a cycle, freed only by a collection
        gone = weakref.ref(node)
        del node
    assert gone() is None
    walked = []
    real = gc.collect
    monkeypatch.setattr(gc, "collect", lambda *a: walked.append(gc.get_freeze_count() > 0) or real(*a))
    for _ in range(3):
        with task_gc():
            pass
    assert walked == [True, True, True]  # within FULL_EVERY_S of the first task: only its own objects walked
    monkeypatch.setattr(module, "_last_full", [float("-inf")])
    with task_gc():
        pass
    assert walked[3:] == [False, True]  # then the whole heap once, before freezing it
