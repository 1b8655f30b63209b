import random

import pytest
import trio
from hypothesis import given, settings
from hypothesis import strategies as st

from graphglean.core.config import LLMConfig
from graphglean.core.errors import LLMAuthError, LLMError, LLMRequestError, LLMUnreachableError
from graphglean.llm import ChatClient, RateLimiter, RetryPolicy
from graphglean.llm.endpoint import first_contact
from graphglean.llm.limits import TokenBucket
from graphglean.llm.records import ChatRequest
from graphglean.llm.retry import parse_duration, parse_retry_after
from graphglean.testing import FakeLLMServer, FaultPlan, Reply

from .helpers import llm_config, task_resumes

FAST = RetryPolicy(max_retries=4, base_s=0.01, cap_s=0.05)


def msg(text):
    return [{"role": "user", "content": text}]


async def test_chat_parameters_and_result():
    async with FakeLLMServer(lambda r: "pong").running() as s:
        async with ChatClient(llm_config(s, seed=7)) as c:
            req = c.request(msg("ping"), max_tokens=5, stop=("x",), logit_bias={"1": 100},
                            response_format={"type": "json_object"}, extra={"top_p": 0.5})
            r = await c.chat(req)
    assert r.text == "pong" and r.finish_reason == "stop" and r.usage.completion_tokens > 0
    body = s.requests[0].body
    assert body["max_tokens"] == 5 and body["seed"] == 7 and body["stop"] == ["x"] and body["top_p"] == 0.5
    assert body["logit_bias"] == {"1": 100} and body["response_format"] == {"type": "json_object"}
    assert s.requests[0].headers["authorization"] == "Bearer sk-test"


async def test_retries_every_fault_kind_then_succeeds():
    schedule = {0: "500", 1: "503", 2: "drop", 3: "truncated", 4: "malformed", 5: "timeout"}
    async with FakeLLMServer(lambda r: "ok", faults=FaultPlan(schedule=schedule), hang_s=5).running() as s:
        cfg = llm_config(s, timeout_s=0.5, max_retries=6)
        async with ChatClient(cfg, retry=RetryPolicy(max_retries=6, base_s=0.01, cap_s=0.02)) as c:
            r = await c.chat(c.request(msg("hi")))
    assert r.text == "ok" and r.attempts == 7
    assert c.account.retries == 6 and c.account.calls == 1


async def test_gives_up_with_status_and_truncated_body():
    async with FakeLLMServer(lambda r: "ok", faults=FaultPlan(rate=1.0, kinds=("503",))).running() as s:
        async with ChatClient(llm_config(s), retry=FAST) as c:
            with pytest.raises(LLMError) as e:
                await c.chat(c.request(msg("hi")))
    assert e.value.status == 503 and "gave up after 5 attempts" in str(e.value) and len(e.value.body) <= 500


@pytest.mark.parametrize("status,kind", [(401, LLMAuthError), (403, LLMAuthError), (400, LLMRequestError),
                                         (404, LLMRequestError)])
async def test_client_errors_fail_fast(status, kind):
    key = "sk-SECRET-MARKER-123"
    body = {"error": {"message": f"Incorrect API key provided: {key}"}}
    async with FakeLLMServer(lambda r: Reply(status=status, body=body)).running() as s:
        async with ChatClient(llm_config(s, api_key=key), retry=FAST) as c:
            with pytest.raises(kind) as e:
                await c.chat(c.request(msg("hi")))
    assert len(s.requests) == 1
    assert key not in str(e.value) and key not in e.value.body
    if status == 401:
        assert "refused the API key" in str(e.value)


