"""graphglean query: entities found by name, alias, rare words and description; the local context (description,
relationships, source sentences) within its budget; citations; the run's settings (secrets as references); a
local answer and a global map-reduce on the fake server, logged with their cost; everything offline with
--context-only."""

import io
import json
import os
import shutil
import sys

import networkx as nx
import numpy as np
import pytest
import trio
import yaml

from graphglean import Config, InputError, query, run
from graphglean.core.config_loader import load_config
from graphglean.queries.context import Source, cited
from graphglean.queries.local import local_context
from graphglean.queries.matching import EntityIndex, find_entities, focus_words
from graphglean.pipeline.settings_file import SETTINGS, settings_yaml
from graphglean.queries.settings import run_settings
from graphglean.testing import FakeLLMServer
from graphglean.testing.models.responders import synthetic
from graphglean.view import ChunkText

from .conftest import ROOT

STAVE = (ROOT / "examples" / "a_christmas_carol_stave1.txt").read_text(encoding="utf-8")[:9000]


def small_graph() -> tuple[nx.Graph, dict[str, ChunkText]]:
    text = ("Ebenezer Scrooge ran a counting-house in London. His partner was Jacob Marley, who died seven years "
            "ago. Scrooge's clerk, Bob Cratchit, was paid little. 東京 was far away.")
    chunk = ChunkText("c1", "carol.txt", 0, 100, text)
    g = nx.Graph()

    def node(key, name, kind, description, aliases=()):
        spans = []
        for form in (name, *aliases):
            at = text.find(form)
            while at >= 0:
                spans.append(["c1", 100 + at, 100 + at + len(form)])
                at = text.find(form, at + 1)
        g.add_node(key, name=name, type=kind, description=description, aliases=[name, *aliases], spans=spans,
                   source_ids=["c1"])

    node("ebenezer scrooge", "Ebenezer Scrooge", "person", "A miser who keeps a counting-house.", ["Scrooge"])
    node("jacob marley", "Jacob Marley", "person", "Scrooge's late business partner.", ["Marley"])
    node("bob cratchit", "Bob Cratchit", "person", "Scrooge's underpaid clerk.")
    node("london", "London", "geo", "The city of the counting-house.")
    node("can", "Can", "person", "A word taken for a name.")
    node("tokyo", "東京", "geo", "A far city.")
    g.add_edge("ebenezer scrooge", "jacob marley", description="Marley was Scrooge's partner.", weight=9.0)
    g.add_edge("ebenezer scrooge", "bob cratchit", description="Cratchit is Scrooge's clerk.", weight=7.0)
    g.add_edge("ebenezer scrooge", "london", description="Scrooge works in London.", weight=3.0)
    return g, {"c1": chunk}


def found(question, limit=5):
    g, _ = small_graph()
    return [m.node for m in find_entities(EntityIndex(g), question, limit)]


def test_entities_are_found_by_name_alias_possessive_case_and_typo():
    assert found("Who is Scrooge?")[0] == "ebenezer scrooge"
    assert found("what did marley's ghost want")[0] == "jacob marley"
    assert found("Tell me about Ebenezer Scrooge and Bob Cratchit")[:2] == ["ebenezer scrooge", "bob cratchit"]
    assert found("Who is Scroge?")[0] == "ebenezer scrooge"  # misspelt
    assert found("Cratchit?")[0] == "bob cratchit"  # a rare word of the name
    assert found("東京はどこですか")[0] == "tokyo"  # a script without spaces: found inside the text
    # a name made of question words ("Can") is not a match
    assert found("Can you tell me who the miser is?") == ["ebenezer scrooge"]
    assert found("Who is the miser?")[0] == "ebenezer scrooge"  # by description


