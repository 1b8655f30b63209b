"""Communities: hierarchical Leiden with stable ids, report contexts within their budget, lenient reading of
reports, and the reporting step's re-ask, failure and reuse."""

import json
import random

import attrs
import networkx as nx
import pytest

from graphglean.core.config import Config
from graphglean.core.tokens import Tokenizer
from graphglean.graph.communities.context import REPORTS, build_context, members_of
from graphglean.graph.communities.detect import annotate, find_communities
from graphglean.graph.communities.reading import NotAReport, holds_report, rating_of, read_report
from graphglean.graph.communities.records import Communities, CommunityReport, Finding, relationship_id
from graphglean.graph.communities.reporting import ReportMemo, report_call_bound, report_communities
from graphglean.testing import FakeLLMServer, Reply
from graphglean.testing.models.responders import MARK_REPORT, community_report, synthetic

from .helpers import config

COUNT = Tokenizer.cl100k().count


def planted_graph(groups=4, size=30, edges=600, seed=1, bridge=0.05):
    rng = random.Random(seed)
    g = nx.Graph()
    for k in range(groups):
        for j in range(size):
            g.add_node(f"g{k}_{j}", name=f"Person {k}-{j}", type="person", description=f"Member {j} of group {k}.")
    for _ in range(edges):
        k = rng.randrange(groups)
        a = f"g{k}_{rng.randrange(size)}"
        other = rng.randrange(groups) if rng.random() < bridge else k
        b = f"g{other}_{rng.randrange(size)}"
        if a != b:
            w = g.edges[a, b]["weight"] + 1 if g.has_edge(a, b) else 1.0
            g.add_edge(a, b, weight=w, description=f"{a} knows {b}.")
    return g


def cfg_with(**communities):
    cfg = Config()
    for k, v in communities.items():
        setattr(cfg.graph.communities, k, v)
    return cfg


# -- clustering ------------------------------------------------------------------------------------------

def test_levels_nest_with_level_zero_coarsest_and_isolated_nodes_in_none():
    g = planted_graph()
    g.add_node("alone", name="Alone")
    found = find_communities(g, cfg_with(max_cluster_size=10))
    by_id = found.by_id()
    top = [c for c in found.items if c.level == 0]
    assert len(top) == 4 and all(c.size == 30 for c in top)
    assert found.levels >= 2
    for c in found.items:
        assert "alone" not in c.entities
        if c.parent is not None:
            parent = by_id[c.parent]
            assert parent.level == c.level - 1 and c.id in parent.children and set(c.entities) <= set(parent.entities)
            assert parent.size > 10  # only communities over max_cluster_size are split
        inner = {relationship_id(a, b) for a, b in g.subgraph(c.entities).edges()}
        assert set(c.relationships) == inner
    # a level partitions the nodes it covers
    for level in range(found.levels):
        members = [e for c in found.items if c.level == level for e in c.entities]
        assert len(members) == len(set(members))
    annotate(g, found)
    assert "community" not in g.nodes["alone"] and len(g.nodes["g0_0"]["community"]) >= 1


def test_same_seed_same_clustering_and_levels_cap_the_depth():
    g = planted_graph()
    one, two = (find_communities(g, cfg_with(max_cluster_size=5)) for _ in range(2))
    assert [(c.id, c.entities, c.parent) for c in one.items] == [(c.id, c.entities, c.parent) for c in two.items]
    capped = find_communities(g, cfg_with(max_cluster_size=5, levels=1))
    assert capped.levels == 1


def test_ids_follow_members_across_runs_and_only_changed_communities_change_run():
    g = planted_graph()
    first = find_communities(g, cfg_with(max_cluster_size=10))
    again = find_communities(g, cfg_with(max_cluster_size=10), previous=first)
    assert [(c.id, c.entities) for c in again.items] == [(c.id, c.entities) for c in first.items]
    assert again.run == 2 and all(c.changed_run == 1 for c in again.items)
    g.add_node("new", name="Newcomer", type="person", description="Joins group 1.")
    g.add_edge("g1_3", "new", weight=2.0, description="g1_3 meets the newcomer.")
    third = find_communities(g, cfg_with(max_cluster_size=10), previous=again)
    before = {c.id: c for c in first.items}
    changed = [c for c in third.items if c.changed_run == 3]
    touched = next(c for c in third.items if c.level == 0 and "new" in c.entities)
    assert changed and all(set(c.entities) <= set(touched.entities) for c in changed)  # only inside group 1
    for c in third.items:
        if c.level == 0 and "new" not in c.entities:
            assert before[c.id].entities == c.entities and c.changed_run == 1
    assert third.next_id >= max(c.id for c in third.items) + 1
    state = Communities.from_state(json.loads(json.dumps(third.state_json())))
    assert state.state_json() == third.state_json()


