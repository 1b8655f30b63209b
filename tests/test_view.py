import json
import os
import re
import sys

import networkx as nx
import pytest
import trio

from graphglean.view import ChunkText, build_payload, render_page
from graphglean.view.payload import TYPE_CONFLICT, UNGROUNDED

from .conftest import ROOT

TEXT = ("Marley was dead: to begin with. There is no doubt whatever about that! "
        "Scrooge signed it. And Scrooge's name was good upon 'Change.\n\nOld Marley was as dead as a door-nail.")


def small_graph():
    chunk = ChunkText("c1", "carol.txt", 0, 100, TEXT)  # the chunk starts at offset 100 of its document

    def spans(name):
        return [["c1", 100 + m.start(), 100 + m.end()] for m in re.finditer(name, TEXT)]

    g = nx.Graph()
    g.add_node("marley", name="Marley", type="person", description="A dead partner.", source_ids=["c1"],
               spans=spans("Marley"), grounded=True, aliases=["Jacob Marley", "Old Marley"])
    g.add_node("scrooge", name="Scrooge", type="person", source_ids=["c1"], spans=spans("Scrooge"), grounded=True,
               type_conflict=True, types=["person", "organization"])
    g.add_node("ghost", name="Ghost", type="spirit", source_ids=["c1"], spans=[], grounded=False)
    g.add_node("lonely", type="place")
    g.add_edge("marley", "scrooge", weight=3.0, description="partners", keywords=["business"])
    g.add_edge("ghost", "scrooge", weight=1.0)
    return g, chunk


def test_payload_resolves_spans_to_sentences_and_names():
    g, chunk = small_graph()
    p = build_payload(g, [chunk])
    nodes = {n["id"]: n for n in p["nodes"]}
    [[number, ranges]] = nodes["marley"]["src"]
    text = p["chunks"][number]["text"]
    found = [(text[ranges[i]:ranges[i + 1]], text[ranges[i + 2]:ranges[i + 3]]) for i in range(0, len(ranges), 4)]
    assert found == [("Marley was dead: to begin with.", "Marley"),
                     ("Old Marley was as dead as a door-nail.", "Marley")]
    [[_, ranges]] = nodes["scrooge"]["src"]
    assert [text[ranges[i]:ranges[i + 1]] for i in range(0, len(ranges), 4)] == [
        "Scrooge signed it.", "And Scrooge's name was good upon 'Change."]
    assert nodes["marley"]["aliases"] == ["Jacob Marley", "Old Marley"] and "aliases" not in nodes["scrooge"]
    assert nodes["scrooge"]["flags"] == TYPE_CONFLICT and nodes["scrooge"]["types"] == ["person", "organization"]
    assert nodes["ghost"]["flags"] == UNGROUNDED and nodes["ghost"]["src"] == [[number, []]]
    assert nodes["lonely"]["src"] == [] and nodes["lonely"]["name"] == "lonely"
    assert [n["id"] for n in p["nodes"]][0] == "scrooge"  # highest degree first
    assert p["types"] == [["person", 2], ["place", 1], ["spirit", 1]]
    assert len(p["chunks"]) == 1 and p["chunks_known"]


def test_payload_keeps_the_top_nodes_by_degree_and_only_their_edges():
    g = nx.barabasi_albert_graph(300, 2, seed=1)
    p = build_payload(g, max_nodes=50)
    assert len(p["nodes"]) == 50 and p["total"] == {"nodes": 300, "edges": g.number_of_edges()}
    top = sorted(g.nodes, key=lambda n: (-g.degree(n), str(n)))[:50]
    assert {n["id"] for n in p["nodes"]} == {str(n) for n in top}
    assert len(p["edges"]) == g.subgraph(top).number_of_edges()
    assert len(build_payload(g)["nodes"]) == 300


def test_payload_survives_odd_attribute_values():
    g = nx.DiGraph()
    g.add_node(1, spans=[["nowhere", 0, 3], "junk", ["c1", 5, 2]], source_ids="c1", weight=None, aliases="Solo",
               frequency=float("nan"), description=None, name=7)
    g.add_edge(1, 2, weight="heavy")
    g.add_edge(2, 2, weight=float("nan"))
    p = build_payload(g, [ChunkText("c1", "d", 0, 0, "short")])
    assert p["directed"] and {e["w"] for e in p["edges"]} == {1.0}
    one = next(n for n in p["nodes"] if n["id"] == "1")
    assert one["aliases"] == ["Solo"] and one["src"] == [[0, []]] and one["name"] == "7" and one["desc"] == ""
    assert "freq" not in one
    render_page(p)  # strict JSON: no NaN reaches the page


