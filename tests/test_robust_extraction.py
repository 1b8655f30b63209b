"""Reading answers never raises and never stalls: the parser (every delimiter setting), the debris check against
the chunk, grounding, and the readers of JSON answers (gists, facts, reports, resolution answers), over any
Unicode, empty and huge text. A regular expression that tried every way to split a run of blanks took minutes
on one answer in JSON mode (the parser blanks the JSON it has read), after the answer was paid for."""

from __future__ import annotations

import json
import math

import networkx as nx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphglean.core.answers import parse_json_output, strip_reasoning
from graphglean.graph.building.grounding import ground
from graphglean.graph.communities.reading import holds_report
from graphglean.graph.extract import parse_extraction
from graphglean.graph.extraction.chunk_extraction import ChunkExtraction
from graphglean.graph.extraction.parser import RecordParser
from graphglean.graph.resolution.answers import read_answers
from graphglean.text.chunking import Chunk

from .model_text import any_text, description, name, phrase, word

PARSERS = [RecordParser(), RecordParser("<|#|>", "##", "<|COMPLETE|>"), RecordParser("|", "\n", ""),
           RecordParser("<|>", "##", "<|COMPLETE|>", ("人物", "組織", "சென்னை"))]
FAST = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

answer = st.one_of(
    phrase(0, 30), any_text,
    st.lists(st.one_of(word, name, description, st.sampled_from(
        ["(", ")", '("entity"', "entity", "relationship", "<|>", "<|#|>", "##", "\n", "<|COMPLETE|>", "{", "}",
         '{"name": ', '"', ":", "|", "- ", "**", "<think>", "</think>", "```json", "```", "->", " " * 300])),
        max_size=40).map("".join))


def _fields_are_text(result):
    for e in result.entities:
        assert all(isinstance(v, str) for v in (e.name, e.type, e.description))
    for r in result.relationships:
        assert all(isinstance(v, str) for v in (r.source_name, r.target_name, r.description))
        assert isinstance(r.weight, float) and math.isfinite(r.weight)


@FAST
@given(answer, st.sampled_from(PARSERS), st.booleans())
def test_any_answer_is_read(text, parser, truncated):
    _fields_are_text(parser.parse(text, truncated=truncated))


@FAST
@given(st.lists(answer, min_size=1, max_size=3), phrase(0, 20), st.sampled_from(PARSERS))
def test_any_answer_is_checked_against_any_chunk(answers, text, parser):
    chunk = Chunk("c", "d", 0, text, 0, len(text), 1)
    extraction = ChunkExtraction("c", answers, len(answers) - 1, 0, 0, 0, cut=[False] * (len(answers) - 1) + [True])
    _fields_are_text(parse_extraction(extraction, chunk, parser))


@FAST
@given(st.lists(st.tuples(name, st.lists(st.sampled_from(["c0", "c1", "gone"]), max_size=3)), min_size=1, max_size=6),
       st.lists(phrase(0, 12), min_size=2, max_size=2))
def test_any_names_are_grounded_in_any_text(nodes, texts):
    g = nx.Graph()
    for i, (n, sources) in enumerate(nodes):
        g.add_node(f"n{i}", name=n, source_ids=sources, aliases=[n.upper(), ""])
    chunks = {f"c{i}": Chunk(f"c{i}", "d", i, t, 10 * i, 10 * i + len(t), 1) for i, t in enumerate(texts)}
    ground(g, chunks)
    for _, d in g.nodes(data=True):
        for cid, start, end in d["spans"]:
            assert cid in chunks and start <= end


@FAST
@given(st.one_of(answer, st.recursive(st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), any_text),
                                      lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                              st.dictionaries(any_text, inner, max_size=4)),
                                      max_leaves=12).map(json.dumps)))
def test_any_answer_is_read_as_json_reports_and_verdicts(text):
    try:
        parse_json_output(text)
    except ValueError:
        pass
    strip_reasoning(text)
    holds_report(text)
    assert all(isinstance(k, int) and isinstance(v, bool) for k, v in read_answers(text).items())


@pytest.mark.timeout(120)  # before: hours (a run of n blanks cost n² to n³ steps); now well under a second each
@pytest.mark.parametrize("text", [
    json.dumps({"entities": [{"name": f"Person {i}", "type": "person", "description": f"Person {i} of the story."}
                             for i in range(400)],
                "relationships": [{"source": f"Person {i}", "target": f"Person {i + 1}", "description": "knows",
                                   "strength": 5} for i in range(400)]}),  # JSON mode: one line, blanked once read
    "- " + " " * 20000 + "x",
    "entity" + " " * 20000 + "<|>",
    "(" + "\t" * 20000 + "entity",
    "name:" + " " * 20000 + "value",
    "a" + " " * 20000 + "-> b",
    "\n".join(" " * 5000 for _ in range(8)),
], ids=["json-one-line", "bullet-blanks", "kind-blanks", "open-tabs", "key-blanks", "arrow-blanks", "blank-lines"])
def test_runs_of_blanks_are_read_in_linear_time(text):
    for parser in PARSERS[:2]:
        parser.parse(text)
    parse_extraction(ChunkExtraction("c", [text], 0, 0, 0, 0), Chunk("c", "d", 0, "Person 1", 0, 8, 2), PARSERS[0])


@pytest.mark.timeout(120)  # before: a RecursionError out of every JSON reader, and seconds to minutes each
@pytest.mark.parametrize("text", ["[" * 100000, '{"a": ' * 5000, "x " + '{"entities": [' * 3000,
                                  "[" * 5000 + ' {"name": "Ada", "type": "person"}', "name:" + "\n" * 50000 + "SAME"],
                         ids=["deep-list", "deep-object", "deep-entities", "deep-then-record", "blank-lines"])
def test_deep_json_and_blank_lines_are_no_json_and_read_in_linear_time(text):
    with pytest.raises(ValueError):
        parse_json_output(text)
    holds_report(text)
    assert read_answers(text) == {}
    for parser in PARSERS[:2]:
        _fields_are_text(parser.parse(text))
