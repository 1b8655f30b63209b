"""Entity resolution on the partitioned merge (engine ray) gives the local engine's rows and resolution.jsonl.

The steps are plain functions: most tests run them in this process (a "wave" that awaits each task in turn),
so they need no cluster; the end-to-end tests share the session cluster of test_ray.
"""

from __future__ import annotations

import io
import json
import re
import tempfile
from pathlib import Path

import pytest
import trio
from hypothesis import given, settings
from hypothesis import strategies as st

from graphglean.core.config import Config
from graphglean.core.config_loader import load_config_text
from graphglean.core.tokens import Tokenizer
from graphglean.engines.ray import partitions, schema_parts
from graphglean.engines.ray.resolution.decision_tables import Decisions, decision_table, write_group_parts
from graphglean.engines.ray.resolution.driver import resolved_merge
from graphglean.engines.ray.resolution.finish import merged_edges, new_pair
from graphglean.graph.building.merge import merge_records
from graphglean.graph.extract import GraphStats, _resolve_stage, finish_graph
from graphglean.graph.formats.export import entity_rows, relationship_rows
from graphglean.graph.records import EntityRecord, ParseResult, Provenance, RelationshipRecord
from graphglean.launch import run
from graphglean.pipeline.progress import ConsoleProgress
from graphglean.testing import FakeLLMServer
from graphglean.text.chunking import Chunk

PEOPLE = ["Scrooge", "Ebenezer Scrooge", "Mr. Scrooge", "Ebenezer", "Jacob Marley", "Marley", "Old Marley",
          "Mr. Fezziwig", "Mrs. Fezziwig", "Fezziwig", "Bob Cratchit", "Martha Cratchit", "Cratchit", "Bob",
          "Scrooge and Marley", "Scrooge's Clerk", "Ghost of Marley", "Ghost of Jacob Marley", "IRS",
          "Internal Revenue Service", "Christmas", "Christmas Eve", "London", "The Cratchit Family",
          "Cratchit Family", "SL Benfica", "Sport Lisboa e Benfica", "ÖBB", "Österreichische Bundesbahnen",
          "PDVSA", "Petróleos de Venezuela"]
KINDS = {"London": "geo", "IRS": "organization", "Internal Revenue Service": "organization", "Christmas": "event",
         "Christmas Eve": "event", "Scrooge and Marley": "organization", "SL Benfica": "sports team",
         "Sport Lisboa e Benfica": "sports team", "ÖBB": "organization", "Österreichische Bundesbahnen":
         "organization", "PDVSA": "organization", "Petróleos de Venezuela": "organization"}  # a club's
# abbreviation spelled out, an acronym of its name's words and their parts: met by their own block keys
WORDS = {"Mrs. Fezziwig": "she dances with her husband", "Marley": "his dead partner, a ghost in chains",
         "Martha Cratchit": "she is the eldest daughter", "Bob": "the clerk, a poor father"}


def _chunk(i: int, names: list[str]) -> Chunk:
    text = f"Part {i}: " + "; ".join(names) + "."
    return Chunk(f"c{i:03d}", f"d{i % 2}", i, text, 40 * i, 40 * i + len(text), 5)


def _records(picks: list[tuple[int, int]]) -> tuple[list[Chunk], list[ParseResult]]:
    chunks, results = [], []
    for i, (a, b) in enumerate(picks):
        x, y = PEOPLE[a], PEOPLE[b]
        chunk = _chunk(i, [x, y])
        chunks.append(chunk)
        src = Provenance(chunk.doc_id, chunk.index, chunk.id, 0)
        ents = [EntityRecord(n, KINDS.get(n, "person"), f"{n} {WORDS.get(n, 'is in the story')} ({i % 3})", src)
                for n in (x, y)]
        results.append(ParseResult(ents, [RelationshipRecord(x, y, f"{x} and {y} meet ({i % 2})", 1.0 + i, ("k",),
                                                             src)]))
    return chunks, results


