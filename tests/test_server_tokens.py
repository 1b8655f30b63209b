"""YES/NO ids from a local server's own tokenizer, whatever special tokens it adds; a probe never hangs a run."""

import sqlite3

import pytest
import trio

from graphglean.graph.extract import extract_graph
from graphglean.llm import ChatClient
from graphglean.llm.server_tokens import single_token_ids, without_special
from graphglean.testing import FakeLLMServer, ServerTokenizer
from graphglean.testing.models.responders import synthetic

from .helpers import config, llm_config

GEMMA = {"YES": [26915], "NO": [3771]}  # ids as a llama-cpp-python 0.3.36 server gives them, after its BOS (2)


async def probe(tokenizer, **kw):
    async with FakeLLMServer(synthetic, tokenizer_api=tokenizer).running() as s:
        async with ChatClient(llm_config(s, model="gemma-3-270m", **kw)) as c:
            return await single_token_ids(c, ("YES", "NO")), s


async def test_llama_cpp_python_bos_is_dropped_and_the_ids_confirmed():
    ids, s = await probe(ServerTokenizer(GEMMA, "llama-cpp-python", bos=2))
    assert ids == [26915, 3771]
    assert any(r.path == "/extras/detokenize" for r in s.requests)  # dropped ids are checked


async def test_bos_found_from_the_probes_when_the_empty_text_is_refused():
    ids, _ = await probe(ServerTokenizer(GEMMA, "llama-cpp-python", bos=2, empty_refused=True))
    assert ids == [26915, 3771]


@pytest.mark.parametrize("style", ["llama.cpp", "vllm"])
async def test_servers_that_honour_add_special_tokens(style):
    ids, s = await probe(ServerTokenizer(GEMMA, style, bos=2))
    assert ids == [26915, 3771] and not any("detokenize" in r.path for r in s.requests)


async def test_a_word_of_two_real_tokens_gets_no_bias():
    ids, _ = await probe(ServerTokenizer({"YES": [56, 57], "NO": [3771]}, "llama-cpp-python", bos=2))
    assert ids is None


async def test_multi_token_words_of_an_honest_server_are_not_cut_down():
    """YES and NO share a first piece in this vocabulary: dropping it would bias the wrong ids."""
    ids, _ = await probe(ServerTokenizer({"YES": [56, 57], "NO": [56, 58]}, "llama.cpp"))
    assert ids is None


async def test_ids_the_detokenizer_disowns_are_not_used():
    class Disowning(ServerTokenizer):
        def text(self, ids):
            return "<unk>"

    ids, _ = await probe(Disowning(GEMMA, "llama-cpp-python", bos=2, empty_refused=True))
    assert ids is None


def test_without_special():
    assert without_special([2], [[2, 5], [2, 6]]) == [[5], [6]]
    assert without_special([101, 102], [[101, 5, 102], [101, 6, 102]]) == [[5], [6]]
    assert without_special([], [[2, 5], [2, 6]]) == [[5], [6]]  # an empty text without BOS: from the probes
    assert without_special(None, [[2, 5], [2, 6]]) == [[5], [6]]
    assert without_special([9], [[2, 5], [2, 6]]) == [[5], [6]]
    assert without_special(None, [[7, 5], [7, 5]]) == [[5], [5]]
    assert without_special(None, [[5], [6]]) == [[5], [6]]


async def test_gleaning_checks_carry_the_bias_of_a_bos_adding_server():
    async with FakeLLMServer(synthetic, tokenizer_api=ServerTokenizer(GEMMA, "llama-cpp-python", bos=2)
                             ).running() as s:
        cfg = config(s, model="gemma-3-270m")
        result = await extract_graph("Alice Smith met Bob Jones in Paris.", cfg)
    checks = [r for r in s.chat_requests() if r.max_tokens == 1]
    assert checks and all(r.logit_bias == {"26915": 100.0, "3771": 100.0} for r in checks)
    assert result.stats.unclear_checks == 0


async def test_a_tokenize_route_that_never_answers_does_not_hang_the_pass():
    tokenizer = ServerTokenizer(GEMMA, "llama.cpp", hang=True)
    async with FakeLLMServer(synthetic, tokenizer_api=tokenizer, hang_s=3600).running() as s:
        # 2 s: the routes that do answer meet it on a loaded machine (0.5 s did not, beside another test run)
        cfg = config(s, model="gemma-3-270m", timeout_s=2.0, max_concurrency=4)
        cfg.chunking.size, cfg.chunking.overlap = 20, 0
        with trio.move_on_after(60) as hung:  # a hang detector, not a speed target
            result = await extract_graph("Alice Smith met Bob Jones in Paris. " * 12, cfg)
    assert not hung.cancelled_caught
    assert result.stats.failed_chunks == 0 and result.stats.checks > 1
    assert all(r.logit_bias is None for r in s.chat_requests() if r.max_tokens == 1)


async def test_what_a_server_answered_is_kept_with_the_responses_and_what_it_did_not_is_asked_again(tmp_path):
    """A run answered from the cache sends no probe either; a probe that got no answer is not kept."""
    tokenizer = ServerTokenizer(GEMMA, "llama.cpp", bos=2)
    async with FakeLLMServer(synthetic, tokenizer_api=tokenizer).running() as s:
        cfg = llm_config(s, tmp_path, model="gemma-3-270m")
        for _ in range(2):
            async with ChatClient.from_config(cfg) as c:
                found: dict = {}
                assert await single_token_ids(c, ("YES", "NO"), found) == [26915, 3771]
                assert found["found_by"] == "/tokenize"
        assert len([r for r in s.requests if r.path.endswith("tokenize")]) == 3  # YES, NO and "": once
    async with FakeLLMServer(synthetic).running() as bare:  # no tokenize route: its 404s are its answer
        cfg = llm_config(bare, tmp_path / "bare", model="gemma-3-270m")
        (tmp_path / "bare").mkdir()
        counts = []
        for _ in range(2):
            async with ChatClient.from_config(cfg) as c:
                assert await single_token_ids(c, ("YES", "NO")) is None
            counts.append(len(bare.requests))
    assert counts[0] > 0 and counts[1] == counts[0]
    cfg.base_url = "http://127.0.0.1:9/v1"  # nothing listens: no answer, nothing kept
    cfg.timeout_s = cfg.connect_timeout_s = 2
    async with ChatClient.from_config(cfg) as c:
        assert await single_token_ids(c, ("YES", "NO")) is None
    with sqlite3.connect(cfg.cache.path) as db:  # the bare server's answer only
        assert db.execute("SELECT COUNT(*) FROM responses WHERE kind = 'tokenize'").fetchone()[0] == 1


async def test_a_busy_answer_of_the_tokenize_route_is_not_kept_for_good(tmp_path):
    """A 503 (a server still loading its model) says nothing of the route: the next run asks again, and keeps
    what the server then answers."""
    tokenizer = ServerTokenizer(GEMMA, "llama.cpp", bos=2, busy=100)
    async with FakeLLMServer(synthetic, tokenizer_api=tokenizer).running() as s:
        cfg = llm_config(s, tmp_path, model="gemma-3-270m")
        async with ChatClient.from_config(cfg) as c:
            assert await single_token_ids(c, ("YES", "NO")) is None
        tokenizer.busy = 0  # loaded
        async with ChatClient.from_config(cfg) as c:
            assert await single_token_ids(c, ("YES", "NO")) == [26915, 3771]
