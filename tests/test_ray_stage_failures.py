"""Engine ray: a stage of the merge that raises, in a worker task or in the driver, fails alone, as in a local run:
the other outputs are written, the failure is one line naming the stage, and the re-run asks nothing again."""

from __future__ import annotations

import io
import json

import pytest

from graphglean.launch import run
from graphglean.testing import FakeLLMServer

from .test_ray import _config, _documents, varied

ray = pytest.importorskip("ray", reason="Ray is not installed (pip install '.[ray]')")
pytestmark = [pytest.mark.ray, pytest.mark.slow]


def _in_worker(real, module: str, name: str):
    """``real`` (a task's work function), run in the worker with ``module.name`` raising. Defined here, the
    wrapper travels to the worker by value; the worker's module is put back after the task."""
    async def work(*args):
        import importlib

        target = importlib.import_module(module)
        kept = getattr(target, name)

        def raising(*a, **kw):
            raise IndexError("list index out of range (forced in a worker)")

        setattr(target, name, raising)
        try:
            return await real(*args)
        finally:
            setattr(target, name, kept)
    return work


def _raising_here(*args, **kw):
    raise IndexError("list index out of range (forced in the driver)")


def _ray_config(server, tmp_path, docs, **graph):
    cfg = _config(server, tmp_path, docs, "out", engine="ray", workers=2, shard_chunks=10, graph_partitions=3)
    cfg.llm.cache.mode, cfg.llm.cache.path = "readwrite", str(tmp_path / "cache.sqlite")
    cfg.output.formats = ["graphml", "json", "jsonl", "html", "lightrag"]
    cfg.graph.communities.enabled = True
    cfg.graph.communities.min_report_size = 2
    for k, v in graph.items():
        setattr(cfg.graph.resolve if k == "resolve" else cfg.graph, "enabled" if k == "resolve" else k, v)
    return cfg


def _sent(server, start=0):
    return [json.dumps(r.body, sort_keys=True) for r in server.requests[start:]
            if r.path.endswith(("/chat/completions", "/embeddings"))]


CASES = [
    # (stage, resolution on, where it fails: a task's work in the driver module, or a driver-side function)
    ("graph.resolve", True, ("graphglean.engines.ray.resolution.driver", "decide_task", None)),
    ("graph.describe", False, ("graphglean.engines.ray.shard_task", "finish_node_partition",
                               ("graphglean.graph.extract", "summarize_descriptions"))),
    ("graph.describe", True, ("graphglean.engines.ray.resolution.driver", "finish_task",
                              ("graphglean.graph.extract", "summarize_descriptions"))),
    ("graph.communities", True, ("graphglean.engines.ray.communities.stage", "_cluster", None)),
    ("graph.communities.reports", False, ("graphglean.engines.ray.communities.stage", "_reports", "driver")),
    ("peers", False, ("graphglean.graph.formats.peers.lightrag.write", "plan_lightrag", "driver")),
    ("graph.graphml", False, ("graphglean.pipeline.outputs", "write_graphml", "driver")),
]


@pytest.mark.parametrize("stage,resolve,where", CASES, ids=[f"{c[0]}-{'resolved' if c[1] else 'unresolved'}"
                                                          for c in CASES])
async def test_a_merge_stage_that_raises_fails_alone_on_ray(cluster, tmp_path, monkeypatch, stage, resolve, where):
    docs = _documents(tmp_path / "docs.jsonl", 24)
    module, name, inner = where
    async with FakeLLMServer(varied).running() as server:
        cfg = _ray_config(server, tmp_path, docs, resolve=resolve)
        with monkeypatch.context() as m:
            if inner == "driver":
                m.setattr(f"{module}.{name}", _raising_here)
            elif inner is None:  # the task itself raises, in the worker
                m.setattr(f"{module}.{name}", _task_raising())
            else:
                import importlib

                real = getattr(importlib.import_module(module), name)
                m.setattr(f"{module}.{name}", _in_worker(real, *inner))
            result = await run(cfg, out=io.StringIO(), notice=lambda line: None)
        out = tmp_path / "out"
        present = {f: (out / f).exists() for f in ("entities.jsonl", "relationships.jsonl", "graph.graphml",
                                                   "graph.html", "communities.jsonl", "lightrag")}
        first = _sent(server)
        n = len(server.requests)
        again = await run(cfg, out=io.StringIO(), notice=lambda line: None)
        repeated = set(_sent(server, n)) & set(first)
    rows = [f for p in result.passes for f in p.failed]
    item = str(out / stage) if stage.endswith(".graphml") else f"stage {stage}"
    assert [f["item"] for f in rows] == [item], rows
    assert "IndexError" in rows[0]["error"] and "(at " in rows[0]["error"]
    expected = {"graph.resolve": "graph.resolve.enabled: false", "graph.describe": "graph.description_max_tokens",
                "graph.communities": "graph.communities.enabled: false", "peers": "without lightrag",
                "graph.communities.reports": "graph.communities.reports: false",
                "graph.graphml": "output.formats without graphml"}[stage]
    assert expected in rows[0]["error"]
    lost = {"graph.communities": {"communities.jsonl"}, "peers": {"lightrag"}, "graph.graphml": {"graph.graphml"}
            }.get(stage, set())
    assert {f for f, there in present.items() if not there} == lost
    assert json.loads((out / "report.json").read_text())["failed"] == [] and not again.failed
    assert not repeated, f"{len(repeated)} requests sent again"


def _task_raising():
    async def work(*args):
        raise IndexError("list index out of range (forced in a worker)")
    return work
