"""Answers cut by the completion cap: continued (never asked again from the start), their passages halved
when a continuation makes no progress or the model's limit or window is reached, and no record lost."""

import attrs
import pytest

from graphglean.graph.building.merge import normalize_name
from graphglean.graph.extract import extract_graph
from graphglean.graph.extraction.chunk_extraction import ChunkExtraction
from graphglean.graph.extraction.continuation import join
from graphglean.graph.extraction.gleaning import split_point
from graphglean.graph.extraction.parser import RecordParser
from graphglean.graph.extraction.prompts import GraphPrompts
from graphglean.llm.model_limits.completion_cap import CompletionCap
from graphglean.llm.model_limits.output_limits import output_limit
from graphglean.llm.model_limits.served_limits import ServedLimits, from_models, from_props
from graphglean.testing import FakeLLMServer, Reply
from graphglean.testing.fake_llm import rough_tokens
from graphglean.testing.models.responders import (
    MARK_CONTINUE,
    MARK_RESUME,
    answers_given,
    capped,
    dense,
    dense_corpus,
    dense_records,
)

from .helpers import config as base_config


def config(server, **llm):
    cfg = base_config(server, **llm)
    cfg.graph.resolve.enabled = False  # these tests count extraction calls and read the raw node keys
    return cfg


def issued(text: str) -> tuple[set[str], set[frozenset[str]], set[str]]:
    nodes, edges, descriptions = set(), set(), set()
    for record in dense_records(text):
        fields = record.strip("()").split("<|>")
        if fields[0] == '"entity"':
            nodes.add(normalize_name(fields[1]))
            descriptions.add(fields[3])
        else:
            edges.add(frozenset(map(normalize_name, fields[1:3])))
    return nodes, edges, descriptions


async def test_a_350_token_cap_on_a_dense_corpus_loses_no_issued_record():
    text = dense_corpus(36)
    async with FakeLLMServer(capped(dense)).running() as s:
        cfg = config(s, model="local-8b")
        cfg.llm.max_tokens, cfg.llm.max_output_tokens = 350, 700
        cfg.chunking.size, cfg.chunking.overlap = 1200, 0
        cfg.graph.description_max_tokens = 100000
        result = await extract_graph(text, cfg)
    nodes, edges, descriptions = issued(text)
    graph = result.output
    assert nodes <= set(graph.nodes)
    assert all(graph.has_edge(*sorted(e)) for e in edges)
    # nothing half-written was taken: every description is one the model wrote whole
    assert {d for n in graph.nodes for d in graph.nodes[n]["descriptions"]} <= descriptions
    st = result.stats
    # cut at 350 and continued, each call at most 350 tokens, however long the whole answer
    assert st.truncated_responses > 0 and st.continued_answers > 0 and st.split_passages == 0 and st.failed_chunks == 0
    assert {r.max_tokens for r in s.chat_requests() if r.max_tokens != 1} == {350}
    assert max(rough_tokens(r) for ex in result.extractions.values() for r in ex.responses) > 700
    ex = next(iter(result.extractions.values()))
    # provenance: each answer names the part of the chunk it was about, and the parts tile the chunk
    for response, (start, end) in zip(ex.responses, ex.spans):
        assert 0 <= start < end <= len(text)
    leaves = sorted({tuple(sp) for sp, cut in zip(ex.spans, ex.cut) if not cut})
    assert leaves[0][0] == 0 and leaves[-1][1] == len(text)
    assert all(a[1] == b[0] for a, b in zip(leaves, leaves[1:]))


