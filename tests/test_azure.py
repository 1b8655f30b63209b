"""Azure OpenAI: chat goes to the chat deployment, embeddings to the embedding deployment."""

import pytest

from graphglean.llm import ChatClient
from graphglean.testing import FakeLLMServer

from .helpers import llm_config


@pytest.mark.parametrize("embedding_deployment,expected", [("my-embed", "my-embed"),
                                                            ("", "text-embedding-3-small")])
async def test_embeddings_go_to_the_embedding_deployment(embedding_deployment, expected):
    async with FakeLLMServer(lambda r: "ok").running() as s:
        cfg = llm_config(s, provider="azure", api_key="az-key")
        cfg.base_url = s.base_url.removesuffix("/v1")
        cfg.azure.deployment = "my-gpt"
        cfg.azure.embedding_deployment = embedding_deployment
        async with ChatClient(cfg) as c:
            await c.chat(c.request([{"role": "user", "content": "hi"}]))
            result = await c.embed(["some text"])
    assert len(result.vectors) == 1
    assert [r.path for r in s.requests] == ["/openai/deployments/my-gpt/chat/completions",
                                            f"/openai/deployments/{expected}/embeddings"]
    assert all(r.headers["api-key"] == "az-key" for r in s.requests)
