"""Streamed chat answers (issue 29): the same result, cache entry and accounts as a whole answer; servers that
refuse streaming or ``stream_options``; timeouts of silence, of the first token and of the whole; streams
closed on a timeout or a cancel."""

from __future__ import annotations

import pytest
import trio

from graphglean.core.errors import LLMError
from graphglean.llm.client import ChatClient
from graphglean.llm.http.watch import AttemptWatch
from graphglean.llm.retry import RetryPolicy
from graphglean.testing import FakeLLMServer, LocalServer, Reply
from graphglean.testing.streaming import pieces

from .helpers import llm_config

LOGPROBS = [{"token": t, "logprob": -0.1 * i, "bytes": list(t.encode()), "top_logprobs": []}
            for i, t in enumerate(["The", " answer", " is", " forty", "-two", "."])]


def rich(req) -> Reply:
    """An answer with every part a result carries: reasoning, content with logprobs, a finish_reason, usage."""
    return Reply(body={"id": "chatcmpl-9", "object": "chat.completion", "created": 1, "model": "m",
                       "choices": [{"index": 0, "message": {"role": "assistant", "content": "The answer is forty-two.",
                                                            "reasoning_content": "Six times seven."},
                                    "logprobs": {"content": LOGPROBS}, "finish_reason": "stop"}],
                       "usage": {"prompt_tokens": 31, "completion_tokens": 6, "total_tokens": 37}})


def msg(text):
    return [{"role": "user", "content": text}]


async def test_a_streamed_answer_is_the_whole_answer_in_result_accounts_and_cache(tmp_path):
    results, accounts = {}, {}
    async with FakeLLMServer(rich).running() as s:
        for stream in (True, False):
            cfg = llm_config(s, tmp_path / str(stream), stream=stream)
            async with ChatClient.from_config(cfg) as c:
                results[stream] = await c.chat(c.request(msg("why?"), max_tokens=50))
                replayed = await c.chat(c.request(msg("why?"), max_tokens=50))  # the cache's copy
                accounts[stream] = (c.account.prompt_tokens, c.account.completion_tokens, c.account.calls)
            assert replayed.cached and (replayed.text, replayed.finish_reason, replayed.usage) == (
                results[stream].text, results[stream].finish_reason, results[stream].usage)
    streamed, whole = results[True], results[False]
    assert s.requests[0].body["stream"] is True and s.requests[0].body["stream_options"] == {"include_usage": True}
    assert "stream" not in s.requests[1].body
    assert (streamed.text, streamed.finish_reason, streamed.usage, streamed.refusal) == (
        whole.text, whole.finish_reason, whole.usage, whole.refusal)
    assert streamed.raw["choices"][0]["logprobs"] == whole.raw["choices"][0]["logprobs"] == {"content": LOGPROBS}
    assert streamed.raw["choices"][0]["message"]["reasoning_content"] == "Six times seven."
    assert accounts[True] == accounts[False] == (31, 6, 1)


async def test_the_cache_key_is_the_unstreamed_request_s(tmp_path):
    async with FakeLLMServer(lambda r: "pong").running() as s:
        async with ChatClient.from_config(llm_config(s, tmp_path, stream=True)) as c:
            await c.chat(c.request(msg("ping"), max_tokens=50))
        async with ChatClient.from_config(llm_config(s, tmp_path, stream=False)) as c:
            again = await c.chat(c.request(msg("ping"), max_tokens=50))
    assert again.cached and again.text == "pong" and len(s.requests) == 1


async def test_a_server_without_stream_options_is_asked_without_them_and_its_tokens_are_counted():
    local = LocalServer(slots=2, tokens_per_s=2000, takes_stream_options=False)
    async with FakeLLMServer(lambda r: "one two three four five six seven", local=local).running() as s:
        async with ChatClient(llm_config(s)) as c:
            first = await c.chat(c.request(msg("count"), max_tokens=50))
            second = await c.chat(c.request(msg("count again"), max_tokens=50))
            summary = c.server.summary(c.usage_counted)
    assert s.status_counts.get(422) == 1  # refused once, remembered for the run
    assert "stream_options" not in s.requests[-1].body and s.requests[-1].body["stream"] is True
    assert first.text == second.text == "one two three four five six seven"
    # the tokens streamed, counted here (the fake server's are pieces of up to four characters)
    assert first.usage.completion_tokens == len(pieces(first.text)) == 9 and first.usage.prompt_tokens > 0
    assert "stream_options" in summary["refused"] and summary["streaming"]["usage"].startswith("counted here")


