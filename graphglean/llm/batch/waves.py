"""`Waves`: batch mode's way of sending. `ChatClient.chat` hands a request here instead of to its retry loop.

Requests that arrive together make a wave: it is cut once none has joined it for ``quiet_s`` (the passes' ready
requests arrive within moments of each other), or when it holds a batch's worth. A pass's share of a wave that
is at most ``online_tail`` requests goes online instead; the rest becomes batches (`wavefile.split`), each
uploaded, recorded in the ledger, created, and looked at every ``poll_s`` until it is done. Its answers go back
to the waiting callers, which read, store and count them as online answers; the next round's requests make the
next wave. A request that gets no good answer (an error line, an expired or failed batch) joins a later wave
within its retry budget; one the endpoint refuses fails alone. A batch whose requests all have their answers
stored is struck from the ledger; a run started again finds the others and waits for them.
"""

from __future__ import annotations

import contextlib
import uuid
from typing import Any, AsyncIterator, Awaitable, Callable

import attrs
import trio

from ...core.config import LLMConfig
from ...core.errors import GraphgleanError, LLMError
from ..records import ChatResult
from ..retry import RetryBudget, RetryPolicy
from .api import BatchEndpoint
from .flight import Batch, Flight
from .ledger import WaveLedger
from .wavefile import LineResult, input_line, judged, split

Keep = Callable[[Any, ChatResult], Awaitable[None]]
_ONLINE = "online"  # a line's outcome when its wave sends it online


class Detached(GraphgleanError):
    """``--detach``: the run stopped where it would only wait for batches; the same command continues it."""

    exit_code = 0


@attrs.define(eq=False)
class _Line:
    """One request (by cache key) and everyone waiting for its answer."""

    key: str
    body: dict[str, Any]
    group: Any  # the pass's account: a wave's requests are counted per pass for online_tail
    accounts: Any
    budget: RetryBudget
    asked: float
    batch: Batch | None = None
    data: bytes = b""
    waiters: int = 0
    answered: bool = False  # the first waiter stored and counted the answer
    done: trio.Event = attrs.field(factory=trio.Event)
    outcome: Any = None
    failures: list[str] = attrs.field(factory=list)