async def test_a_cut_answer_is_continued_and_no_token_is_written_twice():
    text = dense_corpus(6)
    whole = "##\n".join(dense_records(text)) + "\n<|COMPLETE|>"
    async with FakeLLMServer(capped(dense)).running() as s:
        cfg = config(s, model="gpt-4o-mini")
        cfg.llm.max_tokens = 60
        cfg.graph.max_gleanings = 0
        result = await extract_graph(text, cfg)
    asked = s.chat_requests()
    assert {r.max_tokens for r in asked} == {60} and len(asked) > 2
    ex = next(iter(result.extractions.values()))
    assert ex.responses == [whole] and ex.cut == [False] and len(ex.joins[0]) == len(asked) - 1
    # every call but the first continues the one before it: the answer so far, then the request to continue
    for before, after in zip(asked, asked[1:]):
        assert after.messages[:len(before.messages)] == before.messages
        assert after.messages[-1]["content"] == GraphPrompts.from_config(cfg.graph).resume_prompt
    written = sum(r.completion_tokens for r in asked)
    assert written <= rough_tokens(whole) + len(asked)  # the server's rounding: a token per answer at most
    st = result.stats
    assert st.continued_answers == 1 and st.continuations == len(asked) - 1 and st.split_passages == 0
    assert st.continuation_saved_tokens > 0 and st.cut_records == 0
    assert issued(text)[0] <= set(result.output.nodes)


def restarting(responder):
    """A model that, asked to continue, starts the record it was cut in over, after a line of its own."""
    inner = capped(responder)
    written = {}  # what it sent -> the continuation it meant

    def respond(req):
        messages = [dict(m, content=written.get(m["content"], m["content"])) for m in req.messages]
        reply = inner(attrs.evolve(req, body={**req.body, "messages": messages}))
        if MARK_RESUME not in req.last_user or not reply.text:
            return reply
        so_far = messages[-2]["content"]
        sent = "Here is the rest:\n" + so_far[so_far.rfind('("'):] + reply.text
        written[sent] = reply.text
        return attrs.evolve(reply, text=sent)
    return respond


async def test_a_continuation_that_starts_the_cut_record_over_is_read_once_and_whole():
    text = dense_corpus(6)
    async with FakeLLMServer(restarting(dense)).running() as s:
        cfg = config(s, model="gpt-4o-mini")
        cfg.llm.max_tokens = 80
        cfg.graph.max_gleanings = 0
        result = await extract_graph(text, cfg)
    nodes, _, descriptions = issued(text)
    assert nodes <= set(result.output.nodes) and result.stats.continued_answers == 1
    assert {d for n in result.output.nodes for d in result.output.nodes[n]["descriptions"]} <= descriptions
    assert result.stats.malformed == 0 and result.stats.repeated_records == 0 and result.stats.split_passages == 0


def starting_over(responder):
    """A model that, asked to continue, writes its answer again from the start."""
    inner = capped(responder)

    def respond(req):
        if MARK_RESUME in req.last_user:
            return inner(attrs.evolve(req, body={**req.body, "messages": req.messages[:1]}))
        return inner(req)
    return respond


async def test_a_continuation_without_progress_halves_the_passage():
    text = dense_corpus(6)
    async with FakeLLMServer(starting_over(dense)).running() as s:
        cfg = config(s, model="gpt-4o-mini")
        cfg.llm.max_tokens = 300
        cfg.graph.max_gleanings = 0
        result = await extract_graph(text, cfg)
    assert result.stats.split_passages > 0 and result.stats.failed_chunks == 0
    assert issued(text)[0] <= set(result.output.nodes)


def test_joining_a_continuation():
    parser = RecordParser()
    cut = '("entity"<|>Ada<|>person<|>A traveller.)##\n("entity"<|>Bram Brook<|>person<|>A mer'
    rest = 'chant of Lagos.)##\n("entity"<|>Cleo<|>person<|>A sailor.)\n<|COMPLETE|>'
    whole = cut + rest
    assert join(cut, rest, parser) == (whole, len(cut))  # straight on
    assert join(cut, "person<|>A mer" + rest, parser)[0] == whole  # the last words repeated
    over = '("entity"<|>Bram Brook<|>person<|>A mer' + rest
    assert join(cut, over, parser)[0] == whole  # the cut record started over
    assert join(cut, "Sure, here is the rest:\n" + over, parser)[0] == whole  # after a line of its own
    reworded = '("entity"<|>Bram Brook<|>person<|>A trader in Lagos.)\n<|COMPLETE|>'
    at = cut.index('("entity"<|>Bram')
    assert join(cut, reworded, parser) == (cut[:at] + reworded, at)  # ... in other words: the new one is read
    assert join(cut, " Another sentence: then more.", parser)[0] == cut + " Another sentence: then more."


