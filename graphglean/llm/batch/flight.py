"""`Flight`: the batches a run has in flight: the ones this process made, and those an earlier one recorded in
the ledger (found again on start-up); looked at every ``poll_s``, and collected when done: their output and error
files read, and each request's answer, or the reason it has none, handed on. A batch leaves the ledger once every
answer it brought is stored."""

from __future__ import annotations

import contextlib
import time
from typing import Any, Callable

import attrs
import trio

from ...core.errors import LLMError
from .api import BatchEndpoint, BatchState
from .ledger import WaveLedger
from .wavefile import LineResult, no_answer, read_results

#: what a collected batch hands on for one request: (batch, key, its answer, over the quota)
Hand = Callable[["Batch", str, LineResult, bool], None]


@attrs.define(eq=False)
class Batch:
    wave: str  # its id in the ledger
    number: int
    file_id: str
    keys: tuple[str, ...]
    lines: dict[str, Any] = attrs.field(factory=dict)  # this process's requests waiting for it
    open: set[str] = attrs.field(factory=set)  # keys whose answers are not stored yet (nor handed to a later wave)
    batch_id: str | None = None
    state: BatchState | None = None
    restored: bool = False  # made by an earlier process: it may be done already
    looked: bool = False
    collected: bool = False
    struck: bool = False  # struck from the ledger


