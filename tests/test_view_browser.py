"""graph.html in a real headless Chromium. Skipped (with the reason) when no Chromium is installed, except in CI
(CI or GRAPHGLEAN_REQUIRE_CHROMIUM set), where a missing browser is a failure. GRAPHGLEAN_SCREENSHOTS=DIR keeps
the screenshots."""

import json
import os
import shutil
import subprocess
import sys

import networkx as nx
import pytest

from graphglean.testing.chromium import HeadlessChromium, find_chromium
from graphglean.view import ChunkText, write_view

from .conftest import ROOT
from .helpers import replayed_graph
from .test_view import small_graph

STATS = "(() => { const s = document.getElementById('gg-stats'); " \
        "return s && s.dataset.nodes !== undefined && [Number(s.dataset.nodes), Number(s.dataset.edges)]; })()"


@pytest.fixture(scope="module")
def browser():
    exe = find_chromium()
    if exe is None:
        if os.environ.get("CI") or os.environ.get("GRAPHGLEAN_REQUIRE_CHROMIUM"):
            pytest.fail("Chromium is required here (apt-get install chromium) but none was found")
        pytest.skip("no Chromium installed (apt-get install chromium, or set GRAPHGLEAN_CHROMIUM)")
    with HeadlessChromium(exe) as b:
        yield b


def keep_screenshot(page, tmp_path, name):
    shot = page.screenshot(tmp_path / f"{name}.png")
    assert shot.stat().st_size > 10_000  # a drawn page, not a blank one
    keep = os.environ.get("GRAPHGLEAN_SCREENSHOTS")
    if keep:
        os.makedirs(keep, exist_ok=True)
        shutil.copy(shot, os.path.join(keep, shot.name))


