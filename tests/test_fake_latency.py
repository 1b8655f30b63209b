"""The fake server's decoding time (per output token) and its request log, which benchmarks read bounds from."""

import json
import urllib.request

import trio

from graphglean.llm import ChatClient
from graphglean.testing import FakeLLMServer

from .helpers import llm_config


async def test_answers_take_time_per_output_token_and_are_logged_by_conversation():
    answers = {"short": "ok", "long": "x" * 400}  # 1 and 101 tokens as the server counts them
    async with FakeLLMServer(lambda r: answers[r.messages[0]["content"]], latency=0.01,
                             token_latency=0.002).running() as s:
        async with ChatClient(llm_config(s)) as c:
            for first in ("short", "long"):
                await c.chat(c.request([{"role": "user", "content": first}]))
            await c.chat(c.request([{"role": "user", "content": "long"}, {"role": "assistant", "content": "x"},
                                    {"role": "user", "content": "short"}]))

        def fetch() -> list[dict]:
            req = urllib.request.Request(s.base_url + "/log", data=b"{}", method="POST")
            with urllib.request.urlopen(req, timeout=10) as resp:
                return json.loads(resp.read())

        log = await trio.to_thread.run_sync(fetch)
    short, long_, again = log
    assert (short["completion_tokens"], long_["completion_tokens"]) == (1, 101)
    assert long_["finished"] - long_["started"] >= 0.01 + 0.002 * 101
    assert again["chain"] == long_["chain"] != short["chain"]
    assert all(row["prompt_tokens"] > 0 for row in log)
