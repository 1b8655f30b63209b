"""The pieces of engine ray that need no cluster: the partitioned merge, shard planning, config (leases: test_leases)."""

from __future__ import annotations

import functools
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import trio
from hypothesis import given, settings
from hypothesis import strategies as st

from graphglean.core.config import Config
from graphglean.core.config_loader import load_config_text
from graphglean.core.errors import ConfigError
from graphglean.core.tokens import Tokenizer
from graphglean.engines.ray import partitions, schema_parts
from graphglean.engines.ray.shards import plan_shards, read_shard
from graphglean.graph.building.merge import merge_records
from graphglean.graph.communities.network import network_of_rows
from graphglean.graph.extract import GraphStats, finish_graph
from graphglean.graph.formats.export import entity_rows, relationship_rows
from graphglean.graph.records import EntityRecord, ParseResult, Provenance, RelationshipRecord
from graphglean.text.chunking import Chunk
from graphglean.text.inputs import read_inputs

NAMES = ["Alice", " alice ", "BOB", "Bob", '"Carol"', "carol", "Dave", "Eve Adams", "eve  adams", "Zed"]


def _chunk(i: int, words: list[str]) -> Chunk:
    text = f"In part {i}: " + ", ".join(words) + "."
    return Chunk(f"c{i:03d}", f"d{i % 3}", i, text, 10 * i, 10 * i + len(text), 5)


SCHEMA = {"entities": {"PERSON": ""}, "relationships": [["PERSON", "KNOWS", "PERSON"]]}


def _config(directed, drop, budget, mode):
    cfg = Config()
    cfg.graph.directed, cfg.graph.drop_ungrounded, cfg.graph.description_max_tokens = directed, drop, budget
    cfg.graph.schema = None if mode is None else {**SCHEMA, "mode": mode}
    return cfg


def _finish_local(chunks, results, directed, drop, budget=500, mode=None):
    cfg = _config(directed, drop, budget, mode)
    graph = merge_records(results, directed).to_graph()
    stats = GraphStats()
    trio.run(functools.partial(finish_graph, graph, {c.id: c for c in chunks}, cfg, None, Tokenizer(cfg.llm.model),
                               stats, offline=True))
    return entity_rows(graph), relationship_rows(graph), _left_out(stats.off_schema, stats.off_schema_records)


def _left_out(count, rows):
    return count, sorted(json.dumps(r, sort_keys=True) for r in rows)


