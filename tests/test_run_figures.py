"""What a run says of itself (issue 29, found against a real local server): the graph row's tokens count every
call of the pass, progress lines agree with the table, the YES/NO check method is reported, a server without
embeddings or without json_schema is recognized at once, and an empty graph of cut answers is not a success."""

from __future__ import annotations

import io
import json
import warnings

import pytest

from graphglean.core.errors import LLMParameterError
from graphglean.launch import run
from graphglean.llm.accounting import CallAccount
from graphglean.llm.client import ChatClient
from graphglean.pipeline.progress import ConsoleProgress
from graphglean.pipeline.report import pass_row
from graphglean.testing import FakeLLMServer, LocalServer, Reply, ServerTokenizer
from graphglean.testing.models.responders import MARK_LOOP, synthetic

from .helpers import config, llm_config
from .test_cli import STAVE, cli, write_config

GEMMA = {"YES": [26915], "NO": [3771]}


def quiet() -> dict:
    return {"notice": lambda m: None, "out": io.StringIO()}


def test_a_pass_s_own_stats_never_hide_the_tokens_of_its_calls():
    row = pass_row("graph", CallAccount(calls=3, prompt_tokens=9000, completion_tokens=4772), None, 1.0, 0,
                   {"prompt_tokens": 4228, "completion_tokens": 0, "nodes": 7})
    assert (row["prompt_tokens"], row["completion_tokens"], row["nodes"]) == (9000, 4772, 7)


async def test_the_graph_row_counts_resolution_s_tokens_too(tmp_path):
    async with FakeLLMServer(synthetic).running() as s:
        cfg = config(s, tmp_path)
        cfg.input.path, cfg.output.dir = str(STAVE), str(tmp_path / "out")
        cfg.graph.resolve.method = "llm"
        await run(cfg, **quiet())
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    row = report["passes"][0]
    asked = sum(r.completion_tokens for r in s.chat_requests())
    assert row["completion_tokens"] == asked > row["extraction_completion_tokens"]


async def test_progress_lines_agree_with_the_table(tmp_path):
    progress = ConsoleProgress(io.StringIO())
    async with FakeLLMServer(synthetic).running() as s:
        cfg = config(s)
        cfg.input.path, cfg.output.dir = str(STAVE), str(tmp_path / "out")
        cfg.graph.enabled, cfg.summary.enabled = False, True
        await run(cfg, progress=progress, **quiet())
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    row = report["passes"][0]
    line = progress.lines["summary"]
    assert row["calls"] > 0 and f"{row['calls']} call{'s' * (row['calls'] != 1)}," in line
    assert f"{row['prompt_tokens'] + row['completion_tokens']:,} tokens" in line


@pytest.mark.parametrize("tokenizer, method, said", [
    (ServerTokenizer(GEMMA, "llama-cpp-python", bos=2), "logit_bias", "/extras/tokenize (special ids [2]"),
    (None, "lenient text", "no tokenize route"),
])
async def test_the_report_says_how_the_yes_no_checks_were_asked_and_why(tmp_path, tokenizer, method, said):
    async with FakeLLMServer(synthetic, tokenizer_api=tokenizer).running() as s:
        cfg = config(s, model="gemma-3-270m")
        cfg.input.path, cfg.output.dir = str(STAVE), str(tmp_path / "out")
        await run(cfg, **quiet())
    check = json.loads((tmp_path / "out" / "report.json").read_text())["passes"][0]["yes_no_check"]
    assert check["method"] == method and said in check.get("found_by", check.get("why", "")), check
    if method == "logit_bias":
        assert check["ids"] == {"YES": 26915, "NO": 3771}


async def test_a_server_without_embeddings_is_said_once_and_resolution_goes_on(tmp_path):
    local = LocalServer.like("llama-cpp-python", slots=4, tokens_per_s=20000)
    async with FakeLLMServer(synthetic, local=local).running() as s:
        cfg = config(s)
        cfg.input.path, cfg.output.dir = str(STAVE), str(tmp_path / "out")
        cfg.graph.resolve.method = "llm"
        with warnings.catch_warnings(record=True) as said:
            warnings.simplefilter("always")
            result = await run(cfg, **quiet())
    embeddings = [r for r in s.requests if r.path.endswith("/embeddings")]
    lines = [str(w.message) for w in said if "embeddings" in str(w.message)]
    assert len(embeddings) == 1 and s.status_counts.get(500) == 1  # not retried as a passing fault
    assert len(lines) == 1 and "serves no embeddings" in lines[0] and "embedding=True" in lines[0]
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert "embeddings" in report["llm"]["refused"] and report["failed"] == [] and result.failed == 0


async def test_json_schema_refused_with_a_500_is_final_and_remembered():
    local = LocalServer.like("llama-cpp-python", slots=2, tokens_per_s=20000)
    schema = {"type": "json_schema", "json_schema": {"name": "x", "schema": {"type": "object"}}}
    async with FakeLLMServer(lambda r: '{"a": 1}', local=local).running() as s:
        async with ChatClient(llm_config(s)) as c:
            with pytest.raises(LLMParameterError) as e:
                await c.chat(c.request([{"role": "user", "content": "json"}], response_format=schema, max_tokens=50))
            plain = c.request([{"role": "user", "content": "json"}], response_format=schema, max_tokens=50)
            answer = await c.chat(plain)
    assert s.status_counts.get(500) == 1 and e.value.is_about("response_format")
    assert plain.response_format is None and answer.text == '{"a": 1}'  # built without what was refused
    assert "response_format" in c.server.summary()["refused"]


def cut_everything(req):
    if req.max_tokens == 1 or MARK_LOOP in req.last_user:
        return Reply("NO", finish_reason="length")
    return Reply('("entity"<|>Scrooge<|>person<|>A man who', finish_reason="length")


async def test_a_graph_of_cut_answers_only_is_a_failed_run_that_says_what_to_change(tmp_path):
    async with FakeLLMServer(cut_everything).running() as s:
        cfg = write_config(tmp_path, s.base_url, graph={"max_splits": 0})
        done = await cli("run", cfg)
    said = done.stderr.decode()
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert done.returncode == 1 and "graph: 0 nodes" in said and "llm.max_tokens" in said
    assert report["warnings"] and "cut" in report["warnings"][0]


def test_which_5xx_are_refusals_and_which_pass():
    from graphglean.core.errors import LLMCapabilityError
    from graphglean.llm.refusals import server_refusal

    sent = {"model": "m", "messages": [], "response_format": {"type": "json_schema"}}
    assert server_refusal(500, '{"error": {"message": "injected server error"}}', sent=sent) is None
    assert server_refusal(503, "<html>Service Unavailable</html>", sent=sent) is None
    schema = server_refusal(500, '{"error": {"message": "Unsupported response_format type: json_schema"}}', sent=sent)
    assert isinstance(schema, LLMParameterError) and schema.is_about("response_format")
    no_vectors = server_refusal(500, '{"error": {"message": "Llama model must be created with embedding=True to '
                                'call this method"}}', sent={"model": "m", "input": ["x"]}, path="/v1/embeddings")
    assert isinstance(no_vectors, LLMCapabilityError)
    assert server_refusal(500, '{"error": {"message": "out of memory"}}', sent={"input": ["x"]},
                          path="/v1/embeddings") is None