def _config(P: int, directed: bool, drop: bool) -> Config:
    cfg = Config()
    cfg.graph.directed, cfg.graph.drop_ungrounded = directed, drop
    cfg.graph.resolve.method = "rules"
    cfg.runtime.graph_partitions = P
    return cfg


def _local(chunks, results, cfg):
    """The local engine's rows, merge log and resolution stats (descriptions as the offline method cuts them)."""
    async def main():
        graph = merge_records(results, cfg.graph.directed).to_graph()
        stats = GraphStats()
        graph = await _resolve_stage(graph, cfg, None, stats, None)
        await finish_graph(graph, {c.id: c for c in chunks}, cfg, None, Tokenizer(cfg.llm.model), stats, offline=True)
        return entity_rows(graph), relationship_rows(graph), stats.resolution_log, stats.resolution

    return trio.run(main)


async def in_process(stage, work, argsets, watch=None):
    """A wave run task after task in this process (what Ray runs in workers)."""
    return [await work(*args, None) for args in argsets]


def _partitioned(chunks, results, cfg, cut):
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        dirs = []
        for s, first in enumerate(range(0, len(chunks), cut)):
            folder = root / f"s{s}"
            folder.mkdir()
            dirs.append(folder)
            acc = merge_records(results[first:first + cut], cfg.graph.directed)
            partitions.write_parts(acc, cfg.runtime.graph_partitions, folder)
            partitions.write_chunks(chunks[first:first + cut], folder)
        merge = root / "merge"
        merge.mkdir()
        done = trio.run(resolved_merge, in_process, dirs, cfg, merge, root, root / "store")
        read = lambda name: [json.loads(line) for line in (root / name).read_text().splitlines()]  # noqa: E731
        return read("entities.jsonl"), read("relationships.jsonl"), read("resolution.jsonl"), done.stats


def _same(chunks, results, cfg, cut):
    nodes, edges, log, stats = _local(chunks, results, cfg)
    got = _partitioned(chunks, results, cfg, cut)
    assert got[0] == nodes
    assert got[1] == edges
    assert got[2] == log
    assert got[3] == stats


def test_partitioned_resolution_merges_what_the_local_one_merges():
    picks = [(i % len(PEOPLE), (3 * i + 1) % len(PEOPLE)) for i in range(60)]
    chunks, results = _records(picks)
    cfg = _config(5, False, False)
    nodes, _, log, stats = _local(chunks, results, cfg)
    merged = [line for line in log if line["decision"] == "merged"]
    assert stats["rule_merges"] >= 5 and len(merged) == stats["rule_merges"]  # a corpus with real merges
    assert 0 < stats["kept_apart"] == len(log) - len(merged)  # and look-alikes the rules kept apart
    # a title more or less merges; a surname alone and a full name described apart are left to the LLM tier
    scrooge = next(r for r in nodes if "Mr. Scrooge" in [r["name"], *r.get("aliases", [])])
    assert "Scrooge" in [scrooge["name"], *scrooge["aliases"]]
    for P, cut in ((1, 60), (3, 7), (7, 25)):
        _same(chunks, results, _config(P, False, False), cut)


@settings(max_examples=15, deadline=None)
@given(st.lists(st.tuples(st.integers(0, len(PEOPLE) - 1), st.integers(0, len(PEOPLE) - 1)), min_size=1, max_size=24),
       st.integers(1, 8), st.integers(1, 6), st.booleans(), st.booleans())
def test_resolution_on_partitions_equals_local_for_any_shards_and_partitions(picks, cut, P, directed, drop):
    chunks, results = _records(picks)
    _same(chunks, results, _config(P, directed, drop), cut)