def _finish_partitioned(chunks, results, cut, P, directed, drop, budget=500, mode=None):
    cfg = _config(directed, drop, budget, mode)
    cfg.runtime.graph_partitions = P
    stats = GraphStats()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        dirs = []
        for s, first in enumerate(range(0, len(chunks), cut)):  # each shard: its chunks' records, merged
            folder = root / f"s{s}"
            folder.mkdir()
            dirs.append(folder)
            acc = merge_records(results[first:first + cut], directed)
            partitions.write_parts(acc, P, folder)
            partitions.write_chunks(chunks[first:first + cut], folder)
        merge = root / "merge"
        merge.mkdir()
        for p in range(P):
            acc, where = partitions.merge_nodes(dirs, p, directed)
            part = GraphStats()
            graph, dropped = trio.run(partitions.finish_nodes, acc, partitions.ShardChunks(where), cfg, None,
                                      Tokenizer(cfg.llm.model), part)
            partitions.write_node_rows(graph, merge, p)
            schema_parts.write_off_schema(part, merge, "nodes", p)
            stats.off_schema += part.off_schema
            (merge / f"dropped-{p:04d}.json").write_text(json.dumps(sorted(dropped)))
        dropped = {k for p in range(P) for k in json.loads((merge / f"dropped-{p:04d}.json").read_text())}
        for p in range(P):
            acc = partitions.merge_edges(dirs, p, directed)
            part = GraphStats()
            kept = functools.partial(schema_parts.schema_edges, dropped=dropped, cfg=cfg, merge_dir=merge, stats=part)
            rows = trio.run(partitions.finish_edges, acc, partitions.names_of(merge, P), kept, cfg, None,
                            Tokenizer(cfg.llm.model), part)
            partitions.write_edge_rows(rows, merge, p)
            schema_parts.write_off_schema(part, merge, "edges", p)
            stats.off_schema += part.off_schema
        partitions.write_tables(merge, P, root / "entities.jsonl", root / "relationships.jsonl")
        read = lambda name: [json.loads(line) for line in (root / name).read_text().splitlines()]  # noqa: E731
        # what the communities' task reads of the partitions is the network of the tables
        assert partitions.network_of_parts(merge, P, directed) == network_of_rows(
            read("entities.jsonl"), read("relationships.jsonl"), directed)
        left_out = [r for kind in ("nodes", "edges") for r in schema_parts.off_schema_rows(merge, P, kind)]
        return read("entities.jsonl"), read("relationships.jsonl"), _left_out(stats.off_schema, left_out)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(NAMES), st.sampled_from(NAMES), st.sampled_from(["person", "geo"]),
                          st.lists(st.sampled_from(NAMES), max_size=3), st.sampled_from(["KNOWS", "HATES", ""])),
                min_size=1, max_size=14),
       st.integers(1, 6), st.integers(1, 7), st.booleans(), st.booleans(), st.sampled_from([6, 14, 500]),
       st.sampled_from([None, "open", "flag", "strict"]))
def test_partitioned_merge_gives_the_local_rows_for_any_shards_and_partitions(records, cut, P, directed, drop,
                                                                              budget, mode):
    """Rows, and under graph.schema what it flags and leaves out (with the rows of off_schema_records.jsonl)."""
    chunks, results = [], []
    for i, (a, b, kind, mentioned, relation) in enumerate(records):
        chunk = _chunk(i, mentioned)
        chunks.append(chunk)
        src = Provenance(chunk.doc_id, chunk.index, chunk.id, 0)
        results.append(ParseResult([EntityRecord(a, kind, f"{a.strip()} is a {kind} ({i % 2})", src)],
                                   [RelationshipRecord(a, b, f"{a}-{b} {i % 3}", 1.0 + i, ("k",), src,
                                                       relation if mode else "")]))
    local = _finish_local(chunks, results, directed, drop, budget, mode)  # a small budget: quotes are cut
    assert _finish_partitioned(chunks, results, cut, P, directed, drop, budget, mode) == (
        *map(list, local[:2]), local[2])


def _write_lines(path: Path, lines: list[str]) -> None:
    path.write_bytes("".join(lines).encode())


@pytest.mark.parametrize("fmt", ["jsonl", "chunks"])
def test_line_shards_read_what_the_whole_file_reads(tmp_path, fmt):
    lines = []
    for i in range(23):
        lines.append(json.dumps({"id": f"x{i}", "text": f"Text number {i} about Ada."}) + ("\r\n" if i % 5 else "\n"))
        if i % 7 == 3:
            lines.append("\n")  # blank lines are skipped, but still counted as lines
    # str.splitlines also ends a line at a form feed: line numbers (the ids of id-less lines) count it
    lines.append(json.dumps({"text": "one"}) + "\x0c" + json.dumps({"text": "no id: named by line number"}) + "\n")
    if fmt == "chunks":
        lines[-1] = json.dumps({"id": "last", "text": "the last chunk"}) + "\n"
    path = tmp_path / "in.jsonl"
    _write_lines(path, lines)
    cfg = Config()
    cfg.input.path, cfg.input.format = str(path), fmt
    cfg.runtime.shard_chunks = 4
    tok = Tokenizer.cl100k()
    whole = read_inputs(cfg.input, tok)
    specs = list(plan_shards(cfg))
    assert len(specs) >= 6 and [s.index for s in specs] == list(range(len(specs)))
    parts = [read_shard(s, cfg, tok) for s in specs]
    assert [d for p in parts for d in p.documents] == whole.documents
    assert [c for p in parts for c in p.chunks] == whole.chunks
    assert [c.index for p in parts for c in p.chunks] == [c.index for c in whole.chunks]