class Waves:
    """``ledger``: where batches are recorded (None: this process only); ``report(key, line)``: progress lines;
    ``detach``: raise `Detached` once the run would only wait for batches."""

    def __init__(self, cfg: LLMConfig, *, ledger: WaveLedger | None = None,
                 report: Callable[[str, str], None] | None = None, detach: bool = False, transport: Any = None) -> None:
        self.cfg, self.settings = cfg, cfg.batch
        self.api = BatchEndpoint(cfg, transport)
        self.ledger, self.detach = ledger, detach
        self.report = report or (lambda key, line: None)
        self.made = {"batches": 0, "lines": 0}
        self.online = 0  # requests a wave sent online (online_tail)
        self._waves = 0
        self._policy = RetryPolicy(max_retries=cfg.max_retries)
        self.flight = Flight(self.api, ledger, self.report, self.settings.max_requests)
        self._lines: dict[str, _Line] = {}  # asked, no outcome yet
        self._pending: dict[str, _Line] = {}  # waiting for the next wave
        self._early: dict[str, tuple[LineResult, Batch]] = {}  # answers in before their request (made earlier)
        self._submitting = 0
        self._last_arrival = self._last_event = 0.0
        self._arrived, self._full = trio.Event(), trio.Event()
        self._number = 1
        self._busy: Callable[[], bool] = lambda: False
        self._nursery: trio.Nursery | None = None

    @contextlib.asynccontextmanager
    async def running(self, busy: Callable[[], bool] = lambda: False) -> AsyncIterator["Waves"]:
        """Cut waves and look at batches while the block runs. ``busy``: online requests are on the wire."""
        self._busy = busy
        self.api.open()
        try:
            async with trio.open_nursery() as nursery:
                self._nursery = self.flight.nursery = nursery
                self._number = await self.flight.restore()
                nursery.start_soon(self._cut_waves)
                nursery.start_soon(self._look_at_batches)
                if self.detach:
                    nursery.start_soon(self._watch_for_detach)
                try:
                    yield self
                    with trio.move_on_after(self.cfg.timeout_s):  # a finished run leaves no files behind
                        await self.flight.files_deleted()
                finally:
                    nursery.cancel_scope.cancel()
        finally:
            await self.api.close_http()

    async def abandon(self) -> None:
        """Cancel the batches still in flight once the run needs nothing more from them: made by an earlier process
        for requests this one never asked (its settings changed since), they would be paid for nothing."""
        for batch in list(self.flight.batches.values()):
            if batch.batch_id is not None and not any(line.waiters for line in batch.lines.values()):
                try:
                    batch.state = await self.api.cancel(batch.batch_id)
                except LLMError as e:  # the run itself is done: a batch that cannot be cancelled is only said
                    key = f"batch {batch.number}"
                    self.report(key, f"{key} ({batch.batch_id}): not cancelled: {e}")
                    continue
                self.flight.show(batch, "cancelled: this run asked none of its requests")

    # -- a caller's request -----------------------------------------------------------------------------

    async def chat(self, key: str, body: dict[str, Any], accounts: Any, keep: Keep | None,
                   group: Any = None) -> ChatResult | None:
        """The answer to ``body`` from a batch, read, stored (``keep``) and counted as online; None when its
        wave sends it online. Raises the refusal, or `LLMError` once its retries are spent."""
        assert self._nursery is not None, "use the client inside 'async with'"
        line, early = self._lines.get(key), None
        if line is None:
            now = trio.current_time()
            line = self._lines[key] = _Line(key, body, group, accounts, RetryBudget(self._policy, now), now)
            if (early := self._early.pop(key, None)) is not None:
                line.batch = early[1]
                self._judge(line, early[0])
            elif (batch := self.flight.known.pop(key, None)) is not None and not batch.collected:
                line.batch, batch.lines[key] = batch, line
            else:
                self._queue(line)
        line.waiters += 1
        try:
            if early is not None:  # the answer an earlier process's batch kept may have been its last one open
                await self.flight.strike(early[1])
            await line.done.wait()
        finally:
            line.waiters -= 1
        return await self._answer(line, accounts, keep)

    async def _answer(self, line: _Line, accounts: Any, keep: Keep | None) -> ChatResult | None:
        if line.outcome is _ONLINE:
            return None
        if isinstance(line.outcome, BaseException):
            raise line.outcome
        parsed, written = line.outcome
        if line.answered:  # asked twice at once, paid once
            accounts.bump(cache_hits=1)
        else:
            line.answered = True
            with trio.CancelScope(shield=True):  # a paid answer is stored even when the run is being stopped
                if keep is not None:
                    await keep(written, parsed)
                await self._stored(line)
            count_batch_answer(accounts, parsed.usage)
        return batch_result(parsed, line.asked, len(line.failures) + 1)

    def _queue(self, line: _Line) -> None:
        self._pending[line.key] = line
        self._last_arrival = self._last_event = trio.current_time()
        if len(self._pending) == 1:
            self._arrived.set()
        if len(self._pending) >= self.flight.max_lines:
            self._full.set()

    def _settle(self, line: _Line, outcome: Any) -> None:
        line.outcome = outcome
        line.done.set()
        if self._lines.get(line.key) is line:
            del self._lines[line.key]
        self._last_event = trio.current_time()

    def _judge(self, line: _Line, result: LineResult) -> None:
        """Hand a batch's answer to its line: settled when good or refused, into a later wave when it may pass."""
        batch = line.batch
        assert batch is not None
        try:
            verdict = judged(result, line.body, str(line.body.get("model", "")), self.api.line_url)
        except LLMError as e:  # refused: this request fails alone, as online
            line.accounts.bump(failures=1)
            self._settle(line, e)
            batch.open.discard(line.key)
            return
        if isinstance(verdict, str):
            batch.open.discard(line.key)
            self._retry(line, verdict)
        else:
            self._settle(line, verdict)

    def _retry(self, line: _Line, reason: str, spend: bool = True) -> None:
        line.failures.append(reason)
        line.batch = None
        if spend:
            line.budget.spend(False)
        if line.budget.faults > self._policy.max_retries:
            line.accounts.bump(failures=1)
            where = self.api.route("batches").split("?", 1)[0]
            self._settle(line, LLMError(f"{where}: gave up after {len(line.failures)} batches; last: {reason}"))
            return
        line.accounts.bump(retries=1)
        self._queue(line)  # no backoff: the next wave is its own (and a batch's failures go on together)

    async def _stored(self, line: _Line) -> None:
        if line.batch is not None:
            line.batch.open.discard(line.key)
            await self.flight.strike(line.batch)

    def _hand(self, batch: Batch, key: str, result: LineResult, over_quota: bool) -> None:
        """A collected batch's answer to ``key``: to the line waiting for it, or kept until it is asked."""
        line = batch.lines.get(key)
        if line is None or line.batch is not batch or not line.waiters:  # nobody asks it (yet, or any more)
            self._early[key] = (result, batch)
            if line is not None and self._lines.get(key) is line:
                del self._lines[key]
        elif over_quota:  # not the request's fault: asked again at no cost, unless it was over the quota alone
            batch.open.discard(key)
            self._retry(line, str((result.error or {}).get("message")), spend=len(batch.keys) == 1)
        else:
            self._judge(line, result)

    # -- waves ----------------------------------------------------------------------------------------

    async def _cut_waves(self) -> None:
        while True:
            await self._arrived.wait()
            while len(self._pending) < self.flight.max_lines:
                left = self._last_arrival + self.settings.quiet_s - trio.current_time()
                if left <= 0:
                    break
                with trio.move_on_after(left):
                    await self._full.wait()
            while (quota := self.flight.quota) is not None:  # a wave was over the endpoint's quota: wait for a
                await quota.wait()  # batch to end (and for the next, if that one's wave was over it too)
                if self.flight.quota is quota:
                    self.flight.quota = None
            lines = list(self._pending.values())[:self.flight.max_lines]
            for line in lines:
                del self._pending[line.key]
            self._arrived, self._full = trio.Event(), trio.Event()
            if self._pending:
                self._arrived.set()
            for line in lines:
                if not line.waiters and self._lines.get(line.key) is line:  # nobody asks any more (cancelled)
                    del self._lines[line.key]
            await self._cut([line for line in lines if line.waiters])

    async def _cut(self, lines: list[_Line]) -> None:
        groups: dict[int, list[_Line]] = {}
        for line in lines:
            groups.setdefault(id(line.group), []).append(line)
        batched = []
        self._waves += 1
        for group in groups.values():
            if len(group) <= self.settings.online_tail:
                for line in group:
                    self._settle(line, _ONLINE)
            else:
                batched.extend(group)
        if len(batched) < len(lines):
            self._say_online(len(lines) - len(batched), len(lines))
        batched.sort(key=lambda line: line.key)  # a wave's files: its requests' own, not the order they arrived in
        url, body = self.api.line_url, self.api.line_body

        def encode() -> None:  # a wave of 50,000 requests is seconds of encoding: not in the event loop
            for line in batched:
                line.data = input_line(line.key, url, body(line.body))

        await trio.to_thread.run_sync(encode)
        assert self._nursery is not None
        for part in split(batched, lambda line: len(line.data), self.flight.max_lines,
                          int(self.settings.max_file_mb * 1_000_000)):
            self._submitting += 1
            self._nursery.start_soon(self._submit, part)

    def _say_online(self, sent: int, total: int) -> None:
        self.online += sent
        what = f"its {sent} request(s)" if sent == total else f"{sent} of its {total} requests"
        line = (f"batch mode: wave {self._waves}: {what} went online, at the online price: a pass with at most "
                f"llm.batch.online_tail ({self.settings.online_tail}) requests in a wave does not wait for a batch "
                "(0: never online)")
        if self.detach and sent == total:
            line += "; --detach: nothing to submit, so the run goes on online"
        self.report("online", line)

    def nothing_submitted(self) -> str:
        """What to say of a ``detach`` run that ended without submitting a batch (never detaching), or ""."""
        if self.made["batches"]:
            return ""
        why = (f"its {self.online} request(s) went online, each wave's share of a pass being at most "
               f"llm.batch.online_tail ({self.settings.online_tail}); set it lower (0: never online) to submit them"
               if self.online else "every answer it needed was stored already (response cache, run store)")
        return f"--detach: the run went to the end without submitting a batch: {why}"

    async def _submit(self, lines: list[_Line]) -> None:
        try:
            await self._make_batch(lines)
        finally:
            self._submitting -= 1

    async def _make_batch(self, lines: list[_Line]) -> None:
        wave, number = uuid.uuid4().hex, self._number
        self._number += 1
        keys = [line.key for line in lines]
        batch = Batch(wave, number, "", tuple(keys), {line.key: line for line in lines}, set(keys))
        try:
            parts = [line.data for line in lines]
            for line in lines:
                line.data = b""
            batch.file_id = await self.api.upload(f"graphglean-wave-{number}.jsonl", parts)
            if self.ledger is not None:
                await self.ledger.uploaded(wave, number, batch.file_id, keys)
            self.flight.batches[wave] = batch
            for line in lines:
                line.batch = batch
                line.accounts.bump(requests=1)
            state = await self.api.create(batch.file_id, {"graphglean_wave": wave})
        except LLMError as e:  # the wave could not be made: nothing was asked of the endpoint
            self.flight.batches.pop(wave, None)
            if self.ledger is not None and batch.file_id:
                await self.ledger.collected(wave)
            for line in lines:
                line.accounts.bump(failures=1)
                self._settle(line, e)
            return
        batch.batch_id, batch.state = state.id, state
        self.made["batches"] += 1
        self.made["lines"] += len(lines)
        if self.ledger is not None:
            await self.ledger.created(wave, state.id)
        self.flight.show(batch)

    async def _look_at_batches(self) -> None:
        while True:
            await self.flight.look(self._hand)
            await trio.sleep(self.settings.poll_s)

    # -- --detach -------------------------------------------------------------------------------------

    async def _watch_for_detach(self) -> None:
        while True:
            await trio.sleep(self.settings.quiet_s / 4)
            if self._only_waiting():
                raise Detached(self.flight.come_back(int(self.settings.completion_window.rstrip("h"))))

    def _only_waiting(self) -> bool:
        """Whether every request under way waits for a batch that is not done, and nothing else moved lately."""
        held = self.flight.quota is not None  # the next wave waits for a batch to end (the endpoint's quota)
        return ((held or not self._pending) and not self._submitting and self.flight.only_waited_for()
                and trio.current_time() - self._last_event >= self.settings.quiet_s and not self._busy())


def count_batch_answer(accounts: Any, usage: Any, **counts: int) -> None:
    """An answer read from a batch, counted in ``accounts`` as a call and a batch call, with its tokens."""
    accounts.bump(**counts, calls=1, batch_calls=1, prompt_tokens=usage.prompt_tokens,
                  batch_prompt_tokens=usage.prompt_tokens, completion_tokens=usage.completion_tokens,
                  batch_completion_tokens=usage.completion_tokens)


def batch_result(parsed: Any, asked: float, attempts: int) -> ChatResult:
    """The `ChatResult` of an answer read from a batch (``asked``: when it was asked, on trio's clock)."""
    return ChatResult(parsed.text, parsed.finish_reason, parsed.usage, trio.current_time() - asked, parsed.raw, False,
                      attempts, parsed.refusal)
