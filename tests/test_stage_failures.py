"""A stage that raises after the calls were paid costs that stage only: the outputs that do not need it are
written, the failure is one line naming the stage, the exception and the setting that skips it, the run exits 1,
and the re-run after the fix sends no request the first run sent (issue 33)."""

from __future__ import annotations

import json
import sys

import pytest
import trio

from graphglean import cli
from graphglean.graph.extract import parse_extraction
from graphglean.testing import FakeLLMServer
from graphglean.testing.models.responders import synthetic

from .test_cli import STAVE


def _config(tmp_path, base_url, **sections):
    cfg = {"llm": {"base_url": base_url, "api_key": "sk-test", "model": "gpt-4", "max_concurrency": 8,
                   "max_retries": 1, "timeout_s": 10, "cache": {"mode": "off"}},
           "input": {"path": str(STAVE)}, "chunking": {"size": 300, "overlap": 30},
           "graph": {"description_max_tokens": 40, "communities": {"enabled": True, "min_report_size": 2}},
           "output": {"dir": str(tmp_path / "out"),
                      "formats": ["graphml", "json", "jsonl", "html", "neo4j", "parquet", "lightrag"]}, **sections}
    path = tmp_path / "config.yaml"
    path.write_text(json.dumps(cfg))  # JSON is YAML
    return path


async def _cli(capsys, *args) -> tuple[int, str]:
    """``graphglean ARGS`` in this process (so that a stage can be made to fail), in a thread of its own."""
    shown = sys.modules["warnings"].showwarning
    try:
        code = await trio.to_thread.run_sync(cli.main, [str(a) for a in args])
    finally:
        sys.modules["warnings"].showwarning = shown
    return code, capsys.readouterr().err


def _sent(server, start: int = 0) -> list[str]:
    return [json.dumps(r.body, sort_keys=True) for r in server.requests[start:]
            if r.path.endswith(("/chat/completions", "/embeddings"))]


def _raiser(*args, **kw):
    raise IndexError("list index out of range (forced)")


def _second_chunk_raises(extraction, chunk, parser, examples=None):
    if chunk.index == 1:
        _raiser()
    return parse_extraction(extraction, chunk, parser, examples)


# (stage as reported, where to make it fail, the setting the line names, files written all the same)
GRAPH_FILES = ["graph.graphml", "graph.json", "entities.jsonl", "relationships.jsonl", "chunks.jsonl",
               "neo4j/nodes.csv", "entities.parquet", "graph.html"]
STAGES = [
    ("stage graph.resolve", "graphglean.graph.resolution.profiles.description_gender", "graph.resolve.enabled: false",
     GRAPH_FILES + ["communities.jsonl", "community_reports.jsonl", "lightrag/vdb_entities.json"]),
    ("stage graph.describe", "graphglean.graph.extract.summarize_descriptions",
     "graph.description_max_tokens", GRAPH_FILES + ["resolution.jsonl", "community_reports.jsonl"]),
    ("stage graph.ground", "graphglean.graph.extract.ground", "nodes are written without spans",
     GRAPH_FILES + ["resolution.jsonl", "community_reports.jsonl"]),
    ("stage graph.communities", "graphglean.pipeline.communities.find_communities",
     "graph.communities.enabled: false", GRAPH_FILES + ["resolution.jsonl", "lightrag/vdb_entities.json"]),
    ("stage graph.communities.reports", "graphglean.pipeline.communities.report_communities",
     "graph.communities.reports: false", GRAPH_FILES + ["communities.jsonl", "lightrag/vdb_entities.json"]),
    ("stage peers", "graphglean.graph.formats.peers.lightrag.write.plan_lightrag",
     "output.formats without lightrag", GRAPH_FILES + ["communities.jsonl", "community_reports.jsonl"]),
    ("graph.graphml", "graphglean.pipeline.outputs.write_graphml", "output.formats without graphml",
     [f for f in GRAPH_FILES if f != "graph.graphml"] + ["communities.jsonl", "lightrag/vdb_entities.json"]),
    ("neo4j", "graphglean.graph.formats.neo4j.write_neo4j", "output.formats without neo4j",
     ["graph.graphml", "graph.json", "entities.parquet", "graph.html", "lightrag/vdb_entities.json"]),
    ("entities.parquet", "graphglean.graph.formats.parquet.write_parquet", "output.formats without parquet",
     ["graph.graphml", "neo4j/nodes.csv", "graph.html", "communities.jsonl"]),
    ("graph.html", "graphglean.pipeline.communities.write_view", "output.formats without html",
     ["graph.graphml", "graph.json", "communities.jsonl", "community_reports.jsonl"]),
    ("communities.jsonl", "graphglean.pipeline.communities.write_community_tables", "graph.communities.enabled: false",
     ["graph.graphml", "graph.json", "graph.html", "lightrag/vdb_entities.json"]),
    ("resolution.jsonl", "graphglean.pipeline.steps.write_jsonl", "graph.resolve.enabled: false",
     ["graph.graphml", "graph.json", "graph.html", "communities.jsonl"]),
    # a pass that raises outside its items: the other passes are written
    ("summary stage summary", "graphglean.pipeline.steps.chunk_id", "summary.enabled: false",
     GRAPH_FILES + ["communities.jsonl", "episodes.jsonl"]),
    ("episodic stage episodic", "graphglean.pipeline.steps.EpisodicGistExtraction", "episodic.enabled: false",
     GRAPH_FILES + ["communities.jsonl", "summaries.jsonl"]),
]
PASSES = {"summary": {"enabled": True}, "episodic": {"enabled": True}}