@pytest.mark.parametrize("mode", ["flag", "strict"])
@pytest.mark.parametrize("P, cut, directed", [(1, 40, False), (3, 7, False), (4, 9, True)])
def test_resolution_on_partitions_holds_the_graph_to_a_schema_as_the_local_one(mode, P, cut, directed):
    """Nodes checked where they are finished, edges by their ends' types in their own partitions: the same rows,
    flags, left-out records and counts as the local graph."""
    import attrs

    chunks, results = _records([(i % len(PEOPLE), (3 * i + 1) % len(PEOPLE)) for i in range(40)])
    for i, r in enumerate(results):
        r.relationships = [attrs.evolve(x, relation=("KNOWS", "WORKS_FOR", "")[i % 3]) for x in r.relationships]
    cfg = _config(P, directed, False)
    cfg.graph.schema = {"entities": {"PERSON": "", "ORGANIZATION": ""}, "mode": mode,
                        "relationships": [["PERSON", "KNOWS", "PERSON"], ["PERSON", "WORKS_FOR", "ORGANIZATION"]]}

    async def local():
        graph = merge_records(results, directed).to_graph()
        stats = GraphStats()
        graph = await _resolve_stage(graph, cfg, None, stats, None)
        await finish_graph(graph, {c.id: c for c in chunks}, cfg, None, Tokenizer(cfg.llm.model), stats, offline=True)
        return entity_rows(graph), relationship_rows(graph), stats

    nodes, edges, stats = trio.run(local)
    assert stats.off_schema > 0 and (mode == "flag" or stats.off_schema_records)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        dirs = []
        for s, first in enumerate(range(0, len(chunks), cut)):
            dirs.append(root / f"s{s}")
            dirs[-1].mkdir()
            partitions.write_parts(merge_records(results[first:first + cut], directed), P, dirs[-1])
            partitions.write_chunks(chunks[first:first + cut], dirs[-1])
        (root / "merge").mkdir()
        done = trio.run(resolved_merge, in_process, dirs, cfg, root / "merge", root, root / "store")
        read = lambda name: [json.loads(line) for line in (root / name).read_text().splitlines()]  # noqa: E731
        assert read("entities.jsonl") == nodes and read("relationships.jsonl") == edges
        rows = [r for kind in schema_parts.KINDS for r in schema_parts.off_schema_rows(root / "merge", P, kind)]
    assert done.found["off_schema"] == stats.off_schema
    key = lambda r: json.dumps(r, sort_keys=True)  # noqa: E731
    assert sorted(map(key, rows)) == sorted(map(key, stats.off_schema_records))


def agreeable(req):
    """A model that calls every pair it is asked about the same."""
    pairs = re.findall(r"^Pair (\d+)$", req.last_user, re.M)
    return "\n".join(f"{n}: SAME" for n in pairs) if pairs else "OK"


@pytest.mark.parametrize("embeddings", [True, False])
async def test_the_llm_tier_on_partitions_asks_and_merges_as_the_local_one(embeddings):
    from .helpers import llm_config

    chunks, results = _records([(i % len(PEOPLE), (5 * i + 2) % len(PEOPLE)) for i in range(40)])
    async with FakeLLMServer(agreeable, embedding_dim=8).running() as server:  # short: many close embeddings
        cfg = _config(4, False, False)
        cfg.llm = llm_config(server)
        cfg.graph.method, cfg.graph.resolve.method, cfg.graph.resolve.embeddings = "nlp", "llm", embeddings
        cfg.graph.resolve.llm_batch = 3
        nodes, edges, log, stats = await trio.to_thread.run_sync(_local, chunks, results, cfg)
        asked = [r.last_user for r in server.chat_requests()]
        got = await trio.to_thread.run_sync(_partitioned, chunks, results, cfg, 9)
        assert sorted(r.last_user for r in server.chat_requests()[len(asked):]) == sorted(asked)  # the same questions
    assert stats["llm_merges"] > 0 and stats["llm_pairs"] > 0
    assert any("similar descriptions" in m["rule"] for m in log) == embeddings  # pairs only embeddings found
    assert got == (nodes, edges, log, stats)


