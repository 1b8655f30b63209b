"""`Endpoint`: where a client's requests go and one attempt there: URLs and headers for OpenAI-compatible
servers and Azure OpenAI, the POST (on our own pool, or httpx's), and what the answer means: a good body,
a `Failure` to retry, or a refusal raised as final."""

from __future__ import annotations

import warnings
from typing import Any, Callable, Iterable

import attrs
import httpx
import trio

from ..core.config import LLMConfig
from ..core.errors import LLMError, LLMRequestError, LLMUnreachableError
from .cache import StoredJSON
from .contact import FIRST_CONTACT_TRIES, Contact, make_contact, probe_s, unreachable_because, unreachable_error
from .credentials import body_secrets, endpoint_key, endpoint_secrets, redact, remember
from .http.sse import completion_of, events, is_event_stream
from .http.transport import Answer, PooledTransport, origin_of, read_json
from .http.watch import AttemptWatch
from .limits import states_rate
from .records import canonical_json
from .refusals import read_error_body, refusal, server_refusal
from .retry import is_retryable_status, parse_retry_after
from .server.profile import is_hosted

OPENAI_BASE_URL = "https://api.openai.com/v1"
USER_AGENT = "graphglean"


def below(base_url: str, path: str, params: str = "") -> str:
    """The URL of ``path`` below ``base_url``, with ``params``; a query of the base URL (a gateway's key) is
    kept, after the path."""
    base, _, query = base_url.partition("?")
    query = "&".join(q for q in (params, query) if q)
    return f"{base.rstrip('/')}/{path}" + (f"?{query}" if query else "")


def endpoint_url(cfg: LLMConfig, path: str, model: str | None = None) -> str:
    """The URL a client of ``cfg`` posts ``path`` ("chat/completions", "embeddings") to for ``model``."""
    if cfg.provider == "azure":
        azure = cfg.azure
        if path == "embeddings":
            deployment = azure.embedding_deployment or model or cfg.embedding_model
        else:
            deployment = azure.deployment or model or cfg.model
        return below(cfg.base_url, f"openai/deployments/{deployment}/{path}", f"api-version={azure.api_version}")
    return below(cfg.base_url or OPENAI_BASE_URL, path)


@attrs.frozen
class Failure:
    """Why one attempt did not give a good answer: what the retry loop reads."""

    reason: str
    status: int | None = None
    body: str = ""
    retry_after: float | None = None
    connection: bool = False
    abandoned: bool = False  # sent, then given up before its answer: the server may still be working on it
    cut: bool = False  # a stream the server ended before its answer did (no finish_reason)
    unreachable: str = ""  # why no connection was made, when the system said: "refused" or "unresolved"
    timed_out: bool = False  # given up at a deadline of its watch (`AttemptWatch.why`)
    rate_stated: bool = False  # a 429 whose own headers state a rate limit (`limits.states_rate`)