async def test_a_server_that_refuses_streaming_gets_whole_answers_for_the_rest_of_the_run():
    def no_streams(req):
        if req.body.get("stream"):
            return Reply(status=400, body={"error": {"message": "Streaming is not supported by this server",
                                                     "type": "invalid_request_error"}})
        return "whole"

    async with FakeLLMServer(no_streams).running() as s:
        async with ChatClient(llm_config(s)) as c:
            answers = [(await c.chat(c.request(msg(f"q{i}"), max_tokens=50))).text for i in range(3)]
            summary = c.server.summary()
    assert answers == ["whole"] * 3 and s.status_counts.get(400) == 1 and len(s.requests) == 4
    assert summary["streaming"]["mode"].startswith("refused by the server")


async def test_an_answer_that_flows_is_never_given_up_however_long_it_takes():
    local = LocalServer(slots=1, tokens_per_s=150)
    async with FakeLLMServer(lambda r: "word " * 120, local=local).running() as s:  # ~1 s of tokens
        async with ChatClient(llm_config(s, timeout_s=0.3), retry=RetryPolicy(max_retries=0)) as c:
            started = trio.current_time()
            answer = await c.chat(c.request(msg("go on"), max_tokens=500))
            took = trio.current_time() - started
    assert answer.text == "word " * 120 and took > 0.6 and local.hangups == 0


async def test_a_server_silent_mid_answer_is_given_up_after_timeout_s_and_the_stream_closed():
    local = LocalServer(slots=1, tokens_per_s=1000, stall_after=20, stall_s=3.0, cancels_on_hangup=True)
    async with FakeLLMServer(lambda r: "word " * 200, local=local).running() as s:
        async with ChatClient(llm_config(s, timeout_s=0.3), retry=RetryPolicy(max_retries=0)) as c:
            with pytest.raises(LLMError) as e:
                await c.chat(c.request(msg("go on"), max_tokens=500))
        with trio.move_on_after(4):
            while local.busy:
                await trio.sleep(0.05)
    assert "went silent for llm.timeout_s (0.3 s)" in str(e.value)
    assert local.hangups == 1 and local.generated_tokens < 200 * 2  # the server heard the hang-up and stopped


async def test_a_request_kept_waiting_for_its_first_token_names_first_token_timeout_s():
    local = LocalServer(slots=1, tokens_per_s=100, prompt_tokens_per_s=10, headers_at_first_token=False)
    async with FakeLLMServer(lambda r: "word " * 100, local=local).running() as s:
        cfg = llm_config(s, first_token_timeout_s=0.3)
        async with ChatClient(cfg, retry=RetryPolicy(max_retries=0)) as c:
            with pytest.raises(LLMError) as e:  # a prompt of 10 tokens or more: a second before its first token
                await c.chat(c.request(msg("a question the server reads slowly"), max_tokens=500))
    assert "no answer within llm.first_token_timeout_s (0.3 s)" in str(e.value)


async def test_a_request_queued_behind_a_flowing_answer_waits_longer_than_first_token_timeout_s():
    local = LocalServer(slots=1, tokens_per_s=100, headers_at_first_token=False, cancels_on_hangup=True)
    async with FakeLLMServer(lambda r: "word " * 100, local=local).running() as s:
        cfg = llm_config(s, first_token_timeout_s=0.3, server_concurrency=2)
        async with ChatClient(cfg, retry=RetryPolicy(max_retries=0)) as c:
            answers = []

            async def ask(text):
                answers.append(await c.chat(c.request(msg(text), max_tokens=500)))

            async with trio.open_nursery() as n:
                n.start_soon(ask, "first")  # about a second of tokens
                await trio.sleep(0.05)
                n.start_soon(ask, "second")  # its slot comes when the first ends, long after 0.3 s
    assert len(answers) == 2 and local.hangups == 0 and local.stats()["max_queue_wait_s"] > 0.5


