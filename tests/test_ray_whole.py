"""A Ray run with everything on (communities and their reports, batch mode, both peer indexes, single_graph)
writes the rows a local run of the same corpus writes."""

from __future__ import annotations

import io
import json
import shutil
from collections import Counter
from pathlib import Path

import pytest

from graphglean.launch import run
from graphglean.testing import FakeLLMServer
from graphglean.testing.batch_api import FakeBatchAPI
from graphglean.testing.models.peer_responders import peers

from .helpers import config
from .peers_support import DATA

ray = pytest.importorskip("ray", reason="Ray is not installed (pip install '.[ray]')")
pq = pytest.importorskip("pyarrow.parquet")
pytest.importorskip("lancedb")
pytestmark = pytest.mark.ray

TABLES = ("entities.jsonl", "relationships.jsonl", "communities.jsonl", "community_reports.jsonl")
STAMPS = {"created_at", "updated_at", "__created_at__", "__write_seq__", "track_id"}  # and *_time, *_date


def _config(server, corpus: Path, out: Path, **runtime):
    cfg = config(server, None, max_concurrency=8)
    cfg.input.path, cfg.output.dir = str(corpus), str(out)
    cfg.output.formats = ["jsonl", "json", "graphrag", "lightrag"]
    cfg.graph.max_gleanings = 0
    cfg.graph.resolve.enabled = False
    cfg.graph.communities.enabled = True
    for k, v in {"enabled": True, "poll_s": 0.05, "quiet_s": 0.3, "online_tail": 0}.items():
        setattr(cfg.llm.batch, k, v)
    for k, v in runtime.items():
        setattr(cfg.runtime, k, v)
    return cfg


def _unstamped(value):
    if isinstance(value, dict):
        return {k: _unstamped(v) for k, v in value.items()
                if k not in STAMPS and not k.endswith(("_time", "_date")) and not k.startswith(STAMPS_PREFIX)}
    if isinstance(value, list):
        return [_unstamped(v) for v in value]
    return value


STAMPS_PREFIX = ("create_date_", "update_date_")


def _parquet(folder: Path) -> dict[str, list]:
    return {p.name: _unstamped(pq.read_table(p).to_pylist()) for p in sorted(folder.glob("*.parquet"))}


def _lancedb(folder: Path) -> dict[str, list]:
    import lancedb

    db = lancedb.connect(str(folder))
    found = {}
    for name in db.list_tables().tables:
        rows = db.open_table(name).to_arrow().to_pylist()
        found[name] = sorted((r["id"], [round(x, 5) for x in r["vector"]]) for r in rows)
    return found


def _json_files(folder: Path) -> dict[str, object]:
    found = {}
    for p in sorted(folder.glob("*.json")):
        data = json.loads(p.read_text())
        if p.name.startswith("vdb_"):  # the matrix is the records' vectors: compared through them
            data = {"embedding_dim": data["embedding_dim"], "data": data["data"]}
        found[p.name] = _unstamped(data)
    return found


def _graphml(folder: Path) -> tuple[list, list]:
    import networkx as nx

    g = nx.read_graphml(folder / "graph_chunk_entity_relation.graphml")
    return ([(n, _unstamped(d)) for n, d in g.nodes(data=True)],
            [(a, b, _unstamped(d)) for a, b, d in g.edges(data=True)])


async def test_a_ray_run_with_communities_reports_batches_and_both_peer_indexes_writes_the_local_rows(
        cluster, tmp_path):
    corpus = tmp_path / "in"
    shutil.copytree(DATA / "corpus", corpus)
    shutil.copy(DATA / "added" / "lighthouse.txt", corpus)
    api = FakeBatchAPI(0.2)
    async with FakeLLMServer(peers, embedding_dim=16, batch_api=api).running() as server:
        local = await run(_config(server, corpus, tmp_path / "local"), out=io.StringIO(), notice=lambda m: None)
        local_lines = list(api.uploaded_lines)
        api.uploaded_lines.clear()
        on_ray = await run(_config(server, corpus, tmp_path / "ray", engine="ray", workers=2, shard_chunks=1,
                                   graph_partitions=3, single_graph=True), out=io.StringIO(), notice=lambda m: None)
    assert not local.failed and not on_ray.failed
    assert on_ray.report["runtime"]["shards"] > 1 and on_ray.report["batches"]["lines"] > 0
    assert Counter(api.uploaded_lines) == Counter(local_lines)  # the same requests, each sent once
    a, b = tmp_path / "local", tmp_path / "ray"
    for name in TABLES:
        assert (b / name).read_text() == (a / name).read_text(), name
    assert json.loads((b / "graph.json").read_text()) == json.loads((a / "graph.json").read_text())
    assert _parquet(b / "graphrag" / "output") == _parquet(a / "graphrag" / "output")
    assert _lancedb(b / "graphrag" / "output" / "lancedb") == _lancedb(a / "graphrag" / "output" / "lancedb")
    assert _json_files(b / "lightrag") == _json_files(a / "lightrag")
    assert _graphml(b / "lightrag") == _graphml(a / "lightrag")
    local_row, ray_row = (next(p for p in r.report["passes"] if p["pass"] == "graph") for r in (local, on_ray))
    assert ray_row["community_reports"]["made"] == local_row["community_reports"]["made"] > 0
    assert ray_row["peer_index"] == local_row["peer_index"]