class Endpoint:
    """The HTTP side of a client; open it (`open`) before the first request and close it (`close_http`)."""

    def __init__(self, cfg: LLMConfig, transport: httpx.AsyncBaseTransport | None = None) -> None:
        self.cfg = cfg
        # never in a message, wherever it is written
        remember([*endpoint_secrets(cfg.api_key, cfg.base_url), *body_secrets(cfg.extra_body)])
        self.count_tokens: Callable[[str], int] = lambda text: len(text) // 4 + 1
        self.streams = False
        self.usage_counted = 0  # streamed answers whose usage the server did not send (counted here)
        self._transport = transport
        self._http: httpx.AsyncClient | None = None
        self._direct: Any = None  # a transport with `PooledTransport.exchange`
        self._prepared: dict[tuple[str, ...], tuple[Any, bytes, list[tuple[bytes, bytes]]]] = {}
        self._urls: dict[tuple[Any, ...], tuple[str, str]] = {}  # (url, key_url) per path, model and endpoint
        # an answer (any) came from the endpoint, to this client or to the run (`first_contact`): a connection
        # refused now is a passing fault, retried as usual
        self.reached = False
        self.contact_state = Contact()
        self.probed: dict[str, httpx.Response | None] = {}  # the server's routes asked (`probe`), their answers
        self._asking: dict[str, trio.Event] = {}  # the routes being asked now: set when their answer is in
        self.told: Callable[[str], None] | None = None  # where `say` puts its lines (else: a warning)
        self._contacts = not is_hosted(cfg)  # hosted endpoints need no first contact of their own

    def open(self) -> None:
        """Make the HTTP client (our pool, unless ``llm.http_transport`` is httpx or a transport was given)."""
        n = self.cfg.max_concurrency
        transport = self._transport
        if transport is None and self.cfg.http_transport == "pooled":
            transport = PooledTransport(n, self.cfg.connect_timeout_s)
        # With our own pool, requests go straight to it: httpx's per-request client machinery (auth flow,
        # redirects, cookies, event hooks) is a third of the client's CPU per call and does nothing here. A
        # transport that says ``direct = True`` (graphglean.testing's in-process one) has the same ``exchange``.
        direct = isinstance(transport, PooledTransport) or getattr(transport, "direct", False) is True
        self._direct = transport if direct else None
        # which transports can stream: our pool and httpx's (a ``direct`` one that says ``streams = True`` too)
        self.streams = self._direct is None or getattr(self._direct, "streams", False) is True
        self._http = httpx.AsyncClient(  # no read timeout of httpx's: `AttemptWatch` keeps the time
            limits=httpx.Limits(max_connections=n, max_keepalive_connections=n),
            timeout=httpx.Timeout(None, connect=self.cfg.connect_timeout_s), transport=transport)

    async def close_http(self) -> None:
        if self._http is not None:
            with trio.CancelScope(shield=True):
                await self._http.aclose()
            self._http = None

    # -- endpoint shape -------------------------------------------------------------------------------

    def url(self, path: str, model: str | None = None) -> str:
        return self._url_pair(path, model)[0]

    def key_url(self, path: str, model: str | None = None) -> str:
        """`url` as keys of stored answers name it: without credentials (a gateway's key in the base URL's query
        is no part of what was asked)."""
        return self._url_pair(path, model)[1]

    def _url_pair(self, path: str, model: str | None) -> tuple[str, str]:
        """(`url`, `key_url`), made once per path, model and endpoint settings (they were asked for on every
        call)."""
        cfg, azure = self.cfg, self.cfg.azure
        shape = (path, model, cfg.provider, cfg.base_url, cfg.model, cfg.embedding_model, azure.deployment,
                 azure.embedding_deployment, azure.api_version)
        pair = self._urls.get(shape)
        if pair is None:
            url = endpoint_url(cfg, path, model)
            pair = self._urls[shape] = (url, endpoint_key(url))
        return pair

    def _headers(self) -> dict[str, str]:
        if not self.cfg.api_key:
            return {}
        if self.cfg.provider == "azure":
            return {"api-key": self.cfg.api_key}
        return {"Authorization": f"Bearer {self.cfg.api_key}"}

    def redact(self, text: str) -> str:
        return redact(text)

    def shown_url(self) -> str:
        return self.redact(self.cfg.base_url.rstrip("/")) or f"(empty: {OPENAI_BASE_URL})"

    def say(self, line: str) -> None:
        """A line for the person running (the run's notes, `told`; else a warning)."""
        if self.told is not None:
            self.told(self.redact(line))
        else:
            warnings.warn(self.redact(line), stacklevel=2)

    def connected(self) -> bool | None:
        """Whether a connection to the endpoint was made (None: the transport does not say)."""
        return self._direct.connected() if isinstance(self._direct, PooledTransport) else None

    async def contact(self) -> None:
        """The client's first contact with its endpoint (`contact.make_contact`), waited for by its first requests;
        nothing once it answered (or, hosted, ever)."""
        if not (self.reached or not self._contacts or self.contact_state.done):
            await make_contact(self)

    async def contacted(self) -> bool:
        """`contact`, for a request that fails quietly: False where the endpoint is not there."""
        try:
            await self.contact()
        except LLMUnreachableError:
            return False
        return True

    async def http_get(self, url: str) -> httpx.Response:
        assert self._http is not None, "use the client inside 'async with'"
        return await self._http.get(url, headers=self._headers())

    async def probe(self, url: str, as_json: bool = True) -> Any:
        """A GET of one of the server's own routes (``/v1/models``, ``/props``, ``/slots``, ``/metrics``), asked
        once a client: the JSON (``as_json``; else the text) of a 200, else None. A route that answers nothing
        within `contact.PROBE_S` (at most ``llm.timeout_s``) is one the server does not have; an endpoint not there
        (the first contact's error) has none (its requests raise the error)."""
        if not await self.contacted():
            return None
        while url not in self.probed:
            asking = self._asking.get(url)
            if asking is not None:  # another task asks it: its answer, or (it was cancelled) a turn to ask
                await asking.wait()
                continue
            asking = self._asking[url] = trio.Event()
            try:
                self.probed[url] = await self._probe_answer(url)
            finally:
                del self._asking[url]
                asking.set()
        answer = self.probed[url]
        if answer is None or answer.status_code != 200:
            return None
        try:
            return answer.json() if as_json else answer.text
        except ValueError:
            return None

    async def _probe_answer(self, url: str) -> httpx.Response | None:
        with trio.move_on_after(probe_s(self.cfg.timeout_s)):
            try:
                answer = await self.http_get(url)
            except httpx.HTTPError:
                return None
            self.reached = True
            return answer
        return None

    async def post_json(self, url: str, body: dict[str, Any]) -> Any:
        """One plain POST (no retries), e.g. to a server's ``/tokenize``, given at most ``llm.timeout_s``.
        Returns the JSON answer of a 200, or None on any failure."""
        return (await self.post_answer(url, body))[1]

    async def post_answer(self, url: str, body: dict[str, Any]) -> tuple[int | None, Any]:
        """`post_json`'s status and JSON answer (None unless a 200 in JSON); the status is None when no answer
        came (the connection failed, or ``llm.timeout_s`` passed)."""
        assert self._http is not None, "use the client inside 'async with'"
        if not await self.contacted():
            return None, None
        with trio.move_on_after(self.cfg.timeout_s):  # our pool does not apply httpx's timeouts
            try:
                resp = await self._http.post(url, json=body, headers=self._headers())
            except httpx.HTTPError:
                return None, None
            self.reached = True
            try:
                return resp.status_code, resp.json() if resp.status_code == 200 else None
            except ValueError:
                return resp.status_code, None
        return None, None

    async def get_json(self, url: str) -> Any:
        """`probe`: the JSON of a 200 of one of the server's routes (its ``/models``), or None."""
        return await self.probe(url)

    def watch(self, on_first: Callable[[AttemptWatch], None] | None = None) -> AttemptWatch:
        """The clock of one attempt, with the configured timeouts."""
        cfg = self.cfg
        return AttemptWatch(cfg.first_token_timeout_s, cfg.timeout_s, cfg.total_timeout_s, on_first)

    async def _attempt(self, url: str, payload: dict[str, Any], headers: dict[str, str], content: bytes | None,
                       watch: AttemptWatch, streamed: bool = False) -> httpx.Response | Answer | Failure:
        """One POST of ``payload`` (``content``: its bytes as sent, when made already) on ``watch``'s clock;
        ``streamed``: the answer is read as it comes."""
        assert self._http is not None
        answered = False
        try:
            # trio.fail_after's scope without its generator and exception (a tenth of a call's own CPU)
            with watch.start():
                outcome = await self._post(url, payload, headers, content, watch if streamed else None)
                self.reached = self.reached or not (isinstance(outcome, Failure) and outcome.connection)
                answered = getattr(outcome, "status_code", None) == 200  # the server worked for it
                return outcome
            return Failure(watch.why(), abandoned=True, timed_out=True)  # a deadline was reached
        finally:
            watch.ended(answered)

    async def _post(self, url: str, payload: dict[str, Any], headers: dict[str, str], content: bytes | None,
                    watch: AttemptWatch | None) -> httpx.Response | Answer | Failure:
        try:
            if self._direct is None:
                if watch is None:
                    return await self._http.post(url, json=payload, headers=headers)  # type: ignore[union-attr]
                return await self._httpx_stream(url, payload, headers, watch)
            if content is None:
                content = canonical_json(payload).encode("utf-8", "surrogatepass")
            return await self._direct_post(url, headers, content, watch)
        except httpx.TimeoutException as e:
            return Failure(f"timed out ({type(e).__name__})", connection=isinstance(e, httpx.ConnectTimeout))
        except (httpx.ConnectError, httpx.UnsupportedProtocol) as e:
            return Failure(f"cannot connect ({self.redact(str(e)) or type(e).__name__})", connection=True,
                           unreachable=unreachable_because(e))
        except httpx.LocalProtocolError as e:  # asking again would not help
            raise LLMRequestError(f"the request cannot be sent: {self.redact(str(e))}") from None
        except httpx.TransportError as e:
            return Failure(f"connection broken ({type(e).__name__})", abandoned=watch is not None)

    async def _httpx_stream(self, url: str, payload: dict[str, Any], headers: dict[str, str],
                            watch: AttemptWatch) -> Answer:
        assert self._http is not None
        async with self._http.stream("POST", url, json=payload, headers=headers) as resp:
            watch.heard(b"")
            parts = []
            async for piece in resp.aiter_bytes():
                watch.heard(piece)
                parts.append(piece)
            return Answer(resp.status_code, {k.lower(): v for k, v in resp.headers.items()}, b"".join(parts))

    async def _direct_post(self, url: str, headers: dict[str, str], content: bytes,
                           watch: AttemptWatch | None = None) -> Answer:
        """The POST httpx would send, straight on our pool (or a ``direct`` transport's ``exchange``): building an
        ``httpx.Request`` for each call was a tenth of the client's CPU per call (benchmarks/transport.py)."""
        assert self._direct is not None
        shape = (url, *headers.items())
        prepared = self._prepared.get(shape)
        if prepared is None:
            parsed = httpx.URL(url)
            raw = httpx.Headers({**headers, "content-type": "application/json", "user-agent": USER_AGENT}).raw
            prepared = self._prepared[shape] = (origin_of(parsed), parsed.raw_path, [(b"Host", parsed.netloc), *raw])
        origin, target, head = prepared
        head = [*head, (b"Content-Length", str(len(content)).encode())]
        if watch is None:
            status, response_headers, body = await self._direct.exchange(origin, b"POST", target, head, content)
        else:
            status, response_headers, body = await self._direct.exchange(origin, b"POST", target, head, content,
                                                                         watch.heard)
        return Answer.read(status, response_headers, body)

    def _judge(self, resp: httpx.Response | Answer, parse: Callable[[Any], Any], url: str = "", sent: Iterable[str] = (),
               model: str = "") -> tuple[Any, Any, Failure | None]:
        """(body, parsed, None) for a good answer, the body as its server wrote it (`StoredJSON`) when it is UTF-8,
        for the cache and the journal to store without encoding it again; else why it is not good (raising the
        `refusal` when that is final). ``url``, the body keys ``sent`` and ``model`` make the refusal precise."""
        status = resp.status_code
        if status == 200:
            try:
                if is_event_stream(resp.headers, resp.content):
                    body = completion_of(events(resp.content))
                    if body["choices"][0]["finish_reason"] is None:
                        return None, None, Failure("the server ended the stream before the answer ended (no "
                                                   "finish_reason)", 200, cut=True)
                    self.counted_usage(body, sent)
                    return body, parse(body), None
                body, text = read_json(resp.content)
                return (body if text is None else StoredJSON(text)), parse(body), None
            except ValueError as e:  # json.JSONDecodeError is a ValueError too
                return None, None, Failure(f"unparseable answer ({str(e)[:120]})", 200, self.redact(resp.text)[:500])
        text = self.redact(resp.text)[:2000]  # redacted whole: a secret cut short would leak its start
        if is_retryable_status(status):
            final = server_refusal(status, text, sent=sent, path=url.split("?", 1)[0]) if status >= 500 else None
            if final is not None:
                raise final
            return None, None, Failure(f"HTTP {status}", status, text[:500], parse_retry_after(resp.headers),
                                       rate_stated=status == 429 and states_rate(resp.headers))
        raise refusal(status, text, sent=sent, model=model, url=self.redact(url.split("?", 1)[0]))

    def counted_usage(self, body: dict[str, Any], sent: Any) -> None:
        """A streamed answer's usage, counted here when the server sent none: the prompt by the client's token
        count, the answer by its pieces (one token each on llama.cpp, vLLM and Ollama)."""
        pieces = body.pop("pieces", 0)
        if body.get("usage") is None and isinstance(sent, dict):
            self.usage_counted += 1
            prompt = sum(self.count_tokens(str(m.get("content") or "")) + 4 for m in sent.get("messages") or ())
            body["usage"] = {"prompt_tokens": prompt, "completion_tokens": pieces, "total_tokens": prompt + pieces,
                             "counted_by": "graphglean"}

    def dead_on_arrival(self, failures: list[Failure]) -> LLMUnreachableError | None:
        """Before any answer came from the endpoint, a name no resolver knows (at once) or a connection refused
        twice is a wrong ``llm.base_url`` or a server not started, not a passing fault: one line that names
        the setting (its file and line are the caller's to add: the error's ``key``). None: retry as usual."""
        last = failures[-1]
        if self.reached or not (last.unreachable == "unresolved" or len(failures) >= FIRST_CONTACT_TRIES):
            return None
        return unreachable_error(self.shown_url(), httpx.URL(self.url("models")).host, last.unreachable,
                                 len(failures))

    async def first_contact(self) -> None:
        """The run's first contact with the endpoint, made once before its work goes to clients of their own
        (Ray's tasks, whose clients are made ``contacted``): `contact`, a hosted endpoint's too (a GET of its
        models route)."""
        assert self._http is not None, "open() first"
        if not self.reached:
            await make_contact(self, explicit=True)

    def _give_up(self, failures: list[Failure], url: str) -> LLMError:
        last = failures[-1]
        where = self.redact(url.split("?", 1)[0])
        message = f"{where}: gave up after {len(failures)} attempts; last: {last.reason}"
        if last.body:
            message += f": {read_error_body(last.body).message}"
        if all(f.connection for f in failures):
            return LLMUnreachableError(f"{where}: endpoint unreachable after {len(failures)} attempts ({last.reason})",
                                       None, "")
        return LLMError(message, last.status, last.body)


async def first_contact(cfg: LLMConfig, transport: httpx.AsyncBaseTransport | None = None) -> None:
    """`Endpoint.first_contact` on an endpoint of its own: a run whose calls go out from clients elsewhere."""
    endpoint = Endpoint(cfg, transport)
    endpoint.open()
    try:
        await endpoint.first_contact()
    finally:
        await endpoint.close_http()
