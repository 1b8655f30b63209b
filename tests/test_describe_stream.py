"""Description summaries streamed while extraction runs: the same graph and no more calls than summarizing
after the last chunk, the early calls made before the last chunk is done, and a node whose descriptions
change after its early summary (entity resolution merging nodes) summarized again, alone."""

from __future__ import annotations

import re

import networkx as nx
import trio
from hypothesis import given, settings
from hypothesis import strategies as st

from graphglean.core.tokens import Tokenizer
from graphglean.graph.building.describe import SummaryMemo, summarize_descriptions
from graphglean.graph.building.stream import DescriptionStream
from graphglean.graph.extract import GraphStats, _chunks_of, build_graph, extract_graph, parse_extraction, record_parser
from graphglean.graph.extraction.chunk_extraction import ChunkExtraction
from graphglean.graph.extraction.workload import named_words
from graphglean.llm import ChatClient
from graphglean.scheduling.scheduler import Scheduler
from graphglean.testing import FakeLLMServer, RecordedRequest, Reply
from graphglean.testing.models.responders import MARK_DESCRIBE, MARK_LOOP, passage_of
from graphglean.text.inputs import Document

from .helpers import config

NAME = re.compile(r"\b[A-Z][a-z]+ [A-Z][a-z]+\b")
SLOW = "Zora Quint"  # the document holding her answers late


def records(passage: str) -> str:
    out = []
    for sentence in re.split(r"(?<=\.)\s+", passage):
        names = NAME.findall(sentence)
        out += [f'("entity"<|>{n}<|>person<|>{n}: {sentence})' for n in names]
        out += [f'("relationship"<|>{a}<|>{b}<|>{sentence}<|>3)' for a, b in zip(names, names[1:])]
    return "##\n".join(out) + "\n<|COMPLETE|>"


def model(req: RecordedRequest) -> Reply:
    last = req.last_user
    if req.max_tokens == 1 or MARK_LOOP in last:
        return Reply("NO", finish_reason="length")
    if MARK_DESCRIBE in last:
        return Reply(" ".join(line[2:8] for line in last.splitlines() if line.startswith("- ")))
    passage = passage_of(req.messages[0]["content"])
    return Reply(records(passage), delay=0.6 if SLOW in passage else 0.0)


def documents() -> list[Document]:
    docs = []
    for d, family in enumerate(["Ames", "Brook", "Quint"]):
        first = ["Zora", "Yuri", "Xena"] if family == "Quint" else ["Ada", "Ben", "Cal"]
        lines = [f"{first[i % 3]} {family} met {first[(i + 1) % 3]} {family} on day {i} by the river."
                 for i in range(12)]
        lines += [f"{first[0]} {family} wrote to Mara Vale on day {i + 20}." for i in range(3)]
        docs.append(Document(f"d{d}", " ".join(lines), "<text>"))
    return docs


def graph_config(server):
    cfg = config(server, max_concurrency=4)
    cfg.graph.max_gleanings = 0
    cfg.graph.description_max_tokens = 40
    cfg.chunking.size, cfg.chunking.overlap = 120, 10
    return cfg


def summary_calls(server) -> list[RecordedRequest]:
    return [r for r in server.chat_requests() if MARK_DESCRIBE in r.last_user]


def shape(g: nx.Graph) -> tuple:
    return (sorted(g.nodes(data="descriptions")), sorted(g.nodes(data="description")),
            sorted((a, b, tuple(d["descriptions"]), d["description"]) for a, b, d in g.edges(data=True)))


async def test_streamed_summaries_give_the_same_graph_with_no_more_calls_and_start_before_the_end():
    async with FakeLLMServer(model).running() as s:
        cfg = graph_config(s)
        streamed = await extract_graph(documents(), cfg)
        calls = summary_calls(s)
        first_summary = min(r.started for r in calls)
        last_extraction = max(r.finished for r in s.chat_requests() if MARK_DESCRIBE not in r.last_user)

        # today's way, for reference: the same extractions, summaries only once the graph is merged
        tokenizer = Tokenizer(cfg.llm.model)
        chunks, _ = _chunks_of(documents(), cfg, tokenizer)
        before = len(s.chat_requests())
        async with ChatClient(cfg.llm) as client:
            reference = await build_graph(chunks, streamed.extractions, cfg, Scheduler(client), tokenizer,
                                          GraphStats())
        reference_calls = len(s.chat_requests()) - before
    assert streamed.stats.summarized_descriptions > 3 and reference_calls > 3
    assert shape(streamed.output) == shape(reference)
    assert len(calls) <= reference_calls
    assert first_summary < last_extraction  # the fast documents' people were summarized before the slow one


