"""graph.html with communities: nodes laid out by community, coloured by it on request, reports listed with their
findings and links to their entities, and labels by importance. Browser checks skip without Chromium."""

import math

from graphglean.core.config import Config
from graphglean.graph.communities.detect import annotate, community_names, find_communities
from graphglean.graph.communities.records import CommunityReport, Finding
from graphglean.view import build_payload, write_view
from graphglean.view.groups import add_communities

from .test_communities import planted_graph
from .test_view_browser import browser  # noqa: F401  (the fixture)


def with_communities(groups=4, size=30):
    g = planted_graph(groups=groups, size=size, edges=groups * 150, bridge=0.3)  # a force layout alone mixes them
    cfg = Config()
    found = find_communities(g, cfg)
    annotate(g, found)
    rows = [c.to_json(community_names(g)) for c in found.items]
    reports = [CommunityReport(c.id, c.level, f"Group of {g.nodes[c.entities[0]]['name']}", f"{c.size} people.",
                               float(c.size % 10), "By size.",
                               [Finding("Its first member", "Named first.", [c.entities[0]], [])]).to_json()
               for c in found.items if c.size >= 3]
    return g, found, rows, reports


def test_payload_carries_each_nodes_communities_and_the_reports_with_node_numbers():
    g, found, rows, reports = with_communities()
    payload = build_payload(g, [])
    add_communities(payload, g, rows, reports)
    number = {n["id"]: i for i, n in enumerate(payload["nodes"])}
    for n in payload["nodes"]:
        assert n["c"] == g.nodes[n["id"]]["community"]
    assert {c["id"] for c in payload["communities"]} == {c.id for c in found.items}
    first = payload["reports"][0]
    community = found.by_id()[first["community"]]
    assert first["findings"][0]["nodes"] == [number[community.entities[0]]]
    assert payload["communities"][0]["title"].startswith("Group of") and "grouped_for_layout" not in payload


def test_a_graph_without_communities_is_grouped_for_the_layout_only():
    g = planted_graph(groups=3, size=10, edges=200)
    g.add_node("alone")
    payload = build_payload(g, [])
    add_communities(payload, g, None, None)
    assert payload["grouped_for_layout"] and "reports" not in payload
    groups = {tuple(n["c"]) for n in payload["nodes"] if "c" in n}
    assert len(groups) == 3
    assert "c" not in next(n for n in payload["nodes"] if n["id"] == "alone")


SPY = ("<script>window.ggArcs = []; window.ggLabels = 0; (function () { const P = CanvasRenderingContext2D.prototype;"
       " const arc = P.arc, text = P.fillText;"
       " P.arc = function (x, y, r) { if (window.ggArcs) window.ggArcs.push([x, y, String(this.fillStyle)]);"
       " return arc.apply(this, arguments); };"
       " P.fillText = function () { window.ggLabels++; return text.apply(this, arguments); }; })();</script>")


def spread(arcs):
    """Mean distance of a node to its colour's centre, over the mean distance to the centre of all."""
    def centre(points):
        return sum(p[0] for p in points) / len(points), sum(p[1] for p in points) / len(points)

    def mean_distance(points, c):
        return sum(math.dist(p[:2], c) for p in points) / len(points)

    by_colour = {}
    for p in arcs:
        by_colour.setdefault(p[2], []).append(p)
    inner = sum(mean_distance(ps, centre(ps)) * len(ps) for ps in by_colour.values()) / len(arcs)
    return inner / mean_distance(arcs, centre(arcs))


def test_communities_in_the_page(browser, tmp_path):  # noqa: F811
    g, found, rows, reports = with_communities()
    path = write_view(g, [], tmp_path / "graph.html", communities=rows, reports=reports)
    path.write_text(path.read_text().replace('<script class="gg-vendor">', SPY + '<script class="gg-vendor">', 1))
    page = browser.open(path.as_uri())
    page.wait_for("document.getElementById('gg-stats').dataset.layoutMs", timeout_s=90)
    assert page.evaluate("document.getElementById('gg-colour-community').checked")  # reports: coloured by them
    # laid out by community: a community's nodes lie close together, apart from the others
    page.evaluate("window.ggArcs = []; document.getElementById('gg-fit').click()")
    arcs = page.wait_for("window.ggArcs.length >= 120 && window.ggArcs.slice(0, 120)")
    assert len({a[2] for a in arcs}) == 4 and spread(arcs) < 0.45  # ~0.35; ~0.54 without the grouping
    # labels by importance: a first screen of 120 nodes labels fewer than all
    labels = int(page.evaluate("document.getElementById('gg-stats').dataset.labels"))
    assert 4 <= labels < 120
    listed = page.evaluate("[...document.querySelectorAll('#gg-communities a.community')].map(a => a.innerText)")
    assert len(listed) == 4 and all("Group of" in t for t in listed)
    page.evaluate("document.querySelector('#gg-communities a.community').click()")
    panel = page.wait_for("!document.getElementById('gg-panel').hidden && "
                          "document.getElementById('gg-panel').innerText")
    assert "Its first member" in panel and "sub-communities" in panel.lower() and "entities (" in panel.lower()
    page.evaluate("document.querySelector('#gg-panel .finding a.node-link').click()")
    panel = page.wait_for("document.getElementById('gg-panel').innerText.includes('level 0: ') && "
                          "document.getElementById('gg-panel').innerText")
    assert "level 0: Group of" in panel
    page.evaluate("(() => { const s = document.getElementById('gg-level'); s.value = '1'; "
                  "s.dispatchEvent(new Event('change')); })()")
    sub = page.evaluate("document.querySelectorAll('#gg-communities a.community').length")
    assert sub == len([c for c in found.items if c.level == 1])
    assert page.errors == []