async def test_a_repetition_loop_is_not_asked_again_and_counts_once():
    loop = '("entity"<|>Ada Archer<|>person<|>A traveller, again and again.)##\n' * 400  # cut mid-record

    async with FakeLLMServer(capped(lambda req: loop if "Records:" in req.last_user else "NO")).running() as s:
        cfg = config(s, model="local")
        cfg.llm.max_tokens, cfg.llm.max_output_tokens = 200, 4000
        cfg.graph.max_gleanings = 0
        result = await extract_graph("Ada Archer walked. " * 5, cfg)
    assert len(s.chat_requests()) == 1 and result.stats.repetition_loops == 1
    assert result.output.nodes["ada archer"]["frequency"] == 1 and result.stats.repeated_records > 2
    assert result.stats.cut_records == 1  # the loop's half-written last record is not read either


async def test_an_answer_repeating_a_prose_line_is_a_loop_too():
    prose = "Let me think about the passage.\n" + "The passage names a traveller who walked through the town.\n" * 300

    async with FakeLLMServer(capped(lambda req: prose if "Records:" in req.last_user else "NO")).running() as s:
        cfg = config(s, model="local")
        cfg.llm.max_tokens = 300
        cfg.graph.max_gleanings = 0
        result = await extract_graph("Ada Archer walked. " * 5, cfg)
    assert len(s.chat_requests()) == 1  # a loop: not asked again
    # and with no record read from it, the chunk fails, saying why its answer was kept (it was stored as read)
    assert result.stats.failed_chunks == 1 and not result.extractions
    assert "it repeated itself" in str(result.failed[0].error)


async def test_a_list_whose_entries_share_lines_is_no_loop_and_is_continued():
    # as qwen3 answers (recorded in ../shared/realdata): markdown entries, each with the same type line and,
    # for a paper's authors, the same description
    entry = "- **{}**\n  - **Type:** Person\n  - **Description:** Author of the paper on GET3D.\n"
    listing = "".join(entry.format(f"Author {chr(65 + i // 26)}{chr(65 + i % 26)}") for i in range(120))

    async with FakeLLMServer(capped(lambda req: listing if "Records:" in req.last_user else "NO")).running() as s:
        cfg = config(s, model="local")
        cfg.llm.max_tokens = 300
        cfg.graph.max_gleanings = 0
        result = await extract_graph("The GET3D paper has many authors. " * 20, cfg)
    assert result.stats.repetition_loops == 0 and result.stats.continued_answers == 1
    assert next(iter(result.extractions.values())).responses == [listing]


async def test_a_model_running_on_without_repeating_itself_is_stopped_at_twenty_times_its_passage():
    endless = "##\n".join(f'("entity"<|>Person {i}<|>person<|>Number {i} of an endless list.)' for i in range(2000))

    async with FakeLLMServer(capped(lambda req: endless if "Records:" in req.last_user else "NO")).running() as s:
        cfg = config(s, model="local")
        cfg.llm.max_tokens = 100
        cfg.graph.max_gleanings = 0
        result = await extract_graph("Ada Archer walked to the market and back again.", cfg)  # 10 tokens
    assert sum(r.completion_tokens for r in s.chat_requests()) in range(200, 300)
    assert result.stats.split_passages == 0 and result.stats.repetition_loops == 0 and result.stats.cut_records == 1


