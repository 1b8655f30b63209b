"""Every CPU stage after the calls, over any answer a model may write: parsing (the parser and the debris
check), the merge, resolution, grounding and echoes, descriptions cut to a budget, communities, report contexts
and reading any report answer, and every writer (GraphML, node-link JSON, JSONL, Neo4j CSV, Parquet, the
community tables, graph.html's payload, the GraphRAG and LightRAG indexes), then read back. Fields are any
Unicode, empty or huge (tests/model_text). None of it may raise: it runs after every extraction call is paid."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import networkx as nx
import numpy as np
import trio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphglean.core.config import Config, OutputConfig
from graphglean.core.tokens import Tokenizer
from graphglean.graph.communities.context import build_context, members_of
from graphglean.graph.communities.detect import annotate, community_names, find_communities
from graphglean.graph.communities.reading import NotAReport, read_report
from graphglean.graph.extract import GraphStats, _ground, parse_and_merge
from graphglean.graph.extraction.chunk_extraction import ChunkExtraction
from graphglean.graph.formats.communities import write_community_tables
from graphglean.graph.formats.peers.communities import read_communities
from graphglean.graph.formats.peers.graphrag.write import plan_graphrag
from graphglean.graph.formats.peers.index import documents_of
from graphglean.graph.formats.peers.lightrag.write import plan_lightrag
from graphglean.graph.formats.readback import read_graph
from graphglean.graph.offline.nlp import fit_quotes
from graphglean.graph.resolution.resolve import resolve_entities
from graphglean.pipeline.outputs import write_graph_outputs
from graphglean.text.chunking import Chunk
from graphglean.text.inputs import Document
from graphglean.view import ChunkText, write_view

from .model_text import any_text, description, entity_type, name, phrase

TOKENIZER = Tokenizer.cl100k()
ALL_FORMATS = ["graphml", "json", "jsonl", "html", "neo4j", "parquet"]


def _strict(constant: str) -> None:
    raise AssertionError(f"{constant} is not JSON")


def _field(value: str, quoted: bool) -> str:
    return f'"{value}"' if quoted else value


@st.composite
def records(draw, names: list[str]) -> str:
    """One answer: records in the tuple or the line format, or a table, JSON or prose, with noise around."""
    pick = st.one_of(st.sampled_from(names), name)
    quoted = draw(st.booleans())
    kind = draw(st.sampled_from(["tuple", "line", "table", "json", "mixed"]))
    rows = []
    for _ in range(draw(st.integers(0, 6))):
        entity = draw(st.booleans())
        strength = draw(st.one_of(st.integers(-5, 12).map(str), st.sampled_from(["", "high", "NaN", "1e309", "9" * 400,
                                                                                  "7/10", "0"]), any_text))
        fields = ([draw(pick), draw(entity_type), draw(description)] if entity
                  else [draw(pick), draw(pick), draw(description), strength])
        if kind in ("tuple", "mixed"):
            rows.append("(" + "<|>".join([_field("entity" if entity else "relationship", quoted)]
                                         + [_field(f, quoted) for f in fields]) + ")")
        if kind in ("line", "mixed"):
            rows.append("<|#|>".join(["entity" if entity else "relation"] + fields))
        if kind == "table":
            rows.append("| " + " | ".join(fields) + " |")
        if kind == "json":
            rows.append(json.dumps({"name" if entity else "source": fields[0], "type" if entity else "target": fields[1],
                                    "description": fields[2]}, ensure_ascii=draw(st.booleans())))
    joiner = draw(st.sampled_from(["##\n", "##", "\n", "\n\n", " "]))
    noise = draw(st.one_of(st.just(""), phrase(0, 6), st.sampled_from(["<think>hmm", "</think>", "```", "**Entities**",
                                                                     "| name | type | description |\n|---|---|---|"])))
    ending = draw(st.sampled_from(["<|COMPLETE|>", "", "<| COMPLETE |>", "##"]))
    return f"{noise}\n{joiner.join(rows)}\n{ending}"


@st.composite
def corpora(draw) -> tuple[list[Chunk], dict[str, ChunkExtraction]]:
    names = draw(st.lists(name, min_size=1, max_size=5))
    chunks, extractions = [], {}
    for i in range(draw(st.integers(1, 3))):
        # the chunk holds some of the names, so that grounding finds spans, and any other text
        text = " ".join(draw(st.lists(st.one_of(st.sampled_from(names), phrase(0, 8)), min_size=1, max_size=6)))
        chunk = Chunk(f"c{i}", "doc", i, text, 0, len(text), TOKENIZER.count(text))
        answers = draw(st.lists(records(names), min_size=1, max_size=2))
        chunks.append(chunk)
        extractions[chunk.id] = ChunkExtraction(chunk.id, answers, len(answers) - 1, 0, 0, 0)
    return chunks, extractions


def _built(chunks, extractions, budget: int) -> tuple[nx.Graph, Config]:
    cfg = Config()
    cfg.graph.description_max_tokens = budget
    cfg.graph.communities.max_cluster_size = 3
    stats = GraphStats()
    graph = parse_and_merge(chunks, extractions, cfg, stats)
    graph = trio.run(lambda: resolve_entities(graph, cfg, method="rules")).graph
    _ground(graph, {c.id: c for c in chunks}, cfg, offline=False)
    fit_quotes(graph, TOKENIZER, budget)
    return graph, cfg


reports = st.one_of(
    any_text, st.just(""), st.just("{}"), st.just("[]"), st.just("null"),
    st.builds(lambda title, summary, rating, findings: json.dumps(
        {"title": title, "summary": summary, "rating": rating, "rating_explanation": summary, "findings": findings}),
        st.one_of(any_text, st.none(), st.integers()), st.one_of(description, st.lists(any_text)),
        st.one_of(st.floats(allow_nan=True, allow_infinity=True), any_text, st.none(), st.just("8.5/10")),
        st.one_of(st.none(), any_text, st.lists(st.one_of(
            any_text, st.fixed_dictionaries({"summary": any_text, "explanation": description,
                                             "references": st.one_of(st.none(), any_text, st.dictionaries(
                                                 any_text, st.lists(st.one_of(st.integers(-3, 99), any_text),
                                                                    max_size=3), max_size=3))})), max_size=3))))


def _communities_and_reports(graph, cfg, answers):
    communities = find_communities(graph, cfg)
    annotate(graph, communities)
    read = []
    for community, answer in zip(communities.items, answers * len(communities.items)):
        members = members_of(graph, community, TOKENIZER.count)
        ctx = build_context(members, 200, TOKENIZER.count)
        try:
            read.append(read_report(answer, ctx, community.id, community.level, cut=False))
        except NotAReport:
            pass
    names = community_names(graph)
    rows = [c.to_json(names) for c in sorted(communities.items, key=lambda c: (c.level, c.id))]
    return communities, rows, [r.to_json() for r in read]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(corpora(), st.sampled_from([1, 12, 500]), st.lists(reports, min_size=1, max_size=3))
def test_any_answers_go_through_every_stage_and_writer(corpus, budget, answers):
    chunks, extractions = corpus
    graph, cfg = _built(chunks, extractions, budget)
    communities, rows, report_rows = _communities_and_reports(graph, cfg, answers)
    texts = [ChunkText(c.id, c.doc_id, c.index, c.start, c.text) for c in chunks]
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        write_graph_outputs(graph, chunks, out, OutputConfig(formats=ALL_FORMATS))  # raises if any writer failed
        write_community_tables(rows, report_rows, out, parquet=True)
        write_view(graph, texts, out / "graph.html", communities=rows, reports=report_rows)
        for table in ("graph.json", "entities.jsonl", "relationships.jsonl", "communities.jsonl"):
            text = (out / table).read_text(encoding="utf-8")
            for line in text.split("\n") if table.endswith("l") else [text]:  # JSON Lines: lines end at \n only
                if not line:
                    continue
                json.loads(line, parse_constant=_strict)  # no NaN or Infinity: JSON as every reader takes it
        back = read_graph(out)
        assert back.number_of_nodes() == graph.number_of_nodes()
        assert back.number_of_edges() == graph.number_of_edges()
        read_communities(out)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(corpora(), st.lists(reports, min_size=1, max_size=2))
def test_any_answers_make_peer_indexes(corpus, answers):
    chunks, extractions = corpus
    graph, cfg = _built(chunks, extractions, 500)
    communities, rows, report_rows = _communities_and_reports(graph, cfg, answers)
    documents = documents_of([Document("doc", "\n".join(c.text for c in chunks), "doc")], chunks)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        write_community_tables(rows, report_rows, out, parquet=False)
        plans = [plan_graphrag(graph, documents, chunks, read_communities(out), cfg.llm, out),
                 plan_lightrag(graph, documents, chunks, out, (1200, 100))]
        rng = np.random.default_rng(0)
        for plan in plans:
            vectors = {t: rng.standard_normal(8).astype(np.float32) for t in plan.texts()}
            assert plan.write(vectors, 8)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(corpora(), st.sampled_from([1, 30]))
def test_description_stream_takes_any_answers(corpus, budget):
    """Summaries started while extraction runs: any records, in any chunk order, never stop the stream (an end
    without a name made it look up a node the merge never made: KeyError, and the graph pass failed)."""
    import functools

    from graphglean.graph.building.describe import SummaryMemo
    from graphglean.graph.building.stream import DescriptionStream
    from graphglean.graph.extract import parse_extraction, record_parser
    from graphglean.llm.client import ChatClient
    from graphglean.scheduling.scheduler import Scheduler
    from graphglean.testing.inprocess import InProcessTransport
    from graphglean.testing.models.responders import synthetic

    from .helpers import llm_config

    chunks, extractions = corpus
    cfg = Config()
    cfg.graph.description_max_tokens = budget
    cfg.llm = llm_config(type("S", (), {"base_url": "http://in-process.invalid/v1"})())
    parser = record_parser(cfg.graph)

    async def run() -> bool:
        async with ChatClient(cfg.llm, transport=InProcessTransport(synthetic)) as client:
            async with trio.open_nursery() as nursery:
                stream = DescriptionStream(chunks, cfg.graph, Scheduler(client).llm("graph.describe"), TOKENIZER,
                                           SummaryMemo(), nursery)
                for chunk in reversed(chunks):
                    await stream.add([(chunk, functools.partial(parse_extraction, extractions[chunk.id], chunk,
                                                                parser))])
            return stream.stopped

    assert not trio.run(run)