def test_the_longest_name_at_a_place_of_the_question_wins_in_any_script():
    g = nx.Graph()
    for name in ("李明", "李明华", "東京", "東京大学", "New York", "New York University", "กรุง", "กรุงเทพมหานคร"):
        g.add_node(name.lower(), name=name, description="", aliases=[name])
    index = EntityIndex(g)

    def named(question):
        return [m.node for m in find_entities(index, question, 5) if m.how == "name"]

    assert named("李明华是谁？") == ["李明华"]
    assert named("李明是谁？") == ["李明"]
    assert named("東京大学について") == ["東京大学"]
    assert named("東京大学は東京にある") == ["東京大学", "東京"]  # 東京 also stands alone
    assert named("Where is New York University?") == ["new york university"]
    assert named("New York University is in New York") == ["new york university", "new york"]
    assert named("กรุงเทพมหานครอยู่ที่ไหน") == ["กรุงเทพมหานคร"]


def test_vectors_find_an_entity_no_word_names():
    g, _ = small_graph()
    vectors = {n: np.eye(len(g))[i].astype(np.float32) for i, n in enumerate(sorted(g.nodes))}
    question = "the old ledger keeper"  # no name, no description word
    assert find_entities(EntityIndex(g), question, 5) == []
    near = find_entities(EntityIndex(g), question, 5, vectors, vectors["bob cratchit"])
    assert [(m.node, m.how) for m in near] == [("bob cratchit", "vector")]


def test_a_question_finds_the_same_entities_in_any_order_of_the_graph():
    g, _ = small_graph()
    reversed_graph = nx.Graph()
    reversed_graph.add_nodes_from(reversed(list(g.nodes(data=True))))
    reversed_graph.add_edges_from(reversed(list(g.edges(data=True))))
    for question in ("Who is Scrooge?", "the partner and the clerk", "miser counting-house city"):
        a = find_entities(EntityIndex(g), question, 4)
        b = find_entities(EntityIndex(reversed_graph), question, 4)
        assert a == b


def test_the_local_context_holds_description_relationships_and_source_sentences():
    g, chunks = small_graph()
    matches = find_entities(EntityIndex(g), "Who was Marley's partner?", 5)
    context = local_context(g, matches, chunks, 2000, len, focus_words("Who was Marley's partner?", matches))
    text = context.text
    assert "[E1] Jacob Marley (person; also: Marley): Scrooge's late business partner." in text
    assert "[R1] Jacob Marley — Ebenezer Scrooge: Marley was Scrooge's partner." in text
    first = next(s for s in context.sources.values() if s.kind == "sentence")
    assert first.text == "His partner was Jacob Marley, who died seven years ago."  # holds "partner" and the name
    assert (first.chunk, first.document, first.offset) == ("c1", "carol.txt", 100 + chunks["c1"].text.index("His"))
    small = local_context(g, matches, chunks, 200, len)  # characters as tokens: room for a few lines
    assert 0 < small.tokens <= 200 and 0 < len(small.sources) < len(context.sources)


def test_citations_are_read_in_any_bracket_form():
    sources = {label: Source(label, "entity", "", name=label) for label in ("E1", "E2", "S3", "C4")}
    answer = "Marley [E1][S3]. Also [E2, S3] and [Data: C4, E9]. Not [x1] nor E2 outside brackets."
    assert [s.label for s in cited(answer, sources)] == ["E1", "S3", "E2", "C4"]


