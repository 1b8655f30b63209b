"""`ChatClient`: chat completions and embeddings of any OpenAI-compatible endpoint (and Azure OpenAI) under trio,
with rate limits, retries, the response cache and the accounts; one attempt on the wire is `Endpoint`'s."""

from __future__ import annotations

import contextlib
import hashlib
import json
from typing import Any, AsyncContextManager, Awaitable, Callable, TypeVar

import attrs
import httpx
import trio

from ..core.config import LLMConfig, OutputConfig
from ..core.errors import LLMCapabilityError, LLMRequestError, LLMUnreachableError
from .accounting import Accounts as _Accounts, CallAccount
from .batch.waves import Waves
from .cache import ResponseCache
from .contact import FIRST_CONTACT_WAIT_S
from .endpoint import Endpoint, Failure
from .http.watch import AttemptWatch
from .limits import RateLimiter
from .records import (ChatRequest, ChatResult, EmbeddingResult, Usage, canonical_json, parse_chat_body,
                      parse_embeddings_body, replayable, timed as _timed)
from .server.in_flight import AdaptiveConcurrency
from .server.profile import ServerProfile
from .streaming import refused_streaming, streamed_body
from .retry import RetryBudget, RetryPolicy

T = TypeVar("T")
DEFAULT_COMPLETION_ESTIMATE = 512


