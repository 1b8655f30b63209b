"""A refusal of one item's request fails that item only; refusals every request would get stop the pass."""

import json

import pytest

from graphglean.core.errors import (
    FATAL,
    LLMAuthError,
    LLMModelError,
    LLMParameterError,
    LLMRequestError,
)
from graphglean.episodic import EpisodicGistExtraction
from graphglean.graph.extract import extract_graph
from graphglean.graph.extraction.gleaning import LoopCheck
from graphglean.llm import ChatClient
from graphglean.llm.refusals import read_error_body
from graphglean.llm.refusals import refusal as classify
from graphglean.scheduling.scheduler import Scheduler
from graphglean.testing import FakeLLMServer, refusal, refusing
from graphglean.testing.models.responders import synthetic

from .helpers import config, llm_config

ITEM_REFUSALS = [("context_length", s) for s in ("openai", "azure", "vllm", "llamacpp", "llama-cpp-python", "ollama")]
ITEM_REFUSALS += [("content_filter", "azure"), ("content_filter", "openai")]
FATAL_REFUSALS = [("model_not_found", s, LLMModelError) for s in ("openai", "azure", "vllm", "ollama")]
FATAL_REFUSALS += [("no_such_path", "any", LLMModelError)]
FATAL_REFUSALS += [("unsupported_parameter", s, LLMParameterError) for s in ("openai", "vllm", "llama-cpp-python")]


def msg(text):
    return [{"role": "user", "content": text}]


async def refused_with(reply, **request):
    async with FakeLLMServer(lambda r: reply).running() as s:
        async with ChatClient(llm_config(s, model="local-model")) as c:
            with pytest.raises(Exception) as e:
                await c.chat(c.request(msg("hi"), **request))
    assert len(s.requests) == 1  # a refusal is never retried
    return e.value


@pytest.mark.parametrize("kind,server", ITEM_REFUSALS)
async def test_item_refusals_are_not_fatal(kind, server):
    error = await refused_with(refusal(kind, server), logit_bias={"5": 100}, max_tokens=8)
    assert type(error) is LLMRequestError and not isinstance(error, FATAL)
    assert error.kind == kind and error.params == () and not error.is_about("logit_bias")
    assert f"HTTP {error.status}" in str(error) and "\n" not in str(error)


@pytest.mark.parametrize("kind,server,expected", FATAL_REFUSALS)
async def test_refusals_every_request_would_get_are_fatal(kind, server, expected):
    error = await refused_with(refusal(kind, server, model="local-model", param="logit_bias"),
                               logit_bias={"5": 100})
    assert type(error) is expected and isinstance(error, FATAL)
    if expected is LLMParameterError:
        assert error.is_about("logit_bias") and not error.is_about("response_format")
    if kind == "model_not_found" and server != "azure":
        assert "local-model" in str(error)


def test_error_body_shapes():
    assert read_error_body('[{"error": {"code": 400, "message": "Bad x", "status": "INVALID_ARGUMENT"}}]').codes == (
        "400", "invalid_argument")
    assert read_error_body('{"detail": "Not Found"}').message == "Not Found"
    assert read_error_body("<html><body><h1>404 Not Found</h1></body></html>").message == "404 Not Found"
    assert read_error_body('{"error": "boom"}').message == "boom"


def test_a_parameter_counts_only_when_it_was_sent():
    body = json.dumps({"error": {"message": "Invalid value for 'response_format': json_object is not supported"}})
    assert isinstance(classify(400, body, sent=["messages", "response_format"]), LLMParameterError)
    unsent = classify(400, body, sent=["messages", "logit_bias"])
    assert type(unsent) is LLMRequestError and unsent.params == ()
    # the item's own content is not a setting to switch off
    messages = json.dumps({"error": {"message": "Invalid 'messages[1].content': bad surrogate", "param": "messages"}})
    assert type(classify(400, messages, sent=["messages", "temperature"])) is LLMRequestError
    # a context-length refusal that names max_tokens is still about this item's length
    vllm = json.dumps({"object": "error", "message": "'max_tokens' or 'max_completion_tokens' is too large: 4096. "
                       "This model's maximum context length is 4096 tokens and your request has 900 input tokens"})
    assert classify(400, vllm, sent=["messages", "max_tokens"]).kind == "context_length"
    assert isinstance(classify(402, '{"error": "insufficient credits"}'), LLMAuthError)


async def test_scheduler_keeps_going_after_one_refused_item():
    reply = refusal("context_length", "openai")
    respond = refusing(lambda r: "fine", lambda r: "item 3" in r.prompt, reply)
    async with FakeLLMServer(respond).running() as s:
        async with ChatClient(llm_config(s)) as c:
            scheduler = Scheduler(c)
            llm = scheduler.llm("p")

            async def one(i):
                return (await llm.chat(llm.request(msg(f"item {i}")))).text

            outcomes = await scheduler.map(one, range(8), pass_name="p")
    assert [o.ok for o in outcomes] == [i != 3 for i in range(8)]
    assert isinstance(outcomes[3].error, LLMRequestError) and outcomes[3].error.kind == "context_length"
    assert len(s.chat_requests()) == 8


async def test_fatal_refusal_still_stops_the_map():
    async with FakeLLMServer(lambda r: refusal("model_not_found", "vllm", model="gpt-4")).running() as s:
        async with ChatClient(llm_config(s, max_concurrency=2)) as c:
            scheduler = Scheduler(c, max_active_items=2)
            llm = scheduler.llm("p")
            with pytest.raises(LLMModelError):
                await scheduler.map(lambda i: llm.chat(llm.request(msg(str(i)))), range(50), pass_name="p")
    assert len(s.chat_requests()) <= 4


