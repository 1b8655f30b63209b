"""The tasks of a Ray run: one remote function (`stage_main`) runs every stage's work under trio in a worker, with
the leased rate limit; the driver's `Tasks` keeps ``runtime.workers`` of them in flight, hands each result on,
and merges what their clients learned of the server (`LLMTotals`). `ItemProgress` shows the items inside the
running tasks.

The driver waits on Ray in a worker thread (``trio.to_thread.run_sync``), so its trio loop stays responsive.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Iterable

import attrs
import trio

from ...core.errors import GraphgleanError
from ...llm.accounting import CallAccount
from ...scheduling.scheduler import Progress
from . import shard_task
from .leases import BatchSize, LeasedRateLimiter, process_holding, ray_result
from .llm_totals import LLMTotals, client_block, worker_name
from .task_gc import task_gc

TASK_CPUS = 0.5  # a shard task mostly waits on the network: two to a CPU


# -- inside the workers ------------------------------------------------------------------------------------

def _limiter(actor: Any, batch: BatchSize) -> LeasedRateLimiter:
    def submit(method: str, *args: Any) -> Any:
        return getattr(actor, method).remote(*args)

    return LeasedRateLimiter(submit, submit, batch, holding=process_holding(actor._actor_id.hex()),
                             wait_on=ray_result)


def _in_trio(actor: Any, batch: BatchSize, work: Callable[..., Any], *args: Any) -> Any:
    async def main() -> Any:
        async with _limiter(actor, batch) as limiter:
            return await work(*args, limiter)

    with task_gc():
        return trio.run(main)


@attrs.frozen
class TaskResult:
    """A task's value, and what each client it opened learned of the server (`llm_totals.client_block`)."""

    value: Any
    llm: list[dict[str, Any]]
    worker: str


def stage_main(work: Callable[..., Any], args: tuple[Any, ...], actor: Any, batch: BatchSize,
               hub: Any = None) -> TaskResult:
    """Every task of a run: ``work(*args, limiter)`` under trio (one remote function, exported to the workers
    once); ``hub``: batch mode's `WaveHub`, which the task's clients send their requests to."""
    shard_task.opened_clients.clear()
    shard_task.wave_hub = hub
    try:
        value = _in_trio(actor, batch, work, *args)
        return TaskResult(value, [client_block(c) for c in shard_task.opened_clients], worker_name())
    finally:
        shard_task.opened_clients.clear()
        shard_task.wave_hub = None


# -- the driver --------------------------------------------------------------------------------------------

@attrs.define
class Tasks:
    """What every stage of a run submits its tasks with: Ray, the runtime settings, the lease actor and its batch
    size, the tasks in flight (cancelled if the run stops), and what their clients learned."""

    ray: Any
    rt: Any
    actor: Any
    batch: BatchSize
    refs: dict[Any, Any] = attrs.field(factory=dict)
    llm: LLMTotals = attrs.field(factory=LLMTotals)
    hub: Any = None  # batch mode: the `WaveHub` actor
    _task: Any = None  # stage_main as a Ray remote function, made once
    _names: dict[Any, str] = attrs.field(factory=dict)  # a task in flight's name, for the llm section

    async def stage(self, jobs: Iterable[tuple[Any, tuple[Any, ...]]], done: Callable[[Any, Any], None],
                    running: Callable[[], None] = lambda: None, name: Callable[[Any], str] = str,
                    **options: Any) -> None:
        """One task per job ``(key, (work, *args))`` (``work(*args, limiter)``), at most ``rt.workers`` in
        flight; each finished one's key and result go to ``done``, and ``running`` is called every second none
        finishes. ``name(key)`` names a task in the report; ``options`` are Ray's (a task's CPUs, memory). The
        lease actor hears when the last one is submitted (the running ones give back what they hold). A task
        that raises stops the stage: the others are cancelled, so that a later stage (one done without the
        failed one) never gathers them."""
        if self._task is None:
            self._task = self.ray.remote(stage_main)
        task = self._task.options(**{"max_retries": self.rt.task_retries, "num_cpus": TASK_CPUS, **options})
        self.actor.tasks_coming.remote(True)
        try:
            for key, (work, *args) in jobs:
                await self._gather(self.rt.workers, done, running)
                ref = task.remote(work, tuple(args), self.actor, self.batch, self.hub)
                self.refs[ref], self._names[ref] = key, name(key)
            self.actor.tasks_coming.remote(False)
            await self._gather(1, done, running)
        except BaseException:
            self.actor.tasks_coming.remote(False)
            for ref in self.refs:
                self.ray.cancel(ref, force=True)
            self.refs.clear()
            self._names.clear()
            raise

    async def wave(self, progress: Progress, stage: str, work: Callable[..., Any], argsets: list[tuple[Any, ...]],
                   watch: list[Path] | None = None, **options: Any) -> list[Any]:
        """`stage` with one task per argument set; their results in order. Progress shows ``stage`` by tasks,
        and the items of the tasks whose folder in ``watch`` has a progress file."""
        results: dict[int, Any] = {}
        items = ItemProgress(progress)
        progress.start(stage, len(argsets))

        def done(i: int, result: Any) -> None:
            results[i] = result
            if watch is not None:
                items.read(watch[i], finished=True)
            progress.advance(stage, CallAccount(), False)

        def running() -> None:
            for i in self.refs.values() if watch is not None else ():
                items.read(watch[i])

        await self.stage(((i, (work, *args)) for i, args in enumerate(argsets)), done, running,
                         name=lambda i: f"{stage} {i}", **options)
        items.finish()
        progress.finish(stage)
        return [results[i] for i in range(len(argsets))]

    async def _gather(self, limit: int, on_done: Callable[[Any, Any], None], on_wait: Callable[[], None],
                      wait_s: float = 1.0) -> None:
        """Wait until fewer than ``limit`` tasks are in flight, handing each finished one to ``on_done``."""
        refs, ray = self.refs, self.ray
        while len(refs) >= limit and refs:
            ready, _ = await trio.to_thread.run_sync(lambda: ray.wait(list(refs), num_returns=1, timeout=wait_s))
            if not ready:
                on_wait()
                continue
            key, name = refs.pop(ready[0]), self._names.pop(ready[0])
            result = _result(ray, ready[0])
            for block in result.llm:
                self.llm.add(block, name, result.worker)
            on_done(key, result.value)

    def cancel(self) -> None:
        for ref in self.refs:
            self.ray.cancel(ref, force=True)