def test_an_unchanged_graph_carries_its_clustering_over_as_a_full_clustering_would_make_it(monkeypatch):
    from graphglean.graph.communities import clustering

    g = planted_graph()
    cfg = cfg_with(max_cluster_size=10)
    first = find_communities(g, cfg)
    state = Communities.from_state(json.loads(json.dumps(first.state_json())))  # as the next run reads it
    whole = find_communities(g, cfg, previous=attrs.evolve(state, network=""))  # the long way round
    monkeypatch.setattr(clustering, "_leiden", lambda: pytest.fail("an unchanged graph is not clustered again"))
    monkeypatch.setattr(clustering, "_edge_hash", lambda e: pytest.fail("nor are its edges hashed"))
    carried = find_communities(g, cfg, previous=state)
    assert carried.state_json() == whole.state_json() and carried.run == 2
    g.nodes["g2_0"]["description"] = "Member 0 of group 2, now described otherwise."  # content: a change
    monkeypatch.undo()
    changed = find_communities(g, cfg, previous=state)
    assert any(c.changed_run == 2 for c in changed.items) and changed.network != first.network
    for setting in ({"max_cluster_size": 5}, {"levels": 1}, {"seed": 7}):  # settings too
        assert find_communities(g, cfg_with(**setting)).network != changed.network


def test_weights_decide_between_two_readings():
    # a 4-cycle whose heavy edges pair it up one way, then the other
    for heavy in ([("a", "b"), ("c", "d")], [("b", "c"), ("d", "a")]):
        g = nx.Graph()
        for a, b in [("a", "b"), ("b", "c"), ("c", "d"), ("d", "a")]:
            g.add_edge(a, b, weight=20.0 if (a, b) in heavy else 1.0)
        for k in range(3):  # two cycles joined, so modularity prefers the pairs
            g.add_edge(f"x{k}", f"x{k + 1}", weight=1.0)
        found = find_communities(g, cfg_with())
        groups = {frozenset(c.entities) for c in found.items}
        assert frozenset(heavy[0]) in groups


# -- context ---------------------------------------------------------------------------------------------

def star(n=40, description="x " * 30):
    g = nx.Graph()
    g.add_node("hub", name="Hub", type="org", description="The centre.")
    for k in range(n):
        g.add_node(f"n{k}", name=f"Node {k}", type="person", description=f"Node {k}: {description}")
        g.add_edge("hub", f"n{k}", weight=float(k + 1), description=f"Hub and node {k}.")
    return g


def test_context_keeps_the_most_important_rows_within_the_budget():
    g = star()
    found = find_communities(g, cfg_with(max_cluster_size=100))
    c = found.items[0]
    members = members_of(g, c, COUNT)
    assert members.entities[0].key == "hub"  # the best connected first
    assert members.relationships[0].ends == ("hub", "n39") or set(members.relationships[0].ends) == {"hub", "n39"}
    whole = build_context(members, 100000, COUNT)
    assert len(whole.entity_numbers) == 41 and len(whole.relationship_numbers) == 40
    small = build_context(members, 400, COUNT)
    assert small.tokens <= 400 and 0 < len(small.entity_numbers) < 41
    assert "hub" in small.entity_numbers.values()  # the hub comes with the first relationship
    assert all(set(members.relationships[int(k) - 1].ends) <= set(small.entity_numbers.values())
               for k in small.relationship_numbers)


def test_a_parent_that_does_not_fit_uses_its_childrens_reports():
    g = planted_graph(groups=2, size=30, edges=400)
    found = find_communities(g, cfg_with(max_cluster_size=10))
    parent = next(c for c in found.items if c.level == 0 and c.children)
    by_id = found.by_id()
    kids = [by_id[k] for k in parent.children]
    reports = [(k, CommunityReport(k.id, k.level, f"Group {k.id}", f"About {k.size} people.", 5.0, "",
                                   [Finding("They meet", "Often.")])) for k in kids]
    members = members_of(g, parent, COUNT)
    raw = build_context(members, 100000, COUNT)
    budget = raw.tokens // 2
    ctx = build_context(members, budget, COUNT, reports)
    assert ctx.tokens <= budget and ctx.children and REPORTS in ctx.text
    assert "Group" in ctx.text
    covered = {e for k in kids if k.id in ctx.children for e in k.entities}
    assert not covered & set(ctx.entity_numbers.values())  # a report stands for its members


