"""One report for the whole run, the run's log, the response cache beside the output, and a dead endpoint said at
once: what a user finds in the output folder and on the console."""

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
import trio

from graphglean.launch import run
from graphglean.pipeline.report import calls_section, format_table, whole_run
from graphglean.testing import FakeLLMServer
from graphglean.testing.models.responders import synthetic

from .conftest import ROOT
from .helpers import config
from .test_cli import STAVE, cli, env

pytestmark = pytest.mark.slow


def cli_config(tmp_path: Path, base_url: str, **sections) -> Path:
    """A configuration file as a user writes one: no cache path (it goes beside the output), paths relative."""
    llm = {"base_url": base_url, "api_key": "sk-totals-secret", "model": "gpt-4o-mini", "max_retries": 2,
           "timeout_s": 10, **sections.pop("llm", {})}
    cfg = {"llm": llm, "input": {"path": str(STAVE)}, "chunking": {"size": 300, "overlap": 30},
           "output": {"dir": "out"}, **sections}
    path = tmp_path / "config.yaml"
    path.write_text(json.dumps(cfg, indent=1))
    return path


def invocations(out: Path) -> list[dict]:
    with sqlite3.connect(out / "run.sqlite") as db:
        return [{"started": s, "finished": f, "accounts": json.loads(a)}
                for s, f, a in db.execute("SELECT started, finished, accounts FROM invocations ORDER BY id")]


async def test_the_report_totals_every_invocation_a_killed_one_included(tmp_path):
    async with FakeLLMServer(synthetic, latency=0.05).running() as s:
        path = cli_config(tmp_path, s.base_url, llm={"max_concurrency": 4})
        proc = await trio.lowlevel.open_process([sys.executable, "-m", "graphglean", "run", str(path)], env=env(),
                                                stderr=subprocess.DEVNULL)
        while len(s.chat_requests()) < 20:
            await trio.sleep(0.01)
        await trio.sleep(1.5)  # the killed invocation's accounts reach the run store within a second
        proc.send_signal(signal.SIGKILL)
        await proc.wait()
        killed = invocations(tmp_path / "out")
        resumed = await cli("run", path)
        assert resumed.returncode == 0, resumed.stderr.decode()
        answered = len(s.requests)
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    totals, this = report["totals"], report["invocation"]
    assert len(killed) == 1 and killed[0]["accounts"]["graph"]["calls"] >= 20
    assert totals["invocations"] == 2
    assert report["started"] == killed[0]["started"] < this["started"] and report["finished"] == this["finished"]
    assert this["calls"] < totals["calls"] <= answered  # every call counted once; the killed one's too
    assert totals["calls"] >= killed[0]["accounts"]["graph"]["calls"] + this["calls"]
    assert totals["cost_usd"] > this["cost_usd"]
    assert totals["tokens"] == totals["prompt_tokens"] + totals["completion_tokens"]
    assert [p["pass"] for p in totals["passes"]] == ["graph"] and totals["passes"][0]["calls"] == totals["calls"]
    assert totals["online_calls"] == totals["calls"] and totals["batch_calls"] == 0
    assert report["version"] and report["model"] == "gpt-4o-mini" and report["prices_known"] is True


async def test_an_offline_run_names_no_model_and_its_log_keeps_the_console(tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "stave.txt").write_text(STAVE.read_text())
    (folder / "cover.png").write_bytes(b"\x89PNG\r\n")
    path = cli_config(tmp_path, "", llm={"api_key": ""}, input={"path": str(folder)}, graph={"method": "nlp"})
    r = await cli("run", path)
    assert r.returncode == 0, r.stderr.decode()
    out = tmp_path / "out"
    report = json.loads((out / "report.json").read_text())
    assert not {"model", "prices_known", "default_prices"} & set(report)
    assert report["totals"]["calls"] == 0 and report["invocation"]["calls"] == 0 and report["version"]
    log = (out / "logs" / "run.log").read_text()
    lines = log.splitlines()
    stamp = r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d "
    assert all(re.match(stamp, line) for line in lines)
    assert "graphglean: warning:" in log and "cover.png" in log  # the warning the console showed
    assert lines[-1].endswith(f"outputs in {tmp_path / 'out'}/")  # ... and its last line
    for said in r.stderr.decode().splitlines() + r.stdout.decode().splitlines():
        assert said.strip() in log
    # a second invocation appends
    again = await cli("run", path)
    assert again.returncode == 0 and (out / "logs" / "run.log").read_text().startswith(log)