class ChatClient(Endpoint):
    """Use as ``async with ChatClient(cfg) as client: await client.chat(request)``."""

    def __init__(self, cfg: LLMConfig, *, cache: ResponseCache | None = None, limiter: RateLimiter | None = None,
                 retry: RetryPolicy | None = None, count_tokens: Callable[[str], int] | None = None,
                 transport: httpx.AsyncBaseTransport | None = None, journal: ResponseCache | None = None,
                 waves: Waves | None = None, contacted: bool = False) -> None:
        super().__init__(cfg, transport)
        self.reached = contacted  # the run found the endpoint before this client (`Endpoint.first_contact`)
        # batch mode (llm.batch): chat requests wait in waves sent through the Batch API, not in `_send`
        self.waves = waves if waves is not None else Waves(cfg) if cfg.batch.enabled else None
        self._tasks = contextlib.AsyncExitStack()
        self.cache = cache
        # The run's journal of paid answers (owned by the run store): it keeps them where the cache does not
        # both keep and replay them, so a resumed run replays the finished steps of half-done items.
        self.journal = None if cache is not None and cache.reads and cache.writes else journal
        self.limiter = limiter or RateLimiter(cfg.requests_per_minute, cfg.tokens_per_minute)
        self.retry = retry or RetryPolicy(max_retries=cfg.max_retries, deadline_s=cfg.retry_deadline_s or None)
        self.concurrency = AdaptiveConcurrency(cfg.max_concurrency)
        self.concurrency.on_rate_limit = self._rate_limit_found
        if isinstance(self.limiter, RateLimiter):  # (Ray's leased one says nothing of waits)
            self.limiter.tell = self.say
        self.server = ServerProfile(cfg, self.concurrency)
        self.account = CallAccount()  # everything this client did, whichever pass asked
        self._count_tokens = self.count_tokens = count_tokens or (lambda text: len(text) // 4 + 1)

    @classmethod
    def from_config(cls, cfg: LLMConfig, output_dir: str = OutputConfig().dir, **kw: Any) -> "ChatClient":
        """A client with the response cache ``cfg.cache`` names: its path (a run sets it:
        `pipeline.plan.state_beside_output`), or ``cache.sqlite`` in ``output_dir`` (a library call gives its
        configuration's ``output.dir``)."""
        cache = ResponseCache(cfg.cache.file(output_dir), cfg.cache.mode) if cfg.cache.mode != "off" else None
        return cls(cfg, cache=cache, **kw)

    async def __aenter__(self) -> "ChatClient":
        self.open()
        if self.waves is not None:  # its tasks (cutting waves, looking at batches) live as long as the client
            on_the_wire = self.concurrency.limiter
            await self._tasks.enter_async_context(self.waves.running(lambda: on_the_wire.borrowed_tokens > 0))
        return self

    async def __aexit__(self, *exc: Any) -> bool:
        try:
            return await self._tasks.__aexit__(*exc)
        finally:
            await self.aclose()

    async def aclose(self) -> None:
        await self.close_http()
        if self.cache is not None:
            self.cache.close()

    # -- public calls ---------------------------------------------------------------------------------

    def request(self, messages: list[dict[str, str]], **params: Any) -> ChatRequest:
        """A `ChatRequest` with the configured model, temperature, seed and extra body filled in; without the
        parameters the server refused earlier in the run (``logit_bias``, ``response_format``)."""
        params.setdefault("model", self.cfg.model)
        params.setdefault("temperature", self.cfg.temperature)
        params.setdefault("seed", self.cfg.seed)
        if "logit_bias" in self.server.refused:
            params.pop("logit_bias", None)
        if not self.server.takes_format(params.get("response_format")):
            params.pop("response_format", None)
        extra = {**self.cfg.extra_body, **params.pop("extra", {})}
        return ChatRequest(messages=tuple(messages), extra=extra, **params)

    async def chat(self, req: ChatRequest, account: CallAccount | None = None,
                   slot: Callable[[], AsyncContextManager[Any]] | None = None) -> ChatResult:
        """Send one chat completion (or answer it from the cache). Raises `LLMError` when it fails for good.
        ``slot``, when given, is entered around the request (not a cache hit): the scheduler's turn-taking."""
        accounts = _Accounts(self.account, account)
        stored = self._readers() or self._writers()
        # the body as sent to our pool (or a direct transport) and as hashed for the cache: encoded once
        body = req.body()
        content = canonical_json(body).encode("utf-8", "surrogatepass") if stored or self._direct is not None else None
        key = self.key_of(req, content) if stored else ""
        hit = await self._stored(key) if stored else None
        if hit is not None:
            accounts.bump(cache_hits=1)
            return _timed(parse_chat_body(hit), 0.0, 1, cached=True)
        estimate = self._estimate(req) if self.limiter.limits_tokens else 0

        async def keep(written: Any, parsed: ChatResult) -> None:
            if stored and replayable(req, parsed):
                await self._store([(key, written)], "chat")

        if self.waves is not None:  # batch mode: answered from a batch, unless its wave sends it online
            key = key or self.key_of(req, content)
            content = None  # not held while it waits (50,000 wait at once); sent online, it is encoded again
            answered = await self.waves.chat(key, body, accounts, keep if stored else None, account)
            if answered is not None:
                return answered
        send = (req, body, estimate, accounts, keep if stored else None, content)
        if slot is None:
            parsed, latency, attempts = await self._send_chat(*send)
        else:
            async with slot():
                parsed, latency, attempts = await self._send_chat(*send)
        result = _timed(parsed, latency, attempts)
        accounts.add("prompt_tokens", result.usage.prompt_tokens)
        accounts.add("completion_tokens", result.usage.completion_tokens)
        accounts.add("cached_tokens", result.usage.cached_tokens)
        self.limiter.settle(estimate, result.usage.total or estimate)
        return result

    def key_of(self, req: ChatRequest, content: bytes | None = None) -> str:
        """The key ``req``'s answer is stored under (``content``: its body's bytes, made already)."""
        return req.cache_key(self.key_url("chat/completions", req.model), content)

    def embedding_keys(self, texts: list[str], model: str) -> list[str]:
        """The keys the vectors of ``texts`` by ``model`` are stored under (of the model's own size, unless
        ``llm.embedding_dimensions`` asks another)."""
        dims = self.cfg.embedding_dimensions
        asked = [self.key_url("embeddings", model), model, *([dims] if dims else [])]
        return [hashlib.sha256(json.dumps([*asked, t], ensure_ascii=False).encode("utf-8", "surrogatepass"))
                .hexdigest() for t in texts]

    async def _send_chat(self, req: ChatRequest, body: dict[str, Any], estimate: int, accounts: "_Accounts",
                         keep: Callable[[Any, ChatResult], Awaitable[None]] | None, content: bytes | None
                         ) -> tuple[ChatResult, float, int]:
        """`_send` of a chat request, streamed where the server takes it; a server that refuses streaming (or
        ``stream_options``) is asked again without, and is not asked with it again this run. The cache key is
        the unstreamed body's: a streamed answer is stored as the whole answer it reads back to."""
        server = self.server
        await server.ask_once(self.probe)  # (its first probe waits for the first contact; `_send` raises its error)
        while True:
            streamed = server.streams(req.max_tokens, req.extra, self.streams)
            payload, wire = streamed_body(body, content, "stream_options" not in server.refused) if streamed \
                else (body, content)
            try:
                answer = await self._send("chat/completions", payload, req.model, estimate, accounts, parse_chat_body,
                                          keep, wire, streamed)
            except LLMRequestError as e:
                refused = refused_streaming(e) if streamed else None
                if refused is None:
                    for param in e.params:  # the passes ask again without it; later requests are built without
                        server.refuse(param, str(e))
                    if "response_format" in e.params and isinstance(req.response_format, dict):
                        server.refused_formats.add(str(req.response_format.get("type")))
                    raise
                server.refuse(refused, str(e))
                continue
            if streamed:
                server.streamed += 1
            else:
                server.unstreamed += 1
            return answer

    async def embed(self, texts: list[str], model: str | None = None,
                    account: CallAccount | None = None) -> EmbeddingResult:
        """Embed ``texts`` in one request; vectors already in the cache are not asked for again. A server that
        said it serves no embeddings is not asked again this run: its error is raised at once."""
        if "embeddings" in self.server.errors:
            raise self.server.errors["embeddings"]
        model = model or self.cfg.embedding_model
        accounts = _Accounts(self.account, account)
        dims = self.cfg.embedding_dimensions
        keys = self.embedding_keys(texts, model)
        vectors: list[list[float] | None] = [None] * len(texts)
        for store in self._readers():
            found = await store.get_many(keys)
            vectors = [v if v is not None else f for v, f in zip(vectors, found)]
        missing = [i for i, v in enumerate(vectors) if v is None]
        accounts.bump(cache_hits=len(texts) - len(missing))
        usage = Usage()
        if missing:
            payload = {"model": model, "input": [texts[i] for i in missing], **self.cfg.extra_body}
            if dims:
                payload["dimensions"] = dims
            estimate = sum(self._count_tokens(texts[i]) for i in missing) if self.limiter.limits_tokens else 0

            async def keep(body: Any, parsed: tuple[list[list[float]], Usage]) -> None:
                await self._store([(keys[i], v) for i, v in zip(missing, parsed[0])], "embedding")

            try:
                (fresh, usage), _, _ = await self._send("embeddings", payload, model, estimate, accounts,
                                                        parse_embeddings_body, keep)
            except LLMCapabilityError as e:
                self.server.refuse("embeddings", str(e), e)
                raise
            accounts.bump(prompt_tokens=usage.prompt_tokens)
            for i, vector in zip(missing, fresh):
                vectors[i] = vector
        return EmbeddingResult([v for v in vectors if v is not None], usage, cached=not missing)

    def on_held(self, tell: Callable[[str], None]) -> None:
        """``tell`` hears, once, a line saying that the server's slots hold the run below llm.max_concurrency; and
        the lines of a first contact that waits, and of long waits for a rate limit (else they are warnings)."""
        self.server.rule.tell = self.told = tell

    def _rate_limit_found(self, why: str) -> None:
        line = self.limiter.found_rate_limit(why) if isinstance(self.limiter, RateLimiter) else ""
        if line and self.told is not None:
            self.told(line)

    def streaming(self, accounts: list[CallAccount]) -> tuple[int, int, float]:
        """(answers streaming now, their tokens so far, tokens a second) of the calls counted in ``accounts``."""
        return self.server.measures.streaming(lambda owner: isinstance(owner, _Accounts) and owner.include(accounts))

    # -- stored answers -------------------------------------------------------------------------------

    def _readers(self) -> list[ResponseCache]:
        return [s for s in (self.cache, self.journal) if s is not None and s.reads]

    def _writers(self) -> list[ResponseCache]:
        return [s for s in (self.cache, self.journal) if s is not None and s.writes]

    async def _stored(self, key: str) -> Any:
        for store in self._readers():
            hit = await store.get(key)
            if hit is not None:
                return hit
        return None

    async def _store(self, items: list[tuple[str, Any]], kind: str) -> None:
        for store in self._writers():
            await store.put_many(items, kind)

    async def recall(self, key: str) -> Any:
        """What `remember` kept under ``key`` (in the response cache or the run's journal), or None."""
        return await self._stored(key)

    async def remember(self, key: str, value: Any, kind: str) -> None:
        """Keep ``value``, a server's answer that is not a completion (its tokenizer's ids), as answers are."""
        await self._store([(key, value)], kind)

    # -- the retry loop -------------------------------------------------------------------------------

    def _estimate(self, req: ChatRequest) -> int:
        prompt = sum(self._count_tokens(m.get("content") or "") + 4 for m in req.messages)
        return prompt + (req.max_tokens or DEFAULT_COMPLETION_ESTIMATE)

    async def _send(self, path: str, payload: dict[str, Any], model: str, estimate: int, accounts: "_Accounts",
                    parse: Callable[[Any], T], keep: Callable[[Any, T], Awaitable[None]] | None = None,
                    content: bytes | None = None, streamed: bool = False) -> tuple[T, float, int]:
        """POST with retries; returns what ``parse`` made of the good body (a ValueError from it means a broken
        answer, retried). ``keep`` persists the body before the request's slot is given back, shielded from
        cancellation: an answer that was paid for is stored even when the run is being stopped, and the calls
        a killed run can lose are at most the ones holding a slot. An attempt given up while the server may go
        on with it keeps its slot until that work should be done (`ServerProfile.drain_s`): a retry does not
        queue behind the answer it abandoned."""
        assert self._http is not None, "use the client inside 'async with'"
        if not self.reached:
            await self._reach(accounts)
        url, headers = self.url(path, model), self._headers()
        budget = RetryBudget(self.retry, trio.current_time())
        failures: list[Failure] = []
        previous_sent = None
        slots, flying = self.concurrency.limiter, self.concurrency.flying
        server = self.server
        prompt = (len(content) if content is not None else 4000) // 4
        on_first = server.first_token if streamed else None
        on_last = server.measures.last_event if streamed else None
        chat = path == "chat/completions"
        while True:
            await self._take_turn(estimate)
            in_flight = slots.borrowed_tokens  # (itself included)
            watch, told = self.watch(on_first), False
            watch.owner, watch.line, watch.size, watch.on_last = accounts, server.line, prompt, on_last
            try:
                t0 = trio.current_time()
                accounts.add("requests")
                flying.add(watch)
                outcome = await self._attempt(url, payload, headers, content, watch, streamed)
                latency = trio.current_time() - t0
                if not isinstance(outcome, Failure):
                    self.limiter.observe_headers(outcome.headers)
                    written, parsed, failure = self._judge(outcome, parse, url, payload, model)
                    if failure is None:
                        server.finished(watch, False)
                        server.answered(watch, latency, parsed.usage.completion_tokens if chat else None)
                        told = True
                        if keep is not None:
                            with trio.CancelScope(shield=True):
                                await keep(written, parsed)
                        self.limiter.on_success()
                        self.concurrency.answered(watch)
                        self.concurrency.on_success()
                        accounts.add("calls")
                        accounts.latency(latency)
                        return parsed, latency, len(failures) + 1
                else:
                    failure = outcome
                if streamed and watch.first_at is not None and (
                        failure.cut or failure.reason.startswith("connection broken")) and server.cut():
                    failure = attrs.evolve(failure, abandoned=False)  # stopped for another of ours: not going on
                server.finished(watch, failure.abandoned)
                told = True
                if failure.status == 503 or failure.timed_out:  # the server has more than it can take
                    self.concurrency.back_off(t0, "a 503" if failure.status == 503 else "a timeout")
                if failure.abandoned and (drain := server.drain_s(watch)) > 0:
                    await trio.sleep(drain)
            except BaseException as e:
                if not told:  # a refusal, or cancelled: a stream is closed on its way out
                    server.finished(watch, isinstance(e, trio.Cancelled))
                raise
            finally:
                slots.release()
                flying.discard(watch)
            failures.append(failure)
            if failure.unreachable and (dead := self.dead_on_arrival(failures)) is not None:
                accounts.bump(failures=1)
                raise dead
            limited = failure.status == 429 and self._rate_limited(failure, watch, previous_sent, budget, accounts,
                                                                   in_flight)
            budget.spend(limited)
            previous_sent = t0
            wait = budget.next_wait(failure.retry_after)
            if failure.unreachable and not self.reached:  # the first contact: a quick second try, then stop
                wait = FIRST_CONTACT_WAIT_S
            if budget.exhausted(trio.current_time(), wait):
                accounts.bump(failures=1)
                raise self._give_up(failures, url)
            accounts.bump(retries=1)
            await trio.sleep(wait)

    async def _reach(self, accounts: "_Accounts") -> None:
        """The client's first contact (`Endpoint.contact`); an endpoint not there fails the request."""
        try:
            await self.contact()
        except LLMUnreachableError:
            accounts.bump(failures=1)
            raise

    async def _take_turn(self, estimate: int) -> None:
        """A turn of the rate limits, then a request slot (``self.concurrency.limiter``, released by the caller).
        What is free now is taken without yielding, the request that follows being the checkpoint: two trips
        through trio's scheduler per call saved. A limiter without ``acquire_nowait``, or whose
        ``acquire_nowait`` says no (the runtime's leased one, with a configured limit), is awaited. A rate
        learned, or cut, while the slots were full is a turn to take again at that rate (`RateLimiter.repace`;
        on Ray the worker's local limiter's, which learns the rate there)."""
        acquire_nowait = getattr(self.limiter, "acquire_nowait", None)
        if acquire_nowait is None or not acquire_nowait(estimate):
            await self.limiter.acquire(estimate)
        try:
            self.concurrency.limiter.acquire_nowait()
        except trio.WouldBlock:
            learns = self.limiter if isinstance(self.limiter, RateLimiter) else getattr(self.limiter, "local", None)
            paced = learns.turn_taken() if isinstance(learns, RateLimiter) else None
            await self.concurrency.limiter.acquire()
            try:
                if paced is not None:
                    await learns.repace(paced)
            except BaseException:
                self.concurrency.limiter.release()
                raise

    def _rate_limited(self, failure: Failure, watch: AttemptWatch, previous_sent: float | None, budget: RetryBudget,
                      accounts: "_Accounts", in_flight: int) -> bool:
        """Slow the whole client down after a 429 (of ``watch``'s attempt); True when it was this request's turn
        being kept waiting (other requests were answered since its previous attempt) rather than a fault."""
        accounts.bump(rate_limited=1)
        sent_at, after, limiter = watch.sent_at, failure.retry_after, self.limiter
        own = isinstance(limiter, RateLimiter)  # (Ray's leased one: a worker's, with a local one inside)
        self.concurrency.back_off(sent_at, "a 429", in_flight, watch, failure.rate_stated, after is not None)
        why = "the endpoint's rate limit (HTTP 429" + (f", Retry-After {after:g} s)" if after is not None else ")")
        wait = after if after is not None else budget.next_wait(None)
        if not self.concurrency.at_once:
            limiter.on_rate_limited(sent_at, after)
        if own:
            limiter.pause(wait, why)
        else:
            limiter.pause(wait)
        return limiter.answered_since(sent_at if previous_sent is None else previous_sent)