def test_folder_shards_group_files_in_order(tmp_path):
    for i in range(7):
        (tmp_path / f"{i:02d}.txt").write_text(f"Document {i} mentions Ada Lovelace.")
    (tmp_path / "skip.bin").write_bytes(b"\x00")
    cfg = Config()
    cfg.input.path = str(tmp_path)
    cfg.runtime.shard_chunks = 3
    tok = Tokenizer.cl100k()
    with pytest.warns(UserWarning):
        specs = list(plan_shards(cfg))
    assert [len(s.files) for s in specs] == [3, 3, 1]
    with pytest.warns(UserWarning):
        whole = read_inputs(cfg.input, tok)
    assert [d for s in specs for d in read_shard(s, cfg, tok).documents] == whole.documents


def test_engine_ray_without_ray_is_one_config_error_naming_the_extra(monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "ray" else real(name, *a))
    with pytest.raises(ConfigError) as e:
        load_config_text("runtime:\n  engine: ray\n", "c.yaml")
    assert str(e.value).startswith("c.yaml:2: runtime.engine:") and "graphglean[ray]" in str(e.value)
    assert "\n" not in str(e.value)


def test_engine_local_never_imports_ray(tmp_path):
    code = ("import sys, io, trio; from graphglean.core.config import Config; from graphglean.launch import run\n"
            "cfg = Config(); cfg.input.path = 'examples/'; cfg.graph.method = 'nlp'; "
            f"cfg.output.dir = {str(tmp_path)!r}\n"
            "trio.run(lambda: run(cfg, out=io.StringIO()))\n"
            "assert 'ray' not in sys.modules, 'ray was imported'\n")
    root = Path(__file__).resolve().parent.parent
    done = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "entities.jsonl").exists()


def test_an_unreachable_cluster_is_one_config_error(monkeypatch):
    ray = pytest.importorskip("ray", reason="Ray is not installed (pip install '.[ray]')")
    from graphglean.engines.ray.driver import connect

    def refuse(**kw):
        raise ConnectionError("Could not find any running Ray instance.\nPlease specify the one to connect to.")

    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    monkeypatch.setattr(ray, "init", lambda address=None, **kw: refuse())
    cfg = Config()
    cfg.runtime.address = "ray://nowhere:10001"
    with pytest.raises(ConfigError, match=r"^runtime.address: cannot connect to Ray at 'ray://nowhere:10001' "
                                          r"\(Could not find any running Ray instance.\)$"):
        connect(cfg.runtime)


def test_each_worker_gets_its_share_of_the_concurrency_and_no_limit_of_its_own():
    from graphglean.engines.ray.driver import worker_config

    cfg = Config()
    cfg.llm.max_concurrency, cfg.llm.requests_per_minute, cfg.llm.tokens_per_minute = 30, 600, 90_000
    cfg.runtime.workers = 4
    w = worker_config(cfg)
    assert w.llm.max_concurrency == 8  # 30 split four ways, rounded up
    assert (w.llm.requests_per_minute, w.llm.tokens_per_minute) == (0, 0)  # the lease actor's, global
    assert cfg.llm.max_concurrency == 30  # the driver's configuration is left as it was


