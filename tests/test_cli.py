import json
import os
import re
import signal
import sys
from pathlib import Path

import pytest
import trio

from graphglean.testing import FakeLLMServer, Reply
from graphglean.testing.models.responders import synthetic

from .conftest import ROOT

STAVE = ROOT / "examples" / "a_christmas_carol_stave1.txt"


def write_config(tmp_path: Path, base_url: str = "", **sections) -> Path:
    llm = {"base_url": base_url, "api_key": "sk-cli-test", "model": "gpt-4", "max_concurrency": 4,
           "max_retries": 2, "timeout_s": 10, "cache": {"mode": "readwrite", "path": str(tmp_path / "cache.sqlite")}}
    llm.update(sections.pop("llm", {}))
    cfg = {"llm": llm, "input": {"path": str(STAVE)}, "chunking": {"size": 300, "overlap": 30},
           "output": {"dir": str(tmp_path / "out")}, **sections}
    path = tmp_path / "config.yaml"
    path.write_text(json.dumps(cfg))  # JSON is YAML
    return path


def env():
    e = dict(os.environ)
    e.pop("OPENAI_API_KEY", None)
    e["PYTHONPATH"] = str(ROOT) + os.pathsep + e.get("PYTHONPATH", "")
    return e


async def cli(*args, check=False):
    return await trio.run_process([sys.executable, "-m", "graphglean", *map(str, args)], capture_stdout=True,
                                  capture_stderr=True, check=check, env=env())


async def test_full_run_writes_every_output_and_rerun_is_free(tmp_path):
    async with FakeLLMServer(synthetic).running() as s:
        cfg = write_config(tmp_path, s.base_url)
        first = await cli("run", cfg)
        assert first.returncode == 0, first.stderr.decode()
        calls = len(s.chat_requests())
        out = tmp_path / "out"
        report = json.loads((out / "report.json").read_text())
        again = await cli("run", cfg)
        assert again.returncode == 0 and len(s.chat_requests()) == calls  # run store + cache: no new call
    for name in ("graph.graphml", "graph.json", "entities.jsonl", "relationships.jsonl", "report.json"):
        assert (out / name).stat().st_size > 0
    graph_row = report["passes"][0]
    embeds = len([r for r in s.requests if r.path.endswith("/embeddings")])  # entity resolution's neighbours
    assert graph_row["pass"] == "graph" and graph_row["calls"] == calls + embeds and graph_row["cost_usd"] > 0
    assert "sk-cli-test" not in "".join(p.read_text(errors="ignore") for p in out.iterdir() if p.is_file())


async def test_dry_run_calls_nothing(tmp_path):
    async with FakeLLMServer(synthetic).running() as s:
        r = await cli("run", write_config(tmp_path, s.base_url), "--dry-run")
    assert r.returncode == 0 and len(s.requests) == 0
    assert b"dry run:" in r.stdout and b"calls" in r.stdout


async def test_kill_9_then_resume_repeats_no_finished_call(tmp_path):
    async with FakeLLMServer(synthetic, latency=0.05).running() as s:
        (tmp_path / "ref").mkdir()
        ref_cfg = write_config(tmp_path / "ref", s.base_url)
        cfg = write_config(tmp_path, s.base_url)
        # the uninterrupted reference run, with a cache of its own
        ref = await cli("run", ref_cfg)
        assert ref.returncode == 0
        reference = len(s.chat_requests())
        s.requests.clear()
        proc = await trio.lowlevel.open_process([sys.executable, "-m", "graphglean", "run", str(cfg)], env=env(),
                                                stdout=trio.lowlevel.subprocess.DEVNULL if False else None,
                                                stderr=None)
        while len(s.chat_requests()) < reference // 2:
            await trio.sleep(0.01)
        in_flight = s.in_flight
        proc.send_signal(signal.SIGKILL)
        await proc.wait()
        resumed = await cli("run", cfg)
        assert resumed.returncode == 0, resumed.stderr.decode()
    assert reference <= len(s.chat_requests()) <= reference + max(in_flight, 4) + 2
    ref_graph = json.loads((tmp_path / "ref" / "out" / "graph.json").read_text())
    new_graph = json.loads((tmp_path / "out" / "graph.json").read_text())
    assert ref_graph["nodes"] == new_graph["nodes"]


