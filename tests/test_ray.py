"""engine ray end to end, on one small local cluster shared by the session (Ray has no local mode)."""

from __future__ import annotations

import io
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

from graphglean.core.config import Config
from graphglean.engines.ray.leases import BatchSize
from graphglean.launch import run
from graphglean.testing import FakeLLMServer
from graphglean.testing.models.responders import MARK_DESCRIBE, synthetic

from .helpers import llm_config

ray = pytest.importorskip("ray", reason="Ray is not installed (pip install '.[ray]')")
pytestmark = pytest.mark.ray
ROOT = Path(__file__).resolve().parent.parent


def _documents(path: Path, n: int) -> Path:
    """``n`` JSONL documents cut from the bundled sample, each about one chunk."""
    text = (ROOT / "examples" / "a_christmas_carol_stave1.txt").read_text()
    paras = [p.strip() for p in text.split("\n\n") if len(p.strip()) > 80]
    with path.open("w") as f:
        for i in range(n):
            f.write(json.dumps({"text": paras[i % len(paras)] + f" (part {i})"}) + "\n")
    return path


def varied(req):
    """The synthetic model, its descriptions naming the document's part: descriptions of one entity differ
    between documents, so joined ones grow long and are summarized."""
    if MARK_DESCRIBE in req.last_user:  # a summary shorter than what it sums up
        return "Summary: " + req.last_user.split("\n- ")[1].split("\n")[0]
    reply = synthetic(req)
    part = re.search(r"\(part (\d+)\)", req.prompt)
    if isinstance(reply, str) and part:
        reply = reply.replace(" appears in the passage.", f" appears in part {part.group(1)}.")
        reply = reply.replace(" is mentioned near ", f" (part {part.group(1)}) is near ")
        if int(part.group(1)) % 7 == 0 and "<|COMPLETE|>" in reply:  # an echo of a stock placeholder: dropped
            reply = reply.replace("<|COMPLETE|>", f'##\n("entity"<|>John Doe<|>person<|>Echo {part.group(1)}.)'
                                                  f'\n<|COMPLETE|>')
    return reply


def _config(server, tmp_path: Path, docs: Path, out: str, **runtime) -> Config:
    cfg = Config()
    cfg.llm = llm_config(server)
    cfg.llm.max_concurrency = 16
    cfg.input.path = str(docs)
    cfg.output.dir = str(tmp_path / out)
    cfg.graph.method = "llm"
    cfg.graph.description_max_tokens = 12  # long joined descriptions are summarized, per partition
    cfg.graph.resolve.enabled = False  # not under engine ray yet: both sides build the unresolved graph
    for k, v in runtime.items():
        setattr(cfg.runtime, k, v)
    return cfg


def _rows(folder: Path, name: str) -> list[dict]:
    return [json.loads(line) for line in (folder / name).read_text().splitlines()]


async def test_ray_gives_the_local_graph_row_for_row(cluster, tmp_path):
    docs = _documents(tmp_path / "docs.jsonl", 110)
    async with FakeLLMServer(varied).running() as server:
        local = _config(server, tmp_path, docs, "local")
        await run(local, out=io.StringIO(), notice=lambda m: None)
        on_ray = _config(server, tmp_path, docs, "ray", engine="ray", workers=4, shard_chunks=30, graph_partitions=5)
        result = await run(on_ray, out=io.StringIO(), notice=lambda m: None)
    a, b = tmp_path / "local", tmp_path / "ray"
    entities = _rows(a, "entities.jsonl")
    assert len(entities) > 50 and any(r.get("summarized") for r in entities)
    assert _rows(b, "entities.jsonl") == entities
    assert _rows(b, "relationships.jsonl") == _rows(a, "relationships.jsonl")
    assert (b / "graph.graphml").read_bytes() == (a / "graph.graphml").read_bytes()
    assert (b / "chunks.jsonl").read_bytes() == (a / "chunks.jsonl").read_bytes()  # what graph.html quotes
    assert (b / "neo4j" / "nodes.csv").read_bytes() == (a / "neo4j" / "nodes.csv").read_bytes()
    assert (b / "graph.html").stat().st_size > 0
    rt = result.report["runtime"]
    assert rt["shards"] == 4 and rt["shards_skipped"] == 0 and result.report["chunks"] >= 110
    local_row = json.loads((a / "report.json").read_text())["passes"][0]
    ray_row = result.report["passes"][0]
    for k in ("records", "entities", "relationships", "nodes", "edges", "summarized_descriptions", "ungrounded",
              "echoed_examples"):
        assert ray_row[k] == local_row[k], k
    # the synthetic model's placeholder, counted in each chunk it is echoed in (one node before: one)
    assert local_row["echoed_examples"] > 1 and "john doe" not in {r["id"] for r in entities}
    llm = result.report["llm"]  # every task's client: the shards' and the partitions' (their summaries)
    sent = llm["streaming"]["streamed_calls"] + llm["streaming"]["unstreamed_calls"]
    assert sent == ray_row["calls"] - ray_row["retries"] > 0
    tasks = [t["task"] for w in llm["workers"] for t in w["tasks"]]
    assert sorted(t for t in tasks if t.startswith("shard")) == [f"shard {k:05d}" for k in range(4)]
    assert any(t.startswith("node_partitions") for t in tasks)
    assert all("in_flight_limit" in t["concurrency"] for w in llm["workers"] for t in w["tasks"])