async def test_unreachable_endpoint():
    with trio.socket.socket() as sock:
        await sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    from graphglean.core.config import LLMConfig

    cfg = LLMConfig(base_url=f"http://127.0.0.1:{port}/v1", api_key="k")
    cfg.cache.mode = "off"
    async with ChatClient(cfg, retry=RetryPolicy(max_retries=5, base_s=0.01, cap_s=0.01)) as c:
        # nothing ever answered: the first contact's second refusal stops it, naming the setting, before any request
        with pytest.raises(LLMUnreachableError, match=r"^llm.base_url: http://127.0.0.1:\d+/v1: connection refused 2 "
                           "times") as raised:
            await c.chat(c.request(msg("hi")))
        assert raised.value.key == "llm.base_url" and c.account.requests == 0 and c.account.failures == 1
    # the run found the endpoint before this client (a Ray task's): a refusal now may pass, retried as any fault
    async with ChatClient(cfg, retry=RetryPolicy(max_retries=2, base_s=0.01, cap_s=0.01), contacted=True) as c:
        with pytest.raises(LLMUnreachableError, match="unreachable after 3 attempts"):
            await c.chat(c.request(msg("hi")))
    with pytest.raises(LLMUnreachableError, match=r"^llm.base_url: http://127.0.0.1:\d+/v1: connection refused 2 "):
        await first_contact(cfg)  # the run's first contact, made once: the same line
    async with FakeLLMServer(lambda r: "ok").running() as s:
        cfg.base_url = s.base_url
        await first_contact(cfg)  # any answer finds it (a 404 of the models route too)
        assert not s.chat_requests()


async def test_a_name_that_does_not_resolve_stops_at_the_first_attempt():
    from graphglean.core.config import LLMConfig

    cfg = LLMConfig(base_url="http://graphglean-no-such-host.invalid:8000/v1", api_key="k")
    cfg.cache.mode = "off"
    async with ChatClient(cfg, retry=RetryPolicy(max_retries=5, base_s=0.01, cap_s=0.01)) as c:
        # the resolver says no such name: at once (with no resolver to answer, after a second try)
        with pytest.raises(LLMUnreachableError, match="graphglean-no-such-host.invalid (does not|could not be) "
                           "resolve"):
            await c.chat(c.request(msg("hi")))
        assert c.account.requests <= 2


async def test_retry_after_is_honoured_and_429_pauses_everyone():
    hits = []

    def respond(req):
        hits.append(trio.current_time())
        if len(hits) == 1:
            return Reply(status=429, headers={"retry-after-ms": "300"}, body={"error": {"message": "slow down"}})
        return "ok"

    async with FakeLLMServer(respond).running() as s:
        async with ChatClient(llm_config(s, max_concurrency=1), retry=FAST) as c:
            t0 = trio.current_time()
            await c.chat(c.request(msg("a")))
            assert trio.current_time() - t0 >= 0.3
    assert c.account.rate_limited == 1


async def test_cache_makes_rerun_free_and_skips_truncated(tmp_path):
    answers = {"a": Reply("full"), "b": Reply("cut", finish_reason="length"), "c": Reply("Y", finish_reason="length")}
    async with FakeLLMServer(lambda r: answers[r.last_user]).running() as s:
        cfg = llm_config(s, tmp_path)
        for _ in range(2):
            async with ChatClient.from_config(cfg) as c:
                await c.chat(c.request(msg("a")))
                await c.chat(c.request(msg("b")))
                await c.chat(c.request(msg("c"), max_tokens=1))  # a one-token check is complete
    # second round: a and c from the cache, b (truncated) asked again
    assert [r.last_user for r in s.requests] == ["a", "b", "c", "b"]
    assert b"sk-test" not in (tmp_path / "cache.sqlite").read_bytes()


async def test_cache_key_covers_max_tokens(tmp_path):
    async with FakeLLMServer(lambda r: "x").running() as s:
        async with ChatClient.from_config(llm_config(s, tmp_path)) as c:
            await c.chat(c.request(msg("a"), max_tokens=5))
            await c.chat(c.request(msg("a"), max_tokens=6))
            await c.chat(c.request(msg("a"), max_tokens=6))
    assert len(s.requests) == 2 and c.account.cache_hits == 1