def test_engine_ray_takes_entity_resolution():
    pytest.importorskip("ray", reason="Ray is not installed (pip install '.[ray]')")
    cfg = load_config_text("runtime:\n  engine: ray\ngraph:\n  resolve: {enabled: true, method: rules}\n", "c.yaml")
    assert cfg.runtime.engine == "ray" and cfg.graph.resolve.enabled


def test_an_edge_is_reported_from_the_endpoint_the_local_graph_lists_first(tmp_path):
    write_group_parts(0, [["bob cratchit", "bob"]], 3, tmp_path)
    for p in range(3):
        decision_table(p, 1, tmp_path)
    d = Decisions(tmp_path, 3)
    assert (d.kept("bob"), d.rank("bob cratchit"), d.members("bob cratchit")) == ("bob cratchit", "bob",
                                                                                  ["bob cratchit", "bob"])
    assert (d.kept("alice"), d.rank("alice"), d.members("alice")) == ("alice", "alice", ["alice"])  # not merged
    assert new_pair("bob", "alice", d.kept, d.rank, directed=False) == ("alice", "bob cratchit")
    assert new_pair("bob", "zed", d.kept, d.rank, directed=False) == ("bob cratchit", "zed")  # listed at "bob"
    assert new_pair("zed", "bob", d.kept, d.rank, directed=True) == ("zed", "bob cratchit")
    assert new_pair("bob", "bob cratchit", d.kept, d.rank, directed=False) is None  # a self-loop only the merge made
    assert new_pair("bob", "bob", d.kept, d.rank, directed=False) == ("bob cratchit", "bob cratchit")  # the model's
    d.close()
    edges = merged_edges([(("a", "b"), ("x", "y"), {"weight": 1.0, "descriptions": ["late"], "description": "late"}),
                          (("a", "b"), ("a", "y"), {"weight": 2.0, "descriptions": ["early"], "description": "early"})],
                         lambda n: n)
    assert edges == [(("a", "a", "y"), ("a", "b"), {"weight": 3.0, "descriptions": ["early", "late"],
                                                    "description": "early\nlate"})]


# -- end to end on Ray ------------------------------------------------------------------------------------

def _replay_model(folder: str):
    """The recorded answers of a real model for extraction; resolution questions answered as the labels say."""
    from graphglean.testing.models.responders import ReplayResponder

    from .conftest import shared_path
    from .test_resolve import careful_model

    replay = ReplayResponder.from_file(shared_path("realdata", folder, "replay.jsonl"))
    labels = json.loads(shared_path("realdata", "er_gold", folder + ".json").read_text())
    careful = careful_model(labels)

    def respond(req):
        return careful(req) if re.search(r'^Pair 1\nA: "', req.last_user, re.M) else replay(req)

    return replay, respond


def _run_config(server, tmp_path: Path, docs: Path, out: str, method: str, summaries: bool = False,
                **runtime) -> Config:
    from .helpers import llm_config

    cfg = Config()
    cfg.llm = llm_config(server)
    cfg.llm.max_concurrency = 16
    cfg.input.path, cfg.output.dir = str(docs), str(tmp_path / out)
    cfg.chunking.size = 8000  # one recorded chunk, one chunk
    cfg.graph.method = "llm"
    cfg.graph.description_max_tokens = 40 if summaries else 100_000  # summaries of merged nodes' descriptions
    cfg.graph.resolve.method = method
    for k, v in runtime.items():
        setattr(cfg.runtime, k, v)
    return cfg


def _table(folder: Path, name: str) -> list[dict]:
    return [json.loads(line) for line in (folder / name).read_text().splitlines()]