async def test_ray_offline_method_gives_the_local_graph_row_for_row(cluster, tmp_path):
    docs = _documents(tmp_path / "docs.jsonl", 40)
    cfgs = []
    for out, runtime in (("local", {}), ("ray", dict(engine="ray", workers=2, shard_chunks=20, graph_partitions=3))):
        cfg = Config()
        cfg.input.path, cfg.output.dir = str(docs), str(tmp_path / out)
        cfg.graph.method, cfg.graph.resolve.enabled = "nlp", False
        cfg.graph.description_max_tokens = 8  # quotes are cut to the budget
        for k, v in runtime.items():
            setattr(cfg.runtime, k, v)
        cfgs.append(cfg)
    for cfg in cfgs:
        await run(cfg, out=io.StringIO(), notice=lambda m: None)
    a, b = tmp_path / "local", tmp_path / "ray"
    entities = _rows(a, "entities.jsonl")
    assert len(entities) >= 8  # the sample's characters and places (common words capitalized are none)
    assert _rows(b, "entities.jsonl") == entities
    assert _rows(b, "relationships.jsonl") == _rows(a, "relationships.jsonl")
    local_row = json.loads((a / "report.json").read_text())["passes"][0]
    ray_row = json.loads((b / "report.json").read_text())["passes"][0]
    assert ray_row["offline_backend"] == local_row["offline_backend"]