def test_settings_never_hold_a_secret_and_read_back_as_the_run(tmp_path, monkeypatch):
    monkeypatch.setenv("MY_KEY", "sk-query-secret-123456")
    cfg = load_config_from(tmp_path, "llm: {api_key: '${MY_KEY}', base_url: 'http://user:pw-secret@h:1/v1',"
                           " model: m, cache: {path: c.sqlite}}\ninput: {path: in}\noutput: {dir: out}\n")
    text, notes = settings_yaml(cfg)
    assert "sk-query-secret-123456" not in text and "pw-secret" not in text
    assert "api_key: ${MY_KEY:-}" in text and "base_url: ${GRAPHGLEAN_BASE_URL:-}" in text
    assert notes and "GRAPHGLEAN_BASE_URL" in notes[0]
    monkeypatch.chdir("/")
    back = run_settings(saved(tmp_path / "out", text))
    assert back.cfg.llm.api_key == "sk-query-secret-123456" and back.cfg.llm.cache.path == str(tmp_path / "c.sqlite")
    assert back.cfg.input.path == str(tmp_path / "in") and back.out_dir == tmp_path / "out"
    settings = tmp_path / "out" / SETTINGS
    assert back.missing() == [f"llm.base_url: set GRAPHGLEAN_BASE_URL ({settings} reads it)"]
    back.cfg.llm.api_key, back.cfg.llm.base_url = cfg.llm.api_key, cfg.llm.base_url
    assert back.cfg == cfg


def test_settings_name_the_files_inside_the_output_folder_relative_to_it(tmp_path, monkeypatch):
    cfg = load_config_from(tmp_path, "llm: {model: m}\ninput: {path: in}\noutput: {dir: out}\n"
                           "episodic: {templates: out/templates}\n")
    cfg.llm.cache.path = str(tmp_path / "out" / "cache.sqlite")  # as the run names the default cache
    text, _ = settings_yaml(cfg)
    written = yaml.safe_load(text)
    assert written["output"]["dir"] == "." and written["llm"]["cache"]["path"] == "cache.sqlite"
    assert written["episodic"]["templates"] == "templates" and written["input"]["path"] == str(tmp_path / "in")
    assert str(tmp_path / "out") not in text
    monkeypatch.chdir(saved(tmp_path / "moved", text))
    for target in (tmp_path / "moved", "."):
        back = run_settings(target).cfg
        assert back.output.dir == str(tmp_path / "moved")
        assert back.llm.cache.path == str(tmp_path / "moved" / "cache.sqlite")
        assert back.episodic.templates == str(tmp_path / "moved" / "templates")


def test_extra_body_credentials_are_written_as_references(tmp_path, monkeypatch):
    monkeypatch.setenv("VERTEX_TOKEN", "ya29.held-in-env-0123")
    cfg = load_config_from(tmp_path, "llm: {model: m, extra_body: {top_k: 5, access_token: '${VERTEX_TOKEN}', "
                           "metadata: {x-api-key: written-secret-4567, note: plain}}}\noutput: {dir: out}\n")
    text, notes = settings_yaml(cfg)
    assert "ya29.held-in-env-0123" not in text and "written-secret-4567" not in text
    written = yaml.safe_load(text)["llm"]["extra_body"]
    assert written == {"top_k": 5, "access_token": "${VERTEX_TOKEN:-}",
                       "metadata": {"x-api-key": "${GRAPHGLEAN_EXTRA_METADATA_X_API_KEY:-}", "note": "plain"}}
    assert len(notes) == 1 and "set GRAPHGLEAN_EXTRA_METADATA_X_API_KEY" in notes[0]
    back = run_settings(saved(tmp_path / "out", text))
    assert back.missing() == ["llm.extra_body.metadata.x-api-key: set GRAPHGLEAN_EXTRA_METADATA_X_API_KEY "
                              f"({tmp_path / 'out' / SETTINGS} reads it)"]
    monkeypatch.setenv("GRAPHGLEAN_EXTRA_METADATA_X_API_KEY", "written-secret-4567")
    assert run_settings(tmp_path / "out").cfg.llm.extra_body == cfg.llm.extra_body


def test_settings_of_a_run_with_a_schema_read_back(tmp_path):
    cfg = load_config_from(tmp_path, "llm: {model: m}\noutput: {dir: out}\n"
                           "graph: {schema: {entities: {person: a human}, relationships: [[person, knows, person]]}}\n")
    assert run_settings(saved(tmp_path / "out", settings_yaml(cfg)[0])).cfg.graph.schema == cfg.graph.schema


