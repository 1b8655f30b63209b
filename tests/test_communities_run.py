"""graph.communities in a run: planted communities recovered, one report per community asked once, reports
reused while their community is unchanged, outputs that agree, and the dry run's bound."""

import io
import json

import networkx as nx
import pytest

from graphglean.launch import run
from graphglean.testing import FakeLLMServer
from graphglean.testing.models.planted import one_more_document, planted_corpus
from graphglean.testing.models.responders import MARK_REPORT, synthetic

from .helpers import config


def planted_config(server, tmp_path, corpus, **communities):
    cfg = config(server, tmp_path)
    cfg.llm.max_concurrency = 8
    folder = tmp_path / "docs"
    folder.mkdir(exist_ok=True)
    for k, text in enumerate(corpus.documents):
        (folder / f"doc{k:02}.txt").write_text(text)
    cfg.input.path = str(folder)
    cfg.output.dir = str(tmp_path / "out")
    cfg.output.formats = ["json", "jsonl", "graphml", "html", "parquet"]
    cfg.graph.max_gleanings = 0
    cfg.graph.communities.enabled = True
    for key, value in communities.items():
        setattr(cfg.graph.communities, key, value)
    return cfg


async def quiet_run(cfg, **kw):
    return await run(cfg, notice=lambda _: None, out=io.StringIO(), **kw)


def rows(path):
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def report_requests(server):
    return [r for r in server.requests if r.messages and MARK_REPORT in r.messages[0]["content"]]


async def test_planted_groups_are_the_coarsest_communities_and_each_gets_one_report_asked_once(tmp_path):
    corpus = planted_corpus()
    async with FakeLLMServer(synthetic).running() as s:
        cfg = planted_config(s, tmp_path, corpus)
        result = await quiet_run(cfg)
        asked = report_requests(s)
    out = tmp_path / "out"
    communities = rows(out / "communities.jsonl")
    reports = rows(out / "community_reports.jsonl")
    top = [c["entities"] for c in communities if c["level"] == 0]
    assert len(top) >= 4 and corpus.purity(top) >= 0.9
    reportable = {c["id"] for c in communities if c["size"] >= 3}
    assert sorted(r["community"] for r in reports) == sorted(reportable)  # exactly one each
    assert len(asked) == len(reportable)  # each asked once
    assert len({r.messages[0]["content"] for r in asked}) == len(asked)
    row = next(p for p in result.report["passes"] if p["pass"] == "graph")
    assert row["community_reports"]["made"] == len(reportable) and row["community_reports"]["failed"] == 0
    # the tables agree: parents and children point at each other, levels nest
    by_id = {c["id"]: c for c in communities}
    for c in communities:
        for child in c["children"]:
            assert by_id[child]["parent"] == c["id"] and by_id[child]["level"] == c["level"] + 1
            assert set(by_id[child]["entity_ids"]) <= set(c["entity_ids"])
    graph = nx.node_link_graph(json.loads((out / "graph.json").read_text()), edges="edges")
    for node, data in graph.nodes(data=True):
        if graph.degree(node):
            assert data["community"][0] in {c["id"] for c in communities if c["level"] == 0}
    graphml = nx.read_graphml(out / "graph.graphml")
    assert all(json.loads(d["community"]) == graph.nodes[n]["community"]
               for n, d in graphml.nodes(data=True) if "community" in d)
    assert sum("community" in d for _, d in graphml.nodes(data=True)) == sum(1 for n in graph if graph.degree(n))
    import pyarrow.parquet as pq

    table = pq.read_table(out / "community_reports.parquet").to_pylist()
    assert [r["community"] for r in table] == [r["community"] for r in reports]
    page = (out / "graph.html").read_text()
    assert reports[0]["title"] in page


async def test_adding_one_document_rereports_only_the_touched_communities(tmp_path):
    corpus = planted_corpus()
    async with FakeLLMServer(synthetic).running() as s:
        cfg = planted_config(s, tmp_path, corpus)
        await quiet_run(cfg)
        first = len(report_requests(s))
        before = {c["id"]: c for c in rows(tmp_path / "out" / "communities.jsonl")}
        await quiet_run(cfg)  # nothing changed: every report is reused, none asked
        assert len(report_requests(s)) == first
        (tmp_path / "docs" / "extra.txt").write_text(one_more_document(corpus, group=2))
        result = await quiet_run(cfg)
        again = len(report_requests(s)) - first
    after = {c["id"]: c for c in rows(tmp_path / "out" / "communities.jsonl")}
    assert 1 <= again <= first / 2
    row = next(p for p in result.report["passes"] if p["pass"] == "graph")
    assert row["community_reports"]["made"] == again
    assert row["community_reports"]["cached"] == row["community_reports"]["reportable"] - again
    kept = [k for k in before if k in after and before[k]["entity_ids"] == after[k]["entity_ids"]]
    assert len(kept) >= len(before) / 2  # ids stay with their members
    untouched = [k for k in after if after[k]["level"] == 0 and not any("Castle" in e for e in after[k]["entities"])]
    assert untouched and all(after[k]["changed_run"] == 1 and k in kept for k in untouched)
    assert any(c["changed_run"] == 3 for c in after.values())


