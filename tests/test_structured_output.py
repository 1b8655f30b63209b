"""graph.schema and graph.structured_output end to end (issue 34), on a planted corpus of four types through the
fake server: JSON-schema extraction asked for in every extraction request and read into the same graph as the
tuple format's, a server that refuses json_schema (auto falls back once, says so once, loses nothing), one that
takes it and answers otherwise, cut JSON answers, strict mode, and batch mode sending the same bodies."""

from __future__ import annotations

import io
import json
import warnings

import pytest
import trio

from graphglean.core.errors import LLMParameterError, LLMRequestError
from graphglean.graph.schema.structured import StructuredChoice, StructuredExtraction
from graphglean.launch import run
from graphglean.llm.records import ChatResult, Usage
from graphglean.testing import FakeLLMServer, refusal, refusing
from graphglean.testing.batch_api import FakeBatchAPI
from graphglean.testing.models.responders import capped
from graphglean.testing.models.structured import (
    TypedCorpus,
    asks_format,
    typed_corpus,
    typed_model,
    wants_json,
)

from .helpers import config

EXTRACTION = "You build a knowledge graph"


def typed_config(server, tmp_path, corpus: TypedCorpus, folder: str = "out", **graph):
    path = tmp_path / "typed.jsonl"
    path.write_text("".join(json.dumps({"id": f"d{i}", "text": t}) + "\n" for i, t in enumerate(corpus.documents)))
    cfg = config(server, tmp_path)
    cfg.llm.max_concurrency = 8
    cfg.input.path, cfg.output.dir = str(path), str(tmp_path / folder)
    cfg.graph.resolve.method = "rules"
    cfg.graph.schema = graph.pop("schema", corpus.schema())
    for key, value in graph.items():
        setattr(cfg.graph, key, value)
    return cfg


async def quiet_run(cfg):
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        result = await run(cfg, notice=lambda _: None, out=io.StringIO())
    return result, [str(w.message) for w in said]


def extraction_requests(server):
    return [r for r in server.chat_requests() if r.messages and EXTRACTION in r.messages[0]["content"]
            and r.max_tokens != 1]


def issued(server, corpus: TypedCorpus):
    """Every record the model wrote: its records of each passage it was asked about."""
    entities, relationships = {}, {}
    for r in extraction_requests(server):
        passage = r.messages[0]["content"].rpartition("Passage:\n")[2]
        found = corpus.records(passage.rsplit("\n\n", 1)[0])
        entities.update((e[0].casefold(), e) for e in found[0])
        relationships.update(((a.casefold(), b.casefold()), (a, b, rel)) for a, b, rel, _, _ in found[1])
    return entities, relationships


def graph_of(cfg):
    return json.loads((tmp_out(cfg) / "graph.json").read_text())


def tmp_out(cfg):
    from pathlib import Path

    return Path(cfg.output.dir)


def holds_every_record(graph, entities, relationships):
    nodes = {n["id"]: n for n in graph["nodes"]}
    edges = {frozenset((e["source"], e["target"])): e for e in graph["edges"]}
    assert entities and relationships
    for key, (name, kind, _) in entities.items():
        assert key in nodes and nodes[key]["type"] == kind, name
    for (a, b), (_, _, relation) in relationships.items():
        assert relation in edges[frozenset((a, b))]["relations"], (a, b)


def graph_row(result):
    return next(p for p in result.report["passes"] if p["pass"] == "graph")