async def test_the_total_cap_ends_even_a_flowing_answer_and_says_so():
    local = LocalServer(slots=1, tokens_per_s=200)
    async with FakeLLMServer(lambda r: "word " * 200, local=local).running() as s:
        async with ChatClient(llm_config(s, total_timeout_s=0.4), retry=RetryPolicy(max_retries=0)) as c:
            with pytest.raises(LLMError) as e:
                await c.chat(c.request(msg("go on"), max_tokens=500))
    assert "no complete answer within llm.total_timeout_s (0.4 s)" in str(e.value)


async def test_a_cancelled_stream_is_closed_so_the_server_stops():
    local = LocalServer(slots=1, tokens_per_s=500, cancels_on_hangup=True)
    async with FakeLLMServer(lambda r: "word " * 500, local=local).running() as s:
        async with ChatClient(llm_config(s)) as c:
            with trio.move_on_after(0.3):
                await c.chat(c.request(msg("go on"), max_tokens=900))
        with trio.move_on_after(3):
            while local.busy:
                await trio.sleep(0.02)
    assert local.hangups == 1 and local.busy == 0 and local.generated_tokens < 400


async def test_a_retry_waits_for_what_the_server_goes_on_generating_after_a_hang_up():
    async with FakeLLMServer(lambda r: "word " * 100, local=LocalServer(slots=1, tokens_per_s=200)).running() as s:
        async with ChatClient(llm_config(s)) as c:
            await c.chat(c.request(msg("learn the pace"), max_tokens=500))  # 100 tokens in about 0.5 s
            watch = AttemptWatch(10, 10)
            watch.first_at, watch.events = 0.0, 22  # given up after 20 tokens
            wait = c.server.drain_s(watch)
    assert 0.25 < wait < 3.0  # the 80 tokens left, at the pace answers came (slower on a loaded machine)


def test_a_watch_names_the_setting_that_ended_an_attempt():
    async def main():
        watch = AttemptWatch(5.0, 1.0, 0.0)
        with watch.start():
            await trio.sleep_forever()
        first = watch.why()
        watch.heard(b"data: {}\n\n")
        return first, watch.why(), watch.scope.deadline - trio.current_time()

    first, silent, left = trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    assert "llm.first_token_timeout_s (5 s)" in first and "llm.timeout_s (1 s)" in silent and 0.99 < left <= 1.0


async def test_llama_cpp_python_s_stream_crlf_framed_and_without_usage_reads_as_a_whole_answer():
    local = LocalServer.like("llama-cpp-python", tokens_per_s=4000)
    async with FakeLLMServer(lambda r: "Scrooge <|> person <|> a miser", local=local).running() as s:
        async with ChatClient(llm_config(s)) as c:
            answer = await c.chat(c.request(msg("who?"), max_tokens=50))
    assert answer.text == "Scrooge <|> person <|> a miser" and answer.finish_reason == "stop"
    assert answer.usage.completion_tokens == len(pieces(answer.text)) and answer.usage.prompt_tokens > 0
    assert s.requests[0].body["stream_options"] == {"include_usage": True}  # taken, and ignored


async def test_a_server_that_stops_an_answer_when_another_request_comes_gets_one_at_a_time():
    local = LocalServer.like("llama-cpp-python", tokens_per_s=2000)
    async with FakeLLMServer(lambda r: "word " * 300, local=local).running() as s:
        async with ChatClient(llm_config(s, max_retries=6)) as c:
            async with trio.open_nursery() as n:
                for i in range(4):
                    n.start_soon(c.chat, c.request(msg(f"q{i}"), max_tokens=900))
            summary = c.server.summary()["concurrency"]
    assert summary["server_slots"] == 1 and summary["in_flight_limit"] == 1, summary
    assert "stops an answer when another request comes" in summary["source"]
    assert local.interrupted <= 6 and c.account.calls == 4  # learned early; every answer whole in the end
