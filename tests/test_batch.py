"""Batch mode (llm.batch): waves through the Files and Batches API give the online run's outputs at the batch
price, survive failed lines, expired and refused batches, and resume without asking anything twice."""

import json
from collections import Counter

import pytest
import trio

from graphglean.llm import ChatClient
from graphglean.llm.batch.ledger import WaveLedger
from graphglean.llm.batch.waves import Waves
from graphglean.testing import FakeLLMServer, refusal, refusing
from graphglean.testing.batch_api import FakeBatchAPI
from graphglean.testing.models.responders import synthetic

from .conftest import ROOT
from .helpers import llm_config
from .test_resume import base_config, quiet_run

OUTPUTS = ("graph.json", "summaries.jsonl", "episodes.jsonl")


def small_input(tmp_path, chars=2500):
    text = (ROOT / "examples" / "a_christmas_carol_stave1.txt").read_text()[:chars]
    path = tmp_path / "stave.txt"
    path.write_text(text)
    return path


def run_config(server, tmp_path, folder, *, batch=True, embeddings=True):
    (tmp_path / folder).mkdir(exist_ok=True)
    cfg = base_config(server, tmp_path / folder, input={"path": str(small_input(tmp_path))},
                      summary={"enabled": True}, episodic={"enabled": True, "dataset": "wikipedia"})
    cfg.graph.resolve.embeddings = embeddings
    cfg.llm.batch.enabled = batch
    cfg.llm.batch.poll_s, cfg.llm.batch.quiet_s, cfg.llm.batch.online_tail = 0.02, 0.05, 0
    return cfg


def outputs(cfg):
    """The run's graph, summaries and episodes (answers replayed from the cache on a resumed run are counted as
    such in an episode's metadata: that count left out)."""
    out = tmp_out(cfg)
    found = {name: (out / name).read_text() for name in OUTPUTS}
    episodes = [json.loads(line) for line in found["episodes.jsonl"].splitlines()]
    for episode in episodes:
        episode["metadata"].pop("cache_hits")
    found["episodes.jsonl"] = episodes
    return found


def tmp_out(cfg):
    from pathlib import Path

    return Path(cfg.output.dir)


async def online_reference(server, tmp_path, **settings):
    cfg = run_config(server, tmp_path, "online", batch=False, **settings)
    result = await quiet_run(cfg)
    assert not result.failed
    return cfg, result


async def test_batch_run_gives_the_online_outputs_with_no_online_call_at_half_price(tmp_path):
    async with FakeLLMServer(synthetic, batch_api=FakeBatchAPI(0.05)).running() as s:
        reference, online = await online_reference(s, tmp_path, embeddings=False)
        asked_online = len(s.chat_requests())
        cfg = run_config(s, tmp_path, "batch", embeddings=False)
        result = await quiet_run(cfg)
        assert len(s.chat_requests()) == asked_online  # not one chat call online
    assert not result.failed and outputs(cfg) == outputs(reference)
    lines = s.batch_api.uploaded_lines
    assert len(lines) == len(set(lines)) == asked_online  # each request once, in some batch
    assert s.batch_api.files == {}  # each batch's files deleted once its answers were stored
    assert result.report["batches"] == {"batches": len(s.batch_api.batches), "lines": len(lines)}
    for batch_row, online_row in zip(result.report["passes"], online.report["passes"]):
        assert batch_row["calls"] == batch_row["batch_calls"] == online_row["calls"] > 0
        assert batch_row["prompt_tokens"] == batch_row["batch_prompt_tokens"] == online_row["prompt_tokens"]
        assert batch_row["cost_online_usd"] == online_row["cost_usd"]
        assert batch_row["cost_usd"] == pytest.approx(online_row["cost_usd"] / 2, abs=2e-6)


async def test_failed_lines_and_an_expired_batch_still_complete_every_item(tmp_path):
    api = FakeBatchAPI(0.05, failed_lines=0.3, seed=3, expire={0})
    async with FakeLLMServer(synthetic, batch_api=api).running() as s:
        reference, _ = await online_reference(s, tmp_path)
        cfg = run_config(s, tmp_path, "batch")
        result = await quiet_run(cfg)
    assert not result.failed and outputs(cfg) == outputs(reference)
    first = api.batches["batch_000000"]  # however many requests its wave caught, half were left unanswered
    unanswered = len(first.lines) - len(first.lines) // 2
    assert first.status == "expired" and first.failed >= unanswered > 0
    retried = [k for k, n in Counter(api.uploaded_lines).items() if n > 1]
    assert len(retried) >= unanswered  # the unanswered half and the failed lines, asked again
    assert sum(row["retries"] for row in result.report["passes"]) == len(api.uploaded_lines) - len(
        set(api.uploaded_lines))


