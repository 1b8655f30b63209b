import json
import re

import networkx as nx
import pytest

from graphglean.core.config import Config
from graphglean.core.config_loader import load_config_text
from graphglean.core.errors import ConfigError
from graphglean.graph.extract import extract_graph_sync
from graphglean.graph.formats.export import entity_rows, relationship_rows
from graphglean.graph.formats.neo4j import label_of, write_neo4j
from graphglean.launch import run_sync

from . import neo4j_csv
from .conftest import ROOT
from .helpers import replayed_graph

STAVE = ROOT / "examples" / "a_christmas_carol_stave1.txt"


def tricky_graph(directed=False):
    g = nx.DiGraph() if directed else nx.Graph()
    g.add_node("ada lovelace", name="Ada Lovelace", type="person", types=["person"], type_conflict=False,
               description='Wrote "notes", with commas;\nand a second line | pipe', aliases=["Ada", "A. A. Lovelace", "Ada|Byron"],
               source_ids=["c1", "c2"], spans=[["c1", 0, 12], ["c2", 40, 44]], frequency=3, grounded=True)
    g.add_node("babbage", name="Babbage", type="geo-political entity", types=["geo-political entity", "person"],
               type_conflict=True, description="", aliases=[], source_ids=["c1"], spans=[], frequency=1,
               grounded=False)
    g.add_node("1851 exhibition", name="1851 Exhibition", type="event", description="Ünïcødé ✓ <b>", frequency=2)
    g.add_edge("ada lovelace", "babbage", weight=2.5, description="corresponded", keywords=["letters", "a;b"],
               source_ids=["c1"], frequency=2)
    g.add_edge("babbage", "1851 exhibition", weight=1.0, description="visited\n(twice)", keywords=[],
               source_ids=["c2"], frequency=1)
    return g


def read_neo4j(folder, load_csv=False):
    """The CSVs parsed back with the typed headers, by Neo4j's rules: neo4j-admin's defaults reading nodes.csv
    and relationships.csv, or LOAD CSV's reading the files import.cypher names. (delimiter, nodes by id,
    edges as (start, end, props))."""
    cypher = (folder / "import.cypher").read_text()
    delimiter = re.search(r"--array-delimiter='([^']+)'", cypher).group(1)
    if delimiter.startswith("U+"):
        delimiter = chr(int(delimiter[2:], 16))
    files = re.findall(r"LOAD CSV WITH HEADERS FROM 'file:///([^']+)'", cypher) if load_csv else [
        "nodes.csv", "relationships.csv"]

    def typed(header, row):
        out = {}
        for column, cell in zip(header, row):
            name, _, kind = column.partition(":")
            if cell is None or not name:
                continue
            convert = {"long": int, "double": float, "boolean": lambda v: v == "true"}.get(kind.rstrip("[]"), str)
            out[name] = [convert(v) for v in cell.split(delimiter)] if kind.endswith("[]") else convert(cell)
        return out

    rows = neo4j_csv.read_file(folder / files[0], legacy=load_csv)
    assert rows[0][:2] == ["id:ID", ":LABEL"] and all(len(r) == len(rows[0]) for r in rows)
    nodes = {row[0]: (row[1].split(delimiter), typed(rows[0], row)) for row in rows[1:]}
    rows = neo4j_csv.read_file(folder / files[1], legacy=load_csv)
    assert rows[0][:3] == [":START_ID", ":END_ID", ":TYPE"] and all(len(r) == len(rows[0]) for r in rows)
    edges = [(row[0], row[1], row[2], typed(rows[0], row)) for row in rows[1:]]
    return delimiter, nodes, edges


def expected_props(data):
    """What Neo4j holds for a graph attribute dict: spans as three arrays; empty strings and lists absent."""
    out = {}
    for key, value in data.items():
        if key == "spans":
            if value:
                out.update(span_chunk_ids=[s[0] for s in value], span_starts=[s[1] for s in value],
                           span_ends=[s[2] for s in value])
        elif value not in ("", [], None):
            out[key] = list(value) if isinstance(value, tuple) else value
    return out


def assert_round_trip(graph, folder):
    write_neo4j(graph, folder)
    for load_csv in (False, True):
        delimiter, nodes, edges = read_neo4j(folder, load_csv)
        assert set(nodes) == {str(n) for n in graph.nodes}
        for n, data in graph.nodes(data=True):
            labels, props = nodes[str(n)]
            assert labels == ["Entity", label_of(data.get("type") or "unknown")]
            assert props == {"id": str(n), **expected_props(data)}
        assert len(edges) == graph.number_of_edges()
        by_pair = {(a, b): props for a, b, kind, props in edges}
        assert {kind for *_, kind, _ in edges} <= {"RELATED_TO"}
        for a, b, data in graph.edges(data=True):
            assert by_pair[(str(a), str(b))] == expected_props(data)
    return delimiter