# -- reading ---------------------------------------------------------------------------------------------

def context_for(g=None):
    g = g or star(5, "short")
    found = find_communities(g, cfg_with(max_cluster_size=100))
    return build_context(members_of(g, found.items[0], COUNT), 100000, COUNT), found.items[0]


GOOD = {"title": "The hub", "summary": "A star.", "rating": 6.5, "rating_explanation": "Central.",
        "findings": [{"summary": "Hub links all", "explanation": "Every node meets the hub.",
                      "references": {"entities": [1, "Node 3", 99, "Nobody"], "relationships": [1, "R2", 77]}}]}


@pytest.mark.parametrize("answer", [
    json.dumps(GOOD),
    "Here is the report:\n```json\n" + json.dumps(GOOD, indent=2) + "\n```\nHope it helps.",
    "<think>the hub is central</think>" + json.dumps([GOOD]),
    json.dumps({"report": GOOD}),
    json.dumps({"Title": "The hub", "Executive Summary": "A star.", "Impact Severity Rating": "6.5/10",
                "Rating Explanation": "Central.",
                "Key Findings": [{"Summary": "Hub links all",
                                  "Explanation": "Every node meets the hub. [Data: Entities (1, Node 3, 99); "
                                                 "Relationships (1, 2, 77, +more)]"}]}),
])
def test_reports_are_read_from_what_models_write(answer):
    ctx, c = context_for()
    report = read_report(answer, ctx, c.id, c.level)
    assert report.title == "The hub" and report.summary == "A star." and report.rating == 6.5
    f = report.findings[0]
    assert f.summary == "Hub links all" and f.entities[0] == "hub" and "n3" in f.entities
    assert len(f.relationships) == 2 and report.dropped_references >= 2  # 99, 77 (and "Nobody") dropped


def test_a_cut_answer_keeps_its_complete_findings_and_markdown_is_read():
    ctx, c = context_for()
    many = dict(GOOD, findings=GOOD["findings"] * 3)
    text = json.dumps(many)
    cut = read_report(text[: text.rindex("\"summary\"") + 15], ctx, c.id, c.level, cut=True)
    assert cut.title == "The hub" and len(cut.findings) == 2 and cut.cut
    md = read_report("# The hub\n\nA star.\n\n## Hub links all\n\nEvery node meets Node 3.\n\nRating: 7", ctx, c.id, 0)
    assert md.title == "The hub" and md.findings[0].summary == "Hub links all" and md.rating == 7.0
    assert rating_of("High (8)") == 8.0 and rating_of("85%") == 8.5 and rating_of("none") is None


@pytest.mark.parametrize("answer", ["", "I'm sorry, I can't help with that.", '{"entities": [1, 2]}', "OK"])
def test_answers_that_are_not_reports(answer):
    ctx, c = context_for()
    with pytest.raises(NotAReport):
        read_report(answer, ctx, c.id, c.level)
    assert not holds_report(answer)


# -- reporting -------------------------------------------------------------------------------------------

def responder_failing(fails):
    """The synthetic model, except that the report prompts in ``fails`` (by their first entity) get prose."""
    def respond(req):
        prompt = req.messages[0]["content"] if req.messages else ""
        if MARK_REPORT in prompt and any(f"1|{name}|" in prompt for name in fails):
            return Reply("Sorry, no JSON here.") if len(req.messages) == 1 else "still not a report"
        return synthetic(req)
    return respond


async def test_a_non_report_is_asked_again_once_then_fails_that_community_alone(tmp_path):
    g = planted_graph(groups=3, size=6, edges=90)
    found = find_communities(g, cfg_with(max_cluster_size=100))
    top = members_of(g, found.items[0], COUNT).entities[0]
    async with FakeLLMServer(responder_failing([g.nodes[top.key]["name"]])).running() as s:
        cfg = config(s)
        cfg.graph.communities.max_cluster_size = 100
        out = await report_communities(g, found, cfg)
        asked = [r for r in s.requests if r.messages and MARK_REPORT in r.messages[0]["content"]]
    assert list(out.failed) == [found.items[0].id]
    assert len(out.reports) == len(found.items) - 1 and out.stats.asked_again == 1
    assert len(asked) == len(found.items) + 1  # the failing one twice, the others once
    again = [r for r in asked if len(r.messages) == 3]
    assert len(again) == 1 and again[0].messages[-1]["content"].startswith("That answer was not the JSON report")
    assert '{"title": ...' in again[0].messages[-1]["content"]