@pytest.mark.parametrize("content,message", [
    ("llm:\n  max_concurrency: -3\n", "config.yaml:2: llm.max_concurrency: expected a positive integer, got -3"),
    ("graph: {metod: llm}\n", "config.yaml:1: graph.metod: unknown key (did you mean method?"),
    ("llm: {model: [\n", "config.yaml:2: YAML syntax error"),
    ("input: {path: /nonexistent/x.txt}\n", "config.yaml:1: input.path: /nonexistent/x.txt: input not found"),
    ("graph: {method: llm}\nllm: {api_key: ''}\n", "config.yaml:1: graph.method: llm needs an LLM endpoint"),
])
async def test_bad_config_or_input_exits_2_with_one_line(tmp_path, content, message):
    path = tmp_path / "config.yaml"
    path.write_text(content)
    r = await cli("run", path)
    err = r.stderr.decode()
    assert r.returncode == 2 and message in err and "Traceback" not in err
    assert len([line for line in err.splitlines() if "error" in line]) == 1


async def test_version_and_help():
    assert (await cli("--version")).stdout.startswith(b"graphglean ")
    assert b"--dry-run" in (await cli("run", "--help")).stdout
    assert (await cli("run")).returncode == 2


def small_locomo(tmp_path: Path) -> Path:
    from .conftest import shared_path

    data = json.loads(shared_path("corpora", "locomo", "locomo10.json").read_text())[0]
    keep = ("speaker_a", "speaker_b", "session_1", "session_1_date_time", "session_2", "session_2_date_time")
    conv = {k: v for k, v in data["conversation"].items() if k in keep}
    conv = {k: (v[:8] if isinstance(v, list) else v) for k, v in conv.items()}
    path = tmp_path / "locomo_small.json"
    path.write_text(json.dumps([{"sample_id": data["sample_id"], "conversation": conv}]))
    return path


async def test_every_pass_in_one_run_shares_one_scheduler(tmp_path):
    locomo = small_locomo(tmp_path)
    async with FakeLLMServer(synthetic).running() as s:
        cfg = write_config(tmp_path, s.base_url, summary={"enabled": True, "detail": 0.5},
                           episodic={"enabled": True}, enrich={"enabled": True, "message_window": 4})
        r = await cli("run", cfg, "--input", locomo)
        assert r.returncode == 0, r.stderr.decode()
    out = tmp_path / "out"
    report = {row["pass"]: row for row in json.loads((out / "report.json").read_text())["passes"]}
    assert set(report) == {"graph", "summary", "episodic", "enrich"}
    assert all(row["calls"] > 0 for row in report.values())
    summaries = [json.loads(line) for line in (out / "summaries.jsonl").read_text().splitlines()]
    assert [r["doc_id"] for r in summaries] == ["conv-26:session_1", "conv-26:session_2"]
    episodes = [json.loads(line) for line in (out / "episodes.jsonl").read_text().splitlines()]
    assert len(episodes) == 2 and episodes[0]["gists"] and episodes[0]["verbatim"].startswith("Date: ")
    enriched = [json.loads(line) for line in (out / "enrichment.jsonl").read_text().splitlines()]
    assert len(enriched) == 16 and all(m["token_count"] for m in enriched)
    assert set(enriched[0]["metadata"]["system"]) >= {"token_count", "intent", "entities"}
    assert (out / "session_summaries.jsonl").read_text().strip()


async def test_failed_items_exit_1_listed_and_the_rest_written(tmp_path):
    def respond(req):
        if "Marley was dead" in req.prompt:
            return Reply(status=500, body={"error": {"message": "this chunk always fails"}})
        return synthetic(req)

    async with FakeLLMServer(respond).running() as s:
        r = await cli("run", write_config(tmp_path, s.base_url, llm={"max_retries": 1}))
    err = r.stderr.decode()
    assert r.returncode == 1 and re.search(r"\d+ items? failed \(the rest", err) and "HTTP 500" in err
    assert (tmp_path / "out" / "graph.json").stat().st_size > 0
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert report["failed"][0]["pass"] == "graph" and report["passes"][0]["errors"] == len(report["failed"]) >= 1


async def test_fresh_starts_over(tmp_path):
    async with FakeLLMServer(synthetic).running() as s:
        cfg = write_config(tmp_path, s.base_url, llm={"cache": {"mode": "off"}})
        assert (await cli("run", cfg)).returncode == 0
        first = len(s.chat_requests())
        assert (await cli("run", cfg)).returncode == 0
        assert len(s.chat_requests()) == first  # resumed: nothing to do
        assert (await cli("run", cfg, "--fresh")).returncode == 0
        assert len(s.chat_requests()) == 2 * first