class Flight:
    """``quota`` is set when a batch ends (a wave refused for the endpoint's queue quota waits for it);
    ``max_lines`` the most requests a batch gets, halved when one alone was over that quota."""

    def __init__(self, api: BatchEndpoint, ledger: WaveLedger | None, report: Callable[[str, str], None],
                 max_lines: int) -> None:
        self.api, self.ledger, self.report = api, ledger, report
        self.batches: dict[str, Batch] = {}
        self.known: dict[str, Batch] = {}  # keys of batches made by an earlier process
        self.quota: trio.Event | None = None
        self.max_lines = max_lines
        self._shown: dict[str, tuple[Any, ...]] = {}
        self.nursery: trio.Nursery | None = None  # where files of struck batches are deleted
        self._deleting = 0
        self._deleted = trio.Event()
        self._deleted.set()

    async def restore(self) -> int:
        """Take up the batches an earlier process made and did not collect; one it uploaded but left uncreated
        (killed in between) is adopted when the endpoint has it, else forgotten (its requests are asked anew).
        Returns the number of the next batch."""
        if self.ledger is None:
            return 1
        for w in self.ledger.open_waves():
            batch = Batch(w.wave, w.number, w.file_id, w.keys, open=set(w.keys), batch_id=w.batch_id, restored=True)
            if batch.batch_id is None:
                found = await self.api.find(w.file_id)
                if found is None:
                    await self.ledger.collected(w.wave)
                    continue
                batch.batch_id = found.id
                await self.ledger.created(w.wave, found.id)
            self.batches[w.wave] = batch
            for key in w.keys:
                self.known[key] = batch
        return self.ledger.next_number()

    async def look(self, hand: Hand) -> None:
        """Look at every batch in flight once; collect the finished ones."""
        for batch in list(self.batches.values()):
            if batch.batch_id is None or batch.collected:
                continue  # being created
            batch.state, batch.looked = await self.api.look(batch.batch_id), True
            self.show(batch)
            if batch.state.done:
                await self._collect(batch, hand)

    async def _collect(self, batch: Batch, hand: Hand) -> None:
        state = batch.state
        assert state is not None
        results: dict[str, LineResult] = {}
        for file_id in (state.output_file_id, state.error_file_id):
            if file_id:
                content = await self.api.content(file_id)
                await trio.to_thread.run_sync(read_results, content, results)
        failed = state.status == "failed"
        over_quota = failed and any(_over_quota(p.code, p.message) for p in state.problems)
        named = {p.line: p for p in state.problems if p.line is not None and failed}
        why = _why_unanswered(state)
        batch.collected = True
        del self.batches[batch.wave]
        if self.quota is not None:
            self.quota.set()
        if over_quota and any(not b.collected for b in self.batches.values()):
            self.quota = trio.Event()
        elif over_quota:
            self.max_lines = max(1, len(batch.keys) // 2)
        for position, key in enumerate(batch.keys, start=1):
            result = results.get(key)
            if result is None and position in named:  # validation named this line: refused, alone
                result = LineResult(400, {"error": {"code": named[position].code, "message": named[position].message}})
            hand(batch, key, result or no_answer(why), over_quota and result is None)
        await self.strike(batch)
        self.show(batch, "collected")
        self.report(f"batch {batch.number}", "")  # its line has served

    async def strike(self, batch: Batch) -> None:
        """Once every answer a collected batch brought is stored: strike it from the ledger, and delete its files
        from the endpoint (in the background; one left behind is no harm)."""
        if batch.collected and not batch.open and not batch.struck:
            batch.struck = True
            if self.ledger is not None:
                await self.ledger.collected(batch.wave)
            if self.nursery is not None:
                if not self._deleting:
                    self._deleted = trio.Event()
                self._deleting += 1
                self.nursery.start_soon(self._delete_files, batch)

    async def _delete_files(self, batch: Batch) -> None:
        state = batch.state
        try:
            for file_id in (batch.file_id, state and state.output_file_id, state and state.error_file_id):
                if file_id:
                    with contextlib.suppress(LLMError):
                        await self.api.delete(file_id)
        finally:
            self._deleting -= 1
            if not self._deleting:
                self._deleted.set()

    async def files_deleted(self) -> None:
        """Wait for the files of struck batches to be deleted."""
        await self._deleted.wait()

    def show(self, batch: Batch, note: str = "") -> None:
        s = batch.state
        if s is None:
            return
        line = (f"batch {batch.number} ({s.id}): {s.status}, {s.completed}/{s.total or len(batch.keys)} answered, "
                f"{s.failed} failed" + (f"; {note}" if note else "")
                + (f"; retrying: {self.api.last_trouble}" if self.api.last_trouble else ""))
        key = f"batch {batch.number}"
        # a new status, note or trouble, or another twentieth of the batch answered
        shown = (s.status, note, self.api.last_trouble, 20 * s.completed // max(1, s.total))
        if self._shown.get(key) != shown:
            self._shown[key] = shown
            self.report(key, line)

    def only_waited_for(self) -> bool:
        """Whether someone waits for a batch, and every batch is known not to be done."""
        flying = list(self.batches.values())
        return (any(line.waiters for b in flying for line in b.lines.values())
                and all(b.state is not None and not b.state.done and (b.looked or not b.restored) for b in flying))

    def come_back(self, window_hours: int) -> str:
        """When the batches in flight will be done: what ``--detach`` says."""
        states = [b.state for b in self.batches.values() if b.state is not None]
        total = sum(s.total for s in states) or sum(len(b.keys) for b in self.batches.values())
        due = max((s.expires_at or time.time() + window_hours * 3600) for s in states) if states else time.time()
        return (f"{len(self.batches)} batch(es) in flight, {sum(s.completed for s in states)}/{total} requests "
                f"answered so far; all are due by {time.strftime('%Y-%m-%d %H:%M %Z', time.localtime(due))} at the "
                "latest, usually much sooner: run the same command again to continue")


def _over_quota(code: str, message: str) -> bool:
    return code == "token_limit_exceeded" or "enqueued token" in message.lower()


def _why_unanswered(state: BatchState) -> str:
    if state.status == "failed":
        said = "; ".join(p.message for p in state.problems if p.line is None) or "no reason given"
        return f"batch {state.id} failed validation: {said}"
    if state.status == "gone":
        return f"the endpoint no longer knows batch {state.id}"
    if state.status in ("expired", "cancelled"):
        return f"batch {state.id} {state.status} before answering it"
    return f"batch {state.id} has no line for it in its output or error file"