def test_settings_written_with_absolute_paths_follow_a_moved_folder(tmp_path):
    saved(tmp_path / "copy",
          f"llm: {{model: m, cache: {{path: {tmp_path}/gone/cache.sqlite}}}}\n"
          f"input: {{path: {tmp_path}/in}}\noutput: {{dir: {tmp_path}/gone}}\n")
    back = run_settings(tmp_path / "copy").cfg
    assert back.output.dir == str(tmp_path / "copy") and back.input.path == str(tmp_path / "in")
    assert back.llm.cache.path == str(tmp_path / "copy" / "cache.sqlite")


async def test_a_copied_output_folder_is_asked_through_its_own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("GRAPHGLEAN_API_KEY", "sk-query-run-7890")
    async with FakeLLMServer(synthetic).running() as s:
        cfg = await build(tmp_path / "first", s, communities=False, cache_beside_output=True)
        shutil.copytree(cfg.output.dir, tmp_path / "copy")
        shutil.rmtree(tmp_path / "first")
        asked = await query(tmp_path / "copy", "Who is Marley?")
        again = await query(tmp_path / "copy", "Who is Marley?")
    assert not (tmp_path / "first").exists()  # the original's cache was not made again
    assert asked.calls == 1 and again.cache_hits == 1 and (tmp_path / "copy" / "cache.sqlite").is_file()


def saved(folder, text):
    """``folder`` (made) holding ``text`` as its settings.yaml."""
    folder.mkdir()
    (folder / SETTINGS).write_text(text)
    return folder


def load_config_from(folder, text):
    (folder / "run.yaml").write_text(text)
    return load_config(folder / "run.yaml")


async def build(tmp_path, server, communities=True, cache_beside_output=False) -> Config:
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "in.txt").write_text(STAVE, encoding="utf-8")
    cfg = Config()
    cfg.llm.base_url, cfg.llm.api_key, cfg.llm.model = server.base_url, "sk-query-run-7890", "gpt-4o-mini"
    cfg.llm.cache.path = "" if cache_beside_output else str(tmp_path / "cache.sqlite")
    cfg.input.path, cfg.output.dir = str(tmp_path / "in.txt"), str(tmp_path / "out")
    cfg.chunking.size, cfg.chunking.overlap = 400, 40
    cfg.graph.communities.enabled = communities
    await run(cfg, notice=lambda _: None, out=io.StringIO())
    return cfg