async def test_the_log_and_the_report_never_hold_the_key(tmp_path):
    async with FakeLLMServer(synthetic).running() as s:
        path = cli_config(tmp_path, s.base_url.replace("http://", "http://user:hunter2@"))
        r = await cli("run", path)
        assert r.returncode == 0, r.stderr.decode()
    out = tmp_path / "out"
    for name in ("logs/run.log", "report.json"):
        text = (out / name).read_text()
        assert "sk-totals-secret" not in text and "hunter2" not in text


async def test_the_cache_goes_with_the_output_whatever_folder_the_run_starts_in(tmp_path):
    async with FakeLLMServer(synthetic).running() as s:
        path = cli_config(tmp_path, s.base_url)
        first = await cli("run", path)
        assert first.returncode == 0, first.stderr.decode()
        paid = len(s.chat_requests())
        elsewhere = tmp_path / "elsewhere"
        elsewhere.mkdir()
        again = await trio.run_process([sys.executable, "-m", "graphglean", "run", str(path), "--fresh"],
                                       cwd=elsewhere, capture_stdout=True, capture_stderr=True, env=env(), check=False)
        assert again.returncode == 0, again.stderr.decode()
        assert len(s.chat_requests()) == paid  # --fresh from elsewhere: the run store is gone, the cache answers
    assert (tmp_path / "out" / "cache.sqlite").is_file()
    assert not (tmp_path / ".graphglean").exists() and not (elsewhere / ".graphglean").exists()
    assert json.loads((tmp_path / "out" / "report.json").read_text())["invocation"]["cache_hits"] > 0


async def test_a_cache_at_the_old_default_is_said_in_one_line_naming_the_setting(tmp_path):
    async with FakeLLMServer(synthetic).running() as s:
        path = cli_config(tmp_path, s.base_url)
        legacy = tmp_path / ".graphglean" / "cache.sqlite"  # beside the configuration file
        legacy.parent.mkdir()
        legacy.write_bytes(b"")
        elsewhere = tmp_path / "elsewhere"
        elsewhere.mkdir()
        r = await trio.run_process([sys.executable, "-m", "graphglean", "run", str(path)], cwd=elsewhere,
                                   capture_stdout=True, capture_stderr=True, env=env(), check=False)
    said = [line for line in r.stderr.decode().splitlines() if str(legacy) in line]
    assert r.returncode == 0 and said == [
        f"graphglean: llm.cache.path: answers an earlier version cached are in {legacy} (the old default); this "
        f"run's cache is {tmp_path / 'out' / 'cache.sqlite'}: set llm.cache.path: {legacy} to keep using them"]


def test_library_calls_keep_their_cache_in_their_output_folder(tmp_path, monkeypatch):
    from graphglean.graph.extract import extract_graph

    async def main():
        async with FakeLLMServer(synthetic).running() as s:
            cfg = config(s)
            cfg.llm.cache.mode, cfg.output.dir = "readwrite", str(tmp_path / "mine")
            await extract_graph(["Ada Lovelace met Charles Babbage in London."], cfg)

    (tmp_path / "here").mkdir()
    monkeypatch.chdir(tmp_path / "here")
    trio.run(main)
    assert (tmp_path / "mine" / "cache.sqlite").is_file() and not (tmp_path / "here" / "output").exists()


async def test_a_dead_endpoint_is_one_line_naming_the_setting_and_its_line(tmp_path):
    with trio.socket.socket() as sock:
        await sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # nothing listens there once the socket is closed
    path = tmp_path / "config.yaml"
    path.write_text(f"llm:\n  model: gpt-4o-mini\n  api_key: sk-x\n  base_url: http://127.0.0.1:{port}/v1\n"
                    f"input: {{path: {STAVE}}}\noutput: {{dir: out}}\n")
    r = await cli("run", path)
    err = r.stderr.decode()
    assert r.returncode == 2 and "Traceback" not in err
    errors = [line for line in err.splitlines() if "error" in line]
    assert errors == [f"graphglean: error: {path}:4: llm.base_url: http://127.0.0.1:{port}/v1: connection refused 2 "
                      "times: nothing listens there; start the server, or set llm.base_url to where it listens"]