def test_page_is_self_contained_and_script_safe():
    g, chunk = small_graph()
    g.nodes["marley"]["description"] = "</script><script>alert(1)</script> & <!-- x"
    page = render_page(build_payload(g, [chunk], title="A <b>title</b>"))
    assert page.count("</script>") == page.count("<script")  # no early end of the data block
    assert "<title>A &lt;b&gt;title&lt;/b&gt; · graphglean</title>" in page
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page)
    assert "default-src 'none'" in page  # the browser itself refuses any request
    data = page.split('id="gg-data">', 1)[1].split("</script>", 1)[0]
    marley = next(n for n in json.loads(data)["nodes"] if n["id"] == "marley")
    assert marley["desc"].startswith("</script>")


def env():
    e = dict(os.environ)
    e["PYTHONPATH"] = str(ROOT) + os.pathsep + e.get("PYTHONPATH", "")
    return e


async def cli(*args, **kw):
    return await trio.run_process([sys.executable, "-m", "graphglean", *map(str, args)], capture_stdout=True,
                                  capture_stderr=True, check=False, env=kw.get("env") or env())


async def test_view_command_rebuilds_the_page_from_any_graph_output(tmp_path):
    g, _ = small_graph()
    from graphglean.graph.formats.export import entity_rows, relationship_rows, write_graphml, write_jsonl

    for name, write in (("json", None), ("jsonl", None), ("graphml", write_graphml)):
        out = tmp_path / name
        out.mkdir()
        if name == "json":
            (out / "graph.json").write_text(json.dumps(nx.node_link_data(g, edges="edges")))
        elif name == "jsonl":
            write_jsonl(entity_rows(g), out / "entities.jsonl")
            write_jsonl(relationship_rows(g), out / "relationships.jsonl")
        else:
            write(g, out / "graph.graphml")
        write_jsonl([{"id": "c1", "doc_id": "carol.txt", "index": 0, "start": 100, "end": 100 + len(TEXT),
                      "text": TEXT}], out / "chunks.jsonl")
        r = await cli("view", out, "--max-nodes", "3")
        assert r.returncode == 0, r.stderr.decode()
        page = (out / "graph.html").read_text()
        data = json.loads(page.split('id="gg-data">', 1)[1].split("</script>", 1)[0].replace("\\u003c", "<"))
        assert len(data["nodes"]) == 3 and data["total"] == {"nodes": 4, "edges": 2}, name
        marley = next(n for n in data["nodes"] if n["id"] == "marley")
        assert marley["aliases"] == ["Jacob Marley", "Old Marley"] and len(marley["src"][0][1]) == 8, name


async def test_view_command_errors_are_one_line(tmp_path):
    for target in (tmp_path / "missing", tmp_path):
        r = await cli("view", target)
        assert r.returncode == 2
        lines = r.stderr.decode().strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"graphglean: error: {target}"), lines
    (tmp_path / "graph.json").write_text("{not json")
    r = await cli("view", tmp_path)
    assert r.returncode == 2 and "graph.json: not a node-link graph" in r.stderr.decode()
    r = await cli("view", tmp_path, "--max-nodes", "-1")
    assert r.returncode == 2 and r.stderr.decode().count("\n") == 1


async def test_view_open_starts_the_browser_on_the_page(tmp_path):
    g, _ = small_graph()
    (tmp_path / "graph.json").write_text(json.dumps(nx.node_link_data(g, edges="edges")))
    seen = tmp_path / "opened.txt"
    e = env()
    e["BROWSER"] = f"{sys.executable} -c \"import sys; open(r'{seen}', 'w').write(sys.argv[1])\" %s"
    r = await cli("view", tmp_path, "--open", env=e)
    assert r.returncode == 0, r.stderr.decode()
    for _ in range(100):  # the browser command runs in the background
        if seen.exists() and seen.read_text():
            break
        await trio.sleep(0.05)
    assert seen.read_text() == (tmp_path / "graph.html").resolve().as_uri()


def test_a_bad_table_row_is_named_by_its_real_line_number(tmp_path):
    from graphglean.core.errors import InputError
    from graphglean.graph.formats.readback import read_graph

    (tmp_path / "entities.jsonl").write_text('{"id": "a"}\n\n{"name": "no id"}\n')
    with pytest.raises(InputError, match=r"entities\.jsonl:3: no id"):
        read_graph(tmp_path)