async def test_a_local_answer_cites_its_sources_and_is_logged_with_its_cost(tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    async with FakeLLMServer(synthetic).running() as s:
        cfg = await build(tmp_path, s, communities=False)
        settings = (tmp_path / "out" / SETTINGS).read_text()
        assert "sk-query-run-7890" not in settings and "${GRAPHGLEAN_API_KEY:-}" in settings
        with pytest.raises(InputError, match="set GRAPHGLEAN_API_KEY"):
            await query(tmp_path / "out", "Who is Marley?")
        monkeypatch.setenv("GRAPHGLEAN_API_KEY", "sk-query-run-7890")
        before = len(s.chat_requests())
        first = await query(tmp_path / "out", "Who is Marley?")
        again = await query(cfg, "Who is Marley?")  # the Config: the same endpoint and cache
        asked = s.chat_requests()[before:]
    assert len(asked) == 1 and again.cache_hits == 1 and again.answer == first.answer
    assert "Marley" in first.answer and {s.kind for s in first.cited} == {"entity", "relationship", "sentence"}
    sentence = next(s for s in first.cited if s.kind == "sentence")
    assert sentence.document == "in.txt" and sentence.chunk.startswith("chunk-")
    assert first.calls == 1 and first.cost_usd and first.cost_usd > 0 and "$0.0" in first.cost_line()
    body = asked[0].body["messages"][0]["content"]
    assert body.rstrip().endswith("---Question---\nWho is Marley?") and "[E1] Marley" in body
    rows = [json.loads(line) for line in (tmp_path / "out" / "queries.jsonl").open()]
    assert [r["question"] for r in rows] == ["Who is Marley?"] * 2 and rows[0]["cost_usd"] == first.cost_usd
    assert rows[0]["cited"][0]["label"] == "E1" and rows[1]["cache_hits"] == 1
    assert "sk-query-run-7890" not in (tmp_path / "out" / "queries.jsonl").read_text()


async def test_entity_vectors_of_a_lightrag_index_are_read_and_the_question_embedded(tmp_path):
    from graphglean.queries.outputs import read_outputs
    from graphglean.queries.vectors import entity_vectors

    async with FakeLLMServer(synthetic).running() as s:
        cfg = Config()
        cfg.output.formats = ["json", "lightrag"]
        (tmp_path / "in.txt").write_text(STAVE, encoding="utf-8")
        cfg.llm.base_url, cfg.llm.model = s.base_url, "gpt-4o-mini"
        cfg.llm.cache.path = str(tmp_path / "cache.sqlite")
        cfg.input.path, cfg.output.dir = str(tmp_path / "in.txt"), str(tmp_path / "out")
        await run(cfg, notice=lambda _: None, out=io.StringIO())
        before = len(s.requests)
        result = await query(tmp_path / "out", "Who is Marley?")
        embedded = [r.body["input"] for r in s.requests[before:] if r.path.endswith("/embeddings")]
    graph = read_outputs(tmp_path / "out").graph
    found = entity_vectors(tmp_path / "out", graph)
    assert found.source.endswith("vdb_entities.json") and set(found.by_node) == set(graph.nodes)
    assert embedded == [["Who is Marley?"]] and result.found and result.calls == 2


async def test_global_reads_the_reports_and_without_them_says_how_to_turn_them_on(tmp_path):
    async with FakeLLMServer(synthetic).running() as s:
        cfg = await build(tmp_path / "a", s)
        result = await query(cfg, "What is this story about?", method="global")
        maps = [r for r in s.chat_requests() if '{"points": [' in r.prompt]
        plain = await build(tmp_path / "b", s, communities=False)
        with pytest.raises(InputError, match="graph.communities.enabled: true"):
            await query(plain, "What is this story about?", method="global")
    reports = [json.loads(line) for line in (tmp_path / "a" / "out" / "community_reports.jsonl").open()]
    assert maps and result.found and result.cited and all(c.kind == "community" for c in result.cited)
    assert result.cited[0].name in {r["title"] for r in reports} and result.calls == len(maps) + 1
    assert result.cited[0].entities  # its leading entities


async def test_context_only_calls_nothing_and_needs_no_endpoint(tmp_path, monkeypatch):
    async with FakeLLMServer(synthetic).running() as s:
        cfg = await build(tmp_path, s)
        calls = len(s.requests)
    cfg.llm.base_url = "http://127.0.0.1:9/v1"  # nothing listens there
    local = await query(cfg, "Who is Marley?", context_only=True)
    world = await query(tmp_path / "out", "What happens?", method="global", context_only=True)
    assert len(s.requests) == calls and local.answer == "" and local.calls == 0
    assert "Entities:" in local.context and "Source sentences:" in local.context
    assert world.context.startswith("Reports:\n[C1] # ") and not (tmp_path / "out" / "queries.jsonl").exists()


async def test_a_run_without_the_graph_pass_is_said_to_have_built_no_graph(tmp_path):
    (tmp_path / "in.txt").write_text(STAVE, encoding="utf-8")
    cfg = Config()
    cfg.graph.enabled, cfg.summary.enabled = False, True
    cfg.input.path, cfg.output.dir = str(tmp_path / "in.txt"), str(tmp_path / "out")
    async with FakeLLMServer(synthetic).running() as s:
        cfg.llm.base_url = s.base_url
        await run(cfg, notice=lambda _: None, out=io.StringIO())
    with pytest.raises(InputError, match=r"the run built no graph \(graph.enabled is false in .*settings.yaml\)"):
        await query(tmp_path / "out", "Who is Marley?", context_only=True)


async def test_an_offline_run_answers_only_with_context_only(tmp_path):
    (tmp_path / "in.txt").write_text(STAVE, encoding="utf-8")
    cfg = Config()
    cfg.graph.method = "nlp"
    cfg.input.path, cfg.output.dir = str(tmp_path / "in.txt"), str(tmp_path / "out")
    await run(cfg, notice=lambda _: None, out=io.StringIO())
    with pytest.raises(InputError, match="the run had no LLM endpoint"):
        await query(tmp_path / "out", "Who is Marley?")
    result = await query(tmp_path / "out", "Who is Marley?", context_only=True)
    assert "[E1] Jacob Marley" in result.context or "[E1] Marley" in result.context


def test_bad_targets_and_arguments_are_one_clear_error(tmp_path):
    from graphglean import query_sync

    with pytest.raises(InputError, match="no such output folder or configuration file"):
        query_sync(tmp_path / "nothing", "Who?")
    with pytest.raises(InputError, match="no settings.yaml here"):
        query_sync(tmp_path, "Who?")
    with pytest.raises(InputError, match="method: expected one of local, global"):
        query_sync(tmp_path, "Who?", method="hybrid")


async def cli(*args, env=None):
    e = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""), **(env or {}))
    return await trio.run_process([sys.executable, "-m", "graphglean", *map(str, args)], capture_stdout=True,
                                  capture_stderr=True, check=False, env=e)