async def test_prompts_are_found_by_the_installed_package(tmp_path):
    code = ("from graphglean.core.prompts import load_template, prompt_dirs; "
            "assert 'Passage:' in load_template('graph_extraction'); print(prompt_dirs())")
    e = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    r = await trio.run_process([sys.executable, "-c", code], cwd=tmp_path, capture_stdout=True, env=e, check=False)
    assert r.returncode == 0 and b"prompts" in r.stdout


async def test_dry_run_counts_summary_calls_exactly(tmp_path):
    from .conftest import shared_path

    text = shared_path("corpora", "artificial_intelligence_wikipedia.txt")
    r = await cli("run", write_config(tmp_path, "http://127.0.0.1:9/v1", input={"path": str(text)},
                                      graph={"enabled": False}, summary={"enabled": True, "detail": 0.25}),
                  "--dry-run")
    assert r.returncode == 0 and b"summary: 9 calls" in r.stdout, r.stdout


async def test_session_summaries_are_written_in_the_input_s_order_whatever_answers_first(tmp_path):
    locomo = small_locomo(tmp_path)
    first_line = json.loads(locomo.read_text())[0]["conversation"]["session_1"][0]["text"]

    def respond(req):  # the first session's summaries are answered last
        late = "New lines of conversation:" in req.prompt and first_line[:40] in req.prompt
        return Reply(synthetic(req), delay=1.5) if late else synthetic(req)

    async with FakeLLMServer(respond).running() as s:
        cfg = write_config(tmp_path, s.base_url, graph={"enabled": False},
                           enrich={"enabled": True, "message_window": 4})
        r = await cli("run", cfg, "--input", locomo)
        assert r.returncode == 0, r.stderr.decode()
    rows = [json.loads(line) for line in (tmp_path / "out" / "session_summaries.jsonl").read_text().splitlines()]
    sessions = [row["session_id"] for row in rows]
    assert len(set(sessions)) == 2 and sessions == sorted(sessions)  # session_1's first


@pytest.mark.parametrize("status, body, said", [
    (404, {"error": {"code": "model_not_found", "message": "The model `gpt-4` does not exist"}},
     "config.yaml:4: the endpoint does not serve model 'gpt-4'"),
    (401, {"error": {"message": "Incorrect API key provided"}}, "config.yaml:3: the endpoint refused the API key"),
])
async def test_an_endpoint_that_refuses_the_model_or_the_key_names_its_line(tmp_path, status, body, said):
    async with FakeLLMServer(lambda req: Reply(status=status, body=body)).running() as s:
        path = tmp_path / "config.yaml"
        path.write_text(f"llm:\n  base_url: {s.base_url}\n  api_key: sk-cli-test-0123\n  model: gpt-4\n"
                        f"input: {{path: {STAVE}}}\noutput: {{dir: {tmp_path / 'out'}}}\n")
        r = await cli("run", path)
    err = r.stderr.decode()
    assert r.returncode == 2 and f"graphglean: error: {tmp_path / said}" in err, err


def test_the_default_input_path_not_found_says_it_is_the_default(tmp_path, monkeypatch):
    from graphglean.core.config import InputConfig
    from graphglean.core.errors import InputError
    from graphglean.core.tokens import Tokenizer
    from graphglean.text.inputs import read_inputs

    monkeypatch.chdir(tmp_path)  # no examples folder here
    with pytest.raises(InputError, match=r"^input.path: examples: input not found \(examples/ is input.path's default"):
        read_inputs(InputConfig(), Tokenizer("gpt-4"))


async def test_a_flag_that_set_the_input_is_named_not_the_configuration_line(tmp_path):
    path = tmp_path / "config.yaml"
    path.write_text(f"input:\n  path: {STAVE}\noutput: {{dir: {tmp_path / 'out'}}}\n")
    r = await cli("run", path, "--input", tmp_path / "missing.txt", "--dry-run")
    assert r.returncode == 2 and f"graphglean: error: --input {tmp_path / 'missing.txt'}: input.path: ".encode() in r.stderr


async def test_a_file_name_that_begins_like_a_section_is_no_setting(tmp_path):
    r = await cli("run", tmp_path / "graph.yaml")
    assert r.returncode == 2 and f"graphglean: error: {tmp_path / 'graph.yaml'}".encode() in r.stderr
    assert b"graph.yaml: graph.yaml" not in r.stderr
