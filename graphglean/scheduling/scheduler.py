"""The one scheduler of a run: every pass submits its work here, so a run shares one client (rate limit,
cache, retries), one progress display and one cost account. It knows nothing of graphs or passes' data.

``await scheduler.map(fn, items, pass_name="graph")`` runs ``fn(item)`` for every item concurrently and returns
an `Outcome` per item, in input order. A multi-step ``fn`` (extract, then glean; gists, then facts) is how
items carry dependent steps: step 2 of item i starts when its step 1 is done, whatever the other items do.

Calls are list-scheduled by critical path: items start heaviest first, and a free request slot goes to the
call whose item has the most work left (`ItemWork`, estimated from what the pass's calls so far took), so
long chains do not start last and set the finish time.
"""

from __future__ import annotations

import contextvars
from typing import Any, Awaitable, Callable, Generic, Hashable, Iterable, Protocol, TypeVar

import attrs
import trio

from ..core.answers import NoAnswer, prose, prose_answer
from ..core.errors import FATAL
from ..llm.accounting import CallAccount
from ..llm.client import ChatClient
from ..llm.records import ChatRequest, ChatResult, EmbeddingResult
from .priority import ItemWork, PassWork, PriorityGate

T = TypeVar("T")
R = TypeVar("R")


@attrs.define
class Outcome(Generic[T, R]):
    index: int
    item: T
    value: R | None = None
    error: BaseException | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


class Progress(Protocol):
    def start(self, pass_name: str, total: int) -> None: ...
    def advance(self, pass_name: str, account: CallAccount, failed: bool) -> None: ...
    def finish(self, pass_name: str) -> None: ...


TICK_S = 1.0  # how often a pass's answers in progress are shown, while some stream


class NoProgress:
    def start(self, pass_name: str, total: int) -> None:
        pass

    def advance(self, pass_name: str, account: CallAccount, failed: bool) -> None:
        pass

    def finish(self, pass_name: str) -> None:
        pass


class PassLLM:
    """What a pass holds to call the LLM: the scheduler's client, counted against the pass's account."""

    def __init__(self, client: ChatClient, account: CallAccount, pass_name: str,
                 gate: PriorityGate | None = None, work: PassWork | None = None) -> None:
        self.client = client
        self.account = account
        self.pass_name = pass_name
        self.gate = gate or PriorityGate(lambda: client.concurrency.current)
        self.work = work  # the pass's items: a call made for an item of another pass is outside any item

    @property
    def model(self) -> str:
        return self.client.cfg.model

    def request(self, messages: list[dict[str, str]], **params: Any) -> ChatRequest:
        return self.client.request(messages, **params)

    async def chat(self, req: ChatRequest) -> ChatResult:
        result = await self.client.chat(req, self.account, slot=self._slot)
        work = self._item()
        if result.cached and work is not None:
            work.called(0.0)  # a step all the same: the item's later calls keep their place in its chain
        return result

    async def prose(self, messages: list[dict[str, str]], **params: Any) -> ChatResult:
        """The answer to ``messages`` in free text (a summary, an intent, a query's answer), with its text as
        every pass keeps it (`answers.prose`: reasoning blocks dropped, closed or not); `NoAnswer` when none is
        left (reasoning alone, a refusal), never kept by the client (``valid``), so a later run asks again."""
        result = await self.chat(self.request(messages, valid=prose_answer, **params))
        try:
            text = prose(result.text)
        except NoAnswer as e:
            cut = f", cut at {result.usage.completion_tokens} tokens (the completion cap)" if result.truncated else ""
            raise NoAnswer(f"{e}{cut}") from None
        return attrs.evolve(result, text=text)

    async def chat_at_turn(self, build: Callable[[], ChatRequest]) -> ChatResult:
        """`chat` of the request ``build()`` makes once this call's turn has come: it carries the settings of
        that moment (a completion cap raised while the call waited), not those of when it started waiting."""
        async with self._slot():
            return await self.client.chat(build(), self.account)

    async def embed(self, texts: list[str], model: str | None = None) -> EmbeddingResult:
        async with self._slot():
            return await self.client.embed(texts, model, self.account)

    def _item(self) -> ItemWork | None:
        """The item of this pass the call is made for, if any: a description summary started when a chunk
        finished is no step of that chunk's chain, and waits behind every item's calls."""
        work = _CURRENT_ITEM.get()
        return work if work is not None and work.pass_work is self.work else None

    def _slot(self) -> "_Slot":
        """A request slot once one is free: the item with the most work left gets one first."""
        return _Slot(self.gate, self._item())


