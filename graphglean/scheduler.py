"""The one scheduler of a run: every pass submits its work here, so a run shares one client (rate limit,
cache, retries), one progress display and one cost account. It knows nothing of graphs or passes' data.

``await scheduler.map(fn, items, pass_name="graph")`` runs ``fn(item)`` for every item concurrently and returns
an `Outcome` per item, in input order. A multi-step ``fn`` (extract, then glean; gists, then facts) is how
items carry dependent steps: step 2 of item i starts when its step 1 is done, whatever the other items do.
"""

from __future__ import annotations

from typing import Any, Awaitable, Callable, Generic, Iterable, Protocol, TypeVar

import attrs
import trio

from .errors import FATAL
from .llm.accounting import CallAccount
from .llm.client import ChatClient
from .llm.records import ChatRequest, ChatResult, EmbeddingResult

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


class NoProgress:
    def start(self, pass_name: str, total: int) -> None:
        pass

    def advance(self, pass_name: str, account: CallAccount, failed: bool) -> None:
        pass

    def finish(self, pass_name: str) -> None:
        pass


class PassLLM:
    """What a pass holds to call the LLM: the scheduler's client, counted against the pass's account."""

    def __init__(self, client: ChatClient, account: CallAccount, pass_name: str) -> None:
        self.client = client
        self.account = account
        self.pass_name = pass_name

    @property
    def model(self) -> str:
        return self.client.cfg.model

    def request(self, messages: list[dict[str, str]], **params: Any) -> ChatRequest:
        return self.client.request(messages, **params)

    async def chat(self, req: ChatRequest) -> ChatResult:
        return await self.client.chat(req, self.account)

    async def embed(self, texts: list[str], model: str | None = None) -> EmbeddingResult:
        return await self.client.embed(texts, model, self.account)


class Scheduler:
    """Runs items of all passes on one client. Not reentrant across trio runs."""

    def __init__(self, client: ChatClient, *, fail_fast: bool = False, progress: Progress | None = None,
                 max_active_items: int | None = None) -> None:
        self.client = client
        self.fail_fast = fail_fast
        self.progress = progress or NoProgress()
        self.accounts: dict[str, CallAccount] = {}
        self.errors: dict[str, list[Outcome[Any, Any]]] = {}
        # Items past this many are not started yet: memory stays flat for a million items, and the earliest
        # items finish (and are stored) first instead of every item being half done. A quarter more items
        # than request slots keeps every slot busy while some items are between steps.
        c = client.cfg.max_concurrency
        self.max_active_items = max_active_items or c + max(8, c // 4)

    def account(self, pass_name: str) -> CallAccount:
        return self.accounts.setdefault(pass_name, CallAccount())

    def llm(self, pass_name: str) -> PassLLM:
        return PassLLM(self.client, self.account(pass_name), pass_name)

    async def map(self, fn: Callable[[T], Awaitable[R]], items: Iterable[T], *, pass_name: str,
                  on_result: Callable[[Outcome[T, R]], Awaitable[None] | None] | None = None,
                  on_error: Callable[[Outcome[T, R]], None] | None = None) -> list[Outcome[T, R]]:
        """Run ``fn`` over ``items``; per-item errors are kept in their `Outcome` (and reported to
        ``on_error``), never lost, and do not stop the others unless ``fail_fast`` is set or the error
        is fatal for every item (a refused key, an unknown model, a parameter the endpoint does not take, an
        unreachable endpoint): a refusal of one item's request (too long, filtered) fails that item only."""
        items = list(items)
        outcomes: list[Outcome[T, R]] = [Outcome(i, item) for i, item in enumerate(items)]
        account = self.account(pass_name)
        self.progress.start(pass_name, len(items))
        slots = trio.Semaphore(self.max_active_items)
        fatal: list[BaseException] = []

        async def run_one(outcome: Outcome[T, R]) -> None:
            try:
                outcome.value = await fn(outcome.item)
            except Exception as e:  # even a bug in a pass must not lose the other items' work
                outcome.error = e
            finally:
                slots.release()
            if outcome.error is not None:
                self.errors.setdefault(pass_name, []).append(outcome)
                if on_error is not None:
                    on_error(outcome)
                if isinstance(outcome.error, FATAL) or self.fail_fast:
                    fatal.append(outcome.error)
                    nursery.cancel_scope.cancel()
            if on_result is not None:
                maybe = on_result(outcome)
                if maybe is not None:
                    with trio.CancelScope(shield=True):  # a finished result is always stored
                        await maybe
            self.progress.advance(pass_name, account, outcome.error is not None)

        try:
            async with trio.open_nursery() as nursery:
                for outcome in outcomes:
                    await slots.acquire()
                    nursery.start_soon(run_one, outcome)
        finally:
            self.progress.finish(pass_name)
        if fatal:
            raise fatal[0]
        return outcomes