@pytest.mark.ray
async def test_ray_resolves_a_real_graph_as_the_local_engine_does(cluster, tmp_path):
    """The llm method (its rule tier first, then questions and embeddings), merged descriptions summarized."""
    replay, model = _replay_model("lightrag-gpt4o-mini-dickens")
    docs = tmp_path / "docs.jsonl"
    docs.write_text("".join(json.dumps({"text": e["content"]}) + "\n" for e in replay.entries))
    # short embeddings: many descriptions are close, so the embedding tier finds pairs the rules do not
    async with FakeLLMServer(model, embedding_dim=16).running() as server:
        await run(_run_config(server, tmp_path, docs, "local", "llm", True), out=io.StringIO(), notice=lambda m: None)
        local_calls = len(server.chat_requests())
        a, b = tmp_path / "local", tmp_path / "ray"
        log = _table(a, "resolution.jsonl")
        assert len(log) >= 10 and {m["tier"] for m in log} == {"rules", "llm"}
        cfg = _run_config(server, tmp_path, docs, "ray", "llm", True, engine="ray", workers=3, shard_chunks=15,
                          graph_partitions=4)
        shown = io.StringIO()
        result = await run(cfg, out=io.StringIO(), notice=lambda m: None, progress=ConsoleProgress(shown, interval_s=0))
        assert _table(b, "entities.jsonl") == _table(a, "entities.jsonl")
        assert _table(b, "relationships.jsonl") == _table(a, "relationships.jsonl")
        assert _table(b, "resolution.jsonl") == log
        assert (b / "graph.graphml").read_bytes() == (a / "graph.graphml").read_bytes()
        local_row = json.loads((a / "report.json").read_text())["passes"][0]
        assert result.report["passes"][0]["resolution"] == local_row["resolution"]
        for k in ("nodes", "edges", "summarized_descriptions"):
            assert result.report["passes"][0][k] == local_row[k], k
        assert local_row["summarized_descriptions"] > 10  # merged nodes' and edges' descriptions, per partition
        # the Ray run asked the resolution questions again (no response cache here), and embedded the nodes
        assert local_row["resolution"]["llm_pairs"] > 0 and len(server.chat_requests()) > local_calls
        assert len([r for r in server.requests if r.path.endswith("/embeddings")]) >= 2
        _shows_resolution_progress(shown.getvalue().splitlines(), cfg.graph.resolve.llm_batch)
        def embeddings() -> int:  # (each run's first contact is a GET of the models route)
            return len([r for r in server.requests if r.path.endswith("/embeddings")])

        before, embedded = len(server.chat_requests()), embeddings()
        await run(cfg, out=io.StringIO(), notice=lambda m: None)  # again: shards done, answers in its store
        asked = [r for r in server.chat_requests()[before:] if re.search(r'^Pair 1\nA: "', r.last_user, re.M)]
        assert asked == [] and _table(b, "resolution.jsonl") == log
        assert embeddings() == embedded  # embeddings in the store too


def _shows_resolution_progress(lines: list[str], llm_batch: int) -> None:
    """Each step of the resolution on Ray shows its tasks done, and the questions and embeddings inside them
    show item by item."""
    def counts(name: str) -> list[tuple[int, int]]:
        found = [re.match(rf"{re.escape(name)} +(\d+)/(\d+) items?", line) for line in lines]
        return [(int(m[1]), int(m[2])) for m in found if m]

    for stage in ("resolve.adjacency", "resolve.nodes", "resolve.blocks", "resolve.pairs", "resolve.plan",
                  "resolve.decide", "resolve.order", "resolve.ask", "resolve.settle", "resolve.decisions",
                  "resolve.gather", "merge.nodes", "merge.edges"):
        shown = counts(stage)
        assert shown and shown[-1][0] == shown[-1][1] > 0, stage
    assert len(counts("resolve.decide")) == counts("resolve.decide")[-1][1]  # task by task
    for items in ("graph.resolve", "graph.resolve.embed"):  # the calls inside the tasks
        shown = counts(items)
        assert shown and shown[-1][0] == shown[-1][1] > 0, items
    assert len(counts("graph.resolve")) > 1