def test_readme_main_job_draws_every_node_and_edge(browser, tmp_path):
    out = tmp_path / "output"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("OPENAI_API_KEY", None)
    env.pop("GRAPHGLEAN_BASE_URL", None)
    done = subprocess.run([sys.executable, "-m", "graphglean", "run", "config.example.yaml", "--output", str(out)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    graph = json.loads((out / "graph.json").read_text())
    page = browser.open((out / "graph.html").as_uri())
    assert page.wait_for(STATS) == [len(graph["nodes"]), len(graph["edges"])]
    page.wait_for("document.getElementById('gg-stats').dataset.layoutMs", timeout_s=60)
    assert page.errors == []
    requests = page.requests
    assert requests[0] == (out / "graph.html").as_uri()  # nothing fetched but the page (and its layout worker)
    assert all(url.startswith("blob:") for url in requests[1:]), requests
    keep_screenshot(page, tmp_path, "main_job")
    # the sentences come from the run's chunks.jsonl: every highlighted name is the node's
    page.evaluate("""(() => { const s = document.getElementById('gg-search');
        s.value = 'scrooge'; s.dispatchEvent(new Event('input'));
        s.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter'})); })()""")
    page.wait_for("!document.getElementById('gg-panel').hidden")
    page.evaluate("document.querySelector('#gg-panel .all-chunks') && document.querySelector('#gg-panel .all-chunks').click()")
    names = page.evaluate("[...document.querySelectorAll('#gg-panel mark.s b')].map(b => b.textContent)")
    # entity resolution may have merged "Scrooge" into a fuller name: it is then one of the node's aliases
    scrooge = next(n for n in graph["nodes"]
                   if "scrooge" in {a.casefold() for a in [n["id"], *n.get("aliases", [])]})
    own = {a.casefold() for a in [scrooge["name"], *scrooge.get("aliases", [])]}
    assert len(names) == len(scrooge["spans"]) and {" ".join(n.split()).casefold() for n in names} <= own
    assert page.errors == []
    keep_screenshot(page, tmp_path, "main_job_scrooge")


def test_search_by_alias_shows_sources_with_highlighted_sentences(browser, tmp_path):
    g, chunk = small_graph()
    path = write_view(g, [chunk], tmp_path / "graph.html", title="carol")
    page = browser.open(path.as_uri())
    assert page.wait_for(STATS) == [4, 2]
    page.evaluate("""(() => { const s = document.getElementById('gg-search');
        s.value = 'jacob'; s.dispatchEvent(new Event('input'));
        s.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter'})); })()""")
    panel = page.wait_for("!document.getElementById('gg-panel').hidden && document.getElementById('gg-panel').innerText")
    assert panel.startswith("×\nMarley") and "Jacob Marley · Old Marley" in panel and "A dead partner." in panel
    marks = page.evaluate("[...document.querySelectorAll('#gg-panel mark.s')].map(m => [m.textContent, "
                          "m.querySelector('b').textContent])")
    assert marks == [["Marley was dead: to begin with.", "Marley"],
                     ["Old Marley was as dead as a door-nail.", "Marley"]]
    page.evaluate("document.querySelector('#gg-panel .chunk .head button').click()")  # the whole chunk
    whole = page.evaluate("document.querySelector('#gg-panel .chunk .text').textContent")
    assert whole == chunk.text
    assert "Scrooge · 3" in panel  # its relationship, with the weight
    assert page.errors == []
    keep_screenshot(page, tmp_path, "search_alias")


def test_filters_change_what_is_drawn_and_the_counts(browser, tmp_path):
    g, chunk = small_graph()
    path = write_view(g, [chunk], tmp_path / "graph.html")
    page = browser.open(path.as_uri())
    assert page.wait_for(STATS) == [4, 2]
    legend = page.evaluate("document.getElementById('gg-flags').innerText")
    assert "only ungrounded\n1" in legend and "only type conflicts\n1" in legend

    def set_degree(value):
        page.evaluate(f"(() => {{ const r = document.getElementById('gg-degree'); r.value = '{value}'; "
                      "r.dispatchEvent(new Event('input')); })()")

    set_degree(1)
    assert page.wait_for(STATS + " .join() === '3,2' && " + STATS) == [3, 2]  # the isolated node goes
    page.evaluate("[...document.querySelectorAll('#gg-legend label')].find(l => l.innerText.includes('spirit'))"
                  ".querySelector('input').click()")
    assert page.wait_for(STATS + " .join() === '2,1' && " + STATS) == [2, 1]
    set_degree(0)
    page.evaluate("document.querySelector('#gg-flags input').click()")  # only ungrounded: the ghost, now hidden
    assert page.wait_for(STATS + " .join() === '0,0' && " + STATS) == [0, 0]
    assert page.errors == []


def test_a_graph_over_the_limit_draws_its_top_nodes_with_a_note(browser, tmp_path):
    g = nx.barabasi_albert_graph(1500, 2, seed=3)
    nx.set_node_attributes(g, {n: ["a", "b", "c"][n % 3] for n in g}, "type")
    path = write_view(g, [], tmp_path / "graph.html", max_nodes=400)
    top = sorted(g.nodes, key=lambda n: (-g.degree(n), str(n)))[:400]
    page = browser.open(path.as_uri())
    assert page.wait_for(STATS) == [400, g.subgraph(top).number_of_edges()]
    note = page.evaluate("document.getElementById('gg-note').hidden ? '' : document.getElementById('gg-note').innerText")
    assert "400 nodes of highest degree out of 1,500" in note and "output.view_max_nodes" in note
    assert page.errors == []


def test_a_script_error_in_the_page_is_seen(browser, tmp_path):
    # the check above is only worth something if a broken page fails it
    g, chunk = small_graph()
    path = write_view(g, [chunk], tmp_path / "graph.html")
    path.write_text(path.read_text().replace("var data = JSON.parse", "var data = JSON.parze", 1))
    page = browser.open(path.as_uri())
    page.wait_for("document.readyState === 'complete'")
    assert any("JSON.parze is not a function" in e for e in page.errors)


def test_chunk_text_is_optional(browser, tmp_path):
    g, _ = small_graph()
    path = write_view(g, [ChunkText("other", "d", 0, 0, "unrelated")], tmp_path / "graph.html")
    page = browser.open(path.as_uri())
    page.wait_for(STATS)
    page.evaluate("""(() => { const s = document.getElementById('gg-search');
        s.value = 'marley'; s.dispatchEvent(new Event('input'));
        s.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter'})); })()""")
    panel = page.wait_for("!document.getElementById('gg-panel').hidden && document.getElementById('gg-panel').innerText")
    assert "Source chunks" not in panel and "A dead partner." in panel
    assert page.errors == []


async def test_graph_from_real_model_outputs(browser, tmp_path):
    graph, chunks = await replayed_graph("lightrag-gpt4o-mini-dickens")
    texts = [ChunkText(c.id, c.doc_id, c.index, c.start, c.text) for c in chunks]
    path = write_view(graph, texts, tmp_path / "graph.html", title="A Christmas Carol (gpt-4o-mini)")
    page = browser.open(path.as_uri())
    assert page.wait_for(STATS) == [graph.number_of_nodes(), graph.number_of_edges()]
    legend = page.evaluate("[...document.querySelectorAll('#gg-legend label')].map(l => l.innerText)")
    assert len(legend) == len({d["type"] for _, d in graph.nodes(data=True)})
    page.wait_for("document.getElementById('gg-stats').dataset.layoutMs", timeout_s=60)
    page.evaluate("""(() => { const s = document.getElementById('gg-search');
        s.value = 'scrooge'; s.dispatchEvent(new Event('input'));
        s.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter'})); })()""")
    page.wait_for("!document.getElementById('gg-panel').hidden")
    names = page.evaluate("[...document.querySelectorAll('#gg-panel mark.s b')].map(b => b.textContent.toLowerCase())")
    scrooge = next(d for n, d in graph.nodes(data=True)
                   if "scrooge" in {a.casefold() for a in [n, *d.get("aliases", [])]})
    own = {a.casefold() for a in [scrooge["name"], *scrooge.get("aliases", [])]}
    assert len(names) > 10 and "scrooge" in names and {" ".join(n.split()) for n in names} <= own
    assert page.errors == []
    keep_screenshot(page, tmp_path, "real_dickens")


def test_empty_and_directed_graphs_draw(browser, tmp_path):
    page = browser.open(write_view(nx.Graph(), [], tmp_path / "empty.html").as_uri())
    assert page.wait_for(STATS) == [0, 0]
    g = nx.DiGraph([("a", "b"), ("b", "a"), ("b", "c"), ("c", "c")])
    page2 = browser.open(write_view(g, [], tmp_path / "directed.html").as_uri())
    assert page2.wait_for(STATS) == [3, 4]
    assert page.errors == [] and page2.errors == []


@pytest.mark.parametrize("worker", [
    "undefined",  # no workers at all
    ("function () { const w = {postMessage() {}, terminate() {}}; "  # a worker whose script fails to load
     "setTimeout(() => w.onerror({preventDefault() {}}), 20); return w; }")])
def test_layout_falls_back_to_the_main_thread(browser, tmp_path, worker):
    g, chunk = small_graph()
    path = write_view(g, [chunk], tmp_path / "graph.html")
    path.write_text(path.read_text().replace('<script class="gg-vendor">', f"<script>window.Worker = {worker};</script>"
                                             '<script class="gg-vendor">', 1))
    page = browser.open(path.as_uri())
    assert page.wait_for(STATS) == [4, 2]
    page.wait_for("document.getElementById('gg-stats').dataset.layoutMs", timeout_s=60)
    assert page.errors == []


def test_mouse_click_selects_and_wheel_and_drag_move_the_view(browser, tmp_path):
    g = nx.Graph()
    g.add_node("solo", name="Solo", type="person", description="Alone in the middle.")
    page = browser.open(write_view(g, [], tmp_path / "graph.html").as_uri())
    assert page.wait_for(STATS) == [1, 0]
    page.wait_for("document.getElementById('gg-stats').dataset.layoutMs", timeout_s=60)
    box = page.evaluate("(() => { const r = document.getElementById('gg-canvas').getBoundingClientRect(); "
                        "return [r.left, r.top, r.width, r.height]; })()")
    middle = (box[0] + box[2] / 2, box[1] + box[3] / 2)
    page.click(*middle)  # fit() puts the only node in the middle
    panel = page.wait_for("!document.getElementById('gg-panel').hidden && document.getElementById('gg-panel').innerText")
    assert "Solo" in panel and "Alone in the middle." in panel
    page.click(box[0] + 5, box[1] + 5)  # empty canvas: the panel closes
    page.wait_for("document.getElementById('gg-panel').hidden")
    middle = page.evaluate("(() => { const r = document.getElementById('gg-canvas').getBoundingClientRect(); "
                           "return [r.left + r.width / 2, r.top + r.height / 2]; })()")
    page.mouse("mouseWheel", *middle, deltaX=0, deltaY=-300)  # zoom in around the node: still under the cursor
    page.mouse("mousePressed", middle[0] - 200, middle[1], button="left", clickCount=1)  # pan by dragging
    page.mouse("mouseMoved", middle[0] - 100, middle[1], button="left")
    page.mouse("mouseReleased", middle[0] - 100, middle[1], button="left", clickCount=1)
    page.click(middle[0] + 100, middle[1])  # the node moved 100 px right with the drag
    panel = page.wait_for("!document.getElementById('gg-panel').hidden && document.getElementById('gg-panel').innerText")
    assert "Solo" in panel
    assert page.errors == []


def test_labels_move_aside_rather_than_hide(browser, tmp_path):
    # a star of long names: to the right of each leaf, labels would run into each other and over the hub
    g = nx.star_graph(10)
    nx.set_node_attributes(g, {n: f"The Rather Long Name Of Node {n}" for n in g}, "name")
    path = write_view(g, [], tmp_path / "graph.html")
    spy = ("<script>window.ggLabels = new Set(); (function () { const f = CanvasRenderingContext2D.prototype.fillText;"
           " CanvasRenderingContext2D.prototype.fillText = function (t) { window.ggLabels.add(String(t));"
           " return f.apply(this, arguments); }; })();</script>")
    path.write_text(path.read_text().replace('<script class="gg-vendor">', spy + '<script class="gg-vendor">', 1))
    page = browser.open(path.as_uri())
    page.wait_for("document.getElementById('gg-stats').dataset.layoutMs", timeout_s=60)
    page.evaluate("window.ggLabels.clear(); document.getElementById('gg-fit').click()")  # one frame of the end
    drawn = page.wait_for("window.ggLabels.size && [...window.ggLabels]")
    assert set(drawn) >= {d["name"] for _, d in g.nodes(data=True)}
    assert page.errors == []


def test_mentions_after_emoji_and_in_cjk_text_highlight_the_names(browser, tmp_path):
    import re

    text = ("🎄🎁 Scrooge met Bob at 𠮷野家 in 東京. 👻👻👻 Later, 𠮷野家 closed; Scrooge 笑った。 "
            "Then Bob 🎉 left Scrooge.")
    chunk = ChunkText("c1", "d", 0, 5, text)
    g = nx.Graph()
    for name in ("Scrooge", "Bob", "𠮷野家", "東京"):
        spans = [["c1", 5 + m.start(), 5 + m.end()] for m in re.finditer(re.escape(name), text)]
        g.add_node(name.lower(), name=name, type="person", source_ids=["c1"], spans=spans, grounded=True)
    g.add_edge("scrooge", "bob")
    g.add_edge("𠮷野家", "東京")
    page = browser.open(write_view(g, [chunk], tmp_path / "graph.html").as_uri())
    assert page.wait_for(STATS) == [4, 2]
    # a CJK full stop ends a sentence too
    first, second, third = ("🎄🎁 Scrooge met Bob at 𠮷野家 in 東京.", "👻👻👻 Later, 𠮷野家 closed; Scrooge 笑った。",
                            "Then Bob 🎉 left Scrooge.")
    for query, name, marked in [("scrooge", "Scrooge", [(first, 1), (second, 1), (third, 1)]),
                                ("𠮷野", "𠮷野家", [(first, 1), (second, 1)]), ("東京", "東京", [(first, 1)]),
                                ("bob", "Bob", [(first, 1), (third, 1)])]:
        page.evaluate(f"""(() => {{ const s = document.getElementById('gg-search');
            s.value = {json.dumps(query)}; s.dispatchEvent(new Event('input'));
            s.dispatchEvent(new KeyboardEvent('keydown', {{key: 'Enter'}})); }})()""")
        page.wait_for(f"!document.getElementById('gg-panel').hidden && "
                      f"document.getElementById('gg-panel').innerText.startsWith('×\\n' + {json.dumps(name)})")
        marks = page.evaluate("[...document.querySelectorAll('#gg-panel mark.s')].map(m => [m.textContent, "
                              "[...m.querySelectorAll('b')].map(b => b.textContent)])")
        assert marks == [[sentence, [name] * n] for sentence, n in marked], query
    assert page.errors == []