async def test_reports_are_reused_by_content_and_small_communities_get_none(tmp_path):
    g = planted_graph(groups=3, size=6, edges=90)
    g.add_edge("pair_a", "pair_b", weight=1.0, description="two alone")
    for n in ("pair_a", "pair_b"):
        g.nodes[n].update(name=n, type="person", description="alone")
    found = find_communities(g, cfg_with(max_cluster_size=100))
    memo = ReportMemo()
    async with FakeLLMServer(synthetic).running() as s:
        cfg = config(s)
        cfg.graph.communities.max_cluster_size = 100
        first = await report_communities(g, found, cfg, memo=memo)
        calls = len(s.requests)
        second = await report_communities(g, found, cfg, memo=memo)
        assert len(s.requests) == calls
    assert first.stats.too_small == 1 and first.stats.made == 3 and second.stats.cached == 3
    assert [r.to_json() for r in first.ordered()] == [r.to_json() for r in second.ordered()]


def test_the_call_bound_covers_every_level():
    cc = Config().graph.communities
    calls, levels = report_call_bound(300, cc)
    assert levels >= 3 and calls == levels * 100
    cc.levels = 2
    assert report_call_bound(300, cc) == (200, 2)


def test_synthetic_reports_cite_what_the_context_holds():
    ctx, c = context_for()
    answer = community_report("writing a community report\nCommunity data:\n" + ctx.text)
    report = read_report(answer, ctx, c.id, c.level)
    assert report.dropped_references == 0 and report.findings[0].entities == ["hub"]


def test_the_library_api_from_synchronous_code():
    import threading

    import graphglean

    g = planted_graph(groups=2, size=5, edges=40)
    found = graphglean.find_communities(g, cfg_with(max_cluster_size=100))
    ready, stop = threading.Event(), threading.Event()
    box = {}

    def serve():
        import trio

        async def main_():
            async with FakeLLMServer(synthetic).running() as s:
                box["url"] = s.base_url
                ready.set()
                await trio.to_thread.run_sync(stop.wait)

        trio.run(main_)

    t = threading.Thread(target=serve)
    t.start()
    try:
        ready.wait(10)
        cfg = cfg_with(max_cluster_size=100)
        cfg.llm.base_url, cfg.llm.api_key, cfg.llm.cache.mode = box["url"], "k", "off"
        out = graphglean.report_communities_sync(g, found, cfg)
    finally:
        stop.set()
        t.join(10)
    assert len(out.reports) == len(found.items) and not out.failed


def test_an_untouched_node_keeps_its_community_and_a_touched_one_follows_leiden():
    from graphglean.graph.communities.clustering import _split

    a = [(f"a{i}", f"a{j}", 1.0) for i in range(5) for j in range(i + 1, 5)]
    b = [(f"b{i}", f"b{j}", 1.0) for i in range(5) for j in range(i + 1, 5)]
    edges = sorted(a + b + [("a0", "x", 1.0), ("b0", "x", 3.0), ("b1", "x", 3.0)])
    start = {**{f"a{i}": 7 for i in range(5)}, **{f"b{i}": 9 for i in range(5)}, "x": 7}
    everyone = {n for e in edges for n in e[:2]}
    kept = _split(edges, 1, start, everyone)  # x's edges did not change: it stays with the a's
    assert sorted(kept) == [[f"a{i}" for i in range(5)] + ["x"], [f"b{i}" for i in range(5)]]
    moved = _split(edges, 1, start, everyone - {"x"})  # touched: Leiden puts it with the b's
    assert sorted(moved) == [[f"a{i}" for i in range(5)], [f"b{i}" for i in range(5)] + ["x"]]


async def test_real_graph_contexts_stay_within_the_budget_and_parents_use_their_childrens_reports():
    from .helpers import replayed_graph

    graph, _ = await replayed_graph("lightrag-gpt4o-mini-dickens")
    cfg = cfg_with(report_max_input_tokens=1500)
    found = find_communities(graph, cfg)
    assert found.levels >= 2 and all(c.size >= 1 for c in found.items)
    async with FakeLLMServer(synthetic).running() as s:
        cfg.llm = config(s).llm
        out = await report_communities(graph, found, cfg)
        prompts = [r.messages[0]["content"] for r in s.requests
                   if r.messages and MARK_REPORT in r.messages[0]["content"]]
    assert not out.failed and len(out.reports) == sum(c.size >= 3 for c in found.items) == len(prompts)
    assert all(r.context_tokens <= 1500 for r in out.reports.values())
    assert any(REPORTS in p for p in prompts)  # the big communities are written from their parts
    assert out.stats.dropped_references == 0