async def test_embeddings_batched_and_cached(tmp_path):
    async with FakeLLMServer().running() as s:
        async with ChatClient.from_config(llm_config(s, tmp_path)) as c:
            first = await c.embed(["apples and pears", "trains"])
            second = await c.embed(["trains", "boats"])
    assert len(first.vectors) == 2 and first.vectors[1] == second.vectors[0]
    assert s.requests[1].body["input"] == ["boats"]


async def test_many_concurrent_requests_reach_the_server():
    # answers take long enough for all 300 to be sent on a loaded machine before the first returns
    async with FakeLLMServer(lambda r: "ok", latency=4.0).running() as s:
        # a server said to run 300 at once: no slow start while its slots are learned
        async with ChatClient(llm_config(s, max_concurrency=300, server_concurrency=300)) as c:
            async with trio.open_nursery() as n:
                for i in range(300):
                    n.start_soon(c.chat, c.request(msg(f"q{i}")))
    assert s.max_in_flight >= 250


def test_token_bucket_and_limiter_pacing():
    now = [0.0]
    bucket = TokenBucket(60, lambda: now[0])
    assert bucket.wait_time(1) == 0
    bucket.take(1)
    assert bucket.wait_time(1) == pytest.approx(1.0)
    bucket.take(100)  # larger than the bucket: allowed as debt
    now[0] += 1
    assert bucket.wait_time(1) > 90


async def test_rate_limiter_holds_rpm(autojump_clock):
    limiter = RateLimiter(requests_per_minute=600)
    t0 = trio.current_time()
    for _ in range(60):
        await limiter.acquire()
    assert 5.0 <= trio.current_time() - t0 <= 6.1


def test_retry_after_parsing_and_backoff():
    assert parse_retry_after({"retry-after-ms": "250"}) == 0.25
    assert parse_retry_after({"retry-after": "3"}) == 3.0
    assert parse_retry_after({}) is None
    assert parse_duration("6m0s") == 360 and parse_duration("120ms") == 0.12
    policy = RetryPolicy(base_s=1, cap_s=8)
    rng = random.Random(1)
    assert all(0 <= policy.backoff(k, rng=rng) <= min(8, 2 ** k) for k in range(10))
    assert 2.0 <= policy.backoff(0, retry_after=2.0, rng=rng) <= 3.0


async def test_azure_deployment_url_and_api_key_header():
    async with FakeLLMServer(lambda r: "ok").running() as s:
        cfg = llm_config(s, provider="azure", api_key="az-key")
        cfg.base_url = s.base_url.removesuffix("/v1")
        cfg.azure.deployment = "my-gpt"
        async with ChatClient(cfg) as c:
            assert (await c.chat(c.request(msg("hi")))).text == "ok"
    req = s.requests[0]
    assert req.path == "/openai/deployments/my-gpt/chat/completions"
    assert req.headers["api-key"] == "az-key" and "authorization" not in req.headers