async def test_an_unrelated_400_does_not_switch_off_logit_bias():
    """A gleaning check refused for its length ends that chunk's gleaning with its first answer kept; it is not
    asked again without bias, and the other chunks keep their bias."""
    long_check = lambda r: r.max_tokens == 1 and "Carol" in r.prompt
    respond = refusing(synthetic, long_check, refusal("context_length", "llama-cpp-python"))
    async with FakeLLMServer(respond, tokenizer=lambda t: {"YES": [5], "NO": [6]}.get(t, [1, 2])).running() as s:
        cfg = config(s, model="llama3.1")
        cfg.chunking.size, cfg.chunking.overlap = 30, 0
        text = "Alice Smith met Bob Jones in Paris. " * 4 + "Carol King came later from Rome. " * 4
        result = await extract_graph(text, cfg)
    checks = [r for r in s.chat_requests() if r.max_tokens == 1]
    assert not result.failed and result.stats.outgrown_windows == 1
    assert all(r.logit_bias == {"5": 100.0, "6": 100.0} for r in checks)
    assert "alice smith" in result.output and "carol king" in result.output


@pytest.mark.parametrize("outgrown", ["check", "continuation"])
async def test_a_later_round_past_the_window_keeps_the_chunks_earlier_answers(outgrown, tmp_path):
    """A local model's window holds the first extraction but not a later round: the chunk keeps what it was
    told (before: the whole chunk failed, on every re-run); a re-run is answered from the cache but for the one
    refused call."""
    def past_window(r):
        turns = [m["role"] for m in r.body["messages"]]
        return "assistant" in turns and (r.max_tokens == 1) == (outgrown == "check")

    def respond(r):
        if r.max_tokens == 1 and outgrown == "continuation":
            return "YES"
        return synthetic(r)

    refused = refusal("context_length", "llama-cpp-python")
    async with FakeLLMServer(refusing(respond, past_window, refused)).running() as s:
        cfg = config(s, model="llama3.1")
        cfg.llm.cache.mode, cfg.llm.cache.path = "readwrite", str(tmp_path / "cache.sqlite")
        cfg.graph.max_gleanings = 2
        result = await extract_graph("Alice Smith met Bob Jones in Paris.", cfg)
        asked = len(s.chat_requests())
        again = await extract_graph("Alice Smith met Bob Jones in Paris.", cfg)
    assert not result.failed and result.stats.outgrown_windows == 1
    assert "alice smith" in result.output and "bob jones" in result.output
    assert dict(again.output.nodes(data=True)) == dict(result.output.nodes(data=True))
    # the one refused call is asked again; a continuation at the cap, then at what the window its refusal states
    # leaves (1024 of 2048 tokens of prompt), which this server refuses too
    again_asked = [r.max_tokens for r in s.chat_requests()[asked:]]
    assert again_asked == ([1] if outgrown == "check" else [4096, 2048 - 1024 - 128 - 64])


async def test_logit_bias_refusal_still_falls_back():
    async with FakeLLMServer(synthetic, reject_logit_bias=True, tokenizer=lambda t: {"YES": [5], "NO": [6]}.get(t, [])
                             ).running() as s:
        async with ChatClient(llm_config(s, model="llama3.1")) as c:
            check = LoopCheck(Scheduler(c).llm("graph"), "openai", s.base_url, {})
            more, clear, _ = await check.ask(msg("Answer with one word, YES or NO"))
    assert clear and [r.logit_bias for r in s.chat_requests()] == [{"5": 100.0, "6": 100.0}, None]


async def test_json_mode_is_switched_off_only_for_a_response_format_refusal():
    def respond(req):
        if (req.body or {}).get("response_format"):
            return refusal("context_length", "vllm")
        return synthetic(req)

    async with FakeLLMServer(respond).running() as s:
        cfg = config(s)
        async with ChatClient(cfg.llm) as c:
            extractor = EpisodicGistExtraction(Scheduler(c), cfg)
            from graphglean.episodic import ChunkInfo

            out = await extractor.batch_openie({"c1": ChunkInfo("Alice met Bob in Paris.", 8, [0], ["d"], {})})
    assert extractor.json_mode is True and len(s.chat_requests()) == 1
    assert "context length" in out["c1"].metadata["errors"][0]


async def test_standalone_server_refuses_chosen_items():
    from graphglean.testing.serve import refusing_rule as _refusing_rule

    class Parser:
        def error(self, message):
            raise SystemExit(message)

    respond = _refusing_rule(lambda r: "fine", "item 3=content_filter/azure", Parser())
    async with FakeLLMServer(respond).running() as s:
        async with ChatClient(llm_config(s)) as c:
            assert (await c.chat(c.request(msg("item 2")))).text == "fine"
            with pytest.raises(LLMRequestError) as e:
                await c.chat(c.request(msg("item 3")))
    assert e.value.kind == "content_filter"
    with pytest.raises(SystemExit, match="no recorded refusal"):
        _refusing_rule(lambda r: "", "x=nope", Parser())


def test_any_404_without_an_item_reason_is_fatal():
    """Every request goes to one URL with one model: Azure's 'Resource not found' (wrong api_version or
    resource) would fail every item the same way."""
    azure = json.dumps({"error": {"code": "404", "message": "Resource not found"}})
    assert isinstance(classify(404, azure, sent=["messages"]), LLMModelError)
    assert isinstance(classify(404, '{"detail": "Not Found"}'), FATAL)
    filtered = json.dumps({"error": {"code": "content_filter", "message": "blocked"}})
    assert type(classify(404, filtered)) is LLMRequestError