async def test_only_a_node_whose_descriptions_changed_is_summarized_again():
    async with FakeLLMServer(model).running() as s:
        cfg = graph_config(s)
        tokenizer = Tokenizer(cfg.llm.model)
        chunks, _ = _chunks_of(documents(), cfg, tokenizer)
        async with ChatClient(cfg.llm) as client:
            scheduler = Scheduler(client)
            llm = scheduler.llm("graph")
            parser = record_parser(cfg.graph)
            extractions = {}
            for c in chunks:
                answer = await llm.chat(llm.request([{"role": "user", "content": cfg_prompt(cfg, c.text)}]))
                extractions[c.id] = ChunkExtraction(c.id, [answer.text], 0, 0, 0, 0)
            memo = SummaryMemo()
            async with trio.open_nursery() as nursery:
                stream = DescriptionStream(chunks, cfg.graph, scheduler.llm("graph.describe"), tokenizer, memo,
                                           nursery)
                await stream.add([(c, lambda c=c: parse_extraction(extractions[c.id], c, parser)) for c in chunks])
            early = len(summary_calls(s))
            graph = await build_graph(chunks, extractions, cfg, None, tokenizer, GraphStats())
            # what a resolution stage does: one node takes another's descriptions
            ada, ben = graph.nodes["ada ames"], graph.nodes["ben ames"]
            ada["descriptions"] = sorted(set(ada["descriptions"]) | set(ben["descriptions"]))
            graph.remove_node("ben ames")
            done = await summarize_descriptions(graph, scheduler, tokenizer, cfg.graph.description_max_tokens,
                                                memo=memo)
            late = summary_calls(s)[early:]
    assert early > 3 and done > 3
    # its groups under its key, the last call under its name
    assert {r.last_user.split("They describe the entity ")[1].split(".")[0] for r in late} == {"Ada Ames", "ada ames"}


def cfg_prompt(cfg, text: str) -> str:
    from graphglean.graph.extraction.prompts import GraphPrompts

    return GraphPrompts.from_config(cfg.graph).extraction(text)


def test_named_words_count_capitalized_words_inside_sentences():
    assert named_words("Ada Ames met Ben at the Old Mill. The rain fell. Then Ben left") == 5
    assert named_words("ein satz ohne namen. noch einer") == 0


def test_descriptions_too_short_for_the_budget_are_not_counted():
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from graphglean.graph.building.describe import needs_summary

    tok = Tokenizer("gpt-4")
    counted = []

    class Counting:
        def count(self, text):
            counted.append(text)
            return tok.count(text)

    assert not needs_summary(["short", "texts"], 100, Counting()) and counted == []
    assert needs_summary(["a longer text " * 10, "and another"], 20, Counting()) and len(counted) == 1

    @settings(max_examples=200, deadline=None)
    @given(st.lists(st.text(max_size=30), max_size=4), st.integers(0, 60))
    def same_answer_as_counting(descriptions, budget):
        plain = len(descriptions) > 1 and tok.count("\n".join(descriptions)) > budget
        assert needs_summary(descriptions, budget, tok) == plain

    same_answer_as_counting()


def _named_words_by_scan(text: str) -> int:
    """The first reading of `named_words`, word by word with a regex scan."""
    count, previous = 0, "."
    for match in re.finditer(r"\S+", text):
        word = match.group()
        if word[:1].isupper() and not previous.endswith((".", "!", "?", ":", ";", "\u3002")):
            count += 1
        previous = word
    return count


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["Ada", "ben", "Old.", "mill!", "\u00c9mile", "x:", "\u3002", "Z;", "?", " ", "\t",
                                 "\n", "\u00a0", "\u2003", "\u3000", "\x1c", "\u0130", "\u01c5ab", "", "\u03a3"]),
                max_size=30).map("".join))
def test_named_words_reads_as_a_regex_scan_does(text):
    assert named_words(text) == _named_words_by_scan(text)




def shouting_model(slow: str):
    """`model`, writing the names of a sentence from day 9 on in capitals, twice (so a node's most frequent
    name, the one it is shown by, changes once the second chunk of a document is read); a passage holding
    ``slow`` is answered late."""
    def respond(req: RecordedRequest) -> Reply:
        last = req.last_user
        if req.max_tokens == 1 or MARK_LOOP in last or MARK_DESCRIBE in last:
            return model(req)
        passage = passage_of(req.messages[0]["content"])
        out = []
        for sentence in re.split(r"(?<=\.)\s+", passage):
            loud = re.search(r"day (?:9|\d\d)\b", sentence)
            names = [n.upper() if loud else n for n in NAME.findall(sentence)]
            out += [f'("entity"<|>{n}<|>person<|>{n}: {sentence}{again})' for n in names
                    for again in (("", " Again.") if loud else ("",))]
            out += [f'("relationship"<|>{a}<|>{b}<|>{sentence}<|>3)' for a, b in zip(names, names[1:])]
        return Reply("##\n".join(out) + "\n<|COMPLETE|>", delay=0.5 if slow in passage else 0.0)
    return respond


async def test_the_summaries_asked_are_the_same_whichever_chunks_finish_first():
    """Early summary calls are made only where the final pass makes the same call, under the name it uses,
    and the early calls are all made even when the final graph changed their node: the calls made are a
    function of the input, not of which answers came first."""
    asked = []
    for slow in ("day 22", "day 0 "):  # each document's second chunk answered last, then its first
        async with FakeLLMServer(shouting_model(slow)).running() as s:
            cfg = graph_config(s)
            cfg.graph.description_max_tokens = 10
            await extract_graph(documents(), cfg)
            asked.append(sorted(r.last_user for r in summary_calls(s)))
    assert asked[0] and asked[0] == asked[1]
