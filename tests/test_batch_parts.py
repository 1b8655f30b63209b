"""The parts of batch mode: Azure OpenAI's routes and line bodies, a batch created once though its answer was
lost, the files a batch writes read back, batch prices, progress lines and settings."""

import io
import json

import pytest

from graphglean.core.config import PriceConfig
from graphglean.core.config_loader import load_config_text
from graphglean.core.errors import ConfigError, LLMParameterError, LLMRequestError
from graphglean.llm import ChatClient
from graphglean.llm.accounting import CallAccount
from graphglean.llm.batch.api import BatchState, batch_api_version
from graphglean.llm.batch.wavefile import LineResult, judged, read_results
from graphglean.pipeline.progress import ConsoleProgress
from graphglean.pipeline.report import batch_price_of, cost, format_table
from graphglean.testing import FakeLLMServer
from graphglean.testing.batch_api import FakeBatchAPI
from graphglean.testing.models.responders import synthetic

from .test_batch import ask_all, batch_llm


async def test_azure_batches_use_its_routes_api_version_and_global_batch_deployment(tmp_path):
    api = FakeBatchAPI(0.02)
    async with FakeLLMServer(synthetic, batch_api=api).running() as s:
        cfg = batch_llm(s, online_tail=0)
        cfg.provider, cfg.base_url = "azure", f"http://127.0.0.1:{s.port}"
        cfg.azure.deployment, cfg.azure.api_version = "gpt-4o-mini-batch", "2024-06-01"
        async with ChatClient(cfg) as client:
            results = await ask_all(client, 3)
    assert all(not isinstance(r, Exception) and r.text for r in results)
    assert {method for method, _ in api.calls} == {"POST", "GET", "DELETE"}  # files deleted once collected
    assert all(target.startswith(("/openai/files", "/openai/batches")) and "api-version=2024-10-21" in target
               for _, target in api.calls)
    assert {r.headers.get("api-key") for r in s.requests} == {"sk-test"} and s.chat_requests() == []
    lines = [json.loads(line) for line in api.contents["file-000000"].splitlines()]
    assert {(line["url"], line["body"]["model"]) for line in lines} == {("/chat/completions", "gpt-4o-mini-batch")}
    assert list(api.batches.values())[0].endpoint == "/chat/completions"
    assert batch_api_version("2025-03-01-preview") == "2025-03-01-preview"


async def test_a_batch_whose_creation_answer_was_lost_is_found_not_created_twice(tmp_path):
    class LosesTheFirstAnswer(FakeBatchAPI):
        lost = False

        def _create(self, body):
            status, payload = super()._create(body)
            if not self.lost:  # created, but the client hears a 502
                self.lost = True
                return 502, b'{"error": {"message": "bad gateway"}}'
            return status, payload

    api = LosesTheFirstAnswer(0.02)
    async with FakeLLMServer(synthetic, batch_api=api).running() as s:
        async with ChatClient(batch_llm(s)) as client:
            results = await ask_all(client, 2)
    assert all(not isinstance(r, Exception) for r in results)
    assert len(api.batches) == 1 and [m for m, t in api.calls if t.endswith("/batches")] == ["POST"]
    assert any(m == "GET" and "/batches?" in t for m, t in api.calls)  # looked for it by its input file


async def test_a_server_without_the_batch_api_stops_the_run_with_one_clear_error(tmp_path):
    from graphglean.testing.batch_api import FakeBatchAPI as Base

    class NoRoutes(Base):
        @staticmethod
        def handles(path):
            return False

    async with FakeLLMServer(synthetic, batch_api=NoRoutes()).running() as s:
        async with ChatClient(batch_llm(s)) as client:
            results = await ask_all(client, 2)
    assert all("has no Files and Batches API" in str(r) and "llm.batch.enabled: false" in str(r) for r in results)


async def test_a_completion_window_the_endpoint_does_not_offer_stops_the_run_with_one_clear_error(tmp_path):
    class OnlyADay(FakeBatchAPI):
        def _create(self, body):
            if body.get("completion_window") != "24h":
                return 400, json.dumps({"error": {"message": "Invalid value for completion_window: only 24h is "
                                                  "supported", "param": "completion_window"}}).encode()
            return super()._create(body)

    async with FakeLLMServer(synthetic, batch_api=OnlyADay()).running() as s:
        async with ChatClient(batch_llm(s, completion_window="48h")) as client:
            results = await ask_all(client, 2)
    assert all(isinstance(r, LLMParameterError) and "completion_window" in str(r) for r in results)


def test_output_and_error_files_are_read_by_custom_id():
    output = b"\n".join([
        json.dumps({"custom_id": "a", "response": {"status_code": 200, "body": {"choices": []}}}).encode(),
        json.dumps({"custom_id": "b", "response": {"status_code": 200, "body": '{"x": 1}'}}).encode(),
        b"{not json", b"", json.dumps({"id": "no custom id"}).encode()])
    errors = b"\n".join([
        json.dumps({"custom_id": "a", "response": None, "error": {"code": "batch_expired"}}).encode(),
        json.dumps({"custom_id": "c", "response": {"status_code": 500, "body": {"error": {}}}}).encode(),
        json.dumps({"custom_id": "d", "error": {"code": "batch_expired", "message": "late"}}).encode()])
    found = {}
    assert read_results(output, found) == 2 and read_results(errors, found) == 0
    assert found["a"] == LineResult(200, {"choices": []}) and found["b"] == LineResult(200, {"x": 1})
    assert found["c"].status == 500 and found["d"].error["code"] == "batch_expired"