async def test_the_cut_end_of_an_answer_at_the_deepest_split_is_kept_as_text_not_as_a_record():
    async with FakeLLMServer(starting_over(dense)).running() as s:
        cfg = config(s, model="local")
        cfg.llm.max_tokens, cfg.graph.max_splits = 50, 0
        cfg.graph.max_gleanings = 0
        result = await extract_graph(dense_corpus(3), cfg)
    assert result.stats.cut_records == 1 and result.stats.split_passages == 0
    descriptions = issued(dense_corpus(3))[2]
    assert all(d in descriptions for n in result.output.nodes for d in result.output.nodes[n]["descriptions"])


def test_old_stored_extractions_still_load_and_read_as_whole():
    old = {"chunk_id": "c", "responses": ["x"], "rounds": 0, "checks": 0, "prompt_tokens": 1,
           "completion_tokens": 1, "truncated": 1, "unclear": 0}
    ex = ChunkExtraction.from_json(old)
    assert ex.span(0) is None and not ex.is_cut(0)
    assert ChunkExtraction.from_json(ex.to_json()) == ex


@pytest.mark.parametrize("text,expected", [
    ("one two.\n\nthree four.", "three four."),
    ("Alpha beta gamma. Delta epsilon zeta.", "Delta epsilon zeta."),
    ("一二三四五。六七八九十。", "六七八九十。"),
    ("word " * 10, "word " * 5),
])
def test_split_point_prefers_paragraphs_then_sentences_then_words(text, expected):
    at = split_point(text)
    assert at is not None and text[at:] == expected
    assert split_point("x") is None


def test_output_limits_of_common_models():
    assert output_limit("gpt-4o-mini") == 16384 and output_limit("gpt-4.1-nano") == 32768
    assert output_limit("openai/gpt-4-turbo-2024-04-09") == 4096 and output_limit("llama3.1:8b") is None
    assert output_limit("gpt-4o-mini", 2000) == 2000


@pytest.mark.parametrize("model,configured,served,cap", [
    ("gpt-4o-mini", 0, ServedLimits(), 16384),  # the table
    ("local-8b", 0, ServedLimits(), 4096),  # nothing known
    ("local-8b", 0, ServedLimits(output=2048), 2048),  # what the server says
    ("local-8b", 1000, ServedLimits(output=2048), 1000),  # llm.max_tokens
    ("gpt-4o-mini", 50000, ServedLimits(), 16384),  # never above the model's own limit
])
def test_the_default_cap_is_the_served_model_limit(model, configured, served, cap):
    from graphglean.core.config import LLMConfig

    assert CompletionCap.of(LLMConfig(model=model, max_tokens=configured), served).cap == cap


def test_what_servers_report_of_their_models():
    vllm = {"object": "list", "data": [{"id": "qwen", "object": "model", "max_model_len": 32768}]}
    router = {"data": [{"id": "a", "context_length": 8192}, {"id": "b", "context_length": 131072,
                                                              "top_provider": {"max_completion_tokens": 16384}}]}
    assert from_models(vllm, "qwen") == ServedLimits(None, 32768)
    assert from_models(router, "b") == ServedLimits(16384, 131072) and from_models(router, "c") == ServedLimits()
    assert from_models({"data": [{"id": "x", "meta": {"n_ctx_train": 131072}}]}, "x") == ServedLimits()
    llama_cpp = {"default_generation_settings": {"n_ctx": 4096, "params": {"n_predict": -1}}, "total_slots": 2}
    assert from_props(llama_cpp) == ServedLimits(None, 4096) and from_props({"detail": "Not Found"}) == ServedLimits()


async def test_a_local_server_window_bounds_each_request():
    import httpx

    from graphglean.core.config import LLMConfig
    from graphglean.llm.client import ChatClient

    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/props":  # llama.cpp's: a slot's window
            return httpx.Response(200, json={"default_generation_settings": {"n_ctx": 3000}})
        return httpx.Response(404)

    cfg = LLMConfig(base_url="http://local:8080/v1", model="some-gguf", http_transport="httpx")
    async with ChatClient(cfg, transport=httpx.MockTransport(answer)) as client:
        caps = await CompletionCap.served(cfg, client)
    assert caps.window == 3000 and caps.cap == 4096
    assert caps.within(1000) == 3000 - 1000 - 125 - 64 and caps.within(0, budget=500) == 500


