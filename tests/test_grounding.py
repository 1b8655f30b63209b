"""Grounding's plain-search path finds exactly what the name patterns find."""

from __future__ import annotations

import re

import networkx as nx
from hypothesis import given, settings
from hypothesis import strategies as st

from graphglean.graph.building.grounding import (
    _FOLDS_TO_ASCII,
    Name,
    _comparable_lower,
    _name_pattern,
    _outermost,
    ground,
)
from graphglean.text.chunking import Chunk

# pieces chosen to meet every rule of the pattern: case, whitespace of every kind between words, word edges
# (letters, digits, "_", accents), characters that fold to ASCII letters, lower-casing that changes length
WORDS = ["ada", "Ada", "ADA", "lovelace", "Lovelace", "dr.", "Dr.", "c++", "at&t", "x", "k", "s", "i", "ß", "é",
         "Zoë", "日本", "o'neil", "_ada", "ada_", "42", "a-b"]
GAPS = [" ", "  ", "\t", "\n", "\r\n", "\xa0", "\u2003", "\x1c", "\x85", "\u2028", "", "-", "_", ".", ",", "é",
        "1", "\u0130", "\u0131", "\u017f", "\u212a", "K", "\u03a3", "\u1e9e"]


@st.composite
def names_and_texts(draw):
    name = " ".join(draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=3)))
    variants = [name, name.upper(), name.lower(), name.replace(" ", "\n "), name.replace(" ", "\xa0")]
    pieces = draw(st.lists(st.sampled_from(WORDS) | st.sampled_from(variants), max_size=12))
    gaps = draw(st.lists(st.sampled_from(GAPS), min_size=len(pieces) + 1, max_size=len(pieces) + 1))
    return name, "".join(g + p for g, p in zip(gaps, pieces + [""]))


@settings(max_examples=1500, deadline=None)
@given(names_and_texts())
def test_a_name_is_found_where_its_pattern_matches(case):
    name, text = case
    expected = [m.span() for m in _name_pattern(name).finditer(text)]
    assert Name(name).find_all(text, _comparable_lower(text)) == expected
    assert Name(name).find_all(text, None) == expected  # the pattern itself, where the text is not comparable


def test_the_characters_that_fold_to_ascii_are_all_known():
    others = "".join(map(chr, range(128, 0x110000)))
    for a in map(chr, range(128)):  # case-insensitively, an ASCII character matches these non-ASCII ones
        for m in re.finditer(re.escape(a), others, re.I):
            assert _FOLDS_TO_ASCII.fullmatch(m.group()), (a, hex(ord(m.group())))
    for c in others:
        low = c.lower()
        if len(low) == 1 and low.isascii():
            assert _FOLDS_TO_ASCII.fullmatch(c), hex(ord(c))


def test_word_edges_and_gaps_are_the_string_predicates_the_plain_search_uses():
    every = "".join(map(chr, range(0x110000)))
    assert set(re.findall(r"[^\W_]", every)) == {c for c in every if c.isalnum()}
    assert set(re.findall(r"\s", every)) == {c for c in every if c.isspace()}


def _pattern_spans(node, data, chunks):
    """Grounding as it was: every name's pattern over every cited chunk."""
    patterns = [p for p in map(_name_pattern, dict.fromkeys([data.get("name") or node, *data.get("aliases", [])]))
                if p is not None]
    spans = []
    for cid in data["source_ids"]:
        if cid in chunks:
            found = {m.span() for p in patterns for m in p.finditer(chunks[cid].text)}
            spans += [[cid, chunks[cid].start + a, chunks[cid].start + b] for a, b in _outermost(found)]
    return spans


@settings(max_examples=200, deadline=None)
@given(st.lists(names_and_texts(), min_size=1, max_size=6), st.lists(st.sampled_from(WORDS), max_size=2),
       st.data())
def test_grounding_gives_the_spans_of_the_name_patterns(cases, aliases, data):
    chunks = {f"c{i}": Chunk(f"c{i}", "d", i, text, 7 * i, 7 * i + len(text), 0) for i, (_, text) in enumerate(cases)}
    graph = nx.Graph()
    for i, (name, _) in enumerate(cases):
        cited = data.draw(st.lists(st.sampled_from([*chunks, "gone"]), max_size=4, unique=True))
        graph.add_node(f"n{i}", name=name, aliases=aliases[: i % 3], source_ids=cited)
    expected = {n: _pattern_spans(n, d, chunks) for n, d in graph.nodes(data=True)}
    ground(graph, chunks)
    assert {n: d["spans"] for n, d in graph.nodes(data=True)} == expected
    assert all(d["grounded"] == bool(d["spans"]) for _, d in graph.nodes(data=True))