async def test_a_request_the_endpoint_refuses_fails_alone(tmp_path):
    respond = refusing(synthetic, lambda req: "Marley was dead" in req.prompt, refusal("context_length", "openai"))
    async with FakeLLMServer(respond, batch_api=FakeBatchAPI(0.02)).running() as s:
        cfg = run_config(s, tmp_path, "batch")
        result = await quiet_run(cfg)
    failed = result.report["failed"]
    assert failed and all(f["status"] == 400 and "context_length_exceeded" in f["error"] for f in failed)
    assert {f["pass"] for f in failed} == {"graph", "episodic", "summary"}
    graph = json.loads((tmp_out(cfg) / "graph.json").read_text())
    assert graph["nodes"]  # every other chunk's records are in
    assert s.chat_requests() == []


@pytest.mark.parametrize("problem", ["invalid_request", "invalid_request:2"])
async def test_a_batch_that_fails_validation_is_asked_again_and_a_named_line_fails_alone(tmp_path, problem):
    api = FakeBatchAPI(0.02, fail_validation={0: problem})
    async with FakeLLMServer(synthetic, batch_api=api).running() as s:
        async with ChatClient(batch_llm(s)) as client:
            results = await ask_all(client, 5)
    first = api.batches["batch_000000"]
    assert first.status == "failed"
    refused = [r for r in results if isinstance(r, Exception)]
    if ":" in problem:  # the second line's request alone is refused; the others are asked again, at no cost
        assert len(refused) == 1 and "injected validation failure" in str(refused[0])
        assert client.account.retries == 4 and client.account.failures == 1
    else:
        assert not refused and client.account.retries == 5
    assert len(api.batches) == 2 and client.account.batch_calls == 5 - len(refused)


async def test_a_batch_over_the_endpoints_queue_quota_is_asked_again_in_smaller_batches(tmp_path):
    api = FakeBatchAPI(0.02, fail_validation={0: "token_limit_exceeded"})
    async with FakeLLMServer(synthetic, batch_api=api).running() as s:
        async with ChatClient(batch_llm(s)) as client:
            results = await ask_all(client, 6)
    assert not [r for r in results if isinstance(r, Exception)]
    sizes = [len(b.lines) for b in api.batches.values()]
    assert sizes[0] == 6 and max(sizes[1:]) <= 3 and sum(sizes[1:]) == 6
    assert client.account.failures == 0


async def test_online_tail_sends_a_small_share_online_and_the_rest_in_batches(tmp_path):
    async with FakeLLMServer(synthetic, batch_api=FakeBatchAPI(0.02)).running() as s:
        async with ChatClient(batch_llm(s, online_tail=3)) as client:
            await ask_all(client, 3)
            assert len(s.chat_requests()) == 3 and not s.batch_api.batches
            await ask_all(client, 4, offset=10)
            assert len(s.chat_requests()) == 3 and len(s.batch_api.uploaded_lines) == 4
    assert client.account.calls == 7 and client.account.batch_calls == 4


async def test_a_wave_sent_online_says_so_and_why(tmp_path):
    said = []
    async with FakeLLMServer(synthetic, batch_api=FakeBatchAPI(0.02)).running() as s:
        async with ChatClient(batch_llm(s, online_tail=3), waves=None) as client:
            client.waves.report = lambda key, line: said.append((key, line))
            await ask_all(client, 3)
    assert [key for key, _ in said] == ["online"]
    assert "wave 1: its 3 request(s) went online, at the online price" in said[0][1]
    assert "llm.batch.online_tail (3)" in said[0][1] and "--detach" not in said[0][1]


async def test_detach_with_nothing_to_submit_says_so_and_why_and_runs_to_the_end(tmp_path):
    """A small corpus: every wave within online_tail goes online, so --detach never detaches; then a run with
    every answer stored: nothing to ask at all. Each says so in one line."""
    from graphglean.launch import run

    async with FakeLLMServer(synthetic, batch_api=FakeBatchAPI(0.02)).running() as s:
        cfg = run_config(s, tmp_path, "batch")
        cfg.llm.batch.online_tail = 1000
        said: list[list[str]] = [[], []]
        for notices in said:
            result = await run(cfg, detach=True, notice=notices.append, out=open("/dev/null", "w"))
            assert not result.detached and not result.failed and (tmp_out(cfg) / "report.json").exists()
            if not s.batch_api.calls:
                asked = len(s.chat_requests())
    assert asked > 10 and len(s.chat_requests()) == asked and not s.batch_api.calls
    first, again = ([line for line in notices if line.startswith("--detach: the run went to the end")]
                    for notices in said)
    online = [line for line in said[0] if line.startswith("batch mode: wave")]
    assert online and all(line.endswith("; --detach: nothing to submit, so the run goes on online") for line in online)
    assert len(first) == 1 and "went online, each wave's share of a pass being at most llm.batch.online_tail (1000)" \
        in first[0]
    assert len(again) == 1 and "every answer it needed was stored already" in again[0]
    assert not [line for line in said[1] if line.startswith("batch mode: wave")]


