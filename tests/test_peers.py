"""The peer indexes in a run: output.formats graphrag and lightrag, their embeddings (batched, counted, priced,
kept and reused by a resumed or incremental run, estimated by --dry-run), the names each engine expects while
graphglean's own outputs keep theirs, and the refusals before any work."""

from __future__ import annotations

import io
import json
import shutil

import pytest

from graphglean.core.config import Config, OutputConfig
from graphglean.core.errors import ConfigError
from graphglean.launch import run
from graphglean.testing import FakeLLMServer, FaultPlan
from graphglean.testing.models.peer_responders import peers

from .helpers import config
from .peers_support import DATA

pytest.importorskip("lancedb")


def peer_config(server, tmp_path, formats=("graphrag", "lightrag"), **llm) -> Config:
    cfg = config(server, None, **llm)
    cfg.llm.max_concurrency = 4
    cfg.input.path = str(tmp_path / "in")
    cfg.output.dir = str(tmp_path / "out")
    cfg.output.formats = ["jsonl", *formats]
    cfg.graph.resolve.method = "rules"  # the only embeddings asked for are then the indexes'
    return cfg


def corpus(tmp_path, *extra):
    shutil.copytree(DATA / "corpus", tmp_path / "in", dirs_exist_ok=True)
    for name in extra:
        shutil.copy(DATA / "added" / name, tmp_path / "in" / name)


async def quiet_run(cfg, notices=None, **kw):
    notices = [] if notices is None else notices
    return await run(cfg, notice=notices.append, out=io.StringIO(), **kw)


def embedded_inputs(server) -> list[str]:
    return [t for r in server.requests if r.path.endswith("/embeddings") for t in r.body["input"]]


def peer_row(result) -> dict:
    return next(p for p in result.report["passes"] if p["pass"] == "graph")


def test_peer_formats_are_chosen_by_name_and_never_by_default():
    assert not {"graphrag", "lightrag"} & set(OutputConfig().formats)
    from graphglean.core.config_loader import load_config_text

    cfg = load_config_text("output: {formats: [graphrag, lightrag]}\n")
    assert cfg.output.formats == ["graphrag", "lightrag"]


async def test_a_run_writes_both_indexes_and_counts_and_prices_their_embeddings(tmp_path):
    corpus(tmp_path)
    async with FakeLLMServer(peers, embedding_dim=48).running() as server:
        cfg = peer_config(server, tmp_path, embedding_model="text-embedding-3-small")
        notices = []
        result = await quiet_run(cfg, notices)
        assert result.failed == 0
        assert any("graph.communities.enabled is on" in n for n in notices)  # GraphRAG's searches need them
        out = tmp_path / "out"
        assert (out / "graphrag" / "settings.yaml").is_file() and (out / "lightrag" / "vdb_entities.json").is_file()
        texts = embedded_inputs(server)
        row = peer_row(result)
        stats = row["peer_index"]
        assert stats["embedded"] == len(texts) == len(set(texts)) == stats["texts"] and stats["dimension"] == 48
        assert all(len(r.body["input"]) <= 128 for r in server.requests if r.path.endswith("/embeddings"))
        assert row["cost_usd"] is not None and row["cost_usd"] > 0  # the embeddings' account is the graph pass's
        # graphglean's own outputs keep their names; each index has its engine's
        own = [json.loads(line)["name"] for line in (out / "entities.jsonl").read_text().splitlines()]
        assert "Zoë Ångström" in own and "ZOË ÅNGSTRÖM" not in own
        pq = pytest.importorskip("pyarrow.parquet")
        titles = pq.read_table(out / "graphrag" / "output" / "entities.parquet").column("title").to_pylist()
        assert "ZOË ÅNGSTRÖM" in titles
        vdb = json.loads((out / "lightrag" / "vdb_entities.json").read_text())
        zoe = next(r for r in vdb["data"] if r["entity_name"] == "Zoë Ångström")
        assert "Also known as: Ångström." in zoe["content"]  # entity resolution's alias, searchable


async def test_a_second_run_embeds_nothing_and_an_added_document_only_what_changed(tmp_path):
    corpus(tmp_path)
    async with FakeLLMServer(peers, embedding_dim=32).running() as server:
        cfg = peer_config(server, tmp_path)
        await quiet_run(cfg)
        first = set(embedded_inputs(server))
        del server.requests[:]
        again = await quiet_run(cfg)
        assert embedded_inputs(server) == [] and peer_row(again)["peer_index"]["reused"] == len(first)
        corpus(tmp_path, "lighthouse.txt")
        grown = await quiet_run(cfg)
        new = embedded_inputs(server)
        stats = peer_row(grown)["peer_index"]
        assert new and not set(new) & first  # nothing embedded twice
        assert stats["embedded"] == len(new) and stats["reused"] + stats["embedded"] == stats["texts"]
        assert any("Ingrid Berg" in t for t in new)  # the added document's entity, in both formats
        vdb = json.loads((tmp_path / "out" / "lightrag" / "vdb_entities.json").read_text())
        assert any(r["entity_name"] == "Ingrid Berg" for r in vdb["data"])


class EmbeddingsFail:
    """A fault plan: every embeddings request gets a 500."""

    def __init__(self, server):
        self.server = server

    def pick(self, number):
        return "500" if self.server.requests[-1].path.endswith("/embeddings") else None


