"""kill -9 with the response cache off: the run's journal keeps the finished steps of half-done items."""

import subprocess
import sys

import trio

from graphglean.testing import FakeLLMServer
from graphglean.testing.models.responders import synthetic

from ..test_cli import cli, env, write_config
from .test_runs import outputs

SLOTS = 8  # llm.max_concurrency: the calls a kill may lose


async def test_kills_with_the_cache_off_lose_at_most_the_calls_in_flight(tmp_path):
    llm = {"max_concurrency": SLOTS, "cache": {"mode": "off"}}
    async with FakeLLMServer(synthetic, latency=0.05).running() as s:
        (tmp_path / "ref").mkdir()
        assert (await cli("run", write_config(tmp_path / "ref", s.base_url, llm=llm))).returncode == 0
        reference = len(s.chat_requests())
        s.requests.clear()
        cfg = write_config(tmp_path, s.base_url, llm=llm)
        for fraction in (0.3, 0.6):  # two kills, each while many items are between their steps
            proc = await trio.lowlevel.open_process([sys.executable, "-m", "graphglean", "run", str(cfg)],
                                                    env=env(), stderr=subprocess.DEVNULL)
            target = int(reference * fraction)
            with trio.move_on_after(60):
                while len(s.chat_requests()) < target and proc.poll() is None:
                    await trio.sleep(0.005)
            proc.kill()
            await proc.wait()
        final = await cli("run", cfg)
        assert final.returncode == 0, final.stderr.decode()
    total = len(s.chat_requests())
    print(f"kill -9 twice, cache off: {total} calls vs {reference} uninterrupted (bound +{2 * SLOTS})")
    assert reference <= total <= reference + 2 * SLOTS, (total, reference)
    assert outputs(tmp_path / "out") == outputs(tmp_path / "ref" / "out")