def test_a_finished_shard_is_skipped_only_while_its_input_and_settings_are_unchanged(tmp_path):
    import os

    from graphglean.engines.ray.shard_task import FINISHED, fingerprint, finished_report
    from graphglean.engines.ray.shards import ShardSpec
    from graphglean.text.decoding import Reading

    data = tmp_path / "in.jsonl"
    data.write_text('{"text": "Ada"}\n')
    spec = ShardSpec(0, "lines", str(data), 0, 16)
    cfg = Config()
    report = {"failed": [], "chunks": 1}
    (tmp_path / FINISHED).write_text(json.dumps({"fingerprint": fingerprint(cfg, spec), "report": report}))
    assert finished_report(tmp_path, cfg, spec) == report
    cfg.llm.max_concurrency = 3  # a limit does not change results
    assert finished_report(tmp_path, cfg, spec) == report
    read_so = ShardSpec(0, "lines", str(data), 0, 16, reading=Reading("cp1252"))  # what the file and settings say
    assert fingerprint(cfg, read_so) == fingerprint(cfg, spec)
    cfg.graph.max_gleanings = 3
    assert finished_report(tmp_path, cfg, spec) is None
    cfg = Config()
    os.utime(data, ns=(0, 10**9))  # the input was edited
    assert finished_report(tmp_path, cfg, spec) is None


def test_a_shard_fingerprint_covers_what_the_schema_file_holds_not_its_path(tmp_path):
    from graphglean.engines.ray.shard_task import fingerprint
    from graphglean.engines.ray.shards import ShardSpec

    spec = ShardSpec(0, "lines", str(tmp_path / "in.jsonl"), 0, 16)
    schema = tmp_path / "schema.yaml"
    schema.write_text("entities: {PERSON: a human being}\nmode: strict\n")
    cfg = Config()
    cfg.graph.schema = str(schema)
    before = fingerprint(cfg, spec)
    schema.write_text("entities: {PERSON: a human being, CITY: a town}\nmode: strict\n")  # edited in place
    edited = fingerprint(cfg, spec)
    assert edited != before
    cfg.graph.schema = {"entities": {"PERSON": "a human being", "CITY": "a town"}, "mode": "strict"}
    assert fingerprint(cfg, spec) == edited  # the same schema written inline: the same shards


def test_the_shards_structured_output_accounts_add_up():
    from graphglean.engines.ray.report import add_row

    row = {"pass": "graph"}
    add_row(row, {"structured_output": {"format": "json_schema", "why": "took it", "json_chunks": 3,
                                        "tuple_chunks": 0}})
    add_row(row, {"structured_output": {"format": "tuple", "why": "refused", "json_chunks": 0, "tuple_chunks": 2}})
    assert row["structured_output"] == {"format": "json_schema; tuple", "why": "took it; refused", "json_chunks": 3,
                                        "tuple_chunks": 2}


async def test_an_offline_shard_run_again_parses_nothing_it_stored(tmp_path):
    """A retried or unfinished shard of the offline method resumes from its run store, as a local run does."""
    from graphglean.engines.ray.shard_task import process_shard
    from graphglean.engines.ray.shards import with_partitions

    docs = tmp_path / "in.jsonl"
    docs.write_text("".join(json.dumps({"id": f"d{i}", "text": f"Ada Lovelace wrote to Charles Babbage in London "
                                                             f"about engine {i}."}) + "\n" for i in range(6)))
    cfg = Config()
    cfg.input.path, cfg.graph.method, cfg.graph.resolve.enabled = str(docs), "nlp", False
    [spec] = list(plan_shards(cfg))
    cfg = with_partitions(cfg, 1)
    first = await process_shard(spec, cfg, tmp_path / "shard", None)
    again = await process_shard(spec, cfg, tmp_path / "shard", None)
    graph = lambda report: report["passes"][0]  # noqa: E731
    assert graph(first)["resumed_chunks"] == 0 and graph(again)["resumed_chunks"] == 6
    assert graph(again)["entities"] == graph(first)["entities"] > 0