class _Slot:
    """`PassLLM._slot`: the gate's place around one call, and the call's time counted in its item's work once
    it ended well (a class, not a generator: entered for every call)."""

    __slots__ = ("gate", "work", "started")

    def __init__(self, gate: PriorityGate, work: ItemWork | None) -> None:
        self.gate, self.work, self.started = gate, work, 0.0

    async def __aenter__(self) -> None:
        work = self.work
        await (self.gate.acquire(work.remaining, work.key) if work is not None else self.gate.acquire(_OUTSIDE.get()))
        self.started = trio.current_time()

    async def __aexit__(self, exc_type: Any, *exc: Any) -> None:
        self.gate.release()
        if exc_type is None and self.work is not None:
            self.work.called(trio.current_time() - self.started)


def _LAST() -> float:  # a call outside any item: after every item's calls
    return 0.0


def rounds_ahead(rounds: int) -> None:
    """The calls this task makes outside any item have ``rounds`` rounds of calls waiting on them (a summary
    group whose answer a further round reads): they still go after every item's calls, but before calls
    outside items with fewer rounds behind them, so the deepest summaries of the build's tail start first."""
    rank = -1.0 / (2 + max(rounds, 0))
    _OUTSIDE.set(lambda: rank)


_OUTSIDE: contextvars.ContextVar[Callable[[], float]] = contextvars.ContextVar("graphglean_outside", default=_LAST)
_CURRENT_ITEM: contextvars.ContextVar[ItemWork | None] = contextvars.ContextVar("graphglean_item", default=None)