async def test_json_schema_is_asked_in_every_extraction_request_and_gives_the_tuple_format_s_graph(tmp_path):
    corpus = typed_corpus()
    async with FakeLLMServer(typed_model(corpus)).running() as s:
        as_json = typed_config(s, tmp_path, corpus, "json", structured_output="json_schema")
        result, said = await quiet_run(as_json)
        asked = extraction_requests(s)
        checks = [r for r in s.chat_requests() if r.max_tokens == 1]
        entities, relationships = issued(s, corpus)
        start = len(s.requests)
        as_tuples = typed_config(s, tmp_path, corpus, "tuples", structured_output="off")
        tuple_result, _ = await quiet_run(as_tuples)
        tuple_asked = [r for r in extraction_requests(s) if r.number >= start]
    assert not result.failed and not tuple_result.failed and not said
    assert len(asked) > len(corpus.documents)  # gleaning rounds too
    for r in asked:
        fmt = r.body["response_format"]
        assert fmt["type"] == "json_schema" and fmt["json_schema"]["strict"] is True
        entity = fmt["json_schema"]["schema"]["properties"]["entities"]["items"]
        assert entity["properties"]["type"]["enum"] == list(corpus.schema()["entities"])
        assert entity["additionalProperties"] is False and entity["required"] == ["name", "type", "description"]
    assert checks and all("response_format" not in r.body for r in checks)  # YES/NO stays one token
    assert all("response_format" not in r.body for r in tuple_asked) and len(tuple_asked) == len(asked)
    json_graph, tuple_graph = graph_of(as_json), graph_of(as_tuples)
    holds_every_record(json_graph, entities, relationships)
    assert json_graph["nodes"] == tuple_graph["nodes"]  # node for node, every attribute
    assert json_graph["edges"] == tuple_graph["edges"]
    row = graph_row(result)
    assert row["structured_output"]["format"] == "json_schema" and row["structured_output"]["json_chunks"] > 0
    assert row["malformed"] == 0 and row["off_schema"] == 0


async def test_auto_falls_back_once_when_json_schema_is_refused_and_keeps_every_record(tmp_path):
    """A server that refuses response_format altogether (json_schema, and json_object with the schema)."""
    corpus = typed_corpus()
    model = refusing(typed_model(corpus), lambda r: "response_format" in r.body, refusal("json_schema", "vllm"))
    async with FakeLLMServer(model).running() as s:
        cfg = typed_config(s, tmp_path, corpus)
        result, said = await quiet_run(cfg)
        entities, relationships = issued(s, corpus)
        tried = [r.body["response_format"]["type"] for r in s.chat_requests() if "response_format" in r.body]
    assert not result.failed and result.report["failed"] == []
    assert tried == ["json_schema", "json_object"]  # tried once in each form; every other request in tuples
    lines = [m for m in said if "structured_output" in m]
    assert len(lines) == 1 and "json_schema" in lines[0] and "tuple format" in lines[0]
    holds_every_record(graph_of(cfg), entities, relationships)
    row = graph_row(result)
    assert row["structured_output"]["format"] == "tuple" and "refused" in row["structured_output"]["why"]
    assert row["structured_output"]["tuple_chunks"] == row["chunks"]


async def test_a_server_that_refuses_json_schema_as_llama_cpp_python_does_gets_json_object_with_the_schema(
        tmp_path):
    """llama-cpp-python's server refuses response_format json_schema (HTTP 500) and turns json_object with a
    schema into a grammar: auto asks that form, for every chunk, and says so in report.json."""
    corpus = typed_corpus()
    model = refusing(typed_model(corpus), asks_format("json_schema"), refusal("json_schema", "llama-cpp-python"))
    async with FakeLLMServer(model).running() as s:
        cfg = typed_config(s, tmp_path, corpus)
        result, said = await quiet_run(cfg)
        entities, relationships = issued(s, corpus)
        forms = [r.body.get("response_format", {}).get("type") for r in extraction_requests(s)]
    assert not result.failed and not [m for m in said if "structured_output" in m]
    assert forms[0] == "json_schema" and set(forms[1:]) == {"json_object"}  # the probe's refused form, once
    holds_every_record(graph_of(cfg), entities, relationships)
    row = graph_row(result)["structured_output"]
    assert row["format"] == "json_object" and "refused json_schema" in row["why"]
    assert row["json_chunks"] == graph_row(result)["chunks"]


async def test_json_schema_insists_and_a_refusal_fails_clearly(tmp_path):
    corpus = typed_corpus(documents=2)
    model = refusing(typed_model(corpus), wants_json, refusal("json_schema", "llama-cpp-python"))
    async with FakeLLMServer(model).running() as s:
        cfg = typed_config(s, tmp_path, corpus, structured_output="json_schema")
        with pytest.raises(LLMParameterError, match="structured_output is json_schema.*auto"):
            await quiet_run(cfg)


