"""Answers cut by the completion cap: asked again at the model's limit, then split, and no record lost."""

import pytest

from graphglean.graph.building.merge import normalize_name
from graphglean.graph.extract import extract_graph
from graphglean.graph.extraction.gleaning import ChunkExtraction, split_point
from graphglean.llm.output_limits import output_limit
from graphglean.testing import FakeLLMServer, Reply
from graphglean.testing.models.responders import capped, dense, dense_corpus, dense_records

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
    assert st.truncated_responses > 0 and st.raised_caps > 0 and st.split_passages > 0 and st.failed_chunks == 0
    caps = {r.max_tokens for r in s.chat_requests() if r.max_tokens != 1}
    assert caps == {350, 700}
    ex = next(iter(result.extractions.values()))
    # provenance: each answer names the part of the chunk it was about, and the parts tile the chunk
    for response, (start, end) in zip(ex.responses, ex.spans):
        assert 0 <= start < end <= len(text)
    leaves = sorted({tuple(sp) for sp, cut in zip(ex.spans, ex.cut) if not cut})
    assert leaves[0][0] == 0 and leaves[-1][1] == len(text)
    assert all(a[1] == b[0] for a, b in zip(leaves, leaves[1:]))


async def test_a_cut_answer_is_asked_again_at_the_model_limit_once():
    text = dense_corpus(6)
    async with FakeLLMServer(capped(dense)).running() as s:
        cfg = config(s, model="gpt-4o-mini")
        cfg.llm.max_tokens = 60
        cfg.graph.max_gleanings = 0
        result = await extract_graph(text, cfg)
    assert [r.max_tokens for r in s.chat_requests()] == [60, output_limit("gpt-4o-mini")] == [60, 16384]
    assert result.stats.raised_caps == 1 and result.stats.split_passages == 0
    assert issued(text)[0] <= set(result.output.nodes)
    assert result.extractions and all(not c for ex in result.extractions.values() for c in ex.cut)


async def extract_refusing_large_caps(text, refusal):
    """Extraction of ``text`` at a 100-token cap, from a server that answers ``refusal`` to any larger cap."""
    inner = capped(dense)

    def respond(req):
        return Reply(status=400, body=refusal) if req.max_tokens and req.max_tokens > 100 else inner(req)

    async with FakeLLMServer(respond).running() as s:
        cfg = config(s, model="local")
        cfg.llm.max_tokens, cfg.llm.max_output_tokens = 100, 4000
        cfg.graph.max_gleanings = 0
        return await extract_graph(text, cfg), s


async def test_a_refused_larger_cap_splits_the_passage_instead():
    text = dense_corpus(6)
    # a local server whose window cannot hold the model's full output limit
    result, _ = await extract_refusing_large_caps(
        text, {"error": {"message": "max_tokens is too large: context_length_exceeded"}})
    assert result.stats.split_passages > 0 and result.stats.failed_chunks == 0
    nodes, edges, _ = issued(text)
    assert nodes <= set(result.output.nodes)


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


async def test_the_cut_end_of_an_answer_at_the_deepest_split_is_kept_as_text_not_as_a_record():
    async with FakeLLMServer(capped(dense)).running() as s:
        cfg = config(s, model="local")
        cfg.llm.max_tokens, cfg.llm.max_output_tokens, cfg.graph.max_splits = 50, 50, 0
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
    assert output_limit("openai/gpt-4-turbo-2024-04-09") == 4096 and output_limit("llama3.1:8b") == 8192
    assert output_limit("gpt-4o-mini", 2000) == 2000


async def test_a_resumed_run_rereads_split_and_cut_answers_without_asking_again(tmp_path):
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
    assert len(s.chat_requests()) == asked  # every answer, split halves included, came from the run store
    assert (tmp_path / "out" / "graph.json").read_text() == first
    nodes = issued(dense_corpus(24))[0]
    import json

    assert '"split_passages": 0' not in report and '"split_passages"' in report
    assert nodes <= {n["id"] for n in json.loads(first)["nodes"]}


