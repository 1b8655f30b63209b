"""`graphglean run` over recorded real answers (../shared/realdata/*/replay.jsonl) and over sets of shapes those
lack (tests/data/replays: CJK, Tamil, Arabic and mixed scripts, a small model's debris, descriptions ending in
pronouns, gendered words, empty and huge fields, half emoji, control characters, JSON and table answers): the
defaults (resolution on, ``input.format: chunks``) run end to end with no traceback and nothing failed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphglean.testing import FakeLLMServer
from graphglean.testing.models.responders import ReplayResponder

from .conftest import SHARED
from .test_cli import cli

OWN = sorted((Path(__file__).parent / "data" / "replays").glob("*.jsonl"))
RECORDED = sorted(SHARED.glob("realdata/*/replay.jsonl")) if SHARED.is_dir() else []


def _chunks(replay: Path, into: Path) -> Path:
    """The recorded chunks as ``input.format: chunks`` reads them."""
    with replay.open(encoding="utf-8") as f, into.open("w", encoding="utf-8") as out:
        for line in f:
            if line.strip():
                entry = json.loads(line)
                out.write(json.dumps({"id": entry["chunk_id"], "text": entry["content"]}) + "\n")
    return into


def _config(tmp_path: Path, base_url: str, chunks: Path, **sections) -> Path:
    cfg = {"llm": {"base_url": base_url, "api_key": "sk-test", "max_concurrency": 16,
                   "cache": {"path": str(tmp_path / "cache.sqlite")}},
           "input": {"path": str(chunks), "format": "chunks"}, "output": {"dir": str(tmp_path / "out")},
           **sections}
    path = tmp_path / "config.yaml"
    path.write_text(json.dumps(cfg))
    return path


async def _run(replay: Path, tmp_path: Path, **sections):
    responder = ReplayResponder.from_file(replay)
    async with FakeLLMServer(responder, embedding_dim=32).running() as server:
        r = await cli("run", _config(tmp_path, server.base_url, _chunks(replay, tmp_path / "chunks.jsonl"),
                                     **sections))
    err = r.stderr.decode()
    assert r.returncode == 0 and "Traceback" not in err, err[-3000:]
    out = tmp_path / "out"
    report = json.loads((out / "report.json").read_text())
    assert report["failed"] == [] and report["chunks"] == len(responder.entries)
    graph = json.loads((out / "graph.json").read_text())
    assert graph["nodes"], "no node from answers that name entities"
    return out, report


@pytest.mark.slow
@pytest.mark.parametrize("replay", RECORDED or [pytest.param(None, marks=pytest.mark.skip(
    reason=f"{SHARED}/realdata is absent: the recorded sets live beside the repository (../shared)"))],
    ids=[p.parent.name for p in RECORDED] or ["no-shared-data"])
async def test_every_recorded_set_runs_with_the_defaults(replay, tmp_path):
    out, report = await _run(replay, tmp_path)
    assert (out / "resolution.jsonl").exists() and report["passes"][0]["resolution"]["method"] == "llm"


@pytest.mark.slow
@pytest.mark.parametrize("replay", OWN, ids=[p.stem for p in OWN])
async def test_sets_of_other_shapes_run_with_the_defaults(replay, tmp_path):
    out, _ = await _run(replay, tmp_path)
    names = {n.get("name") for n in json.loads((out / "graph.json").read_text())["nodes"]}
    assert all(isinstance(n, str) for n in names)


EVERYTHING = {"graph": {"communities": {"enabled": True, "min_report_size": 2}, "description_max_tokens": 60},
              "summary": {"enabled": True}, "episodic": {"enabled": True},
              "output": {"formats": ["graphml", "json", "jsonl", "html", "neo4j", "parquet", "graphrag", "lightrag"]}}


@pytest.mark.slow
@pytest.mark.parametrize("replay", OWN, ids=[p.stem for p in OWN])
async def test_sets_of_other_shapes_run_with_every_pass_and_format(replay, tmp_path):
    everything = json.loads(json.dumps(EVERYTHING))
    everything["output"]["dir"] = str(tmp_path / "out")
    out, _ = await _run(replay, tmp_path, **everything)
    for name in ("graph.graphml", "neo4j/nodes.csv", "entities.parquet", "graph.html", "communities.jsonl",
                 "summaries.jsonl", "episodes.jsonl", "graphrag/output/entities.parquet", "lightrag/vdb_entities.json"):
        assert (out / name).exists(), name