def _result(ray: Any, ref: Any) -> TaskResult:
    try:
        return ray.get(ref)
    except ray.exceptions.RayTaskError as e:
        cause = getattr(e, "cause", None)
        if isinstance(cause, GraphgleanError):
            raise cause from None
        raise
    except ray.exceptions.WorkerCrashedError:
        raise GraphgleanError("a Ray worker died more often than runtime.task_retries allows") from None


class ItemProgress:
    """The items of every task, as their ``progress.json`` files say, shown through the run's `Progress` next to
    the tasks: totals grow as tasks start their passes, counts as their items finish. Only running tasks' counts
    are kept apart; a finished one's join the totals (the driver's memory does not grow with the shards)."""

    def __init__(self, progress: Progress) -> None:
        self.progress = progress
        self.running: dict[str, dict[str, dict[str, int]]] = {}  # task folder -> pass -> counts so far
        self.finished: dict[str, dict[str, int]] = {}  # pass -> the finished tasks' call counts, summed

    def read(self, folder: Path, finished: bool = False) -> None:
        """What is new in the task's file. ``finished``: every item it started is done (a retried task that
        resumed from its store counts only what was left, so the counts are made whole)."""
        now = shard_task.read_progress(folder)
        before = self.running.setdefault(str(folder), {})
        for name, row in now.items():
            old = before.setdefault(name, {})
            if finished:
                row = dict(row, done=max(row["total"], old.get("total", 0)))
            grew = {k: max(0, v - old.get(k, 0)) for k, v in row.items()}
            old.update({k: max(v, old.get(k, 0)) for k, v in row.items()})
            if grew.get("total"):
                self.progress.start(name, grew["total"])
            account = self._account(name)
            failed = grew.get("failed", 0)
            for k in range(grew.get("done", 0)):
                self.progress.advance(name, account, k < failed)
        if finished:
            for name, counts in self.running.pop(str(folder)).items():
                into = self.finished.setdefault(name, {})
                for k in shard_task.ACCOUNT_FIELDS:
                    into[k] = into.get(k, 0) + counts.get(k, 0)

    def _account(self, name: str) -> CallAccount:
        acc = CallAccount()
        for k in shard_task.ACCOUNT_FIELDS:
            setattr(acc, k, self.finished.get(name, {}).get(k, 0)
                    + sum(passes.get(name, {}).get(k, 0) for passes in self.running.values()))
        return acc

    def finish(self) -> None:
        for name in {*self.finished, *(n for passes in self.running.values() for n in passes)}:
            self.progress.finish(name)