async def test_exhausted_ratelimit_headers_hold_the_next_request():
    def respond(req):
        return Reply("ok", headers={"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "300ms"})

    async with FakeLLMServer(respond).running() as s:
        async with ChatClient(llm_config(s)) as c:
            await c.chat(c.request(msg("a")))
            t0 = trio.current_time()
            await c.chat(c.request(msg("b")))
            assert trio.current_time() - t0 >= 0.29


async def test_tokens_per_minute_paced_and_corrected_from_usage(autojump_clock):
    limiter = RateLimiter(tokens_per_minute=6000)  # 100 tokens a second, 100 banked
    t0 = trio.current_time()
    await limiter.acquire(100)
    await limiter.acquire(100)  # waits for the bucket to refill
    assert trio.current_time() - t0 == pytest.approx(1.0, abs=0.01)
    limiter.settle(estimated_tokens=100, actual_tokens=10)  # the answer was cheaper: 90 tokens come back
    t1 = trio.current_time()
    await limiter.acquire(90)
    assert trio.current_time() - t1 < 0.01


async def test_retry_deadline_gives_up_in_time():
    async with FakeLLMServer(lambda r: "ok", faults=FaultPlan(rate=1.0, kinds=("500",))).running() as s:
        cfg = llm_config(s, max_retries=100, retry_deadline_s=0.5)
        async with ChatClient(cfg) as c:
            t0 = trio.current_time()
            with pytest.raises(LLMError, match="gave up"):
                await c.chat(c.request(msg("hi")))
            assert trio.current_time() - t0 < 1.0 and len(s.requests) < 100


async def test_cache_is_per_endpoint(tmp_path):
    async with FakeLLMServer(lambda r: "from one").running() as one, FakeLLMServer(lambda r: "from two").running() as two:
        for server, expected in ((one, "from one"), (two, "from two"), (one, "from one")):
            cfg = llm_config(server, tmp_path)
            async with ChatClient.from_config(cfg) as c:
                assert (await c.chat(c.request(msg("same question")))).text == expected
    assert len(one.requests) == 1 and len(two.requests) == 1


def test_pooled_answer_reads_headers_and_text_as_httpx_does():
    from graphglean.llm.http.transport import Answer

    answer = Answer.read(429, [(b"Retry-After", b"2"), (b"X-Note", b"a"), (b"x-note", b"b"),
                               (b"Content-Type", b'text/plain; charset="iso-8859-1"')], "caf\xe9".encode("latin-1"))
    assert answer.headers["retry-after"] == "2" and answer.headers["x-note"] == "a, b"
    assert answer.text == "caf\xe9"  # the declared charset, not utf-8
    assert parse_retry_after(answer.headers) == 2.0
    assert Answer.read(200, [], b'{"a": 1}').json() == {"a": 1}
    assert Answer.read(500, [(b"content-type", b"text/plain; charset=nonesuch")], b"\xff").text == "\ufffd"


async def test_an_answer_being_stored_is_kept_when_the_call_is_cancelled(tmp_path, monkeypatch):
    from graphglean.llm.cache import ResponseCache

    writing, release = trio.Event(), trio.Event()
    put_many = ResponseCache.put_many

    async def slow_put_many(self, items, kind):
        writing.set()
        await release.wait()
        await put_many(self, items, kind)

    monkeypatch.setattr(ResponseCache, "put_many", slow_put_many)
    async with FakeLLMServer(lambda r: "paid for").running() as s:
        cfg = llm_config(s, tmp_path)
        async with ChatClient.from_config(cfg) as c:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(c.chat, c.request(msg("q")))
                await writing.wait()
                nursery.cancel_scope.cancel()  # the run is stopped while the answer is being written
                release.set()
        monkeypatch.setattr(ResponseCache, "put_many", put_many)
        async with ChatClient.from_config(cfg) as c:
            assert (await c.chat(c.request(msg("q")))).cached
    assert len(s.requests) == 1


async def test_a_call_that_waits_for_nothing_but_its_answer_goes_through_the_scheduler_once():
    """Rate-limit turn, request slot and send are taken without yielding when free: the caller's task is
    resumed once, by its answer (four times before)."""
    async with FakeLLMServer(lambda r: "ok").running() as s:
        async with ChatClient(llm_config(s)) as c:
            await c.chat(c.request(msg("warm up")))  # the connection is opened (several trips) once
            with task_resumes() as trips:
                await c.chat(c.request(msg("again")))
    assert trips.count == 1


@given(messages=st.lists(st.fixed_dictionaries({"role": st.sampled_from(["user", "assistant", "system"]),
                                                "content": st.text(max_size=40)}), min_size=1, max_size=3),
       endpoint=st.text(max_size=20), extra=st.dictionaries(st.text(max_size=5), st.integers() | st.text(max_size=5),
                                                             max_size=3),
       max_tokens=st.none() | st.integers(1, 9), bias=st.none() | st.dictionaries(st.text("0123456789", min_size=1,
                                                                                          max_size=4),
                                                                              st.floats(-100, 100), max_size=2))
@settings(max_examples=150, deadline=None)
def test_the_cache_key_made_from_the_sent_body_is_the_key_of_the_whole_request(messages, endpoint, extra, max_tokens,
                                                                            bias):
    import hashlib
    import json

    req = ChatRequest(messages=messages, model="m", temperature=0.0, max_tokens=max_tokens, logit_bias=bias,
                      extra=extra)
    whole = json.dumps([endpoint, req.body()], sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    assert req.cache_key(endpoint) == hashlib.sha256(whole.encode("utf-8", "surrogatepass")).hexdigest()
    assert req.cache_key(endpoint, req.canonical_body()) == req.cache_key(endpoint)
    assert req.cache_key(endpoint, req.wire_body()) == req.cache_key(endpoint)


@given(content=st.text(alphabet=st.sampled_from(["a", "\u00e9", "\u20ac", "\U0001f600", "\ud800", '"', "\n"]),
                       min_size=2000, max_size=7000), endpoint=st.text(max_size=20))
@settings(max_examples=40, deadline=None)
def test_a_long_body_hashed_in_pieces_has_the_key_of_the_whole(content, endpoint):
    """Bodies past hashlib's 2 KB piece (multi-byte characters across the cut, lone surrogates) hash as a
    whole: the key of a cache written before is found again."""
    import hashlib
    import json

    req = ChatRequest(messages=[{"role": "user", "content": content}], model="m")
    whole = json.dumps([endpoint, req.body()], sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    assert req.cache_key(endpoint) == hashlib.sha256(whole.encode("utf-8", "surrogatepass")).hexdigest()
    assert req.cache_key(endpoint, req.wire_body()) == req.cache_key(endpoint, req.canonical_body())


@given(text=st.text(max_size=30), finish=st.none() | st.sampled_from(["stop", "length"]),
       usage=st.tuples(st.integers(0, 99), st.integers(0, 99)), refusal=st.text(max_size=5),
       latency=st.floats(0, 9), attempts=st.integers(1, 5), cached=st.booleans(), raw=st.dictionaries(
           st.text(max_size=3), st.integers(), max_size=2))
def test_a_result_timed_is_the_result_evolved(text, finish, usage, refusal, latency, attempts, cached, raw):
    """`_timed` lists `ChatResult`'s fields by hand: one added to the record and not to it would be lost."""
    import attrs

    from graphglean.llm.client import _timed
    from graphglean.llm.records import ChatResult, Usage

    result = ChatResult(text, finish, Usage(*usage), raw=raw, refusal=refusal)
    timed = _timed(result, latency, attempts, cached=cached)
    evolved = attrs.evolve(result, latency_s=latency, attempts=attempts, cached=cached)
    assert attrs.asdict(timed, recurse=False) == attrs.asdict(evolved, recurse=False)


@given(value=st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=8),
                          lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner,
                                                                                       max_size=3), max_leaves=6),
       encoding=st.sampled_from(["utf-8", "utf-8-sig", "utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-be"]),
       mangle=st.sampled_from(["", "bad byte", "surrogate", "cut"]))
@settings(max_examples=200, deadline=None)
def test_an_answer_read_once_reads_as_json_and_as_written(value, encoding, mangle):
    """`read_json` decodes a body once for its value and for the text a cache stores: the value (or the error)
    ``json.loads`` gives, and the text only for a body in UTF-8 (a UTF-16 one stored as UTF-8 text would
    be stored unreadable)."""
    import json

    from graphglean.llm.http.transport import read_json

    content = json.dumps(value, ensure_ascii=False).encode(encoding, "surrogatepass")
    content = {"": content, "bad byte": content + b"\xff", "surrogate": content[:-1] + b"\xed\xa0\x80" + content[-1:],
               "cut": content[:-1]}[mangle]
    try:
        expected = json.loads(content)
    except ValueError as e:
        with pytest.raises(type(e)):
            read_json(content)
        return
    text = None
    if encoding.startswith("utf-8") and mangle != "surrogate":
        text = content.decode("utf-8-sig")
        assert json.loads(text) == expected
    assert read_json(content) == (expected, text)


async def test_a_chat_request_is_sent_as_the_canonical_body_its_cache_key_hashes(tmp_path):
    from graphglean.testing.inprocess import InProcessTransport

    sent = []

    class Recording(InProcessTransport):
        async def exchange(self, origin, method, target, headers, body):
            sent.append(body)
            return await super().exchange(origin, method, target, headers, body)

    cfg = LLMConfig(base_url="http://in-process.invalid/v1", api_key="k", model="m", max_retries=0)
    cfg.cache.mode, cfg.cache.path = "readwrite", str(tmp_path / "c.sqlite")
    async with ChatClient.from_config(cfg, transport=Recording(lambda req: "hello")) as client:
        req = client.request([{"role": "user", "content": "Grüße \u2013 hi"}], max_tokens=5)
        assert (await client.chat(req)).text == "hello"
        assert (await client.chat(req)).cached
    assert sent == [req.canonical_body().encode("utf-8")]


async def test_a_good_answer_is_stored_as_its_server_wrote_it(tmp_path):
    import json
    import sqlite3

    from graphglean.testing.inprocess import InProcessTransport

    written = []

    class Spaced(InProcessTransport):  # a server that writes its JSON with indentation and \u escapes
        async def exchange(self, origin, method, target, headers, body):
            status, head, payload = await super().exchange(origin, method, target, headers, body)
            payload = json.dumps(json.loads(payload), indent=1, ensure_ascii=True).encode()
            written.append(payload.decode())
            return status, head, payload

    await _asked_twice(tmp_path, Spaced(lambda req: "Grüße"), "Grüße")
    db = sqlite3.connect(tmp_path / "c.sqlite")
    assert [v for (v,) in db.execute("SELECT value FROM responses")] == written
    db.close()


async def test_an_answer_in_utf16_is_stored_readable_and_replayed(tmp_path):
    """JSON may come in UTF-16 (json.loads reads it): it is stored as JSON text, not as the UTF-8 reading of its
    bytes, which no later run could read."""
    import json

    from graphglean.testing.inprocess import InProcessTransport

    class Utf16(InProcessTransport):
        async def exchange(self, origin, method, target, headers, body):
            status, head, payload = await super().exchange(origin, method, target, headers, body)
            return status, head, json.dumps(json.loads(payload)).encode("utf-16-le")

    await _asked_twice(tmp_path, Utf16(lambda req: "Grüße"), "Grüße")


async def _asked_twice(tmp_path, transport, text):
    """One question asked twice, with the response cache at ``tmp_path/c.sqlite``: the second answer is the
    first, replayed from the cache."""
    cfg = LLMConfig(base_url="http://in-process.invalid/v1", api_key="k", model="m", max_retries=0)
    cfg.cache.mode, cfg.cache.path = "readwrite", str(tmp_path / "c.sqlite")
    async with ChatClient.from_config(cfg, transport=transport) as client:
        req = client.request([{"role": "user", "content": "hi"}])
        assert (await client.chat(req)).text == text
        again = await client.chat(req)
        assert again.cached and again.text == text


async def test_an_answer_that_never_comes_fails_at_the_timeout_and_says_so():
    async with FakeLLMServer(lambda r: "ok", faults=FaultPlan(rate=1.0, kinds=("timeout",)), hang_s=5).running() as s:
        async with ChatClient(llm_config(s, timeout_s=0.3), retry=RetryPolicy(max_retries=0)) as c:
            with pytest.raises(LLMError) as e:
                await c.chat(c.request(msg("hi")))
    assert "no answer within llm.first_token_timeout_s (0.3 s)" in str(e.value) and c.account.failures == 1