def test_each_decision_task_holds_a_batch_of_whole_components_within_its_share():
    import graphglean.engines.ray.resolution.batch_decisions as decisions

    letters = "bcdfghjklmnprstvz"
    surnames = [f"{letters[i % 17].upper()}{'aeiou'[i // 17 % 5]}{letters[i // 85 % 17]}wick" for i in range(40)]
    names = [n for s in surnames for n in (f"Ebenezer {s}", f"Mr. {s}", s, f"{s}'s Clerk", f"Ghost of {s}")]
    picks = [(i, (i + 1) % len(names)) for i in range(len(names))] + [(i, i) for i in range(0, len(names), 3)]
    chunks, results = [], []
    for i, (a, b) in enumerate(picks):
        chunk = _chunk(i, [names[a], names[b]])
        src = Provenance(chunk.doc_id, chunk.index, chunk.id, 0)
        chunks.append(chunk)
        ents = [EntityRecord(x, "person", f"{x} is in the story", src) for x in (names[a], names[b])]
        results.append(ParseResult(ents, [RelationshipRecord(names[a], names[b], "they meet", 1.0, (), src)]))
    held: list[int] = []
    resolver = decisions.kept_or_built

    def counted(*args):
        r, pairs, similar = resolver(*args)
        held.append(len(r.nodes))
        return r, pairs, similar

    cfg = _config(4, False, False)
    _, _, log, stats = _local(chunks, results, cfg)
    assert stats["rule_merges"] >= 40 and len(log) == stats["rule_merges"]
    decisions.kept_or_built = counted
    try:
        _same(chunks, results, cfg, 9)
    finally:
        decisions.kept_or_built = resolver
    kept = sum(held)  # each node of a kept pair is in one batch
    assert len(held) >= 4 and max(held) <= -(-kept // 4) < kept


def test_a_batch_that_reads_the_owners_clusters_builds_its_resolver_once(monkeypatch):
    import graphglean.engines.ray.resolution.batch_resolver as resolvers
    import graphglean.engines.ray.resolution.driver as steps

    built, owners = [], []
    build, write = resolvers.batch_resolver, resolvers.write_owner_entries
    monkeypatch.setattr(resolvers, "batch_resolver", lambda k, *a: built.append(k) or build(k, *a))
    monkeypatch.setattr(steps, "write_owner_entries", lambda k, *a: owners.append(k) or write(k, *a))
    chunks, results = _records([(i % len(PEOPLE), (3 * i + 1) % len(PEOPLE)) for i in range(60)])
    _same(chunks, results, _config(3, False, False), 7)
    assert owners and sorted(built) == sorted(set(built))  # "Ghost of Marley" needs the owners' clusters


def test_batches_hold_whole_components_and_a_larger_component_alone(tmp_path):
    from graphglean.engines.ray.resolution.candidates import KeptPairs
    from graphglean.engines.ray.resolution.decision_batches import batch_pairs, plan_batches
    from graphglean.engines.ray.stage_files import dump

    chain = [(f"big{i:02d}", f"big{i + 1:02d}") for i in range(19)]  # one component of 20 nodes
    small = [(f"a{i}", f"b{i}") for i in range(20)]  # 20 of 2
    pairs = sorted(chain + small)
    for c in range(4):  # the pairs spread over the pair partitions
        dump(KeptPairs(pairs[c::4], [("a0", "x0", 0.99)] if c == 0 else [], ["a3"] if c == 1 else []),
             tmp_path / f"kept-{c:04d}.pkl")
    plan = plan_batches(4, tmp_path, similar=False)
    assert plan.budget == 15 and plan.components == 21  # 60 nodes, 4 partitions
    component = {x: n for n, pair in enumerate(small) for x in pair} | {x: -1 for pair in chain for x in pair}
    seen: dict[int, int] = {}
    for k in range(plan.batches):
        found, close = batch_pairs(tmp_path, k)
        assert close == []  # similar=False: the pairs of close embeddings are not decided
        nodes = {x for pair in found for x in pair}
        assert len(nodes) == plan.sizes[k] <= plan.budget or nodes == {x for pair in chain for x in pair}
        assert plan.owned[k] == ("a3" in nodes)
        for x in nodes:
            assert seen.setdefault(component[x], k) == k  # a component in one batch
    assert len(seen) == 21 and sum(plan.sizes) == 60 and 20 in plan.sizes
    with_close = plan_batches(4, tmp_path, similar=True)
    assert with_close.components == 21 and sum(with_close.sizes) == 61  # x0 joins a0's component


def test_a_batch_reads_of_the_corpus_only_its_words_and_judges_as_with_all_of_it(tmp_path):
    from collections import Counter

    from graphglean.engines.ray.resolution.node_tables import NodeTables
    from graphglean.engines.ray.resolution.word_tables import corpus_of, word_table, write_word_parts
    from graphglean.graph.resolution.evidence import Evidence
    from graphglean.graph.resolution.profiles import Corpus, corpus_words, profile_from

    def profiles_of(names, said):
        return [profile_from(n.lower(), {"name": n, "type": KINDS.get(n, "person"),
                                         "description": f"{n} {WORDS.get(n, 'is in the story')}; {said} {i % 4}"},
                             names[max(0, i - 3):i]) for i, n in enumerate(names)]

    mine = ["Charles Dickens", "Dickens", "C. Dickens", "The Miss Fezziwigs", "Mr. Fezziwig's Ball", "Tiny Tim",
            "Tim Cratchit", "Scrooge & Marley (firm)", "S&M", "Belle", "Miss Belle"] + PEOPLE[::2]
    # the rest of the graph writes "dickens" and "belle" in lower case: they are not proper names there
    rest = profiles_of(PEOPLE[1::2] + ["The Cratchits", "Fezziwigs"],
                       "what the dickens, said the belle to bob, tim and old marley")
    batch = profiles_of(mine, "he walks")
    profiles = rest + batch
    full = Corpus.of(None, profiles)
    for p in range(3):  # the key partitions' word statistics, summed by word partition
        write_word_parts(profiles[p::3], p, 3, tmp_path)
    for q in range(3):
        word_table(q, 3, tmp_path)
    tables = NodeTables(tmp_path, 3)
    part = corpus_of(corpus_words(batch), full.documents, tmp_path, tables)
    part.degree = full.degree
    assert len(part.df) < len(full.df)  # a part of it
    whole, read = Evidence(None, {}, full), Evidence(None, {}, part)
    judged = Counter()
    for a in batch:
        for b in batch:
            assert read.verdict(a, b) == whole.verdict(a, b), (a.name, b.name)
            assert read.context(a, b) == whole.context(a, b)
            judged[whole.verdict(a, b).kind] += 1
    assert len(judged) == 4  # same, different, unsure and none all judged


def test_node_tables_read_many_keys_in_one_statement_per_partition(tmp_path):
    from graphglean.engines.ray.resolution.node_tables import NodeTables, write_table

    P = 3
    keys = [f"key {i}" for i in range(1200)]
    for p in range(P):
        write_table(NodeTables.path(tmp_path, p), sorted((k, (k, len(k))) for k in keys
                                                         if partitions.node_partition(k, P) == p))
    tables = NodeTables(tmp_path, P)
    statements = []
    for p in range(P):
        tables._db(p).set_trace_callback(statements.append)
    wanted = keys[::2] + ["absent", "key 7"]
    found = tables.found(wanted)
    assert list(found) == sorted(set(wanted) - {"absent"})
    assert all(found[k] == tables.row(k) == (k, len(k)) for k in found)
    assert len(statements) - len(found) <= 2 * P  # before: one a key
    tables.close()
