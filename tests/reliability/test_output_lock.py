"""One output folder, one run: real `graphglean` processes against one folder at once, and after a kill -9."""

import json
import os
import subprocess
import sys
import time

import pytest
import trio

from graphglean.core.errors import OutputFolderInUseError
from graphglean.pipeline.folder_lock import LOCK_FILE, output_folder_lock
from graphglean.testing import FakeLLMServer
from graphglean.testing.models.responders import synthetic

from ..test_cli import cli, env, write_config


class Gate:
    """A responder that holds every answer while its gate is shut, so a run stays alive as long as a test needs."""

    def __init__(self):
        self.opened = trio.Event()

    async def __call__(self, req):
        await self.opened.wait()
        return synthetic(req)

    def shut(self):
        self.opened = trio.Event()


async def holding(cfg, out, *args):
    """A `graphglean run` process, once it holds ``out``'s lock."""
    proc = await trio.lowlevel.open_process([sys.executable, "-m", "graphglean", "run", str(cfg), *args], env=env(),
                                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with trio.fail_after(30):
        while True:
            try:
                if json.loads((out / LOCK_FILE).read_text())["pid"] == proc.pid:
                    return proc
            except (OSError, ValueError, KeyError):
                pass
            assert proc.poll() is None, "the run ended before it held the lock"
            await trio.sleep(0.02)


def refused_at_once(result, elapsed, out, holder):
    err = result.stderr.decode()
    assert result.returncode == 2, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert str(out.resolve()) in err and f"pid {holder.pid}" in err and "graphglean run" in err
    assert elapsed < 20  # the interpreter's start; the refusal itself waits for nothing


async def test_a_second_run_fresh_or_view_is_refused_while_a_run_holds_the_folder(tmp_path):
    gate = Gate()
    async with FakeLLMServer(gate).running() as s:
        # 4 requests in flight (the server's slots given: nothing to learn), no retry while they are held
        cfg = write_config(tmp_path, s.base_url, llm={"timeout_s": 300, "first_token_timeout_s": 300,
                                                      "server_concurrency": 4})
        out = tmp_path / "out"
        first = await holding(cfg, out)
        with trio.fail_after(60):
            while s.in_flight < 4:  # every request slot of the run waits at the gate: it sends nothing more
                await trio.sleep(0.01)
        asked = len(s.requests)
        for args in (("run", cfg), ("run", cfg, "--fresh"), ("view", out)):
            t0 = time.monotonic()
            refused_at_once(await cli(*args), time.monotonic() - t0, out, first)
        assert len(s.requests) == asked  # the refused runs asked for nothing
        assert (out / "run.sqlite").exists() and first.poll() is None
        gate.opened.set()
        assert await first.wait() == 0
    log = (out / "logs" / "run.log").read_text()  # the refused runs wrote nothing into the live run's log
    assert log.count(": run ") == 1 and f"(pid {first.pid})" in log and "in use" not in log, log
    assert (await cli("view", out)).returncode == 0  # released when the run ended


async def test_kill_9_leaves_no_stale_lock(tmp_path):
    gate = Gate()
    async with FakeLLMServer(gate).running() as s:
        cfg = write_config(tmp_path, s.base_url)
        out = tmp_path / "out"
        proc = await holding(cfg, out)
        proc.kill()
        await proc.wait()
        gate.opened.set()
        again = await cli("run", cfg)
    assert again.returncode == 0, again.stderr.decode()
    assert (out / "report.json").is_file()


@pytest.fixture
def held_elsewhere(tmp_path):
    """``tmp_path/out`` locked by another process for the test's length; yields (folder, pid)."""
    out = tmp_path / "out"
    out.mkdir()
    code = ("import sys, time\nfrom graphglean.pipeline.folder_lock import output_folder_lock\n"
            "with output_folder_lock(sys.argv[1], 'run'):\n    print('held', flush=True)\n    time.sleep(60)\n")
    proc = subprocess.Popen([sys.executable, "-c", code, str(out)], env=env(), stdout=subprocess.PIPE)
    try:
        assert proc.stdout.readline() == b"held\n"
        yield out, proc.pid
    finally:
        proc.kill()
        proc.wait()


def test_the_library_run_raises_the_same_error(tmp_path, held_elsewhere):
    from graphglean import run_sync
    from graphglean.core.config import Config

    out, pid = held_elsewhere
    cfg = Config()
    cfg.input.path = str(tmp_path / "in.txt")
    (tmp_path / "in.txt").write_text("Ada Lovelace met Charles Babbage in London.")
    cfg.output.dir = str(out)
    cfg.graph.method = "nlp"
    with pytest.raises(OutputFolderInUseError, match=f"{out.resolve()} is in use by graphglean run \\(pid {pid}"):
        run_sync(cfg)
    assert not (out / "run.sqlite").exists()


def test_a_ray_run_holds_the_drivers_folder(tmp_path, held_elsewhere):
    ray = pytest.importorskip("ray", reason="Ray is not installed (pip install '.[ray]')")
    from graphglean.core.config import Config
    from graphglean.core.sync import run_sync
    from graphglean.engines.ray.driver import run_on_ray

    out, pid = held_elsewhere
    cfg = Config()
    cfg.input.path = str(tmp_path / "in.txt")
    (tmp_path / "in.txt").write_text("Ada Lovelace met Charles Babbage in London.")
    cfg.output.dir = str(out)
    cfg.graph.method = "nlp"
    cfg.runtime.engine = "ray"
    with pytest.raises(OutputFolderInUseError, match=f"pid {pid}"):
        run_sync(run_on_ray, cfg)
    assert not (out / "shards").exists() and not ray.is_initialized()  # refused before any work


def test_a_folder_is_one_holders_at_a_time_in_one_process_too(tmp_path):
    with output_folder_lock(tmp_path, "run"):
        with pytest.raises(OutputFolderInUseError, match=f"pid {os.getpid()}"):
            with output_folder_lock(tmp_path, "view"):
                pass
    with output_folder_lock(tmp_path, "view"):  # released
        pass
