"""A graph read back from an output folder is the graph the run built: direction, every relationship, and
attribute values of the types they were written with."""

import json
import sys

import networkx as nx
import pytest
import trio

from graphglean.graph.formats.export import entity_rows, relationship_rows, write_graphml, write_jsonl
from graphglean.graph.formats.readback import read_graph

from .test_view import env


def both_ways(directed=True):
    g = nx.DiGraph() if directed else nx.Graph()
    g.add_node("acme", name="Acme", type="organization", aliases=["Acme"], descriptions=["A firm."])
    g.add_node("bo", name="[1, 2]", type="person", aliases=["[1, 2]"], description="[not, json")
    g.add_edge("acme", "bo", description="Acme employs Bo.", keywords=["employs"], weight=2.0)
    g.add_edge("bo", "acme", description="Bo sues Acme.", keywords=["sues"], weight=1.0)
    return g


def tables(g, out):
    out.mkdir(exist_ok=True)
    write_jsonl(entity_rows(g), out / "entities.jsonl")
    write_jsonl(relationship_rows(g), out / "relationships.jsonl")
    return out


def test_tables_of_a_directed_graph_read_back_directed_with_every_relationship(tmp_path):
    g = both_ways()
    back = read_graph(tables(g, tmp_path / "t"))
    assert back.is_directed() and back.number_of_edges() == 2
    assert back.edges["acme", "bo"]["description"] == "Acme employs Bo."
    assert back.edges["bo", "acme"]["keywords"] == ["sues"] and "directed" not in back.edges["bo", "acme"]
    assert back.nodes["bo"]["name"] == "[1, 2]"


def test_a_directed_table_without_reciprocal_pairs_and_an_older_table_with_them(tmp_path):
    g = both_ways()
    g.remove_edge("bo", "acme")
    assert read_graph(tables(g, tmp_path / "one")).is_directed()  # said by its rows
    old = tmp_path / "old"
    tables(both_ways(), old)
    rows = [{k: v for k, v in json.loads(line).items() if k != "directed"} for line in open(old / "relationships.jsonl")]
    write_jsonl(rows, old / "relationships.jsonl")  # written before the flag: a pair both ways is direction
    assert read_graph(old).is_directed() and read_graph(old).number_of_edges() == 2
    undirected = read_graph(tables(both_ways(directed=False), tmp_path / "u"))
    assert not undirected.is_directed() and undirected.number_of_edges() == 1


def test_graphml_decodes_only_the_attributes_written_as_json(tmp_path):
    g = both_ways()
    write_graphml(g, tmp_path / "graph.graphml")
    back = read_graph(tmp_path)
    assert back.is_directed() and back.number_of_edges() == 2
    assert back.nodes["bo"]["name"] == "[1, 2]" and back.nodes["bo"]["aliases"] == ["[1, 2]"]
    assert back.nodes["bo"]["description"] == "[not, json" and back.nodes["acme"]["descriptions"] == ["A firm."]
    assert back.edges["bo", "acme"]["keywords"] == ["sues"] and not any("json" in k for k in back.graph)


async def test_the_view_of_a_folder_of_tables_draws_both_relationships_with_their_direction(tmp_path):
    out = tables(both_ways(), tmp_path / "out")
    r = await trio.run_process([sys.executable, "-m", "graphglean", "view", str(out)], capture_stdout=True,
                               capture_stderr=True, check=False, env=env())
    assert r.returncode == 0, r.stderr.decode()
    page = (out / "graph.html").read_text()
    data = json.loads(page.split('id="gg-data">', 1)[1].split("</script>", 1)[0].replace("\\u003c", "<"))
    assert data["directed"] is True and data["total"] == {"nodes": 2, "edges": 2}
    names = [n["name"] for n in data["nodes"]]
    ends = {(names[e["s"]], names[e["t"]], e["desc"]) for e in data["edges"]}
    assert ends == {("Acme", "[1, 2]", "Acme employs Bo."), ("[1, 2]", "Acme", "Bo sues Acme.")}


@pytest.mark.parametrize("directed", [True, False])
async def test_a_run_with_only_the_tables_views_the_graph_it_built(tmp_path, directed):
    from graphglean.core.config import Config
    from graphglean.launch import run
    from graphglean.pipeline.outputs import rebuild_view
    from graphglean.view import build_payload

    source = tmp_path / "in.txt"
    source.write_text("Ada Lovelace wrote to Charles Babbage. Charles Babbage answered Ada Lovelace in London.")
    cfg = Config()
    cfg.graph.method, cfg.graph.directed = "nlp", directed
    cfg.input.path, cfg.output.dir, cfg.output.formats = str(source), str(tmp_path / "out"), ["jsonl", "graphml"]
    await run(cfg, out=open("/dev/null", "w"))
    built = nx.read_graphml(tmp_path / "out" / "graph.graphml")
    back = read_graph(tmp_path / "out")  # the tables come first
    assert back.is_directed() == directed == built.is_directed()
    assert sorted(back.edges) == sorted(built.edges) and back.number_of_edges() > 1
    rebuild_view(tmp_path / "out", 0)
    assert build_payload(back)["directed"] == directed