@pytest.mark.slow
@pytest.mark.parametrize("item,target,says,written", STAGES, ids=[s[0] for s in STAGES])
async def test_a_stage_that_raises_fails_alone_and_the_rerun_pays_nothing_again(
        tmp_path, capsys, monkeypatch, item, target, says, written):
    async with FakeLLMServer(synthetic).running() as server:
        config = _config(tmp_path, server.base_url, **(PASSES if " stage " in item else {}))
        with monkeypatch.context() as m:
            m.setattr(target, _raiser)
            code, err = await _cli(capsys, "run", config)
        first = _sent(server)
        report = json.loads((tmp_path / "out" / "report.json").read_text())
        missing = [name for name in written if not (tmp_path / "out" / name).exists()]
        n = len(server.requests)
        again, err_again = await _cli(capsys, "run", config)
        repeated = set(_sent(server, n)) & set(first)
    assert code == 1 and "Traceback" not in err, err
    lines = [line for line in err.splitlines() if item in line and "IndexError" in line]
    assert len(lines) == 1 and says in lines[0], err
    if item.startswith("stage"):
        assert "(at " in lines[0]  # where it was raised: enough to report the bug
    assert not missing, err
    assert any("IndexError" in f["error"] for f in report["failed"])
    # the fix: the same command again finishes, and asks nothing the first run had asked
    assert again == 0 and "Traceback" not in err_again, err_again
    assert not repeated, f"{len(repeated)} requests sent again"


@pytest.mark.slow
async def test_a_chunk_whose_answer_cannot_be_read_fails_alone_and_is_read_again(tmp_path, capsys, monkeypatch):
    async with FakeLLMServer(synthetic).running() as server:
        config = _config(tmp_path, server.base_url)
        with monkeypatch.context() as m:
            m.setattr("graphglean.graph.extract.parse_extraction", _second_chunk_raises)
            code, err = await _cli(capsys, "run", config)
        nodes = len(json.loads((tmp_path / "out" / "graph.json").read_text())["nodes"])
        first = len(server.requests)
        again, err_again = await _cli(capsys, "run", config)
        asked_again = [r for r in server.requests[first:] if "Passage:" in r.prompt and "Records:" in r.prompt]
    failed = [line for line in err.splitlines() if "IndexError" in line]
    assert code == 1 and "Traceback" not in err and len(failed) == 1, err
    assert "graph chunk-" in failed[0] and "its answers are kept and read again by the next run" in failed[0]
    assert nodes > 0  # every other chunk's records
    assert again == 0 and not asked_again, err_again  # read from the run store, not asked
    assert len(json.loads((tmp_path / "out" / "graph.json").read_text())["nodes"]) > nodes


async def test_the_library_returns_the_graph_without_a_stage_that_raised_and_warns(monkeypatch):
    from graphglean.graph.extract import extract_graph

    from .helpers import config

    monkeypatch.setattr("graphglean.graph.resolution.profiles.description_gender", _raiser)
    async with FakeLLMServer(synthetic).running() as server:
        with pytest.warns(UserWarning, match=r"stage graph.resolve: IndexError.*graph.resolve.enabled: false"):
            result = await extract_graph(STAVE.read_text()[:3000], config(server))
    assert result.output.number_of_nodes() > 0 and result.stats.failed_stages[0]["item"] == "stage graph.resolve"