@pytest.mark.slow
async def test_the_command_prints_context_answers_with_citations_and_reads_the_reports(tmp_path):
    async with FakeLLMServer(synthetic).running() as s:
        cfg = await build(tmp_path, s)
        out = cfg.output.dir
        env = {"GRAPHGLEAN_API_KEY": "sk-query-run-7890"}
        context = await cli("query", out, "Who is Marley?", "--context-only", env=env)
        local = await cli("query", out, "Who is Marley?", "--method", "local", env=env)
        world = await cli("query", out, "What is this story about?", "--method", "global", env=env)
        nothing = await cli("query", out, "zzz qqq", env=env)
    shown = context.stdout.decode()
    assert context.returncode == 0 and context.stderr == b""
    assert "[E1] Marley (person" in shown and "Marley appears in the passage." in shown  # the description
    assert "[R1] Marley — " in shown and '"Old Marley was as dead as a door-nail."' in shown
    answer = local.stdout.decode()
    assert local.returncode == 0 and "[E1]" in answer and "\nSources:\n  [E1] Marley\n" in answer
    assert "in.txt, chunk-" in answer and b"graphglean: cost $0.0" in local.stderr
    assert world.returncode == 0 and "[C1] community " in world.stdout.decode()
    assert nothing.returncode == 1 and b"no entity of the graph is named in or resembles the question" in nothing.stderr
    seeded = [await cli("query", out, "Who was Marley's partner?", "--context-only",
                        env={**env, "PYTHONHASHSEED": seed}) for seed in ("1", "2")]
    assert seeded[0].stdout == seeded[1].stdout and b"[S1]" in seeded[0].stdout  # same input, same request


async def test_global_asks_plainly_where_the_endpoint_refuses_json_mode(tmp_path):
    from graphglean.testing import Reply

    def no_json_mode(req):
        if req.body.get("response_format"):
            return Reply('{"error": {"message": "response_format is not supported", "param": "response_format"}}',
                         status=400)
        return synthetic(req)

    async with FakeLLMServer(synthetic).running() as s:
        cfg = await build(tmp_path, s)
    async with FakeLLMServer(no_json_mode).running() as s:
        cfg.llm.base_url = s.base_url
        result = await query(cfg, "What is this story about?", method="global")
        asked = [bool(r.body.get("response_format")) for r in s.chat_requests()]
    assert result.found and result.cited and asked[0] and not all(asked)
