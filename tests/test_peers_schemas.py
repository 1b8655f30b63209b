"""The peer indexes against fixtures of the peers' real output (tests/data/peers, made by the engines themselves:
make_fixtures.py): GraphRAG 3.3's tables and LanceDB tables, LightRAG 1.5's working directory. Column names,
Arrow types, store records, vector formats and the ids the engines look things up by."""

from __future__ import annotations

import base64
import hashlib
import json
import zlib
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

from graphglean.graph.formats.peers.communities import Communities, read_communities
from graphglean.graph.formats.peers.index import Document
from graphglean.testing.fake_llm import hashed_embedding
from graphglean.text.chunking import Chunk, chunk_id

from .peers_support import DATA

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

DIM = 64
DOCS = {"harbour.txt": (DATA / "corpus" / "harbour.txt").read_text(encoding="utf-8"),
        "notes/carol.txt": (DATA / "corpus" / "carol.txt").read_text(encoding="utf-8")}


def _chunks() -> list[Chunk]:
    chunks = []
    for doc_id, text in DOCS.items():
        half = text.index("\n\n") + 2
        for i, (a, b) in enumerate(((0, half), (half, len(text)))):
            chunks.append(Chunk(chunk_id(doc_id, text[a:b]), doc_id, i, text[a:b], a, b, (b - a) // 4))
    return chunks


def _node(name: str, kind: str, chunks: list[str], aliases: list[str] = (), frequency: int = 1) -> dict:
    return {"name": name, "type": kind, "description": f"{name} is named in the text.", "source_ids": chunks,
            "frequency": frequency, "aliases": [name, *aliases]}


def small_graph(chunks: list[Chunk]) -> nx.Graph:
    """A graph as graphglean builds one (casefolded keys, display names, aliases, provenance)."""
    h0, h1, c0, c1 = (c.id for c in chunks)
    g = nx.Graph()
    nodes = [_node("Zoë Ångström", "person", [h0, h1], ["Ångström"], 3),
             _node("Hiroshi Tanaka", "person", [h0, h1]),
             _node("Göteborg", "geo", [h0]), _node("Société Générale de Dragage", "organization", [h0]),
             _node("Port of Rotterdam", "organization", [h1]), _node("Scrooge", "person", [c0, c1], [], 4),
             _node("Marley", "person", [c0]), _node("&quot;Mats&quot; Lindqvist", "person", [h1], ["Lindqvist"]),
             _node("ＮＯＲＤＳＴＪÄＲＮＡＮ", "ship/vessel", [h1])]
    for n in nodes:
        g.add_node(n["name"].casefold(), **n)
    for a, b, chunk in (("zoë ångström", "hiroshi tanaka", h0), ("zoë ångström", "göteborg", h0),
                        ("hiroshi tanaka", "société générale de dragage", h0),
                        ("port of rotterdam", "göteborg", h1),
                        ("scrooge", "marley", c0), ("&quot;mats&quot; lindqvist", "göteborg", h1)):
        g.add_edge(a, b, weight=2.0, description=f"{g.nodes[a]['name']} and {g.nodes[b]['name']} work together.",
                   keywords=["work"], source_ids=[chunk], frequency=1)
    return g


def vectors_of(texts: list[str]) -> dict[str, np.ndarray]:
    return {t: np.asarray(hashed_embedding(t, DIM), np.float32) for t in texts}


@pytest.fixture(scope="module")
def written(tmp_path_factory) -> Path:
    """Both indexes of the small graph, with the fixture's communities, in one output folder."""
    from graphglean.core.config import LLMConfig
    from graphglean.graph.formats.peers.graphrag.write import plan_graphrag
    from graphglean.graph.formats.peers.lightrag.write import plan_lightrag

    pytest.importorskip("lancedb")
    out = tmp_path_factory.mktemp("peers")
    chunks = _chunks()
    docs = [Document(d, d, text, tuple(c.id for c in chunks if c.doc_id == d)) for d, text in DOCS.items()]
    graph = small_graph(chunks)
    for plan in (plan_graphrag(graph, docs, chunks, read_communities(DATA / "communities"), LLMConfig(), out),
                 plan_lightrag(graph, docs, chunks, out, (1200, 100))):
        plan.write(vectors_of(plan.texts()), DIM)
    return out


def _same_type(ours: pa.DataType, theirs: pa.DataType) -> bool:
    """Equal, or ``theirs`` is a list GraphRAG wrote only empty (list<null>) and ours a list of something."""
    if pa.types.is_list(theirs) and pa.types.is_null(theirs.value_type):
        return pa.types.is_list(ours)
    return ours == theirs


@pytest.mark.parametrize("table", ["documents", "text_units", "entities", "relationships", "communities",
                                   "community_reports"])
def test_graphrag_tables_have_graphrag_columns_and_arrow_types(written, table):
    theirs = pq.read_schema(DATA / "graphrag" / f"{table}.parquet")
    ours = pq.read_schema(written / "graphrag" / "output" / f"{table}.parquet")
    assert ours.names == theirs.names
    for name in theirs.names:
        assert _same_type(ours.field(name).type, theirs.field(name).type), (table, name)


def _rows(out: Path, table: str) -> list[dict]:
    return pq.read_table(out / "graphrag" / "output" / f"{table}.parquet").to_pylist()


def test_graphrag_relationships_name_entity_titles_and_titles_are_graphrag_names(written):
    titles = {e["title"] for e in _rows(written, "entities")}
    assert {"ZOË ÅNGSTRÖM", "SOCIÉTÉ GÉNÉRALE DE DRAGAGE", '"MATS" LINDQVIST'} <= titles
    assert "ＮＯＲＤＳＴＪÄＲＮＡＮ" in titles  # GraphRAG keeps full-width letters (LightRAG does not)
    for r in _rows(written, "relationships"):
        assert r["source"] in titles and r["target"] in titles
    zoe = next(e for e in _rows(written, "entities") if e["title"] == "ZOË ÅNGSTRÖM")
    assert "Also known as: Ångström." in zoe["description"]  # an alias GraphRAG's search finds her by
    assert zoe["frequency"] == 3 and zoe["degree"] == 2


def test_graphrag_text_units_list_the_entities_and_relationships_found_in_them(written):
    entities, relationships = _rows(written, "entities"), _rows(written, "relationships")
    for unit in _rows(written, "text_units"):
        assert sorted(unit["entity_ids"]) == sorted(e["id"] for e in entities if unit["id"] in e["text_unit_ids"])
        assert sorted(unit["relationship_ids"]) == sorted(r["id"] for r in relationships
                                                          if unit["id"] in r["text_unit_ids"])
    documents = {d["id"]: d for d in _rows(written, "documents")}
    assert {u["document_id"] for u in _rows(written, "text_units")} == set(documents) == set(DOCS)


def test_graphrag_communities_are_numbered_across_levels_with_a_report_each(written):
    communities, reports = _rows(written, "communities"), _rows(written, "community_reports")
    numbers = [c["community"] for c in communities]
    assert len(set(numbers)) == len(numbers) == 4
    by_number = {c["community"]: c for c in communities}
    for c in communities:
        assert c["human_readable_id"] == c["community"] and c["title"] == f"Community {c['community']}"
        assert (c["parent"] == -1) == (c["level"] == 0)
        if c["parent"] != -1:
            assert c["community"] in by_number[c["parent"]]["children"]
        for child in c["children"]:
            assert by_number[child]["parent"] == c["community"] and by_number[child]["level"] == c["level"] + 1
    entity_ids = {e["id"] for e in _rows(written, "entities")}
    assert all(set(c["entity_ids"]) <= entity_ids and c["entity_ids"] for c in communities)
    assert sorted(r["community"] for r in reports) == sorted(numbers)  # every community has its report
    harbour = next(c for c in communities if c["size"] == 9 - 4)  # the dredging community: 5 of its entities exist
    assert harbour["period"] == "2026-11-30"


def test_graphrag_reports_are_graphrag_markdown_with_findings_as_structs(written):
    report = next(r for r in _rows(written, "community_reports") if r["title"] == "Göteborg harbour rebuilding")
    assert report["full_content"].startswith("# Göteborg harbour rebuilding\n\nThe Göteborg harbour authority")
    assert "\n\n## Zoë Ångström leads the rebuilding\n\nÅngström was hired in March" in report["full_content"]
    assert isinstance(report["rank"], float) and report["rank"] == 6.5
    assert report["findings"][0]["summary"] == "Zoë Ångström leads the rebuilding"
    assert "[Data: Entities (" in report["findings"][0]["explanation"]  # its references, as GraphRAG cites
    assert json.loads(report["full_content_json"])["rating"] == 6.5
    assert report["id"] == hashlib.sha512(report["full_content"].encode()).hexdigest()


def test_lancedb_tables_match_graphrag_and_ids_are_their_tables_row_ids(written):
    import lancedb

    theirs = json.loads((DATA / "graphrag" / "lancedb.json").read_text())
    db = lancedb.connect(str(written / "graphrag" / "output" / "lancedb"))
    assert sorted(db.list_tables().tables) == sorted(theirs)
    ids = {"entity_description": {e["id"]: e for e in _rows(written, "entities")},
           "community_full_content": {r["id"]: r for r in _rows(written, "community_reports")},
           "text_unit_text": {u["id"]: u for u in _rows(written, "text_units")}}
    for name, spec in theirs.items():
        table = db.open_table(name)
        assert [[f.name, str(f.type)] for f in table.schema] == spec["schema"]
        assert [[i.name, i.index_type, list(i.columns)] for i in table.list_indices()] == spec["indices"]
        rows = table.to_arrow().to_pylist()
        assert sorted(r["id"] for r in rows) == sorted(ids[name])  # local search joins entities by this id
        for r in rows:
            assert abs(float(np.linalg.norm(r["vector"])) - 1.0) < 1e-5
    entity = next(e for e in _rows(written, "entities") if e["title"] == "GÖTEBORG")
    row = next(r for r in db.open_table("entity_description").to_arrow().to_pylist() if r["id"] == entity["id"])
    expected = hashed_embedding(f"{entity['title']}:{entity['description']}", DIM)
    assert np.allclose(row["vector"], expected, atol=1e-6)


def test_settings_read_the_key_from_graphrag_and_point_at_the_run_endpoint(tmp_path):
    import yaml

    from graphglean.core.config import AzureConfig, LLMConfig
    from graphglean.graph.formats.peers.graphrag.settings import settings_yaml

    llm = LLMConfig(base_url="http://127.0.0.1:9/v1/", api_key="sk-secret", model="m$1", embedding_dimensions=256)
    text = settings_yaml(llm, 256)
    assert "sk-secret" not in text and "${GRAPHRAG_API_KEY}" in text
    data = yaml.safe_load(text)
    assert data["completion_models"]["default_completion_model"]["api_base"] == "http://127.0.0.1:9/v1"
    assert data["completion_models"]["default_completion_model"]["model"] == "m$$1"  # GraphRAG's Template reading
    assert data["embedding_models"]["default_embedding_model"]["call_args"] == {"dimensions": 256}
    assert data["vector_store"] == {"type": "lancedb", "db_uri": "output/lancedb", "vector_size": 256}
    azure = yaml.safe_load(settings_yaml(LLMConfig(provider="azure", base_url="https://x.openai.azure.com",
                                                   azure=AzureConfig(deployment="chat-dep")), 1536))
    assert azure["completion_models"]["default_completion_model"]["azure_deployment_name"] == "chat-dep"
    assert "call_args" not in azure["embedding_models"]["default_embedding_model"]


def _json(folder: Path, name: str) -> dict:
    return json.loads((folder / name).read_text(encoding="utf-8"))


def test_lightrag_folder_has_lightrag_files_and_record_fields(written):
    ours, theirs = written / "lightrag", DATA / "lightrag"
    assert sorted(p.name for p in ours.iterdir()) == sorted(p.name for p in theirs.iterdir())
    for path in theirs.glob("kv_store_*.json"):
        mine, real = _json(ours, path.name), _json(theirs, path.name)
        assert mine, path.name
        real_fields = {k: type(v) for record in real.values() for k, v in record.items()}
        for key, record in mine.items():
            assert {k: type(v) for k, v in record.items()} == real_fields, (path.name, key)
            if "_id" in record:
                assert record["_id"] == key
    status = _json(ours, "kv_store_doc_status.json")
    real_status = next(iter(_json(theirs, "kv_store_doc_status.json").values()))
    assert all(s["status"] == "processed" and set(s["metadata"]) == set(real_status["metadata"])
               for s in status.values())


def _decoded(record: dict) -> np.ndarray:
    return np.frombuffer(zlib.decompress(base64.b64decode(record["vector"])), dtype=np.float16).astype(np.float32)


def test_lightrag_vector_stores_are_nanovectordb_files_lightrag_reads(written):
    ours, theirs = written / "lightrag", DATA / "lightrag"
    chunks = _json(ours, "kv_store_text_chunks.json")
    for name in ("vdb_entities.json", "vdb_relationships.json", "vdb_chunks.json"):
        mine, real = _json(ours, name), _json(theirs, name)
        assert set(mine) == set(real) and mine["embedding_dim"] == DIM
        assert {k for r in mine["data"] for k in r} == {k for r in real["data"] for k in r}, name
        matrix = np.frombuffer(base64.b64decode(mine["matrix"]), dtype=np.float32).reshape(-1, DIM)
        assert len(matrix) == len(mine["data"]) > 0
        for row, record in zip(matrix, mine["data"]):
            assert abs(float(np.linalg.norm(row)) - 1.0) < 1e-5
            assert np.allclose(_decoded(record), row, atol=2e-3)  # float16 of the same vector, in data's order
            for chunk in record.get("source_id", record["__id__"]).split("<SEP>"):
                assert chunk in chunks  # every source id names a chunk
    entities = _json(ours, "vdb_entities.json")["data"]
    zoe = next(r for r in entities if r["entity_name"] == "Zoë Ångström")
    assert zoe["__id__"] == "ent-" + hashlib.md5("Zoë Ångström".encode()).hexdigest()
    assert zoe["content"].startswith("Zoë Ångström\nZoë Ångström is named")
    assert "Also known as: Ångström." in zoe["content"]
    for r in _json(ours, "vdb_relationships.json")["data"]:
        assert r["src_id"] < r["tgt_id"]  # the pair sorted, and the id made of it
        assert r["__id__"] == "rel-" + hashlib.md5((r["src_id"] + r["tgt_id"]).encode()).hexdigest()
        assert r["content"].startswith(f"work\t{r['src_id']}\n{r['tgt_id']}\n")


def test_lightrag_graph_has_lightrag_attributes_and_names(written):
    ours = nx.read_graphml(written / "lightrag" / "graph_chunk_entity_relation.graphml")
    theirs = nx.read_graphml(DATA / "lightrag" / "graph_chunk_entity_relation.graphml")
    node_fields = {k: type(v) for _, d in theirs.nodes(data=True) for k, v in d.items()}
    edge_fields = {k: type(v) for _, _, d in theirs.edges(data=True) for k, v in d.items()}
    assert all({k: type(v) for k, v in d.items()} == node_fields for _, d in ours.nodes(data=True))
    assert all({k: type(v) for k, v in d.items()} == edge_fields for _, _, d in ours.edges(data=True))
    # LightRAG's own names: case kept, HTML entities and full-width letters as its extractor writes them;
    # types lower case, characters it refuses in a type dropped
    assert ours.nodes['"Mats" Lindqvist']["entity_type"] == "person"
    assert ours.nodes["NORDSTJÄRNAN"]["entity_type"] == "shipvessel"
    assert ours.nodes["Zoë Ångström"]["source_id"].count("<SEP>") == 1


def test_communities_rows_without_a_field_name_the_file_and_line(tmp_path):
    from graphglean.core.errors import InputError

    rows = ['{"id": "a", "level": 0, "entities": ["x"]}', '{"id": "b", "entities": []}']
    (tmp_path / "communities.jsonl").write_text("\n".join(rows) + "\n")
    with pytest.raises(InputError, match=r"communities.jsonl:2: no level"):
        read_communities(tmp_path)
    assert Communities.from_rows([{"id": "a", "level": 0, "entities": ["x"]}], []).communities[0].size == 1


def test_an_edited_settings_file_is_kept_and_graphglean_writes_its_own_beside_it(tmp_path):
    from graphglean.core.config import LLMConfig
    from graphglean.graph.formats.peers.graphrag.settings import write_settings

    path, note = write_settings(tmp_path, LLMConfig(), 64)
    assert path.name == "settings.yaml" and note is None
    assert write_settings(tmp_path, LLMConfig(model="gpt-4.1"), 64) == (path, None)  # ours, unedited: replaced
    path.write_text(path.read_text().replace("local_search", "") + "local_search: {top_k_entities: 20}\n")
    edited = path.read_text()
    ours, note = write_settings(tmp_path, LLMConfig(), 32)
    assert path.read_text() == edited and ours.name == "settings.graphglean.yaml" and "vector_size 32" in note


def test_an_empty_graph_gives_empty_indexes_of_the_right_shape(tmp_path):
    from graphglean.core.config import LLMConfig
    from graphglean.graph.formats.peers.graphrag.write import plan_graphrag
    from graphglean.graph.formats.peers.lightrag.write import plan_lightrag

    pytest.importorskip("lancedb")
    for plan in (plan_graphrag(nx.Graph(), [], [], Communities(), LLMConfig(), tmp_path),
                 plan_lightrag(nx.Graph(), [], [], tmp_path, (1200, 100))):
        assert plan.texts() == []
        plan.write({}, DIM)
    assert pq.read_table(tmp_path / "graphrag" / "output" / "entities.parquet").num_rows == 0
    assert _json(tmp_path / "lightrag", "vdb_entities.json")["data"] == []