async def test_a_resumed_run_rereads_continued_answers_without_asking_again(tmp_path):
    from graphglean.launch import run

    source = tmp_path / "dense.txt"
    source.write_text(dense_corpus(24))
    async with FakeLLMServer(capped(dense)).running() as s:
        cfg = config(s, model="local-8b")
        cfg.llm.max_tokens, cfg.llm.max_output_tokens = 120, 240
        cfg.input.path, cfg.output.dir = str(source), str(tmp_path / "out")
        cfg.graph.description_max_tokens = 100000
        await run(cfg, notice=lambda m: None, out=open(tmp_path / "log", "w"))
        first = (tmp_path / "out" / "graph.json").read_text()
        report = (tmp_path / "out" / "report.json").read_text()
        asked = len(s.chat_requests())
        await run(cfg, notice=lambda m: None, out=open(tmp_path / "log", "w"))
    assert len(s.chat_requests()) == asked  # every answer, continued ones included, came from the run store
    assert (tmp_path / "out" / "graph.json").read_text() == first
    nodes = issued(dense_corpus(24))[0]
    import json

    assert '"continued_answers": 0' not in report and '"continued_answers"' in report
    assert nodes <= {n["id"] for n in json.loads(first)["nodes"]}


async def serial_extraction(texts, respond, **llm):
    """Extraction of ``texts`` one call at a time (the order of calls is fixed); (result, the caps asked)."""
    async with FakeLLMServer(respond).running() as s:
        cfg = config(s, max_concurrency=1, **llm)
        cfg.graph.max_gleanings = 0
        result = await extract_graph(texts, cfg)
    assert result.stats.failed_chunks == 0 and all(issued(t)[0] <= set(result.output.nodes) for t in texts)
    return result, [r.max_tokens for r in s.chat_requests()]


def refusing_above(cap, refusal):
    inner = capped(dense)
    return lambda req: Reply(status=400, body=refusal) if req.max_tokens and req.max_tokens > cap else inner(req)


async def test_a_refusal_that_names_the_model_limit_is_asked_again_at_that_limit():
    too_large = {"error": {"message": "max_tokens is too large: 16384. This model supports at most 1000 completion "
                           "tokens, whereas you provided 16384.", "type": "invalid_request_error",
                           "param": "max_tokens", "code": "invalid_value"}}
    result, caps = await serial_extraction([dense_corpus(6, seed=6 * k) for k in range(4)],
                                           refusing_above(1000, too_large), model="gpt-4o-mini")
    assert caps[:2] == [16384, 1000] and set(caps[2:]) == {1000}  # the refused cap is not asked for again
    assert result.stats.split_passages == 0


async def test_a_refusal_without_a_limit_halves_the_cap_of_the_model_limit():
    too_large = {"error": {"message": "max_tokens is too large", "param": "max_tokens", "code": "invalid_value"}}
    result, caps = await serial_extraction([dense_corpus(6, seed=6 * k) for k in range(3)],
                                           refusing_above(3000, too_large), model="gpt-4o-mini")
    assert caps[:4] == [16384, 8192, 4096, 2048] and set(caps[4:]) == {2048}


async def test_a_window_the_refusal_states_bounds_every_later_request():
    window = {"object": "error", "message": "This model's maximum context length is 2048 tokens. However, you "
              "requested 4700 tokens (604 in the messages, 4096 in the completion). Please reduce the length of the "
              "messages or completion.", "type": "BadRequestError", "param": None, "code": 400}
    inner = capped(dense)

    def respond(req):  # a vLLM server with a 2048-token window
        prompt = rough_tokens(req.prompt)
        return Reply(status=400, body=window) if prompt + (req.max_tokens or 0) > 2048 else inner(req)

    texts = [dense_corpus(6, seed=6 * k) for k in range(4)]
    result, caps = await serial_extraction(texts, respond, model="local-8b")
    assert caps.count(4096) == 1 and all(c < 2048 for c in caps[1:])  # refused once, then within the window
    assert result.stats.split_passages == 0


