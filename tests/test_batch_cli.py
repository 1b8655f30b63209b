"""Batch mode from the command line: a run killed while a wave is in flight, --detach, and the checks that refuse
what batch mode cannot do."""

import json
import signal
import sys
from collections import Counter

import trio

from graphglean.testing import FakeLLMServer
from graphglean.testing.batch_api import FakeBatchAPI
from graphglean.testing.models.responders import synthetic

from .test_cli import STAVE, cli, env, write_config

FAST = {"enabled": True, "poll_s": 0.02, "quiet_s": 0.1, "online_tail": 0}
OUTPUTS = ("graph.json", "entities.jsonl", "relationships.jsonl", "summaries.jsonl")


def batch_config(tmp_path, base_url, **batch):
    """A configuration for batch mode over the stave's first 3,000 characters (a few chunks)."""
    tmp_path.mkdir(exist_ok=True)
    path = write_config(tmp_path, base_url, llm={"batch": {**FAST, **batch}}, summary={"enabled": True})
    (tmp_path / "stave.txt").write_text(STAVE.read_text()[:3000])
    cfg = json.loads(path.read_text())
    cfg["input"]["path"] = str(tmp_path / "stave.txt")
    path.write_text(json.dumps(cfg))
    return path


async def reference_run(path):
    """The uninterrupted run, in this process (a process start is seconds on a loaded machine)."""
    from graphglean.core.config_loader import load_config

    from .test_resume import quiet_run

    assert not (await quiet_run(load_config(path))).failed


def outputs(folder):
    return {name: (folder / "out" / name).read_text() for name in OUTPUTS}


async def test_kill_9_while_a_wave_is_in_flight_then_the_same_command_submits_nothing_twice(tmp_path):
    api = FakeBatchAPI(0.4)
    async with FakeLLMServer(synthetic, batch_api=api).running() as s:
        await reference_run(batch_config(tmp_path / "ref", s.base_url))
        reference_lines, reference_batches = len(api.uploaded_lines), len(api.batches)
        api.uploaded_lines.clear()
        cfg = batch_config(tmp_path / "run", s.base_url)
        proc = await trio.lowlevel.open_process([sys.executable, "-m", "graphglean", "run", str(cfg)], env=env())
        while len(api.batches) < reference_batches + 2:  # its second wave is in flight
            await trio.sleep(0.01)
        await trio.sleep(0.05)
        proc.send_signal(signal.SIGKILL)
        await proc.wait()
        resumed = await cli("run", cfg)
        assert resumed.returncode == 0, resumed.stderr.decode()
    assert max(Counter(api.uploaded_lines).values()) == 1 and len(api.uploaded_lines) == reference_lines
    assert s.chat_requests() == []
    assert outputs(tmp_path / "run") == outputs(tmp_path / "ref")


async def test_detach_submits_a_wave_and_exits_0_then_the_same_command_completes_the_run(tmp_path):
    api = FakeBatchAPI(0.3)
    async with FakeLLMServer(synthetic, batch_api=api).running() as s:
        await reference_run(batch_config(tmp_path / "ref", s.base_url))
        api.uploaded_lines.clear()
        cfg = batch_config(tmp_path / "run", s.base_url)
        first = await cli("run", cfg, "--detach")
        batches_then = len(api.batches)
        second = await cli("run", cfg)
    err = first.stderr.decode()
    assert first.returncode == 0 and "Traceback" not in err, err
    assert "detached:" in err and "run the same command again to continue" in err and "due by" in err
    assert second.returncode == 0, second.stderr.decode()
    assert batches_then >= 2 and max(Counter(api.uploaded_lines).values()) == 1
    assert outputs(tmp_path / "run") == outputs(tmp_path / "ref")
    report = json.loads((tmp_path / "run" / "out" / "report.json").read_text())
    assert all(row["calls"] == row["batch_calls"] for row in report["passes"] if row["pass"] != "graph")


async def test_detach_without_batch_mode_is_refused_with_one_line(tmp_path):
    plain = write_config(tmp_path, "http://127.0.0.1:9/v1")
    r = await cli("run", plain, "--detach")
    err = r.stderr.decode()
    assert r.returncode == 2 and "--detach needs batch mode (llm.batch.enabled: true)" in err
    assert "Traceback" not in err


async def test_dry_run_estimates_the_cost_online_and_in_batch_mode(tmp_path):
    r = await cli("run", write_config(tmp_path, "http://127.0.0.1:9/v1", llm={"model": "gpt-4o-mini"}), "--dry-run")
    out = r.stdout.decode()
    assert r.returncode == 0, r.stderr.decode()
    costs = [line for line in out.splitlines() if line.startswith("  graph:")]
    online, batch = (float(x.split("$")[1].split()[0].rstrip(",")) for x in costs[0].split(" online, "))
    assert batch == round(online / 2, 4) > 0 and "in batch mode" in costs[0]
    total = next(line for line in out.splitlines() if line.startswith("  total:"))
    assert "online" in total and "in batch mode (llm.batch)" in total