async def test_a_server_that_takes_json_schema_but_answers_records_is_read_and_remembered(tmp_path):
    corpus = typed_corpus()
    async with FakeLLMServer(typed_model(corpus, json_never=True)).running() as s:
        cfg = typed_config(s, tmp_path, corpus)
        cfg.llm.max_concurrency = 1  # chunk after chunk: the first one's answers decide for the rest
        result, said = await quiet_run(cfg)
        entities, relationships = issued(s, corpus)
        with_format = [r for r in extraction_requests(s) if "response_format" in r.body]
    assert not result.failed
    assert len([m for m in said if "structured_output" in m]) == 1
    assert 0 < len(with_format) < len(extraction_requests(s))  # the first chunk's; the others in tuples
    holds_every_record(graph_of(cfg), entities, relationships)
    assert graph_row(result)["structured_output"]["why"].startswith("the server took response_format")


def first_passage_in_json(corpus):
    """A server that follows json_schema for the first passage it is asked about, and answers the tuple format
    for every other (as a server under load may fall back to unconstrained decoding)."""
    follows, ignores = typed_model(corpus), typed_model(corpus, json_never=True)
    seen = []

    def respond(req):
        first = str(req.messages[0].get("content") or "") if req.messages else ""
        if EXTRACTION in first and wants_json(req) and not seen:
            seen.append(first)
        return follows(req) if not seen or first == seen[0] else ignores(req)

    return respond


async def test_only_the_probe_s_answer_decides_so_every_chunk_asks_the_same_whatever_the_timing(tmp_path):
    corpus = typed_corpus()
    async with FakeLLMServer(first_passage_in_json(corpus)).running() as s:
        cfg = typed_config(s, tmp_path, corpus)
        cfg.llm.max_concurrency = 2  # chunks start after others answered
        result, said = await quiet_run(cfg)
        entities, relationships = issued(s, corpus)
        first_asks = {}  # a chunk's first request: the shortest conversation of its passage
        for r in sorted(extraction_requests(s), key=lambda r: -len(r.messages)):
            first_asks[r.messages[0]["content"]] = "response_format" in r.body
    assert not result.failed and not [m for m in said if "structured_output" in m]
    assert len(first_asks) == graph_row(result)["chunks"] and all(first_asks.values())
    holds_every_record(graph_of(cfg), entities, relationships)
    assert graph_row(result)["structured_output"]["json_chunks"] == graph_row(result)["chunks"]


class OneRequestLoop:
    """A chunk's extraction of one JSON request of a second (as `JsonGleaningLoop` asks through its choice)."""

    def __init__(self, choice, finished):
        self.choice, self.finished = choice, finished

    async def run(self, chunk_id, text):
        async def call():
            await trio.sleep(1)
            return ChatResult('{"entities": [], "relationships": []}', "stop", Usage(1, 1))

        await self.choice.request(call)
        self.finished[chunk_id] = trio.current_time()
        return chunk_id


async def test_only_the_probe_is_sent_alone_then_every_chunk_at_once(autojump_clock):
    choice = StructuredChoice("auto", probes=True)
    finished = {}
    extraction = StructuredExtraction(OneRequestLoop(choice, finished), OneRequestLoop(choice, finished), choice)
    choice.probe_chunk = "c3"
    async with trio.open_nursery() as nursery:
        for i in range(6):
            nursery.start_soon(extraction.run, f"c{i}", "text")
    assert finished.pop("c3") == 1 and set(finished.values()) == {2}  # not 1, 2, 3, 4, 5, 6
    assert choice.state == "json" and choice.report["json_chunks"] == 6


async def test_a_probe_that_fails_otherwise_hands_the_probe_on(autojump_clock):
    choice = StructuredChoice("auto", probes=True)
    choice.probe_chunk = "c0"
    finished = {}

    class Failing(OneRequestLoop):
        async def run(self, chunk_id, text):
            if chunk_id == "c0":
                await trio.sleep(1)
                raise LLMRequestError("HTTP 503: overloaded", 503, "")
            return await super().run(chunk_id, text)

    extraction = StructuredExtraction(Failing(choice, finished), Failing(choice, finished), choice)
    async with trio.open_nursery() as nursery:
        for i in range(4):
            nursery.start_soon(_quietly, extraction.run, f"c{i}")
    assert sorted(finished.values()) == [2, 3, 3]


