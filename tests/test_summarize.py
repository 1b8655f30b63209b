
import threading

import pytest

from graphglean.core.errors import ConfigError
from graphglean.llm import ChatClient
from graphglean.scheduling.scheduler import Scheduler
from graphglean.summaries import HistoryMessage, ProgressiveSummarizer, summarize
from graphglean.testing import FakeLLMServer
from graphglean.testing.fake_llm import rough_tokens
from graphglean.testing.models.responders import capped, synthetic

from .conftest import shared_path
from .helpers import ThreadRecordingTokenizer, llm_config


@pytest.mark.parametrize("detail,calls", [(0, 1), (0.25, 9), (0.5, 17), (1, 31)])
async def test_detail_gives_the_recipe_call_counts(detail, calls):
    text = shared_path("corpora", "artificial_intelligence_wikipedia.txt").read_text()
    async with FakeLLMServer(synthetic).running() as s:
        async with ChatClient(llm_config(s)) as c:
            result = await summarize(text, Scheduler(c), detail=detail, additional_instructions="Be brief.")
    assert len(s.chat_requests()) == calls == result.calls == result.chunks
    first = s.chat_requests()[0].messages
    assert first[0] == {"role": "system", "content": "Rewrite this text in summarized form.\n\nBe brief."}
    assert result.summary.count("\n\n") >= calls - 1 and result.prompt_tokens > 0


async def test_recursive_mode_sends_previous_summaries():
    text = "First part. " * 300 + "Second part. " * 300
    async with FakeLLMServer(synthetic).running() as s:
        async with ChatClient(llm_config(s)) as c:
            await summarize(text, Scheduler(c), detail=1, summarize_recursively=True)
    second = s.chat_requests()[1].messages[1]["content"]
    assert second.startswith("Previous summaries:\n\n") and "\n\nText to summarize next:\n\n" in second


async def test_detail_out_of_range_is_a_clear_error():
    async with FakeLLMServer(synthetic).running() as s:
        async with ChatClient(llm_config(s)) as c:
            with pytest.raises(ConfigError, match="between 0 and 1"):
                await summarize("text.", Scheduler(c), detail=1.5)


async def test_progressive_summaries_leave_no_gap():
    async with FakeLLMServer(synthetic).running() as s:
        async with ChatClient(llm_config(s)) as c:
            ps = ProgressiveSummarizer(Scheduler(c).llm("enrich.summary"), window=4, token_budget=40)
            for i in range(11):
                ps.add(HistoryMessage(f"m{i}", "user", "" if i == 3 else f"Message number {i} about boats."))
            point = await ps.maybe_summarize()
    # 10 non-empty unsummarized; all but the newest 2 are folded; small budget = several calls
    assert point.message_id == "m8" and len(s.chat_requests()) == len(ps.summaries) > 1
    summary, recent = ps.get_memory()
    assert [m.id for m in recent] == ["m9", "m10"]
    folded = "\n".join(r.last_user for r in s.chat_requests())
    assert all(f"Message number {i} " in folded for i in range(9) if i != 3)


async def test_chunk_planning_runs_off_the_event_loop():
    tokenizer = ThreadRecordingTokenizer()
    text = "A sentence about the sea. " * 400
    async with FakeLLMServer(synthetic).running() as s:
        async with ChatClient(llm_config(s)) as c:
            result = await summarize(text, Scheduler(c), detail=1, tokenizer=tokenizer)
    assert result.chunks > 1 and tokenizer.threads and threading.get_ident() not in tokenizer.threads


async def test_a_summary_is_capped_at_its_text_and_a_looping_one_is_cut_back_with_a_warning():
    text = "The harbour board met on Tuesday and chose a new ferry company for the northern route. " * 40
    loop = "The board met. " + "The ferry company will run the northern route after the storms. " * 400

    async with FakeLLMServer(capped(lambda req: loop)).running() as s:
        async with ChatClient(llm_config(s, model="gpt-4o-mini")) as c:
            with pytest.warns(UserWarning, match="summary: 1 of 1 chunk summaries .* repeated themselves"):
                result = await summarize(text, Scheduler(c))
    caps = [r.max_tokens for r in s.chat_requests()]
    assert len(caps) == 1 and 256 <= caps[0] < 1000  # the text's length, not the model's 16,384
    assert result.cut == 1 and result.continued == 0
    assert result.summary == "The board met. The ferry company will run the northern route after the storms."


async def test_a_summary_the_cap_cuts_is_continued_not_asked_again():
    text = "A sentence about the sea. " * 40
    long = " ".join(f"Point {i} of the summary says something new about the sea." for i in range(120))
    async with FakeLLMServer(capped(lambda req: long)).running() as s:
        async with ChatClient(llm_config(s, model="gpt-4o-mini")) as c:
            result = await summarize(text, Scheduler(c))
    asked = s.chat_requests()
    assert result.summary == long and result.continued == len(asked) - 1 > 0 and result.cut == 0
    assert sum(r.completion_tokens for r in asked) <= rough_tokens(long) + len(asked)


@pytest.mark.parametrize("answers", [["The sea."], ["The sea.", " And more.", " And more again."]])
async def test_a_server_that_says_cut_of_short_answers_is_not_asked_on_and_on(answers):
    """Found by a model answering anything (tests/test_robust_passes.py): an answer said to be cut at the cap
    while far shorter was continued ~1,400 times, each call with the whole conversation again (339k characters
    and 2.5 GB in a minute); it stops when a continuation adds nothing, or after the continuations that cut
    answers of the cap's length could need to reach the model's limit."""
    from graphglean.testing import Reply

    def respond(req):
        turn = sum(m["role"] == "assistant" for m in req.messages)
        return Reply(answers[min(turn, len(answers) - 1)], finish_reason="length")

    async with FakeLLMServer(respond).running() as s:
        async with ChatClient(llm_config(s, model="gpt-4o-mini")) as c:
            result = await summarize("A sentence about the sea. " * 40, Scheduler(c))
    assert result.cut == 1 and result.summary.startswith("The sea.")
    assert len(s.chat_requests()) <= len(answers) + 1
