"""The build's tail: the graph is the description stream's merge, and entity resolution's profiles made while
extraction ran are used only where the final graph gives a node what they were made from."""

from __future__ import annotations

import networkx as nx
import trio

from graphglean.core.tokens import Tokenizer
from graphglean.graph.building.describe import SummaryMemo
from graphglean.graph.building.profile_memo import ProfileMemo
from graphglean.graph.building.stream import DescriptionStream
from graphglean.graph.extract import GraphStats, _chunks_of, parse_and_merge, parse_extraction, record_parser
from graphglean.graph.extraction.chunk_extraction import ChunkExtraction
from graphglean.graph.resolution.profiles import profile_of
from graphglean.graph.resolution.resolver import Resolver
from graphglean.llm import ChatClient
from graphglean.scheduling.scheduler import Scheduler
from graphglean.testing import FakeLLMServer

from .test_describe_stream import cfg_prompt, documents, graph_config, model


def small_graph() -> nx.Graph:
    g = nx.Graph()
    g.add_node("ada ames", name="Ada Ames", type="person", types=["person"], description="She keeps the mill.")
    g.add_node("ben ames", name="Ben Ames", type="person", types=["person"], description="He sails.")
    g.add_edge("ada ames", "ben ames")
    return g


def test_a_kept_profile_is_used_only_for_the_same_attributes_and_neighbours():
    g = small_graph()
    memo = ProfileMemo()
    for n in g.nodes:
        memo.keep(n, dict(g.nodes[n]), g.neighbors(n))
    kept = memo.profile(g, "ada ames")
    assert kept == profile_of(g, "ada ames") and memo.profile(g, "ada ames") is kept

    g.nodes["ada ames"]["description"] = "She keeps the mill. He said she was his sister."  # a later record
    g.add_node("cora ames", name="Cora Ames", description="")
    g.add_edge("ben ames", "cora ames")  # a neighbour found later
    for n in ("ada ames", "ben ames"):
        assert memo.profile(g, n) == profile_of(g, n)
    assert memo.profile(g, "ada ames").pronoun_gender == "f"
    assert "cora ames" in memo.profile(g, "ben ames").neighbours
    assert memo.profile(g, "cora ames") == profile_of(g, "cora ames")  # never kept


async def test_the_stream_merges_the_graph_and_profiles_every_settled_node():
    async with FakeLLMServer(model).running() as s:
        cfg = graph_config(s)
        tokenizer = Tokenizer(cfg.llm.model)
        chunks, _ = _chunks_of(documents(), cfg, tokenizer)
        parser = record_parser(cfg.graph)
        async with ChatClient(cfg.llm) as client:
            scheduler = Scheduler(client)
            llm = scheduler.llm("graph")
            extractions = {}
            for c in chunks:
                answer = await llm.chat(llm.request([{"role": "user", "content": cfg_prompt(cfg, c.text)}]))
                extractions[c.id] = ChunkExtraction(c.id, [answer.text], 0, 0, 0, 0)
            async with trio.open_nursery() as nursery:
                stream = DescriptionStream(chunks, cfg.graph, scheduler.llm("graph.describe"), tokenizer,
                                           SummaryMemo(), nursery)
                for c in reversed(chunks):  # finished in another order than the input's
                    await stream.add([(c, lambda c=c: parse_extraction(extractions[c.id], c, parser))])
    merged = parse_and_merge(chunks, extractions, cfg, counted := GraphStats(), known=stream.parsed,
                             merged=stream.acc)
    fresh = parse_and_merge(chunks, extractions, cfg, GraphStats())
    assert list(merged.nodes(data=True)) == list(fresh.nodes(data=True))
    assert list(merged.edges(data=True)) == list(fresh.edges(data=True))
    assert counted.records > 0 and counted.entities > 0  # counted as before, though not merged again
    assert len(stream.profiles) == merged.number_of_nodes()
    resolver = Resolver.of_graph(merged, stream.profiles.profile)
    assert resolver.profiles == [profile_of(merged, n) for n in merged.nodes]