async def test_a_cap_the_endpoint_calls_too_large_is_not_fatal_and_not_asked_again():
    text = dense_corpus(6)
    # the output-limit table overshoots this model: OpenAI's answer names the parameter
    too_large = {"error": {"message": "max_tokens is too large: 4000. This model supports at most 1000 completion "
                           "tokens, whereas you provided 4000.", "type": "invalid_request_error",
                           "param": "max_tokens", "code": "invalid_value"}}
    result, s = await extract_refusing_large_caps(text, too_large)
    assert result.stats.split_passages > 0 and result.stats.failed_chunks == 0
    assert sum(1 for r in s.chat_requests() if r.max_tokens == 4000) == 1  # remembered after the first refusal
    assert issued(text)[0] <= set(result.output.nodes)


async def serial_extraction(texts, respond):
    """Extraction of ``texts`` one call at a time (the order of calls is fixed), at a 60-token cap and a
    4000-token model limit; (result, the caps asked)."""
    async with FakeLLMServer(respond).running() as s:
        cfg = config(s, model="local", max_concurrency=1)
        cfg.llm.max_tokens, cfg.llm.max_output_tokens = 60, 4000
        cfg.graph.max_gleanings = 0
        result = await extract_graph(texts, cfg)
    assert result.stats.failed_chunks == 0 and all(issued(t)[0] <= set(result.output.nodes) for t in texts)
    return result, [r.max_tokens for r in s.chat_requests()]


def refusing_above(cap, refusal):
    inner = capped(dense)
    return lambda req: Reply(status=400, body=refusal) if req.max_tokens and req.max_tokens > cap else inner(req)


async def test_after_the_first_cut_answer_the_pass_asks_at_the_model_limit():
    texts = [dense_corpus(6, seed=6 * k) for k in range(6)]  # a document, a chunk
    result, caps = await serial_extraction(texts, capped(dense))
    # the first answer is cut, and every later call (the first chunk's second one, and the other chunks'
    # first ones, built when their turn comes) asks at the limit
    assert result.stats.chunks == 6 and caps == [60] + [4000] * 6
    assert result.stats.raised_caps == 1 == result.stats.truncated_responses


async def test_a_refusal_that_names_the_model_limit_is_asked_again_at_that_limit():
    too_large = {"error": {"message": "max_tokens is too large: 4000. This model supports at most 1000 completion "
                           "tokens, whereas you provided 4000.", "type": "invalid_request_error",
                           "param": "max_tokens", "code": "invalid_value"}}
    result, caps = await serial_extraction([dense_corpus(6, seed=6 * k) for k in range(4)],
                                           refusing_above(1000, too_large))
    assert caps == [60, 4000] + [1000] * 4  # the refused cap is not asked for again
    assert result.stats.split_passages == 0


def test_the_limit_a_refusal_names():
    from graphglean.llm.output_limits import stated_limit

    assert stated_limit("This model supports at most 1000 completion tokens, whereas you provided 4000.") == 1000
    assert stated_limit("max_tokens: 100000 > 64000, which is the maximum allowed number of output tokens for "
                        "claude-opus-4") == 64000
    assert stated_limit("max_tokens must be less than or equal to 8192") == 8192
    assert stated_limit("max_tokens is too large: context_length_exceeded") is None


async def test_a_window_too_small_for_the_raised_cap_sends_the_pass_back_to_the_configured_cap():
    texts = [dense_corpus(6, seed=6 * k) for k in range(4)]
    window = {"error": {"message": "This model's maximum context length is 2048 tokens. However, you requested "
                        "4300 tokens. Please reduce the length of the messages or completion.",
                        "type": "invalid_request_error", "code": "context_length_exceeded"}}
    inner = capped(dense)

    def respond(req):
        return Reply(status=400, body=window) if req.max_tokens and req.max_tokens > 1000 else inner(req)

    async with FakeLLMServer(respond).running() as s:
        cfg = config(s, model="local", max_concurrency=1)
        cfg.llm.max_tokens, cfg.llm.max_output_tokens = 60, 4000
        cfg.graph.max_gleanings = 0
        result = await extract_graph(texts, cfg)
    caps = [r.max_tokens for r in s.chat_requests()]
    assert caps.count(4000) <= 2  # the first chunk's raise, and at most one call built before it was refused
    assert result.stats.failed_chunks == 0 and result.stats.split_passages > 0
    assert all(issued(t)[0] <= set(result.output.nodes) for t in texts)