async def test_ray_reports_the_files_it_skipped_and_the_input_warnings_as_the_local_run(cluster, tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(5):
        (docs / f"{i:02d}.txt").write_text(f"Document {i}: Ada Lovelace met Charles Babbage in London.")
    (docs / "05.txt").write_bytes("Le café de Genève est fermé.".encode("latin-1"))  # read, as Windows-1252
    (docs / "06.txt").write_bytes("Привет, мир. Как дела?".encode("cp1251"))  # passes the plan's sniff, not read
    (docs / "07.txt").write_bytes(b"%PDF-1.7\n")  # skipped by the plan
    (docs / "08.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    reports = []
    for out, runtime in (("local", {}), ("ray", dict(engine="ray", workers=2, shard_chunks=3, graph_partitions=2))):
        cfg = Config()
        cfg.input.path, cfg.output.dir = str(docs), str(tmp_path / out)
        cfg.graph.method, cfg.graph.resolve.enabled = "nlp", False
        for k, v in runtime.items():
            setattr(cfg.runtime, k, v)
        await run(cfg, out=io.StringIO(), notice=lambda m: None)
        reports.append(json.loads((tmp_path / out / "report.json").read_text()))
    local, ray_report = reports
    assert [r["file"] for r in local["skipped"]] == [str(docs / f) for f in ("06.txt", "07.txt", "08.png")]
    assert sorted(ray_report["skipped"], key=lambda r: r["file"]) == local["skipped"]
    latin = [w for w in local["warnings"] if "05.txt: not UTF-8" in w]
    assert len(latin) == 1 and latin[0] in ray_report["warnings"]
    assert ray_report["documents"] == local["documents"] == 6

def _max_in_window(times: list[float], window: float = 1.0) -> int:
    best, j = 0, 0
    for i, t in enumerate(times):
        while times[j] < t - window:
            j += 1
        best = max(best, i - j + 1)
    return best


async def _rate_run(tmp_path: Path, rpm: int, out: str) -> tuple[dict, list[tuple[float, int]], int]:
    """A run of 4 workers against a server that allows ``rpm``, the client configured at 0.9 of it. Returns
    the report, when the server read each chat request (its own log) with the shard of its document, and
    the 429s."""
    from graphglean.engines.ray.shards import plan_shards

    docs = _documents(tmp_path / f"{out}.jsonl", 80)
    async with FakeLLMServer(synthetic, rpm=rpm).running() as server:
        cfg = _config(server, tmp_path, docs, out, engine="ray", workers=4, shard_chunks=20, graph_partitions=2)
        cfg.graph.max_gleanings = 0
        cfg.graph.description_max_tokens = 10_000
        cfg.llm.max_retries = 20
        cfg.llm.requests_per_minute = int(0.9 * rpm)
        result = await run(cfg, out=io.StringIO(), notice=lambda m: None)
        first_lines = [spec.first_line for spec in plan_shards(cfg)]
        log = [(r.started, int(re.search(r"\(part (\d+)\)", r.prompt).group(1))) for r in server.chat_requests()]
        shard = [sum(1 for line in first_lines if line <= part + 1) - 1 for _, part in log]
        return result.report, sorted((t, k) for (t, _), k in zip(log, shard)), server.status_counts.get(429, 0)


def _busy_s(log: list[tuple[float, int]], since: float) -> float:
    """Seconds after ``since`` in which some shard was between its first and its last request: a Ray worker
    slow to start (a loaded machine) leaves stretches with no calls to make, which no limit can fill."""
    spans = sorted((min(t for t, k in log if k == s), max(t for t, k in log if k == s)) for s in {k for _, k in log})
    busy, reach = 0.0, since
    for start, end in spans:
        start = max(start, reach)
        if end > start:
            busy += end - start
            reach = end
    return busy


async def test_one_global_rate_for_every_worker(cluster, tmp_path):
    """From the server's own log of when it read each request: never more than the rate plus one second's
    burst in any second, and after the banked first second, at least 85% of the rate over the time some
    shard had calls to make (however long a loaded machine takes to start a worker)."""
    rpm = 1200  # 20 a second; the client asks for 18
    report, log, rejected = await _rate_run(tmp_path, rpm, out="global")
    times = [t for t, _ in log]
    assert rejected == 0
    assert report["passes"][0]["rate_limited"] == 0
    assert _max_in_window(times) <= 2 * rpm / 60  # never more than the rate plus one second's burst
    steady = [t for t in times if t >= times[0] + 1.0]  # after the banked first second
    rate = (len(steady) - 1) / _busy_s(log, steady[0])
    per_second = [sum(1 for t in times if int(t - times[0]) == s) for s in range(int(times[-1] - times[0]) + 1)]
    assert rate >= 0.85 * 0.9 * rpm / 60, (rate, per_second, report["runtime"]["leases"])
    leases = report["runtime"]["leases"]
    batch = BatchSize.of(int(0.9 * rpm), 0, workers=4).requests
    assert batch == 2
    assert leases["leases"] <= len(times) / batch + 4  # at most calls / batch + workers


async def test_leases_follow_calls_when_the_rate_does_not_bind(cluster, tmp_path):
    """Each worker makes 10 slow calls (3 s) against a batch of 20: one lease each (permits used to lapse after
    a second, so a slow worker leased again and again)."""
    docs = _documents(tmp_path / "docs.jsonl", 40)
    async with FakeLLMServer(synthetic, latency=0.3).running() as server:
        cfg = _config(server, tmp_path, docs, "out", engine="ray", workers=4, shard_chunks=10, graph_partitions=2)
        cfg.llm.max_concurrency = 4  # one call at a time a worker
        cfg.graph.max_gleanings = 0
        cfg.graph.description_max_tokens = 10_000
        cfg.llm.requests_per_minute = 19_200
        result = await run(cfg, out=io.StringIO(), notice=lambda m: None)
        calls = len(server.chat_requests())
    batch = BatchSize.of(19_200, 0, workers=4).requests
    assert batch == 20 and calls >= 40 and not result.failed
    assert result.report["runtime"]["leases"]["leases"] <= calls / batch + 4


async def test_per_worker_limits_do_produce_429s(cluster, tmp_path, monkeypatch):
    from graphglean.engines.ray import driver as ray_engine

    real = ray_engine.worker_config

    def whole_rate_each(cfg):  # the negative control: each worker limits itself alone to 0.9 R
        w = real(cfg)
        w.llm.requests_per_minute = cfg.llm.requests_per_minute
        return w

    monkeypatch.setattr(ray_engine, "worker_config", whole_rate_each)
    monkeypatch.setattr(ray_engine.BatchSize, "of", classmethod(lambda cls, r, t, w: cls(0, 0)))
    report, _, rejected = await _rate_run(tmp_path, 1200, out="per-worker")
    assert rejected > 0
    assert report["passes"][0]["rate_limited"] > 0 and not report["failed"]  # each worker slowed down, none failed


def _stored(folder: Path) -> int:
    try:
        db = sqlite3.connect(folder / "run.sqlite", timeout=1)
        try:
            return db.execute("SELECT COUNT(*) FROM results WHERE pass = 'graph'").fetchone()[0]
        finally:
            db.close()
    except sqlite3.Error:
        return 0


async def test_a_killed_worker_is_retried_and_resumes_from_its_store(cluster, tmp_path):
    docs = _documents(tmp_path / "docs.jsonl", 40)
    async with FakeLLMServer(synthetic, latency=0.05).running() as server:
        cfg = _config(server, tmp_path, docs, "out", engine="ray", workers=1, shard_chunks=100, graph_partitions=2)
        cfg.llm.max_concurrency = 4
        cfg.llm.cache.mode, cfg.llm.cache.path = "readwrite", str(tmp_path / "cache.sqlite")
        shard = tmp_path / "out" / "shards" / "00000"
        killed = {}

        async def kill_after(n: int) -> None:
            while _stored(shard) < n:
                await trio.sleep(0.05)
            killed["saved"] = _stored(shard)
            pid = int((shard / "attempts").read_text().split()[0])
            os.kill(pid, signal.SIGKILL)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(kill_after, 10)
            result = await run(cfg, out=io.StringIO(), notice=lambda m: None)
        bodies = [json.dumps(r.body, sort_keys=True) for r in server.chat_requests()]
    assert result.report["runtime"]["retries"] == 1
    assert result.report["passes"][0]["resumed_chunks"] >= killed["saved"]
    assert not result.failed and result.report["chunks"] == 40
    assert len(bodies) - len(set(bodies)) <= cfg.llm.max_concurrency  # at most the calls in flight, again


async def test_a_killed_driver_rerun_repeats_no_finished_shard(cluster, tmp_path):
    docs = _documents(tmp_path / "docs.jsonl", 40)
    async with FakeLLMServer(synthetic, latency=0.1).running() as server:
        cfg_text = (f"llm: {{base_url: '{server.base_url}', api_key: sk-test, max_concurrency: 4, "
                    f"cache: {{mode: 'off'}}}}\n"
                    f"input: {{path: '{docs}'}}\noutput: {{dir: '{tmp_path / 'out'}'}}\n"
                    f"graph: {{method: llm, resolve: {{enabled: false}}}}\n"
                    f"runtime: {{engine: ray, address: '{cluster}', workers: 2, shard_chunks: 5, graph_partitions: 2, "
                    f"single_graph: false}}\n")
        (tmp_path / "c.yaml").write_text(cfg_text)
        shards = tmp_path / "out" / "shards"
        log = (tmp_path / "driver.log").open("w")
        driver = subprocess.Popen([sys.executable, "-m", "graphglean", "run", str(tmp_path / "c.yaml")], cwd=ROOT,
                                  stdout=log, stderr=log)
        try:
            with trio.fail_after(60):
                while len(list(shards.glob("*/done.json"))) < 2:
                    assert driver.poll() is None, (tmp_path / "driver.log").read_text()
                    await trio.sleep(0.1)
        finally:
            driver.send_signal(signal.SIGKILL)
            driver.wait()
        finished = {p.parent.name for p in shards.glob("*/done.json")}
        await trio.sleep(0.5)
        from graphglean.core.config_loader import load_config

        result = await run(load_config(tmp_path / "c.yaml"), out=io.StringIO(), notice=lambda m: None)
        asked = len(server.chat_requests())
    assert result.report["runtime"]["shards_skipped"] >= len(finished)
    totals, this = result.report["totals"], result.report["invocation"]  # the killed driver's shards count
    assert totals["invocations"] == 2 and this["calls"] < totals["calls"] <= asked
    assert result.report["started"] < this["started"]
    for name in finished:  # started once, never again
        assert len((shards / name / "attempts").read_text().split()) == 1
    assert result.report["chunks"] == 40 and not result.failed
    out = tmp_path / "out"  # single_graph: false: the tables, not the whole graph in one file
    assert (out / "entities.jsonl").stat().st_size > 0 and not (out / "graph.graphml").exists()


async def test_communities_on_ray_are_the_local_ones_and_reports_are_reused(cluster, tmp_path):
    from graphglean.testing.models.planted import planted_corpus
    from graphglean.testing.models.responders import MARK_REPORT

    corpus = planted_corpus(documents=12)
    docs = tmp_path / "planted.jsonl"
    docs.write_text("".join(json.dumps({"text": t}) + "\n" for t in corpus.documents))

    def asked(server):
        return sum(1 for r in server.requests if r.messages and MARK_REPORT in r.messages[0]["content"])

    async with FakeLLMServer(synthetic).running() as server:
        configs = {}
        ray = {"engine": "ray", "workers": 2, "shard_chunks": 4}
        for name, runtime in (("local", {}), ("ray", ray), ("tables", {**ray, "single_graph": False})):
            cfg = configs[name] = _config(server, tmp_path, docs, name, **runtime)
            cfg.graph.max_gleanings = 0
            cfg.graph.communities.enabled = True
            await run(cfg, out=io.StringIO(), notice=lambda m: None)
        first = asked(server)
        result = await run(configs["ray"], out=io.StringIO(), notice=lambda m: None)
        assert asked(server) == first  # a re-run reuses every report
        local, on_ray = (_rows(tmp_path / n, "communities.jsonl") for n in ("local", "ray"))
        assert [(c["id"], c["level"], sorted(c["entity_ids"]), c["parent"]) for c in on_ray] == \
               [(c["id"], c["level"], sorted(c["entity_ids"]), c["parent"]) for c in local]
        reports = {n: _rows(tmp_path / n, "community_reports.jsonl") for n in ("local", "ray")}
        assert [r["title"] for r in reports["ray"]] == [r["title"] for r in reports["local"]]
        assert first == 3 * len(reports["local"])  # each asked once by each run
        for name in ("communities.jsonl", "community_reports.jsonl", "entities.jsonl"):  # no whole graph in memory
            assert (tmp_path / "tables" / name).read_text() == (tmp_path / "local" / name).read_text(), name
        assert not (tmp_path / "tables" / "graph.json").exists()
        graph = json.loads((tmp_path / "ray" / "graph.json").read_text())
        assert all("community" in n for n in graph["nodes"] if any(e["source"] == n["id"] for e in graph["edges"]))
        row = next(p for p in result.report["passes"] if p["pass"] == "graph")
        assert row["community_reports"]["cached"] == len(reports["ray"]) and row["community_reports"]["made"] == 0
        assert row["communities_changed"] == 0 and row["community_run"] == 2  # carried over, not clustered again
        configs["ray"].graph.communities.levels = 1  # a community setting: the shards stay finished
        notices = []
        await run(configs["ray"], out=io.StringIO(), notice=notices.append)
    assert any("was finished before" in n for n in notices)
    assert not any(re.search(r"shard \S+ done", n) for n in notices)
    assert {c["level"] for c in _rows(tmp_path / "ray", "communities.jsonl")} == {0}


async def test_a_schema_on_ray_flags_and_leaves_out_what_the_local_run_does(cluster, tmp_path):
    """graph.schema strict on both engines (resolution on): the same rows, off_schema_records.jsonl (the shards'
    records, then the partitions' nodes and edges) and counts; the shards' structured_output accounts summed."""
    from graphglean.testing.models.structured import typed_corpus, typed_model

    corpus = typed_corpus(documents=8)
    docs = tmp_path / "typed.jsonl"
    docs.write_text("".join(json.dumps({"text": t}) + "\n" for t in corpus.documents))
    async with FakeLLMServer(typed_model(corpus)).running() as server:
        results = {}
        for out, runtime in (("local", {}), ("ray", dict(engine="ray", workers=2, shard_chunks=5,
                                                         graph_partitions=3))):
            cfg = _config(server, tmp_path, docs, out, **runtime)
            cfg.graph.resolve.enabled, cfg.graph.resolve.method = True, "rules"
            cfg.graph.schema = corpus.schema("strict", leave_out=["EVENT"])
            results[out] = await run(cfg, out=io.StringIO(), notice=lambda m: None)
    a, b = tmp_path / "local", tmp_path / "ray"
    assert _rows(b, "entities.jsonl") == _rows(a, "entities.jsonl")
    assert _rows(b, "relationships.jsonl") == _rows(a, "relationships.jsonl")
    left_out = sorted(json.dumps(r, sort_keys=True) for r in _rows(a, "off_schema_records.jsonl"))
    assert left_out and sorted(json.dumps(r, sort_keys=True) for r in _rows(b, "off_schema_records.jsonl")) == left_out
    rows = {k: next(p for p in r.report["passes"] if p["pass"] == "graph") for k, r in results.items()}
    assert rows["ray"]["off_schema"] == rows["local"]["off_schema"] > 0
    accounts = rows["ray"]["structured_output"]
    assert accounts["format"] == "json_schema" and accounts["json_chunks"] == rows["ray"]["chunks"]
