import gzip
import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
import tiktoken
import tiktoken_ext.openai_public as openai_public

from graphglean.core import tokens
from graphglean.core.tokens import Tokenizer, VocabularyError, bundled_ranks, encoding_name_for
from graphglean.graph.extract import extract_graph
from graphglean.testing import FakeLLMServer
from graphglean.testing.models.responders import synthetic

from .helpers import config

ROOT = Path(__file__).resolve().parent.parent


def test_encoding_follows_model():
    assert encoding_name_for("gpt-4o-mini") == "o200k_base"
    assert encoding_name_for("gpt-4.1") == "o200k_base"
    assert encoding_name_for("o3-mini") == "o200k_base"
    assert encoding_name_for("gpt-4") == "cl100k_base"
    assert encoding_name_for("gpt-3.5-turbo") == "cl100k_base"


def test_count_encode_decode_truncate():
    tok = Tokenizer("gpt-4")
    assert tok.exact
    text = "The quick brown fox jumps over the lazy dog."
    assert tok.decode(tok.encode(text)) == text
    assert tok.count(text) == len(tok.encode(text)) == 10
    assert tok.count(tok.truncate(text, 4)) == 4
    assert tok.truncate(text, 100) == text


def test_single_token_ids_for_logit_bias():
    tok = Tokenizer("gpt-4")
    assert tok.single_token_id("YES") == 14331
    assert tok.single_token_id("NO") == 9173
    assert tok.single_token_id("antidisestablishmentarianism") is None


_OFFLINE_PROBE = """
import json, socket, warnings
def refuse(*args, **kwargs):
    raise OSError("network disabled for this test")
socket.socket.connect = refuse
socket.create_connection = refuse
warnings.simplefilter("error")
from graphglean.core.tokens import Tokenizer
tok = Tokenizer("gpt-4o-mini")
print(json.dumps({"exact": tok.exact, "name": tok.encoding.name, "yes": tok.single_token_id("YES"),
                  "no": tok.single_token_id("NO"), "hello": tok.encode("hello world"),
                  "korean": tok.count("서울은 대한민국의 수도이다."), "cl100k": Tokenizer("gpt-4").exact}))
"""


def test_o200k_is_exact_offline_with_no_warning(tmp_path):
    """No network and an empty tiktoken cache: gpt-4o-mini still counts in o200k, and nothing is written."""
    cache = tmp_path / "tiktoken-cache"
    cache.mkdir()
    env = {**os.environ, "TIKTOKEN_CACHE_DIR": str(cache), "HTTPS_PROXY": "http://127.0.0.1:9",
           "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", _OFFLINE_PROBE], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"exact": True, "name": "o200k_base", "yes": 31958, "no": 14695,
                                       "hello": [24912, 2375], "korean": 7, "cl100k": True}
    assert "Warning" not in done.stderr and list(cache.iterdir()) == []


@pytest.mark.parametrize("name", ["o200k_base", "cl100k_base"])
def test_bundled_encodings_are_tiktokens_own(monkeypatch, name):
    """Pattern and special tokens are what tiktoken's own constructor would give for the same ranks."""
    ranks = bundled_ranks(name)
    monkeypatch.setattr(openai_public, "load_tiktoken_bpe", lambda *a, **k: ranks)
    theirs = getattr(openai_public, name)()
    ours = tokens.bundled_encoding(name)
    assert ours._pat_str == theirs["pat_str"]
    assert ours._special_tokens == theirs["special_tokens"]
    assert ours.n_vocab == tiktoken.Encoding(**theirs).n_vocab


def test_a_rank_file_that_is_not_openais_is_refused(tmp_path):
    real = gzip.decompress(tokens._vocabulary_file("o200k_base").read_bytes())
    forged = tmp_path / "o200k_base.tiktoken.gz"
    forged.write_bytes(gzip.compress(real.replace(b" 31958\n", b" 31959\n", 1)))
    with pytest.raises(VocabularyError, match="sha256"):
        bundled_ranks("o200k_base", forged)
    with pytest.raises(VocabularyError, match="cannot read"):
        bundled_ranks("o200k_base", tmp_path / "absent.gz")


def test_unloadable_encoding_falls_back_with_a_warning(monkeypatch, tmp_path):
    def offline(name):
        raise ConnectionError("offline")

    real_file = tokens._vocabulary_file
    monkeypatch.setattr(tokens, "_vocabulary_file",
                        lambda name: tmp_path / "absent.gz" if name == "o200k_base" else real_file(name))
    monkeypatch.setattr(tiktoken, "get_encoding", offline)
    tokens._load.cache_clear()
    try:
        with pytest.warns(tokens.ApproximateTokenCountWarning):
            tok = Tokenizer("gpt-4o")
    finally:
        tokens._load.cache_clear()
    assert not tok.exact
    assert tok.count("hello world") == 2  # approximate, but an answer always comes


async def test_gpt_4o_mini_loop_check_sends_o200k_ids():
    async with FakeLLMServer(synthetic).running() as s:
        with warnings.catch_warnings():
            warnings.simplefilter("error", tokens.ApproximateTokenCountWarning)
            await extract_graph("Alice Smith met Bob Jones in Paris.", config(s, model="gpt-4o-mini"))
    checks = [r for r in s.chat_requests() if r.max_tokens == 1]
    assert checks and checks[0].logit_bias == {"31958": 100.0, "14695": 100.0}