def test_a_line_is_judged_as_an_online_answer_is():
    good = {"choices": [{"message": {"content": "hi"}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 3, "completion_tokens": 1}}
    parsed, body = judged(LineResult(200, good), ["messages"], "m", "/v1/chat/completions")
    assert parsed.text == "hi" and parsed.usage.total == 4 and body is good
    assert judged(LineResult(200, {"nope": 1}), [], "m", "u").startswith("unparseable answer")
    assert judged(LineResult(503, {}), [], "m", "u") == "HTTP 503"
    assert judged(LineResult(None, error={"code": "batch_expired", "message": "late"}), [], "m", "u") == (
        "batch_expired: late")
    with pytest.raises(LLMRequestError) as refused:
        judged(LineResult(400, {"error": {"message": "maximum context length is 128000 tokens",
                                          "code": "context_length_exceeded"}}), ["messages"], "m", "u")
    assert refused.value.kind == "context_length"
    with pytest.raises(LLMParameterError):
        judged(LineResult(400, {"error": {"message": "logit_bias is not supported", "param": "logit_bias"}}),
               ["messages", "logit_bias"], "m", "u")
    with pytest.raises(LLMRequestError):
        judged(LineResult(None, error={"code": "invalid_request", "message": "bad line"}), [], "m", "u")


def test_batch_state_reads_what_endpoints_write():
    state = BatchState.read({"id": "b1", "status": "failed", "request_counts": {"total": 3, "completed": 1},
                             "errors": {"data": [{"code": "x", "message": "y", "line": 2}, "junk"]}})
    assert state.done and state.total == 3 and state.completed == 1 and state.problems[0].line == 2
    with pytest.raises(ValueError):
        BatchState.read({"object": "error"})


def test_batch_tokens_are_priced_at_the_batch_price():
    account = CallAccount(prompt_tokens=3_000_000, completion_tokens=1_000_000, batch_prompt_tokens=2_000_000,
                          batch_completion_tokens=1_000_000)
    assert batch_price_of("gpt-4o-mini", {}) == (0.075, 0.30)
    assert cost(account, "gpt-4o-mini", {}) == pytest.approx(0.15 + 2 * 0.075 + 0.30)
    assert cost(account, "gpt-4o-mini", {}, online=True) == pytest.approx(3 * 0.15 + 0.60)
    prices = {"mine": PriceConfig(1.0, 2.0, batch_input=0.8), "free": PriceConfig(0.0, 0.0)}
    assert batch_price_of("mine", prices) == (0.8, 1.0) and batch_price_of("unknown-model", {}) is None
    table = format_table([{"pass": "graph", "calls": 5, "batch_calls": 4, "cost_usd": 1.0, "cost_online_usd": 2.0}])
    head = table.splitlines()[0].split()
    assert head[:3] == ["pass", "online", "batch"] and "online $" in table.splitlines()[0]
    assert table.splitlines()[2].split()[1:3] == ["1", "4"]
    assert "batch" not in format_table([{"pass": "graph", "calls": 5}])


def test_batch_progress_lines_are_shown_beside_the_passes():
    stream = io.StringIO()
    progress = ConsoleProgress(stream)
    progress.note("batch 1", "batch 1 (b1): in_progress, 2/5 answered, 0 failed")
    progress.note("batch 1", "")  # collected: its line has served
    assert stream.getvalue() == "batch 1 (b1): in_progress, 2/5 answered, 0 failed\n" and not progress.lines

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    tty = ConsoleProgress(Terminal())
    tty.start("graph", 4)
    tty.advance("graph", CallAccount(calls=1), False)
    tty.note("batch 1", "batch 1 (b1): validating")
    tty.note("batch 1", "")
    assert list(tty.lines) == ["graph"] and tty.stream.getvalue().endswith("0 errors\n")


@pytest.mark.parametrize("text,message", [
    ("llm:\n  batch:\n    completion_window: 24 hours\n",
     "c.yaml:3: llm.batch.completion_window: expected a number of hours written like 24h as the value"),
    ("llm:\n  batch: {max_requests: 0}\n", "c.yaml:2: llm.batch.max_requests: expected a positive integer"),
    ("prices: {m: {input: 1, batch_output: -1}}\n", "c.yaml:1: prices.m.batch_output: expected a non-negative"),
])
def test_batch_settings_are_checked_where_they_are_written(text, message):
    with pytest.raises(ConfigError) as e:
        load_config_text(text, "c.yaml")
    assert message in str(e.value)
    cfg = load_config_text("llm: {batch: {enabled: true, completion_window: 48h}}")
    assert cfg.llm.batch.completion_window == "48h"