async def test_dry_run_bounds_the_report_calls(tmp_path):
    corpus = planted_corpus()
    async with FakeLLMServer(synthetic).running() as s:
        cfg = planted_config(s, tmp_path, corpus)
        printed = io.StringIO()
        estimate = (await run(cfg, dry=True, notice=lambda _: None, out=printed)).report
        await quiet_run(cfg)
        made = len(report_requests(s))
    row = next(r for r in estimate["passes"] if r["pass"] == "graph.communities")
    assert row["calls_max"] >= made
    assert "graph.communities" in printed.getvalue()


async def test_graphglean_view_rebuilds_the_page_with_communities_and_names_a_bad_table_line(tmp_path):
    from graphglean.core.errors import InputError
    from graphglean.pipeline.outputs import rebuild_view

    corpus = planted_corpus(documents=8)
    async with FakeLLMServer(synthetic).running() as s:
        cfg = planted_config(s, tmp_path, corpus)
        await quiet_run(cfg)
    out = tmp_path / "out"
    (out / "graph.html").unlink()
    page = rebuild_view(out, 1000).read_text()
    title = rows(out / "community_reports.jsonl")[0]["title"]
    assert title in page and '"reports":' in page
    lines = (out / "communities.jsonl").read_text().splitlines()
    (out / "communities.jsonl").write_text("\n".join(lines[:1] + ['{"level": 0, "size": 3}'] + lines[1:]) + "\n")
    with pytest.raises(InputError, match=r"communities.jsonl:2: id must be an integer"):
        rebuild_view(out, 1000)


async def test_communities_off_removes_an_older_runs_tables_and_without_an_endpoint_no_reports(tmp_path):
    corpus = planted_corpus(documents=8)
    async with FakeLLMServer(synthetic).running() as s:
        cfg = planted_config(s, tmp_path, corpus)
        await quiet_run(cfg)
        out = tmp_path / "out"
        assert (out / "community_reports.jsonl").is_file()
        cfg.graph.communities.enabled = False
        await quiet_run(cfg)
        assert not any((out / n).exists() for n in ("communities.jsonl", "community_reports.jsonl",
                                                    "communities.parquet", "community_reports.parquet"))
    offline = cfg
    offline.graph.communities.enabled = True
    offline.graph.method = "nlp"
    offline.llm.base_url, offline.llm.api_key = "", ""
    notices = []
    await run(offline, notice=notices.append, out=io.StringIO())
    assert (out / "communities.jsonl").is_file() and not (out / "community_reports.jsonl").exists()
    assert any("needs an LLM endpoint" in n for n in notices)


async def test_a_failed_report_fails_the_run_and_the_next_run_asks_only_for_it(tmp_path):
    corpus = planted_corpus(documents=8)
    broken = {"count": 0, "on": True}

    def one_bad(req):  # the first report prompt gets prose twice: that community fails, the rest are written
        prompt = req.messages[0]["content"] if req.messages else ""
        if broken["on"] and MARK_REPORT in prompt and broken.get("prompt") in (None, prompt):
            broken["prompt"] = prompt
            broken["count"] += 1
            return "I would rather not write JSON today."
        return synthetic(req)

    async with FakeLLMServer(one_bad).running() as s:
        cfg = planted_config(s, tmp_path, corpus)
        first = await quiet_run(cfg)
        made = len(report_requests(s))
        assert broken["count"] == 2 and first.failed == 1
        assert any(f["item"].startswith("community ") for f in first.report["failed"])
        broken["on"] = False
        second = await quiet_run(cfg)
        assert len(report_requests(s)) == made + 1 and second.failed == 0
    reports = rows(tmp_path / "out" / "community_reports.jsonl")
    assert len(reports) == made - 1  # every community of >= 3 has its report now


async def test_reports_are_asked_while_the_graph_files_are_written(tmp_path, monkeypatch):
    import time

    from graphglean.pipeline import communities as step

    corpus = planted_corpus(documents=8)
    seen = {}
    async with FakeLLMServer(synthetic).running() as s:
        real = step.write_graph_outputs

        def slow(*args):  # a large graph's files take seconds: the reports go on meanwhile
            paths = real(*args)
            time.sleep(1.0)
            seen["reports asked meanwhile"] = len(report_requests(s))
            return paths

        monkeypatch.setattr(step, "write_graph_outputs", slow)
        cfg = planted_config(s, tmp_path, corpus)
        await quiet_run(cfg)
        total = len(report_requests(s))
    assert seen["reports asked meanwhile"] == total > 0