async def test_a_continuation_that_fills_the_window_halves_the_passage():
    inner = capped(dense)

    def respond(req):  # a 1200-token window, and a model that writes 100 tokens an answer
        if rough_tokens(req.prompt) + (req.max_tokens or 0) > 1200:
            return Reply(status=400, body={"error": {"message": "This model's maximum context length is 1200 "
                                                                 "tokens.", "code": "context_length_exceeded"}})
        return inner(attrs.evolve(req, body={**req.body, "max_tokens": min(req.max_tokens or 100, 100)}))

    text = dense_corpus(9)
    result, _ = await serial_extraction([text], respond, model="local-8b", max_tokens=100)
    assert result.stats.continued_answers > 0 and result.stats.split_passages > 0


def test_the_limit_a_refusal_names():
    from graphglean.llm.model_limits.output_limits import stated_limit

    assert stated_limit("This model supports at most 1000 completion tokens, whereas you provided 4000.") == 1000
    assert stated_limit("max_tokens: 100000 > 64000, which is the maximum allowed number of output tokens for "
                        "claude-opus-4") == 64000
    assert stated_limit("max_tokens must be less than or equal to 8192") == 8192
    assert stated_limit("max_tokens is too large: context_length_exceeded") is None




async def test_gleaning_after_a_continued_answer_resends_the_conversation_unchanged_and_hits_the_prompt_cache():
    from graphglean.testing.prompt_cache import PromptCache

    text = dense_corpus(6)

    def respond(req):  # the dense model, that also finds more when asked once
        if MARK_CONTINUE in req.last_user:
            return '("entity"<|>Zed Zephyr<|>person<|>A late arrival.)\n<|COMPLETE|>'
        if req.max_tokens == 1:
            return Reply("YES" if answers_given(req) < 2 else "NO", finish_reason="length")
        return dense(req)

    async with FakeLLMServer(capped(respond), prompt_cache=PromptCache(min_tokens=0, block_tokens=16)).running() as s:
        cfg = config(s, model="gpt-4o-mini")
        cfg.llm.max_tokens = 150
        result = await extract_graph(text, cfg)
        asked = s.chat_requests()
    assert result.stats.gleaning_rounds == 1 and result.stats.continued_answers == 1 and "zed zephyr" in result.output
    # each call re-sends an earlier one's conversation unchanged and adds to its end (a check branches off)
    for later in asked[1:]:
        assert any(later.messages[:len(r.messages)] == r.messages for r in asked if r is not later)
    later = [r for r in asked if r.assistant_turns]
    share = sum(r.cached_tokens for r in later) / sum(rough_tokens(r.prompt) for r in later)
    assert share >= 0.9
    ex = next(iter(result.extractions.values()))
    assert 0 < ex.cached_tokens <= ex.prompt_tokens


async def test_a_passage_too_long_for_a_small_window_is_halved_until_it_fits():
    inner = capped(dense)

    def respond(req):  # vLLM with a 2,500-token window
        prompt = rough_tokens(req.prompt)
        if prompt + (req.max_tokens or 0) > 2500:
            return Reply(status=400, body={"object": "error", "code": 400, "type": "BadRequestError",
                                           "message": f"This model's maximum context length is 2500 tokens. However,"
                                           f" you requested {prompt + req.max_tokens} tokens ({prompt} in the "
                                           f"messages, {req.max_tokens} in the completion)."})
        return inner(req)

    text = dense_corpus(90)
    async with FakeLLMServer(respond).running() as s:
        cfg = config(s, model="local-8b")
        cfg.chunking.size, cfg.chunking.overlap = 4000, 0
        cfg.graph.max_gleanings = 0
        result = await extract_graph(text, cfg)
    assert result.stats.chunks == 1 and result.stats.failed_chunks == 0 and result.stats.split_passages > 0
    assert issued(text)[0] <= set(result.output.nodes)