class Scheduler:
    """Runs items of all passes on one client. Not reentrant across trio runs."""

    def __init__(self, client: ChatClient, *, fail_fast: bool = False, progress: Progress | None = None,
                 max_active_items: int | None = None) -> None:
        self.client = client
        self.fail_fast = fail_fast
        self.progress = progress or NoProgress()
        self.accounts: dict[str, CallAccount] = {}
        self.errors: dict[str, list[Outcome[Any, Any]]] = {}
        # Items past this many are not started yet: memory stays flat for a million items, and items finish
        # (and are stored) as they go instead of every item being half done. Four items per request slot
        # give the priority gate a choice: a chain that turns out long gets slots ahead of fresh items.
        c = client.cfg.max_concurrency
        self.max_active_items = max_active_items or 4 * c
        self.work: dict[str, PassWork] = {}
        # one gate for every pass: their calls share the client's request slots, as many as the client sends
        # at once now (fewer for a while after a 429)
        batch = getattr(client, "waves", None) is not None
        if batch:  # batch mode: calls wait in waves, not on the wire: a batch's worth of items are under way,
            # and all their ready calls join the wave
            self.max_active_items = max_active_items or client.cfg.batch.max_requests
        self.gate = PriorityGate(client.cfg.batch.max_requests if batch else lambda: client.concurrency.current,
                                 epoch=lambda: sum(w.version for w in self.work.values()), moved=self._moved)
        client.concurrency.listeners.append(self.gate.refill)  # the server's slots learned: more may go at once

    def _moved(self) -> set[Hashable]:
        """The keys of the items whose work left was revised since the gate last asked (see `PassWork`)."""
        moved: set[Hashable] = set()
        for work in self.work.values():
            if work.moved:
                moved |= work.moved
                work.moved = set()
        return moved

    def account(self, pass_name: str) -> CallAccount:
        return self.accounts.setdefault(pass_name, CallAccount())

    async def _show_streams(self, pass_name: str) -> None:
        """Tell the progress, every `TICK_S`, of the pass's answers streaming now: slow work shows it moves."""
        while True:
            await trio.sleep(TICK_S)
            parts = [a for name, a in self.accounts.items() if name == pass_name or name.startswith(pass_name + ".")]
            answers, tokens, rate = self.client.streaming(parts)
            self.progress.streaming(pass_name, answers, tokens, rate)  # type: ignore[attr-defined]

    def pass_total(self, pass_name: str) -> CallAccount:
        """The counts of a pass and of its parts (``summary`` and ``summary.chunks``), as the report's table sums
        them: what its progress line shows. A pass without parts: its own account (not a copy: this is asked
        once an item, and summing made a new account every time)."""
        parts = [a for name, a in self.accounts.items() if name == pass_name or name.startswith(pass_name + ".")]
        if len(parts) == 1:
            return parts[0]
        total = CallAccount()
        for account in parts:
            for field in _COUNTS:
                setattr(total, field, getattr(total, field) + getattr(account, field))
        return total

    def llm(self, pass_name: str) -> PassLLM:
        return PassLLM(self.client, self.account(pass_name), pass_name, self.gate,
                       self.work.setdefault(pass_name, PassWork()))

    async def map(self, fn: Callable[[T], Awaitable[R]], items: Iterable[T], *, pass_name: str,
                  on_result: Callable[[Outcome[T, R]], Awaitable[None] | None] | None = None,
                  on_error: Callable[[Outcome[T, R]], None] | None = None,
                  weight: Callable[[T], float] | None = None,
                  group: Callable[[T], Hashable] | None = None) -> list[Outcome[T, R]]:
        """Run ``fn`` over ``items``; per-item errors are kept in their `Outcome` (and reported to
        ``on_error``), never lost, and do not stop the others unless ``fail_fast`` is set or the error
        is fatal for every item (a refused key, an unknown model, a parameter the endpoint does not take, an
        unreachable endpoint): a refusal of one item's request (too long, filtered) fails that item only.

        ``weight`` is an item's expected size (its prompt tokens, say): heavier items start first (equal
        ones in input order, though those started in one scheduler pass run in trio's order), and an item's
        work is estimated in proportion until its own calls show its pace. ``group`` (a chunk's document, say)
        corrects that estimate by how its group's finished items compared with their weights. Outcomes are in
        input order whatever the order of work."""
        items = list(items)
        outcomes: list[Outcome[T, R]] = [Outcome(i, item) for i, item in enumerate(items)]
        self.account(pass_name)
        pass_work = self.work.setdefault(pass_name, PassWork())
        weights = [float(weight(item)) if weight is not None else 1.0 for item in items]
        pass_work.expect(weights)
        order = sorted(range(len(items)), key=lambda i: -weights[i])
        self.progress.start(pass_name, len(items))
        slots = trio.Semaphore(self.max_active_items)
        fatal: list[BaseException] = []

        async def run_one(outcome: Outcome[T, R]) -> None:
            work = pass_work.item(weights[outcome.index], group(outcome.item) if group is not None else None)
            _CURRENT_ITEM.set(work)  # this task's context: the item's calls find their work through it
            try:
                outcome.value = await fn(outcome.item)
            except Exception as e:  # even a bug in a pass must not lose the other items' work
                outcome.error = e
            finally:
                slots.release()
                pass_work.finished(work)
            if outcome.error is not None:
                self.errors.setdefault(pass_name, []).append(outcome)
                if on_error is not None:
                    on_error(outcome)
                if isinstance(outcome.error, FATAL) or self.fail_fast:
                    fatal.append(outcome.error)
                    nursery.cancel_scope.cancel()
                    if isinstance(outcome.error, FATAL):
                        return  # the run stops with that one line: no progress line saying an item failed
            if on_result is not None:
                maybe = on_result(outcome)
                if maybe is not None:
                    with trio.CancelScope(shield=True):  # a finished result is always stored
                        await maybe
            self.progress.advance(pass_name, self.pass_total(pass_name), outcome.error is not None)

        try:
            async with trio.open_nursery() as ticking:
                if hasattr(self.progress, "streaming"):
                    ticking.start_soon(self._show_streams, pass_name)
                async with trio.open_nursery() as nursery:
                    previous = None
                    for i in order:
                        # Places freed together are refilled in one scheduler pass, so the items' calls go (and
                        # are stored) together; but a lighter item waits a pass, so that a heavier one's first
                        # call reaches the gate first.
                        if weights[i] != previous or not _took(slots):
                            await slots.acquire()
                        previous = weights[i]
                        nursery.start_soon(run_one, outcomes[i])
                ticking.cancel_scope.cancel()
        finally:
            self.progress.finish(pass_name)
        if fatal:
            raise fatal[0]
        return outcomes


_COUNTS = tuple(f.name for f in attrs.fields(CallAccount) if f.name != "latencies")


def _took(slots: trio.Semaphore) -> bool:
    """Whether a free place was taken, without yielding."""
    try:
        slots.acquire_nowait()
    except trio.WouldBlock:
        return False
    return True