async def _quietly(fn, chunk_id):
    try:
        await fn(chunk_id, "text")
    except LLMRequestError:
        pass


@pytest.mark.parametrize("text, finish, state", [
    ('{"ent', "length", "json"),  # cut by the cap before any whole item: JSON all the same
    ('[entity<|>Ada<|>PERSON<|>x]', "stop", "ignored"),  # records that open with a bracket: no JSON
    ('{"entities": [], "relationships": []}', "stop", "json"),
])
async def test_the_probe_s_answer_decides_what_the_server_does(text, finish, state):
    choice = StructuredChoice("auto", probes=True)

    async def answer():
        return ChatResult(text, finish, Usage(1, 1))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        await choice.request(answer)
    assert choice.state == state


async def test_the_format_decided_is_kept_for_the_run_s_next_invocation(tmp_path):
    corpus = typed_corpus(documents=4)
    async with FakeLLMServer(typed_model(corpus, json_never=True)).running() as s:
        cfg = typed_config(s, tmp_path, corpus)
        result, said = await quiet_run(cfg)
        assert [r for r in extraction_requests(s) if "response_format" in r.body]
        path = tmp_path / "typed.jsonl"
        more = typed_corpus(documents=2, seed=5).documents
        path.write_text(path.read_text() + "".join(json.dumps({"id": f"n{i}", "text": t}) + "\n"
                                                   for i, t in enumerate(more)))
        s.requests.clear()
        result, said = await quiet_run(cfg)
        asked = extraction_requests(s)
    assert not result.failed and asked and not [r for r in asked if "response_format" in r.body]
    lines = [m for m in said if "structured_output" in m]
    assert len(lines) == 1 and "earlier invocation" in lines[0]
    assert graph_row(result)["structured_output"]["format"] == "tuple"


async def test_a_cut_json_answer_is_read_and_the_rest_asked_as_a_new_object(tmp_path):
    corpus = typed_corpus(documents=3, sentences=8)
    async with FakeLLMServer(capped(typed_model(corpus))).running() as s:
        cfg = typed_config(s, tmp_path, corpus, structured_output="json_schema")
        cfg.llm.max_tokens = 180
        result, said = await quiet_run(cfg)
        entities, relationships = issued(s, corpus)
        rests = [r for r in extraction_requests(s) if "These of its records were read" in r.last_user]
    assert not result.failed and not said
    assert rests and all(r.body["response_format"]["type"] == "json_schema" for r in rests)
    holds_every_record(graph_of(cfg), entities, relationships)
    row = graph_row(result)
    assert row["continuations"] == len(rests) and row["malformed"] == 0


async def test_strict_leaves_out_a_type_the_schema_lacks_and_counts_it(tmp_path):
    corpus = typed_corpus()
    schema = corpus.schema(mode="strict", leave_out=["EVENT"])
    async with FakeLLMServer(typed_model(corpus)).running() as s:
        cfg = typed_config(s, tmp_path, corpus, schema=schema, structured_output="json_schema")
        result, _ = await quiet_run(cfg)
        entities, relationships = issued(s, corpus)
    events = {k for k, e in entities.items() if e[1] == "EVENT"}
    graph = graph_of(cfg)
    assert events and not events & {n["id"] for n in graph["nodes"]}
    assert all(n["type"] != "EVENT" for n in graph["nodes"])
    left_out = [json.loads(line) for line in (tmp_out(cfg) / "off_schema_records.jsonl").read_text().splitlines()]
    row = graph_row(result)
    assert row["off_schema"] == len(left_out) > 0
    assert {r["name"].casefold() for r in left_out if r["kind"] == "entity"} == events
    assert all(r["relation"] in ("ATTENDED", "HELD_IN") for r in left_out if r["kind"] == "relationship")
    kept = {k: e for k, e in entities.items() if e[1] != "EVENT"}
    holds_every_record(graph, kept, {k: r for k, r in relationships.items() if r[2] not in ("ATTENDED", "HELD_IN")})


