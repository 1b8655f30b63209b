"""Half a character in an answer (a JSON escape of one surrogate: a server that cut an emoji at a token, or a
stream whose events split a pair) is read as UTF-8 can hold it. Left in, the response cache, the run store and
every writer raised after the answer was paid for."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphglean.llm import ChatClient
from graphglean.testing import FakeLLMServer, Reply
from graphglean.text.surrogates import whole_characters

from .helpers import llm_config


@pytest.mark.parametrize("stream", [True, False])
async def test_half_an_emoji_is_a_replacement_character_and_a_split_pair_is_whole(tmp_path, stream):
    # pieces of four characters: the pair below is split between two stream events
    answers = {"one": "abc\ud83d\ude00xyz and a lone \ud83d half", "two": "again \udc00"}
    async with FakeLLMServer(lambda req: Reply(answers[req.last_user])).running() as s:
        cfg = llm_config(s, tmp_path, stream=stream)
        async with ChatClient.from_config(cfg) as c:
            first = await c.chat(c.request([{"role": "user", "content": "one"}]))
            second = await c.chat(c.request([{"role": "user", "content": "two"}]))
            cached = await c.chat(c.request([{"role": "user", "content": "one"}]))  # stored, read back
    assert first.text == "abc\U0001F600xyz and a lone \ufffd half" and second.text == "again \ufffd"
    assert cached.cached and cached.text == first.text
    first.text.encode("utf-8")


@settings(max_examples=300, deadline=None)
@given(st.text(st.characters(), max_size=40))
def test_whole_characters_of_any_text(text):
    out = whole_characters(text)
    out.encode("utf-8")  # never raises
    if not any("\ud800" <= ch <= "\udfff" for ch in text):
        assert out == text