def _two_shards(root: Path, P: int):
    results = [ParseResult(entities=[EntityRecord(n, "person", f"{n} here.", Provenance("d", i, f"c{i}", 0))
                                     for n in ("Alice", "Bob", "Carol")],
                           relationships=[RelationshipRecord("Alice", "Bob", "met.", 1.0, (), Provenance("d", i, f"c{i}", 3))])
               for i in range(6)]
    dirs, accs = [], []
    for s in range(2):
        folder = root / f"s{s}"
        folder.mkdir()
        dirs.append(folder)
        accs.append(merge_records(results[3 * s:3 * s + 3]))
    return dirs, accs


def _merged(dirs, P):
    return ([sorted(partitions.merge_nodes(dirs, p, False)[0].nodes) for p in range(P)],
            [sorted(partitions.merge_edges(dirs, p, False).edges) for p in range(P)])


def test_a_node_partition_reads_no_edges_and_an_edge_partition_no_nodes(tmp_path, monkeypatch):
    P = 3
    dirs, accs = _two_shards(tmp_path, P)
    for folder, acc in zip(dirs, accs):
        partitions.write_parts(acc, P, folder)
    assert sorted(p.name for p in (dirs[0] / partitions.PARTS).iterdir()) == [partitions.PARTS_FILE]
    read, load_section = [], partitions.load_section
    monkeypatch.setattr(partitions, "load_section", lambda path, name: read.append(name) or load_section(path, name))
    nodes = [sorted(partitions.merge_nodes(dirs, p, False)[0].nodes) for p in range(P)]
    assert sum(map(len, nodes)) == 3 and read == [2 * p for p in range(P) for _ in dirs]
    read.clear()
    edges = [sorted(partitions.merge_edges(dirs, p, False).edges) for p in range(P)]
    assert sum(map(len, edges)) == 1 and read == [2 * p + 1 for p in range(P) for _ in dirs]


def test_a_shard_finished_by_a_version_writing_a_file_a_partition_and_kind_merges_from_them(tmp_path):
    import pickle

    P = 3
    dirs, accs = _two_shards(tmp_path, P)
    for folder, acc in zip(dirs, accs):
        partitions.write_parts(acc, P, folder)
    expected = _merged(dirs, P)
    (dirs[1] / partitions.PARTS / partitions.PARTS_FILE).unlink()
    for p, part in enumerate(partitions.split(accs[1], P)):
        for kind in ("nodes", "edges"):
            half = partitions.GraphAccumulator(False, **{kind: getattr(part, kind)})
            partitions.part_path(dirs[1], p, kind).write_bytes(pickle.dumps(half))
    assert _merged(dirs, P) == expected


def test_a_shard_finished_by_an_earlier_version_merges_from_its_combined_part_files(tmp_path):
    import pickle

    P = 3
    dirs, accs = _two_shards(tmp_path, P)
    for folder, acc in zip(dirs[:1], accs[:1]):
        partitions.write_parts(acc, P, folder)
    (dirs[1] / partitions.PARTS).mkdir()
    for p, part in enumerate(partitions.split(accs[1], P)):  # one file a partition, nodes and edges together
        (dirs[1] / partitions.PARTS / f"{p:04d}.pkl").write_bytes(pickle.dumps(part))
    mixed = _merged(dirs, P)
    partitions.write_parts(accs[1], P, dirs[1])
    assert mixed == _merged(dirs, P)