async def test_flag_marks_what_is_outside_the_schema_and_graph_html_filters_it(tmp_path):
    corpus = typed_corpus(documents=3)
    schema = corpus.schema(mode="flag", leave_out=["EVENT"])
    async with FakeLLMServer(typed_model(corpus)).running() as s:
        cfg = typed_config(s, tmp_path, corpus, schema=schema, structured_output="json_schema")
        result, _ = await quiet_run(cfg)
    graph = graph_of(cfg)
    flagged = [n for n in graph["nodes"] if n["off_schema"]]
    assert flagged and all(n["type"] == "event" for n in flagged)  # as the model wrote it: not the schema's
    assert all(not n["off_schema"] for n in graph["nodes"] if n["type"] in ("PERSON", "ORGANIZATION", "GEO"))
    off_edges = [e for e in graph["edges"] if e["off_schema"]]
    assert off_edges and {e["relation"] for e in off_edges} <= {"ATTENDED", "HELD_IN"}
    assert graph_row(result)["off_schema"] == len(flagged) + len(off_edges)
    page = (tmp_out(cfg) / "graph.html").read_text()
    assert '"schema":true' in page and "only off schema" in page


async def test_batch_mode_sends_the_online_run_s_bodies(tmp_path):
    corpus = typed_corpus(documents=2)
    seen: list[str] = []
    model = typed_model(corpus)

    def recording(req):  # the body as the cache keys it: streaming is how an online answer travels
        seen.append(json.dumps({k: v for k, v in req.body.items() if k not in ("stream", "stream_options")},
                               sort_keys=True))
        return model(req)

    async with FakeLLMServer(recording, batch_api=FakeBatchAPI(0.02)).running() as s:
        online = typed_config(s, tmp_path, corpus, "online", structured_output="json_schema")
        online.llm.cache.mode = "off"
        await quiet_run(online)
        sent_online = sorted(seen)
        seen.clear()
        batch = typed_config(s, tmp_path, corpus, "batch", structured_output="json_schema")
        batch.llm.cache.mode = "off"
        batch.llm.batch.enabled = True
        batch.llm.batch.poll_s, batch.llm.batch.quiet_s, batch.llm.batch.online_tail = 0.02, 0.05, 0
        result, _ = await quiet_run(batch)
    assert not result.failed and s.batch_api.uploaded_lines
    assert sorted(seen) == sent_online and any('"json_schema"' in body for body in sent_online)
    assert graph_of(batch) == graph_of(online)


async def test_relations_reach_every_output(tmp_path):
    pytest.importorskip("pyarrow")
    import networkx as nx
    import pyarrow.parquet as pq

    from graphglean.graph.formats.peers.lightrag.graphml import FILENAME

    corpus = typed_corpus(documents=2)
    async with FakeLLMServer(typed_model(corpus)).running() as s:
        cfg = typed_config(s, tmp_path, corpus, structured_output="json_schema")
        cfg.output.formats = ["graphml", "json", "jsonl", "html", "neo4j", "parquet", "lightrag"]
        result, _ = await quiet_run(cfg)
    out = tmp_out(cfg)
    assert not result.failed
    rows = [json.loads(line) for line in (out / "relationships.jsonl").read_text().splitlines()]
    relations = {r["relation"] for r in rows}
    assert relations <= {"WORKS_FOR", "LOCATED_IN", "ATTENDED", "HELD_IN"} and len(relations) > 1
    assert set(pq.read_table(out / "relationships.parquet").column("relation").to_pylist()) == relations
    graphml = nx.read_graphml(out / "graph.graphml")
    assert {d["relation"] for _, _, d in graphml.edges(data=True)} == relations
    csv_types = {line.split(",")[2] for line in (out / "neo4j" / "relationships.csv").read_text().splitlines()[1:]}
    assert csv_types == relations
    cypher = (out / "neo4j" / "import.cypher").read_text()
    assert all(f"CREATE (a)-[r:{r}]->(b)" in cypher for r in relations) and "RELATED_TO]" not in cypher
    lightrag = nx.read_graphml(out / "lightrag" / FILENAME)
    keywords = {k for _, _, d in lightrag.edges(data=True) for k in d["keywords"].split(",")}
    assert relations <= keywords
    assert '"rel":"WORKS_FOR"' in (out / "graph.html").read_text() or '"rel":"ATTENDED"' in (
        out / "graph.html").read_text()