def test_neo4j_csvs_round_trip_every_node_edge_and_property(tmp_path):
    graph = tricky_graph()
    delimiter = assert_round_trip(graph, tmp_path / "neo4j")
    assert delimiter not in "|;"  # both occur in list values, so another delimiter was chosen
    cypher = (tmp_path / "neo4j" / "import.cypher").read_text()
    assert "LOAD CSV WITH HEADERS FROM 'file:///nodes.csv'" in cypher
    assert "SET n:`GeoPoliticalEntity`" in cypher and "n.`aliases` = " in cypher
    assert "toInteger(row.`frequency:long`)" in cypher


@pytest.mark.parametrize("value", [
    "C:\\Users\\", 'ends in a backslash, after a comma \\', 'a quote "inside", and a comma', '"quoted first"',
    'a backslash before a quote \\" and, a comma', "two backslashes \\\\ then a comma,", "line\nbreak \\",
    "line\r\nbreak", " leading and trailing space ", "\\", '"', "\\\\", 'x\\"y', "tab\there, \\t too",
    "end\\\n", ",", "ünïcødé, ✓ \\ 🎉"])
def test_neo4j_values_read_back_exactly_by_neo4j_admin_and_load_csv(tmp_path, value):
    g = nx.Graph()
    g.add_node(value, name=value, type="person", description=value, aliases=[value, "plain"])
    g.add_node("b", name="b", type="person")
    g.add_edge(value, "b", description=value, keywords=[value])
    assert_round_trip(g, tmp_path)
    listed = {p.name for p in tmp_path.iterdir()}
    cypher = (tmp_path / "import.cypher").read_text()
    if "nodes.load.csv" in listed:  # LOAD CSV gets its own copies only when the others would be misread
        assert "file:///nodes.load.csv" in cypher and "copy nodes.load.csv and relationships.load.csv" in cypher
        assert not load_csv_reads_the_admin_files_right(tmp_path, value)  # the copies were needed
    else:
        assert "file:///nodes.csv" in cypher and "relationships.load.csv" not in listed


def load_csv_reads_the_admin_files_right(folder, value):
    cypher = folder / "import.cypher"
    text = cypher.read_text()
    cypher.write_text(text.replace(".load.csv", ".csv"))
    try:
        _, nodes, _ = read_neo4j(folder, load_csv=True)
        return nodes[value][1]["description"] == value
    except (neo4j_csv.CsvError, AssertionError, KeyError):
        return False
    finally:
        cypher.write_text(text)


def test_a_value_that_load_csv_would_misread_gets_load_csv_files_and_a_later_graph_drops_them(tmp_path):
    g = nx.Graph()
    g.add_node("n", name="n", type="person", description='ends in a backslash, and a comma \\')
    write_neo4j(g, tmp_path)
    assert (tmp_path / "nodes.load.csv").exists() and (tmp_path / "relationships.load.csv").exists()
    g.nodes["n"]["description"] = "plain"
    paths = write_neo4j(g, tmp_path)
    assert not (tmp_path / "nodes.load.csv").exists() and len(paths) == 3


def test_neo4j_round_trip_of_directed_and_real_graphs(tmp_path):
    assert_round_trip(tricky_graph(directed=True), tmp_path / "directed")
    real = extract_graph_sync([STAVE.read_text()], Config(), method="nlp").output
    assert real.number_of_nodes() > 20  # the offline (spaCy) graph of the stave
    assert assert_round_trip(real, tmp_path / "real") == "|"


@pytest.mark.parametrize("folder", ["lightrag-gpt4o-mini-dickens", "lightrag-llama3.1-abstracts"])
async def test_neo4j_round_trip_of_graphs_from_real_model_outputs(tmp_path, folder):
    graph, _ = await replayed_graph(folder)
    assert graph.number_of_nodes() > 100 and len({d["type"] for _, d in graph.nodes(data=True)}) > 3
    assert_round_trip(graph, tmp_path)


def test_labels_are_valid_identifiers():
    assert label_of("person") == "Person"
    assert label_of("geo-political entity") == "GeoPoliticalEntity"
    assert label_of("1990s event") == "_1990sEvent"
    assert label_of("***") == "Unknown" and label_of("") == "Unknown"
    assert label_of("organización") == "Organización"


