"""The in-process transport: the fake server's answers, with no socket."""

from __future__ import annotations

import pytest

from graphglean.core.errors import LLMAuthError
from graphglean.engines.ray import shard_task
from graphglean.llm import ChatClient, RetryPolicy
from graphglean.testing import FakeLLMServer, Reply
from graphglean.testing.inprocess import RESPONDER_ENV, InProcessTransport, install
from graphglean.testing.models.responders import synthetic

from .helpers import llm_config

PASSAGE = ("-Goal-\nFind entities.\n\nPassage:\nEbenezer Scrooge met Jacob Marley in London.\n\nRecords:")


def msg(text):
    return [{"role": "user", "content": text}]


async def _ask(client: ChatClient):
    return await client.chat(client.request(msg(PASSAGE), max_tokens=300))


async def test_answers_as_the_fake_server_does_without_a_socket():
    async with FakeLLMServer(synthetic).running() as s:
        async with ChatClient(llm_config(s)) as c:
            over_http = await _ask(c)
    cfg = llm_config(s)
    cfg.base_url = "http://in-process.invalid/v1"  # nothing listens there: every answer comes from the transport
    transport = InProcessTransport(synthetic, record=True)
    async with ChatClient(cfg, transport=transport) as c:
        in_process = await _ask(c)
        assert c._direct is transport  # handed requests as the client's own pool is
    assert (in_process.text, in_process.finish_reason, in_process.usage) == \
        (over_http.text, over_http.finish_reason, over_http.usage)
    assert "Ebenezer Scrooge" in in_process.text
    assert transport.count == 1 and transport.requests[0].body["max_tokens"] == 300
    assert transport.requests[0].headers["authorization"] == "Bearer sk-test"


async def test_status_replies_are_retried_or_refused_as_over_http():
    replies = iter([Reply(status=503, text="busy"), Reply("fine")])
    cfg = llm_config(FakeLLMServer())
    fast = RetryPolicy(max_retries=3, base_s=0.001, cap_s=0.002)
    async with ChatClient(cfg, transport=InProcessTransport(lambda r: next(replies)), retry=fast) as c:
        result = await c.chat(c.request(msg("hi")))
    assert result.text == "fine" and result.attempts == 2
    refusing = InProcessTransport(lambda r: Reply(status=401, body={"error": {"message": "bad key"}}))
    async with ChatClient(cfg, transport=refusing, retry=fast) as c:
        with pytest.raises(LLMAuthError):
            await c.chat(c.request(msg("hi")))


async def test_embeddings_are_answered_too():
    cfg = llm_config(FakeLLMServer())
    async with ChatClient(cfg, transport=InProcessTransport(synthetic)) as c:
        result = await c.embed(["a lantern", "a lantern", "the sea"])
    assert len(result.vectors) == 3 and result.vectors[0] == result.vectors[1] != result.vectors[2]


def test_the_worker_hook_makes_shard_clients_answer_in_process_and_nothing_else_does(monkeypatch):
    cfg = shard_task.Config()
    cfg.llm.cache.mode = "off"
    assert shard_task.transport_factory is None  # by default every client goes to the configured endpoint
    assert shard_task._client(cfg)._transport is None
    monkeypatch.setattr(shard_task, "transport_factory", None)  # restored after the test
    monkeypatch.setenv(RESPONDER_ENV, "graphglean.testing.models.responders:dense")
    install()
    transport = shard_task._client(cfg)._transport
    assert isinstance(transport, InProcessTransport) and transport.responder.__name__ == "dense"