def test_grounding_from_the_shards_reads_their_chunks_in_a_few_statements(tmp_path):
    import networkx as nx

    from graphglean.graph.building.grounding import ground

    chunks = [_chunk(i, ["Alice", "Bob"] if i % 2 else ["Carol"]) for i in range(1200)]
    folders = [tmp_path / "s0", tmp_path / "s1"]
    for k, folder in enumerate(folders):
        folder.mkdir()
        partitions.write_chunks(chunks[600 * k:600 * (k + 1)], folder)
    graph = nx.Graph()
    for i, name in enumerate(["Alice", "Bob", "Carol", "Nobody"] * 30):
        graph.add_node(f"{name}-{i}", name=name, source_ids=[c.id for c in chunks[i::97]] + ["unknown"])
    local = graph.copy()
    ground(local, {c.id: c for c in chunks})
    stored = partitions.ShardChunks({c.id: folders[i // 600] for i, c in enumerate(chunks)})
    statements = []
    stored._db(folders[0]).set_trace_callback(statements.append)
    stored._db(folders[1]).set_trace_callback(statements.append)
    assert ground(graph, stored) == ground(local, {c.id: c for c in chunks}) == 30
    assert dict(graph.nodes(data=True)) == dict(local.nodes(data=True))
    assert len(statements) <= 10  # one a node and source before: 1,500
    stored.close()


def test_grounding_asks_each_shard_once_however_many_nodes_cite_it(tmp_path):
    """Blocks of nodes asking every shard made blocks times shards statements: both grow with the corpus."""
    import networkx as nx

    from graphglean.graph.building.grounding import BLOCK_SOURCES, ground

    chunks = [_chunk(i, ["Alice", "Bob"] if i % 3 else ["Carol"]) for i in range(2000)]
    folders = [tmp_path / f"s{k}" for k in range(20)]
    for k, folder in enumerate(folders):
        folder.mkdir()
        partitions.write_chunks(chunks[100 * k:100 * (k + 1)], folder)
    graph = nx.Graph()
    for i in range(4 * BLOCK_SOURCES // 200):  # four blocks' worth of sources, each node in every shard
        graph.add_node(f"n{i}", name=["Alice", "Bob", "Carol"][i % 3], source_ids=[c.id for c in chunks[i % 10::10]])
    local = graph.copy()
    stored = partitions.ShardChunks({c.id: folders[i // 100] for i, c in enumerate(chunks)})
    statements = []
    for folder in folders:
        stored._db(folder).set_trace_callback(statements.append)
    assert ground(graph, stored) == ground(local, {c.id: c for c in chunks})
    assert dict(graph.nodes(data=True)) == dict(local.nodes(data=True))
    assert all(data["spans"] for _, data in graph.nodes(data=True))
    assert len(statements) == len(folders)  # one each (100 ids); four blocks of every shard before: 80
    stored.close()


@pytest.mark.parametrize("text", ["plain", 'a "quoted" name', "back\\slash", "tab\tand\nnewline", "ünïcödé 名前",
                                  "\u2028line separator", "emoji \U0001F600", ""])
def test_a_table_row_is_ordered_by_its_leading_keys_read_without_decoding_the_row(text):
    entity = json.dumps({"id": text, "name": text, "descriptions": [text] * 3}, ensure_ascii=False) + "\n"
    edge = json.dumps({"source": text, "target": text + "!", "weight": 1.0}, ensure_ascii=False) + "\n"
    assert partitions.ENTITY_KEY(entity) == text
    assert partitions.RELATIONSHIP_KEY(edge) == (text, text + "!")
    # a row of another shape (spaces, order) is decoded whole
    assert partitions.RELATIONSHIP_KEY(json.dumps({"target": "b", "source": "a"}) + "\n") == ("a", "b")
    assert partitions.ENTITY_KEY('{"id":"x", "name": "X"}\n') == "x"


def test_merged_records_pickle_as_plain_data_and_absorb_as_update_merges():
    import pickle

    results = [ParseResult([EntityRecord(n, "person", f"{n} {i}", Provenance("d", i, f"c{i}", 0)) for n in NAMES[i:]],
                           [RelationshipRecord(NAMES[i], "Zed", f"r{i}", 1.0, ("k",), Provenance("d", i, f"c{i}", 9))])
               for i in range(len(NAMES))]
    a, b = merge_records(results[:4]), merge_records(results[4:])
    data = pickle.dumps(a, protocol=pickle.HIGHEST_PROTOCOL)
    assert b"Counter" not in data and pickle.loads(data) == a  # a Counter's rebuild costs more than its data
    expected = a.merge(b)
    assert pickle.loads(data).absorb(pickle.loads(pickle.dumps(b))) == expected == merge_records(results)


def test_an_edge_partition_looks_up_only_the_names_its_summaries_need(tmp_path):
    from graphglean.graph.building.merge import GraphAccumulator

    acc = merge_records([ParseResult([], [RelationshipRecord("Alice", "Bob", "met " * 30 + f"{i}", 1.0, (),
                                                             Provenance("d", i, f"c{i}", 0)),
                                          RelationshipRecord("Carol", "Dave", "knew", 1.0, (),
                                                             Provenance("d", i, f"c{i}", 1))]) for i in range(3)])
    asked = []

    def names(keys):
        asked.append(set(keys))
        return {k: k.title() for k in keys}

    class NoCalls:  # the summaries' scheduler: every item answered as failed, nothing called
        async def map(self, fn, items, **kw):
            return []

        def llm(self, name):
            return None

    cfg = Config()
    tok = Tokenizer(cfg.llm.model)
    for budget, wanted in ((10**6, []), (20, [{"alice", "bob"}])):
        cfg.graph.description_max_tokens = budget
        asked.clear()
        trio.run(partitions.finish_edges, GraphAccumulator(edges=acc.edges), names, lambda edges: edges, cfg,
                 NoCalls(), tok, GraphStats())
        assert asked == wanted


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True, allow_infinity=True) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4), max_leaves=20)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.text(), JSON_VALUES, max_size=6))
def test_a_row_line_is_what_json_dumps_writes(row):
    from graphglean.engines.ray.json_rows import json_line

    assert json_line(row) == json.dumps(row, ensure_ascii=False)


def test_written_rows_are_the_lines_write_jsonl_writes(tmp_path):
    from graphglean.engines.ray.json_rows import BATCH, write_rows
    from graphglean.graph.formats.export import write_jsonl

    rows = [{"id": f"n{i}", "name": "Ünï \"quoted\"\n" * (i % 3), "weight": i / 7, "ids": [i, None, True]}
            for i in range(2 * BATCH + 7)]
    write_jsonl(rows, tmp_path / "a.jsonl")
    write_rows(iter(rows), tmp_path / "b.jsonl")
    assert (tmp_path / "b.jsonl").read_bytes() == (tmp_path / "a.jsonl").read_bytes()
    write_rows([], tmp_path / "c.jsonl")
    assert (tmp_path / "c.jsonl").read_bytes() == b""


def test_the_graph_is_cut_in_partitions_that_grow_with_the_corpus_in_steps():
    from graphglean.engines.ray.shards import with_partitions

    def partitions(shards, shard_chunks=10_000, **rt):
        cfg = Config()
        cfg.runtime.shard_chunks = shard_chunks
        for key, value in rt.items():
            setattr(cfg.runtime, key, value)
        return with_partitions(cfg, shards).runtime.graph_partitions

    assert Config().runtime.graph_partitions == 0  # auto
    assert [partitions(n) for n in (1, 100, 199, 200, 399, 400, 1000, 10_000)] == [16, 16, 16, 32, 32, 64, 128, 1024]
    assert partitions(1000, shard_chunks=1000) == 16  # the corpus counts, not the shards
    assert partitions(1000, graph_partitions=7) == 7  # as set


def test_a_file_of_sections_gives_each_alone(tmp_path):
    from graphglean.engines.ray.stage_files import dump_sections, load_section

    sections = [{"a": 1}, [], "x" * 100_000, None]
    dump_sections(iter(sections), tmp_path / "s.pkl")
    assert [load_section(tmp_path / "s.pkl", i) for i in (3, 0, 2, 1)] == [None, {"a": 1}, "x" * 100_000, []]
    with pytest.raises(IndexError, match="holds 4 sections"):
        load_section(tmp_path / "s.pkl", 4)