def test_parquet_has_the_jsonl_columns_and_values(tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    from graphglean.graph.formats.parquet import write_parquet

    graph = tricky_graph()
    graph.nodes["1851 exhibition"]["odd"] = [1, "mixed"]  # no single Arrow type: kept as JSON text
    write_parquet(graph, tmp_path)
    for name, rows in (("entities", entity_rows(graph)), ("relationships", relationship_rows(graph))):
        table = pq.read_table(tmp_path / f"{name}.parquet")
        keys = list(dict.fromkeys(k for r in rows for k in r))
        assert table.column_names == keys
        back = table.to_pylist()
        for mine, theirs in zip(rows, back):
            for key in keys:
                value = theirs[key]
                if key == "spans" and value is not None:
                    value = [[s["chunk_id"], s["start"], s["end"]] for s in value]
                if key == "odd" and value is not None:
                    value = json.loads(value)
                assert value == mine.get(key), (name, key)


def test_parquet_without_pyarrow_is_a_config_error_naming_the_extra(monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "pyarrow" else real(name, *a))
    with pytest.raises(ConfigError, match=r"c.yaml:2: output.formats: parquet needs pyarrow: .*graphglean\[parquet\]"):
        load_config_text("output:\n  formats: [json, parquet]\n", "c.yaml")
    load_config_text("output:\n  formats: [json]\n", "c.yaml")  # not asked for: no error
    cfg = Config()
    cfg.output.formats = ["parquet"]  # built in code: the run checks before any work
    cfg.output.dir = "/nonexistent/never-written"
    with pytest.raises(ConfigError, match=r"^output.formats: parquet needs pyarrow"):
        run_sync(cfg, notice=lambda m: None)


def test_unknown_format_names_its_place():
    with pytest.raises(ConfigError, match=r"c.yaml:1: output.formats.1: expected one of graphml, .*got 'csv'"):
        load_config_text("output: {formats: [json, csv]}", "c.yaml")


def offline_config(tmp_path, **output):
    cfg = Config()
    cfg.input.path = str(STAVE)
    cfg.output.dir = str(tmp_path / "out")
    for key, value in output.items():
        setattr(cfg.output, key, value)
    return cfg


def test_default_formats_are_those_without_extras(tmp_path):
    assert "parquet" not in Config().output.formats
    result = run_sync(offline_config(tmp_path), notice=lambda m: None)
    out = tmp_path / "out"
    names = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}
    assert {"graph.graphml", "graph.json", "entities.jsonl", "relationships.jsonl", "graph.html", "chunks.jsonl",
            "neo4j/nodes.csv", "neo4j/relationships.csv", "neo4j/import.cypher"} <= names
    assert not any(n.endswith(".parquet") for n in names)
    assert str(out / "graph.html") in result.report["outputs"]


def test_formats_choose_the_exports(tmp_path):
    pytest.importorskip("pyarrow")
    run_sync(offline_config(tmp_path, formats=["jsonl", "parquet"]), notice=lambda m: None)
    out = tmp_path / "out"
    names = {p.name for p in out.iterdir()}
    assert {"entities.jsonl", "relationships.jsonl", "entities.parquet", "relationships.parquet",
            "chunks.jsonl"} <= names
    assert not names & {"graph.graphml", "graph.json", "graph.html", "neo4j"}


def test_chunks_jsonl_resolves_every_span(tmp_path):
    run_sync(offline_config(tmp_path, formats=["jsonl"]), notice=lambda m: None)
    out = tmp_path / "out"
    chunks = {c["id"]: c for c in map(json.loads, (out / "chunks.jsonl").read_text().splitlines())}
    checked = 0
    for entity in map(json.loads, (out / "entities.jsonl").read_text().splitlines()):
        for cid, start, end in entity["spans"]:
            c = chunks[cid]
            found = c["text"][start - c["start"]:end - c["start"]]
            names = {" ".join(n.split()).casefold() for n in [entity["name"], *entity.get("aliases", [])]}
            assert " ".join(found.split()).casefold() in names  # the name, or one resolution merged into it
            checked += 1
    assert checked > 100


def test_outputs_get_the_permissions_of_any_new_file(tmp_path):
    import os
    import stat

    from graphglean.core.atomic import write_text

    cfg = Config()
    cfg.input.path, cfg.output.dir = str(STAVE), str(tmp_path / "out")
    cfg.graph.method = "nlp"
    run_sync(cfg)  # the test process's umask (022 unless the runner's is stricter) decides
    umask = os.umask(0o022)
    os.umask(umask)
    files = [p for p in (tmp_path / "out").rglob("*") if p.is_file() and p.name != "run.sqlite"]
    assert {"graph.html", "nodes.csv", "entities.jsonl", "report.json"} <= {p.name for p in files}
    assert {stat.S_IMODE(p.stat().st_mode) for p in files} == {0o666 & ~umask}
    kept = tmp_path / "out" / "report.json"
    kept.chmod(0o640)  # a file the user restricted keeps its mode when it is written again
    write_text(kept, "{}")
    assert stat.S_IMODE(kept.stat().st_mode) == 0o640


def test_the_neo4j_array_delimiter_is_one_no_value_holds():
    from graphglean.graph.formats.neo4j import DELIMITERS, _delimiter
    assert _delimiter(["".join(DELIMITERS)]) not in "".join(DELIMITERS)