async def test_a_ray_run_says_a_dead_endpoint_once_before_any_task_and_its_tasks_retry_a_refusal(tmp_path):
    from graphglean.engines.ray import shard_task

    with trio.socket.socket() as sock:
        await sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    path = tmp_path / "config.yaml"
    path.write_text(f"llm:\n  model: gpt-4o-mini\n  api_key: sk-x\n  base_url: http://127.0.0.1:{port}/v1\n"
                    f"input: {{path: {STAVE}}}\noutput: {{dir: out}}\nruntime: {{engine: ray, workers: 2}}\n")
    r = await cli("run", path)
    errors = [line for line in r.stderr.decode().splitlines() if "error" in line]
    assert r.returncode == 2 and errors == [
        f"graphglean: error: {path}:4: llm.base_url: http://127.0.0.1:{port}/v1: connection refused 2 times: nothing "
        "listens there; start the server, or set llm.base_url to where it listens"]
    assert not (tmp_path / "out" / "shards").exists()  # said by the driver, before any task
    cfg = config(type("S", (), {"base_url": f"http://127.0.0.1:{port}/v1"})(), tmp_path)
    assert shard_task._client(cfg).reached  # a task's client: a refusal is a passing fault (an endpoint restarting)


def test_totals_add_up_invocations_and_costs_keep_fixed_decimals():
    row = {"calls": 3, "requests": 3, "retries": 1, "cache_hits": 0, "rate_limited": 0, "failures": 0,
           "prompt_tokens": 100, "completion_tokens": 10, "batch_calls": 1, "batch_prompt_tokens": 40,
           "batch_completion_tokens": 4, "cached_tokens": 0, "cost_usd": 0.00005, "cost_online_usd": 0.00007}
    runs = [{"id": 1, "started": "2025-01-01T00:00:00+00:00", "finished": "x", "accounts": {"graph": row}}]
    whole = whole_run(runs, 2, {"graph": row, "graph.describe": row}, "2025-01-02T00:00:00+00:00", 1.0)
    assert whole["started"] == "2025-01-01T00:00:00+00:00" and whole["totals"]["invocations"] == 2
    assert whole["totals"]["calls"] == 9 and whole["invocation"]["calls"] == 6
    assert whole["totals"]["online_calls"] == 6 and whole["totals"]["retries"] == 3
    assert whole["totals"]["cost_usd"] == 0.00015 and whole["totals"]["cost_online_usd"] == 0.00021
    assert calls_section([{"graph": dict(row, cost_usd=None)}])["cost_usd"] is None  # a price unknown: no sum
    table = format_table([{"pass": "graph", "calls": 1, "cost_usd": 0.00005, "wall_s": 1.5},
                          {"pass": "summary", "calls": 1, "cost_usd": 0.0, "wall_s": 2}])
    assert "0.000050" in table and "0.000000" in table and "e-" not in table and "1.50" in table


def test_library_runs_keep_their_totals_too(tmp_path):
    async def main():
        async with FakeLLMServer(synthetic).running() as s:
            cfg = config(s, tmp_path)
            cfg.input.path, cfg.output.dir = str(ROOT / "examples"), str(tmp_path / "out")
            cfg.graph.resolve.enabled = False
            first = (await run(cfg, notice=lambda _: None, out=open(os.devnull, "w"))).report
            second = (await run(cfg, notice=lambda _: None, out=open(os.devnull, "w"))).report
        return first, second

    first, second = trio.run(main)
    assert second["invocation"]["calls"] == 0 and second["totals"]["calls"] == first["totals"]["calls"] > 0
    assert second["totals"]["invocations"] == 2 and second["started"] == first["started"]


def test_a_stop_message_holding_a_lone_surrogate_is_still_reported(tmp_path):
    import json

    from graphglean.core.errors import LLMAuthError
    from graphglean.pipeline.report import report_stopped

    report_stopped(tmp_path, LLMAuthError("the endpoint refused the API key: bad \ud83d key", 401, ""), {"totals": {}})
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert report["stopped"] == "stopped: the endpoint refused the API key: bad \ufffd key" and report["passes"] == []
