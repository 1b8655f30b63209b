"""`WaveHub`: batch mode on Ray. One actor holds the run's `Waves`, with its ledger in ``shards/batch``, and
every task's client hands it its requests (`remote.RemoteWaves`), so the shards' requests go into the same
waves as a local run's would, and a restarted run, or a retried task, finds its requests in the ledger and
asks for none of them again.

The actor runs a trio loop of its own in a thread; its methods (one at a time, in Ray's thread) pass into it.
Each request (by cache key: identical requests share one line) is one trio task waiting in `Waves.chat`. An
answer is published to the tasks that asked for it and kept until one says it stored the answer (its run
store and cache): only then does the batch leave the ledger. A task that dies before is retried by Ray and
asks again: it gets the same answer, nothing is submitted twice. A batch whose answers nobody stored stays in
the ledger for the next run."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import attrs
import trio

from ....core.config import LLMConfig
from ....llm.batch.ledger import WaveLedger
from ....llm.batch.waves import Waves

LEDGER = "ledger.sqlite"
BUSY_S = 5.0  # a task that said it had online requests on the wire counts as busy this long


class _Closing(Exception):
    """The hub stops: an answer nobody stored must stay in the ledger."""


class _Counts:
    """What `Waves` counts for a request (retries, failures, batch requests), kept for the task that gets its
    outcome."""

    def __init__(self) -> None:
        self.kept: dict[str, int] = {}

    def bump(self, **counts: int) -> None:
        for k, v in counts.items():
            self.kept[k] = self.kept.get(k, 0) + v

    def take(self) -> dict[str, int]:
        kept, self.kept = self.kept, {}
        return kept


@attrs.define(eq=False)
class _Request:
    key: str
    body: dict[str, Any]
    group: Any
    counts: _Counts = attrs.field(factory=_Counts)
    outcome: tuple[Any, ...] | None = None
    askers: set[str] = attrs.field(factory=set)  # tasks waiting for the outcome, not given it yet
    stored: trio.Event = attrs.field(factory=trio.Event)


class WaveHub:
    """The actor (see the module). ``llm``: the run's settings; ``folder``: where its ledger is kept."""

    def __init__(self, llm: LLMConfig, folder: str) -> None:
        Path(folder).mkdir(parents=True, exist_ok=True)
        self._llm, self._ledger_path = llm, Path(folder) / LEDGER
        self.waves: Waves
        self._requests: dict[str, _Request] = {}
        self._outbox: dict[str, list[tuple[str, tuple[Any, ...]]]] = {}  # task -> outcomes to hand it
        self._groups: dict[str, object] = {}
        self._busy_until = -1.0
        self._notes: dict[str, str] = {}
        self._waits: set[trio.CancelScope] = set()
        self._ready, self._error = threading.Event(), None
        self._stop: trio.Event | None = None
        self._nursery: trio.Nursery | None = None
        self._thread = threading.Thread(target=self._run, name="graphglean-wave-hub", daemon=True)
        self._thread.start()
        self._ready.wait()
        if self._error is not None:
            raise self._error

    # -- the trio loop --------------------------------------------------------------------------------

    def _run(self) -> None:
        try:
            trio.run(self._main)
        except BaseException as e:  # noqa: BLE001 - told to the caller waiting for the loop to start
            self._error = e
            self._ready.set()

    async def _main(self) -> None:
        self._token = trio.lowlevel.current_trio_token()
        self._stop = trio.Event()
        ledger = WaveLedger(self._ledger_path)
        self.waves = Waves(self._llm, ledger=ledger, report=self._note)
        try:
            async with self.waves.running(lambda: self._busy_until > trio.current_time()):
                async with trio.open_nursery() as nursery:
                    self._nursery = nursery
                    self._ready.set()
                    await self._stop.wait()
                    for scope in self._waits:  # answers nobody stored: their batches stay in the ledger
                        scope.cancel()
                    nursery.cancel_scope.cancel()
        finally:
            ledger.close()

    def _in_loop(self, fn: Any, *args: Any) -> Any:
        return trio.from_thread.run_sync(fn, *args, trio_token=self._token)

    async def _ask(self, request: _Request) -> None:
        async def keep(written: Any, parsed: Any) -> None:
            self._publish(request, ("answer", written, parsed, request.counts.take()))
            with trio.CancelScope() as scope:
                self._waits.add(scope)
                try:
                    await request.stored.wait()
                finally:
                    self._waits.discard(scope)
            if not request.stored.is_set():
                raise _Closing

        group = self._groups.setdefault(str(request.group), object())
        try:
            answered = await self.waves.chat(request.key, request.body, request.counts, keep, group)
        except _Closing:
            return
        except Exception as e:  # refused, or out of retries: that request fails alone, as online
            self._publish(request, ("error", e, request.counts.take()))
            return
        if answered is None:  # its wave sent it online: the task sends it itself
            self._publish(request, ("online", request.counts.take()))
        self._requests.pop(request.key, None)

    def _publish(self, request: _Request, outcome: tuple[Any, ...]) -> None:
        request.outcome = outcome
        for task in request.askers:
            self._outbox.setdefault(task, []).append((request.key, outcome))
        request.askers.clear()

    def _note(self, key: str, line: str) -> None:
        if line:
            self._notes[key] = line
        else:
            self._notes.pop(key, None)

    # -- the actor's methods --------------------------------------------------------------------------

    def submit(self, task: str, items: list[tuple[str, dict[str, Any], str]]) -> None:
        """``task``'s requests (key, body, its pass): each joins the next wave, or the line of the same request
        already under way (answered already: its answer goes to ``task`` at once)."""
        def add() -> None:
            for key, body, group in items:
                request = self._requests.get(key)
                if request is None:
                    request = self._requests[key] = _Request(key, body, group)
                    assert self._nursery is not None
                    self._nursery.start_soon(self._ask, request)
                if request.outcome is not None:
                    self._outbox.setdefault(task, []).append((key, request.outcome))
                else:
                    request.askers.add(task)

        self._in_loop(add)

    def collect(self, task: str, busy: bool) -> list[tuple[str, tuple[Any, ...]]]:
        """The outcomes ready for ``task`` (``busy``: it has online requests on the wire)."""
        def take() -> list[tuple[str, tuple[Any, ...]]]:
            if busy:
                self._busy_until = trio.current_time() + BUSY_S
            return self._outbox.pop(task, [])

        return self._in_loop(take)

    def stored(self, keys: list[str]) -> None:
        """A task stored these answers: their batches may leave the ledger."""
        def mark() -> None:
            for key in keys:
                request = self._requests.pop(key, None)
                if request is not None:
                    request.stored.set()

        self._in_loop(mark)

    def detachable(self) -> str:
        """``--detach``: when to come back, once every request under way waits for a batch and nothing moved for
        ``quiet_s`` (empty otherwise)."""
        def look() -> str:
            if not self._requests or not self.waves._only_waiting():
                return ""
            window = int(self.waves.settings.completion_window.rstrip("h"))
            return self.waves.flight.come_back(window)

        return self._in_loop(look)

    def state(self) -> dict[str, Any]:
        """The batches made, and the progress lines of those in flight."""
        return self._in_loop(lambda: {"made": dict(self.waves.made), "notes": dict(self._notes)})

    def close(self, clear: bool) -> dict[str, int]:
        """Stop (``clear``: the run ended with nothing failed, so no batch in the ledger is needed any more: the
        ledger is emptied and what is still in flight cancelled). Returns the batches made."""
        if clear:
            trio.from_thread.run(self.waves.abandon, trio_token=self._token)
            self._in_loop(self.waves.ledger.clear)  # type: ignore[union-attr]
        made = dict(self.waves.made)
        assert self._stop is not None
        self._in_loop(self._stop.set)
        self._thread.join(timeout=60)
        return made