@pytest.mark.parametrize("limit", [{"max_requests": 2}, {"max_file_mb": 0.0001}])
async def test_a_wave_is_split_at_max_requests_and_max_file_mb(tmp_path, limit):
    async with FakeLLMServer(synthetic, batch_api=FakeBatchAPI(0.02)).running() as s:
        async with ChatClient(batch_llm(s, **limit)) as client:
            results = await ask_all(client, 5)
    sizes = sorted(len(b.lines) for b in s.batch_api.batches.values())
    assert sizes == ([1, 2, 2] if "max_requests" in limit else [1, 1, 1, 1, 1])
    assert not [r for r in results if isinstance(r, Exception)]


async def test_one_request_asked_twice_at_once_is_one_line_paid_once(tmp_path):
    async with FakeLLMServer(synthetic, batch_api=FakeBatchAPI(0.02)).running() as s:
        async with ChatClient(batch_llm(s)) as client:
            results = await ask_all(client, 4, same=True)
    assert len({r.text for r in results}) == 1 and len(s.batch_api.uploaded_lines) == 1
    assert client.account.batch_calls == 1 and client.account.cache_hits == 3


async def test_a_stopped_run_started_again_waits_for_its_batches_and_asks_nothing_twice(tmp_path):
    async with FakeLLMServer(synthetic, batch_api=FakeBatchAPI(0.3)).running() as s:
        reference, _ = await online_reference(s, tmp_path)
        cfg = run_config(s, tmp_path, "batch")
        with trio.move_on_after(5):  # stopped while its second wave is in flight
            async with trio.open_nursery() as nursery:
                nursery.start_soon(quiet_run, cfg)
                while len(s.batch_api.batches) < 2:
                    await trio.sleep(0.01)
                nursery.cancel_scope.cancel()
        ledger = WaveLedger(tmp_out(cfg) / "run.sqlite")
        # the batch in flight, its id recorded or (stopped right after creating it) not yet; and the first, when
        # answers it brought were not all stored when the run stopped (the restart downloads it again)
        *_, open_wave = ledger.open_waves()
        assert open_wave.file_id == s.batch_api.batches["batch_000001"].input_file_id
        assert open_wave.batch_id in ("batch_000001", None)
        ledger.close()
        result = await quiet_run(cfg)
    assert not result.failed and outputs(cfg) == outputs(reference)
    assert len(s.batch_api.uploaded_lines) == len(set(s.batch_api.uploaded_lines))
    assert s.batch_api.batches["batch_000001"].status == "completed"


async def test_batches_of_requests_a_finished_run_never_asked_are_cancelled(tmp_path):
    async with FakeLLMServer(synthetic, batch_api=FakeBatchAPI(30)).running() as s:
        cfg = run_config(s, tmp_path, "batch")
        with trio.move_on_after(5):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(quiet_run, cfg)
                while not s.batch_api.batches:
                    await trio.sleep(0.01)
                nursery.cancel_scope.cancel()
        cfg.graph.entity_types = ["person", "place"]  # another prompt: those requests are asked no more
        cfg.summary.enabled = cfg.episodic.enabled = False
        s.batch_api.completion_delay = 0.02
        result = await quiet_run(cfg)
    assert not result.failed
    assert s.batch_api.batches["batch_000000"].status == "cancelled"
    assert all(b.status == "completed" for b in list(s.batch_api.batches.values())[1:])
    ledger = WaveLedger(tmp_out(cfg) / "run.sqlite")
    assert ledger.open_waves() == []
    ledger.close()


