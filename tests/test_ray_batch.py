"""Batch mode on Ray: the shards' requests go into the run's waves (one hub, one ledger), answers are stored by
the tasks, a retried task submits nothing twice, and --detach stops and resumes a Ray run as a local one."""

from __future__ import annotations

import io
import json
import os
import signal
import sqlite3
from collections import Counter
from pathlib import Path

import pytest
import trio

from graphglean.launch import run
from graphglean.testing import FakeLLMServer
from graphglean.testing.batch_api import FakeBatchAPI
from graphglean.testing.models.responders import synthetic

from .test_ray import _config, _documents, _rows

ray = pytest.importorskip("ray", reason="Ray is not installed (pip install '.[ray]')")
pytestmark = pytest.mark.ray
FAST = {"enabled": True, "poll_s": 0.05, "quiet_s": 0.3, "online_tail": 0}


def _batch(cfg, **settings):
    for k, v in {**FAST, **settings}.items():
        setattr(cfg.llm.batch, k, v)
    cfg.graph.max_gleanings = 0
    return cfg


async def test_a_ray_run_in_batch_mode_sends_every_request_once_in_shared_waves_and_writes_the_local_rows(
        cluster, tmp_path):
    docs = _documents(tmp_path / "docs.jsonl", 12)
    api = FakeBatchAPI(0.1)
    async with FakeLLMServer(synthetic, batch_api=api).running() as server:
        local = _batch(_config(server, tmp_path, docs, "local"))
        await run(local, out=io.StringIO(), notice=lambda m: None)
        local_lines, local_batches = len(api.uploaded_lines), len(api.batches)
        api.uploaded_lines.clear()
        on_ray = _batch(_config(server, tmp_path, docs, "ray", engine="ray", workers=3, shard_chunks=4,
                                graph_partitions=3))
        result = await run(on_ray, out=io.StringIO(), notice=lambda m: None)
        online = server.chat_requests()
    assert not result.failed and not online  # every chat request went in a batch
    assert max(Counter(api.uploaded_lines).values()) == 1 and len(api.uploaded_lines) == local_lines
    assert len(api.batches) - local_batches < len(api.uploaded_lines)  # shards' requests share batches
    for name in ("entities.jsonl", "relationships.jsonl"):
        assert _rows(tmp_path / "ray", name) == _rows(tmp_path / "local", name)
    row = result.report["passes"][0]
    assert row["batch_calls"] == row["calls"] == local_lines and result.report["batches"]["lines"] == local_lines
    ledger = tmp_path / "ray" / "shards" / "batch" / "ledger.sqlite"
    with sqlite3.connect(ledger) as db:  # every answer stored: no batch left to take up
        assert db.execute("SELECT COUNT(*) FROM batch_waves").fetchone() == (0,)


async def test_a_task_killed_while_it_waits_for_batches_is_retried_and_submits_nothing_twice(cluster, tmp_path):
    docs = _documents(tmp_path / "docs.jsonl", 12)
    api = FakeBatchAPI(1.0)  # long enough to kill the worker while its requests wait in a batch
    async with FakeLLMServer(synthetic, batch_api=api).running() as server:
        cfg = _batch(_config(server, tmp_path, docs, "out", engine="ray", workers=1, shard_chunks=100,
                             graph_partitions=2))
        shard = tmp_path / "out" / "shards" / "00000"
        killed = []

        async def kill_when_batched() -> None:
            while not api.batches:
                await trio.sleep(0.02)
            pid = int((shard / "attempts").read_text().split()[0])
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(kill_when_batched)
            result = await run(cfg, out=io.StringIO(), notice=lambda m: None)
    assert killed and result.report["runtime"]["retries"] == 1 and not result.failed
    assert max(Counter(api.uploaded_lines).values()) == 1  # the retried task's requests found their batch


async def test_detach_stops_a_ray_run_where_it_only_waits_for_batches_and_the_same_call_finishes_it(
        cluster, tmp_path):
    docs = _documents(tmp_path / "docs.jsonl", 8)
    api = FakeBatchAPI(1.0)
    async with FakeLLMServer(synthetic, batch_api=api).running() as server:
        cfg = _batch(_config(server, tmp_path, docs, "out", engine="ray", workers=2, shard_chunks=4,
                             graph_partitions=2))
        first = await run(cfg, out=io.StringIO(), notice=lambda m: None, detach=True)
        made = len(api.batches)
        second = await run(cfg, out=io.StringIO(), notice=lambda m: None)
    assert "run the same command again to continue" in first.detached and made >= 1
    assert not second.detached and not second.failed and second.report["chunks"] == 8
    assert max(Counter(api.uploaded_lines).values()) == 1
    assert Path(tmp_path / "out" / "entities.jsonl").stat().st_size > 0
    # the run's calls, whichever invocation made them: on a loaded machine the detached one may see every batch
    # end before it stops, and the second then asks nothing
    assert json.loads((tmp_path / "out" / "report.json").read_text())["totals"]["calls"] > 0