async def test_failed_embedding_batches_fail_the_run_and_a_rerun_embeds_only_them(tmp_path):
    corpus(tmp_path)
    async with FakeLLMServer(peers, embedding_dim=16).running() as server:
        cfg = peer_config(server, tmp_path, formats=("lightrag",), max_retries=0)
        cfg.llm.cache.mode = "off"
        await quiet_run(cfg)  # a first run: every text embedded
        first = set(embedded_inputs(server))
        corpus(tmp_path, "lighthouse.txt")
        del server.requests[:]
        server.faults = EmbeddingsFail(server)
        failed = await quiet_run(cfg)
        assert failed.failed >= 1 and "graph.peers.embed" in failed.report["failed"][0]["item"]
        missing = set(embedded_inputs(server))
        server.faults = FaultPlan()
        del server.requests[:]
        await quiet_run(cfg)
        asked = set(embedded_inputs(server))
        assert asked == missing and not asked & first  # only the texts that had no vector


async def test_embedding_dimensions_are_asked_for_and_written_into_graphrag_settings(tmp_path):
    import yaml

    corpus(tmp_path)
    async with FakeLLMServer(peers, embedding_dim=64).running() as server:
        cfg = peer_config(server, tmp_path, formats=("graphrag",), embedding_dimensions=24)
        await quiet_run(cfg)
        assert {r.body.get("dimensions") for r in server.requests if r.path.endswith("/embeddings")} == {24}
    settings = yaml.safe_load((tmp_path / "out" / "graphrag" / "settings.yaml").read_text())
    assert settings["embedding_models"]["default_embedding_model"]["call_args"] == {"dimensions": 24}
    assert settings["vector_store"]["vector_size"] == 24
    assert "sk-test" not in (tmp_path / "out" / "graphrag" / "settings.yaml").read_text()


async def test_communities_of_the_graph_pass_reach_graphrag(tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    corpus(tmp_path)
    async with FakeLLMServer(peers).running() as server:
        await quiet_run(peer_config(server, tmp_path, formats=("graphrag",)))
    out = tmp_path / "out"
    written = [json.loads(line) for line in (out / "community_reports.jsonl").read_text(encoding="utf-8").splitlines()]
    reports = pq.read_table(out / "graphrag" / "output" / "community_reports.parquet").to_pylist()
    assert written and {r["title"] for r in reports} == {r["title"] for r in written}
    communities = pq.read_table(out / "graphrag" / "output" / "communities.parquet").to_pylist()
    assert len(communities) >= len(written)


async def test_dry_run_estimates_the_embeddings_of_the_chosen_formats(tmp_path):
    corpus(tmp_path)
    cfg = peer_config(type("S", (), {"base_url": "http://127.0.0.1:9/v1"})(), tmp_path)
    out = io.StringIO()
    result = await run(cfg, dry=True, notice=lambda _: None, out=out)
    rows = {r["pass"]: r for r in result.report["passes"]}
    both = rows["graph.peers.embed"]
    assert both["calls_max"] >= 1 and both["tokens_in_est"] > sum(1 for _ in (tmp_path / "in").iterdir())
    assert "graph.peers.embed" in out.getvalue()
    cfg.output.formats = ["lightrag"]
    result = await run(cfg, dry=True, notice=lambda _: None, out=io.StringIO())
    single = {r["pass"]: r for r in result.report["passes"]}
    assert single["graph.peers.embed"]["tokens_in_est"] < both["tokens_in_est"]


async def test_peer_formats_without_an_endpoint_are_refused_with_the_key(tmp_path):
    corpus(tmp_path)
    cfg = Config()
    cfg.input.path, cfg.output.dir = str(tmp_path / "in"), str(tmp_path / "out")
    cfg.graph.method = "nlp"
    cfg.output.formats = ["lightrag"]
    with pytest.raises(ConfigError, match=r"output.formats: lightrag embeds texts with llm.embedding_model"):
        await quiet_run(cfg)
    assert not (tmp_path / "out" / "lightrag").exists()


async def test_a_ray_run_writes_the_indexes_of_the_whole_graph_and_resumes_them(cluster, tmp_path):
    corpus(tmp_path, "lighthouse.txt")
    async with FakeLLMServer(peers, embedding_dim=32).running() as server:
        cfg = peer_config(server, tmp_path)
        cfg.runtime.engine, cfg.runtime.address, cfg.runtime.workers = "ray", cluster, 2
        cfg.runtime.shard_chunks, cfg.runtime.graph_partitions = 1, 2
        cfg.chunking.size, cfg.chunking.overlap = 80, 20  # documents of several overlapping chunks
        result = await quiet_run(cfg)
        texts = embedded_inputs(server)
        stats = peer_row(result)["peer_index"]
        assert result.failed == 0 and stats["embedded"] == len(texts) == stats["texts"]
        assert peer_row(result)["cost_usd"] > 0
        vdb = json.loads((tmp_path / "out" / "lightrag" / "vdb_entities.json").read_text())
        assert {"Zoë Ångström", "Ingrid Berg"} <= {r["entity_name"] for r in vdb["data"]}
        documents = json.loads((tmp_path / "out" / "lightrag" / "kv_store_full_docs.json").read_text())
        assert sorted(d["content"] for d in documents.values()) == sorted(
            p.read_text(encoding="utf-8").strip() for p in (tmp_path / "in").iterdir())  # whole, not overlapped
        del server.requests[:]
        again = await quiet_run(cfg)
        assert embedded_inputs(server) == [] and peer_row(again)["peer_index"]["reused"] == len(texts)
