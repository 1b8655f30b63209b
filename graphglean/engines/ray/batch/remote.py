"""`RemoteWaves`: a task's side of batch mode on Ray, in its `ChatClient` where a local run has its `Waves`. A
request the client would hand to a wave goes to the run's `WaveHub` instead; every `POLL_S` the task sends
what it has to (new requests, the answers it stored) and takes what is ready for it. An answer is stored by
the task (its run store, the cache), counted as the local run counts it, and only then reported stored, so
its batch leaves the ledger only once the answer is safe."""

from __future__ import annotations

import contextlib
import uuid
from typing import Any, AsyncIterator, Awaitable, Callable

import attrs
import trio

from ....llm.batch.waves import batch_result, count_batch_answer
from ....llm.records import ChatResult
from ..leases import ray_result

POLL_S = 0.25  # how often a task hands the hub its requests and takes their outcomes
Keep = Callable[[Any, ChatResult], Awaitable[None]]


@attrs.define(eq=False)
class _Wait:
    asked: float
    done: trio.Event = attrs.field(factory=trio.Event)
    outcome: tuple[Any, ...] | None = None
    answered: bool = False  # the first caller stored and counted the answer


class RemoteWaves:
    """``hub``: the `WaveHub` actor; ``group_of``: a pass's name from its account (set once the task's scheduler
    exists), by which a wave's share of each pass is judged."""

    def __init__(self, hub: Any) -> None:
        self.hub = hub
        self.task = uuid.uuid4().hex
        self.group_of: Callable[[Any], str] = lambda account: "calls"
        self.made = {"batches": 0, "lines": 0}  # the hub's, for the whole run
        self._waits: dict[str, _Wait] = {}
        self._new: list[tuple[str, dict[str, Any], str]] = []
        self._stored: list[str] = []
        self._wake = trio.Event()

    @contextlib.asynccontextmanager
    async def running(self, busy: Callable[[], bool] = lambda: False) -> AsyncIterator["RemoteWaves"]:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._exchange, busy)
            try:
                yield self
            finally:
                with trio.CancelScope(shield=True):  # the answers stored last are told too
                    await self._send()
                nursery.cancel_scope.cancel()

    async def chat(self, key: str, body: dict[str, Any], accounts: Any, keep: Keep | None,
                   group: Any = None) -> ChatResult | None:
        """As `Waves.chat`: the answer from a batch, stored (``keep``) and counted; None when its wave sends it
        online; the refusal, or `LLMError` once its retries are spent, raised."""
        wait = self._waits.get(key)
        if wait is None:
            wait = self._waits[key] = _Wait(trio.current_time())
            self._new.append((key, body, self.group_of(group)))
            self._wake.set()
        await wait.done.wait()
        assert wait.outcome is not None
        kind, *rest = wait.outcome
        if kind == "online":
            self._waits.pop(key, None)
            accounts.bump(**rest[0])
            return None
        if kind == "error":
            self._waits.pop(key, None)
            accounts.bump(**rest[1])
            raise rest[0]
        written, parsed, counts = rest
        if wait.answered:  # asked twice at once, paid once
            accounts.bump(cache_hits=1)
        else:
            wait.answered = True
            with trio.CancelScope(shield=True):  # a paid answer is stored even when the task is being stopped
                if keep is not None:
                    await keep(written, parsed)
            self._stored.append(key)
            count_batch_answer(accounts, parsed.usage, **counts)
        return batch_result(parsed, wait.asked, 1)

    async def _exchange(self, busy: Callable[[], bool]) -> None:
        while True:
            with trio.move_on_after(POLL_S):
                await self._wake.wait()
                await trio.sleep(0.02)  # the requests of one scheduler pass go together
            self._wake = trio.Event()
            await self._send()
            if not self._waits:
                continue
            ready = (await ray_result(self.hub.collect.remote, self.task, busy())).value
            for key, outcome in ready:
                wait = self._waits.get(key)
                if wait is not None and wait.outcome is None:
                    wait.outcome = outcome
                    wait.done.set()
            if any(w.answered for w in self._waits.values()):
                self._waits = {k: w for k, w in self._waits.items() if not w.answered}

    async def _send(self) -> None:
        new, self._new = self._new, []
        stored, self._stored = self._stored, []
        if new:
            await ray_result(self.hub.submit.remote, self.task, new)
        if stored:
            await ray_result(self.hub.stored.remote, stored)