async def earlier_batch(cfg, ledger, *, created: bool, recorded: bool):
    """What an earlier process left: one request's file uploaded and in the ledger, its batch created or not, its
    id recorded or not. Returns the request and its key."""
    from graphglean.llm.batch.wavefile import input_line

    client = ChatClient(cfg)
    req = client.request([{"role": "user", "content": "Passage:\nBob met Alice.\n\nRecords:"}])
    key = req.cache_key(client.url("chat/completions", req.model))
    waves = Waves(cfg, ledger=ledger)
    async with waves.running():
        file_id = await waves.api.upload("w.jsonl", [input_line(key, "/v1/chat/completions", req.body())])
        await ledger.uploaded("w1", 1, file_id, [key])
        if created:
            batch_id = (await waves.api.create(file_id, {})).id
            if recorded:
                await ledger.created("w1", batch_id)
    return req, key


@pytest.mark.parametrize("created", [True, False])
async def test_a_batch_uploaded_but_not_recorded_as_created_is_found_by_its_file_or_forgotten(tmp_path, created):
    async with FakeLLMServer(synthetic, batch_api=FakeBatchAPI(0.02)).running() as s:
        cfg = batch_llm(s)
        ledger = WaveLedger(tmp_path / "run.sqlite")
        req, key = await earlier_batch(cfg, ledger, created=created, recorded=False)  # killed before recording
        async with ChatClient(cfg, waves=Waves(cfg, ledger=ledger)) as client:
            answer = await client.chat(req)
        assert ledger.open_waves() == []
        ledger.close()
    assert "Bob" in answer.text and len(s.batch_api.batches) == 1
    assert s.batch_api.uploaded_lines == [key] * (1 if created else 2)


async def test_an_answer_that_came_before_its_request_is_judged_then_its_batch_leaves_the_ledger(tmp_path):
    api = FakeBatchAPI(0.0, failed_lines=1.0)  # every request's first answer is a 500
    async with FakeLLMServer(synthetic, batch_api=api).running() as s:
        cfg = batch_llm(s)
        ledger = WaveLedger(tmp_path / "run.sqlite")
        req, key = await earlier_batch(cfg, ledger, created=True, recorded=True)
        waves = Waves(cfg, ledger=ledger)
        async with ChatClient(cfg, waves=waves) as client:
            while key not in waves._early:  # collected before anyone asks
                await trio.sleep(0.01)
            answer = await client.chat(req)
        assert ledger.open_waves() == []
        ledger.close()
    assert "Bob" in answer.text and api.uploaded_lines == [key, key] and client.account.retries == 1


async def test_detach_stops_where_the_run_would_wait_and_the_same_call_continues(tmp_path):
    from graphglean.launch import run

    async with FakeLLMServer(synthetic, batch_api=FakeBatchAPI(0.2)).running() as s:
        reference, _ = await online_reference(s, tmp_path)
        cfg = run_config(s, tmp_path, "batch")
        said = []
        for _ in range(40):
            result = await run(cfg, detach=True, notice=lambda _: None, out=open("/dev/null", "w"))
            if not result.detached:
                break
            said.append(result.detached)
            detached = json.loads((tmp_out(cfg) / "report.json").read_text())  # the run so far, said detached
            assert detached["detached"] == result.detached and detached["passes"] == []
            assert detached["totals"]["invocations"] == len(said)
            await trio.sleep(0.2)
    assert said and all("run the same command again" in line and "in flight" in line for line in said)
    assert not result.failed and outputs(cfg) == outputs(reference)
    totals = result.report["totals"]  # every detached cycle's calls, and the last one's
    assert totals["invocations"] == len(said) + 1 and totals["batch_calls"] > 0
    assert totals["calls"] == totals["batch_calls"] + totals["online_calls"] >= result.report["invocation"]["calls"]
    assert len(s.batch_api.uploaded_lines) == len(set(s.batch_api.uploaded_lines))


# -- helpers ---------------------------------------------------------------------------------------------

def batch_llm(server, **batch):
    """Batch mode, with a quiet time long enough that requests asked together make one wave on a loaded machine."""
    cfg = llm_config(server, max_retries=6)
    cfg.batch.enabled = True
    cfg.batch.poll_s, cfg.batch.quiet_s, cfg.batch.online_tail = 0.02, 0.3, 0
    for key, value in batch.items():
        setattr(cfg.batch, key, value)
    return cfg


async def ask_all(client, n, offset=0, same=False):
    results = [None] * n

    async def one(i):
        text = "Bob met Alice." if same else f"Person{i + offset} met Alice."
        try:
            prompt = f"Passage:\n{text}\n\nRecords:"
            results[i] = await client.chat(client.request([{"role": "user", "content": prompt}]))
        except Exception as e:  # noqa: BLE001 - the test reads which requests failed
            results[i] = e

    async with trio.open_nursery() as nursery:
        for i in range(n):
            nursery.start_soon(one, i)
    return results
