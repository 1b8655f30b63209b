"""Grounding's plain-search path finds exactly what the name patterns find; names of scripts written without
word spaces are found inside their words."""

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
    _spaced_word,
    ground,
)
from graphglean.text.chunking import Chunk
from graphglean.text.words import UNSPACED, joins_words

# pieces chosen to meet every rule of the pattern: case, whitespace of every kind between words, word edges
# (letters, digits, "_", accents), characters that fold to ASCII letters, lower-casing that changes length,
# scripts written without word spaces on either side of a name's edge and of the text's character next to it
WORDS = ["ada", "Ada", "ADA", "lovelace", "Lovelace", "dr.", "Dr.", "c++", "at&t", "x", "k", "s", "i", "ß", "é",
         "Zoë", "日本", "o'neil", "_ada", "ada_", "42", "a-b", "张伟", "iPhone", "手机", "Lin", "Berlin", "ไทย", "서울"]
GAPS = [" ", "  ", "\t", "\n", "\r\n", "\xa0", "\u2003", "\x1c", "\x85", "\u2028", "", "-", "_", ".", ",", "é",
        "1", "\u0130", "\u0131", "\u017f", "\u212a", "K", "\u03a3", "\u1e9e", "是", "\u3000", "에서", "ก", "Ｂ"]
UNSPACED_CHAR = re.compile(f"[{UNSPACED}]")


def reference_spans(name, text):
    """Where ``name``'s pattern matches ``text`` at each place in turn (as ``finditer`` with lookarounds would):
    not next to a letter or digit of a spaced script where the name's edge is of one."""
    pattern, words = _name_pattern(name), name.split()
    spaced_start, spaced_end = (not UNSPACED_CHAR.fullmatch(c) for c in (words[0][0], words[-1][-1]))

    def word(c):
        return c.isalnum() and not UNSPACED_CHAR.fullmatch(c)

    found, i = [], 0
    while i < len(text):
        m = pattern.match(text, i)
        if m and not (spaced_start and i and word(text[i - 1])) and not (
                spaced_end and m.end() < len(text) and word(text[m.end()])):
            found.append(m.span())
            i = m.end()
        else:
            i += 1
    return found


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
    expected = reference_spans(name, text)
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
    assert set(UNSPACED_CHAR.findall(every)) == {c for c in every if joins_words(c)}
    assert set(re.findall(f"[^\\W_{UNSPACED}]", every)) == {c for c in every if _spaced_word(c)}


def _pattern_spans(node, data, chunks):
    """Grounding as it was: every name's pattern over every cited chunk."""
    names = [n for n in dict.fromkeys([data.get("name") or node, *data.get("aliases", [])]) if n.split()]
    spans = []
    for cid in data["source_ids"]:
        if cid in chunks:
            found = {span for n in names for span in reference_spans(n, chunks[cid].text)}
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


def found(name, text):
    return [text[a:b] for a, b in Name(name).find_all(text, _comparable_lower(text))]


CHINESE = "张伟是北京协和医院的外科医生。张伟培训了李娜三年。"


def test_names_of_scripts_without_word_spaces_are_found_inside_their_text():
    assert found("张伟", CHINESE) == ["张伟", "张伟"] and found("李娜", CHINESE) == ["李娜"]
    assert found("北京协和医院", CHINESE) == ["北京协和医院"]
    assert found("東京大学", "山田太郎は東京大学で教えている。") == ["東京大学"]
    assert found("กรุงเทพ", "สมชายไปกรุงเทพเมื่อวาน") == ["กรุงเทพ"]  # Thai
    assert found("ວຽງຈັນ", "ຂ້ອຍໄປວຽງຈັນມື້ວານ") == ["ວຽງຈັນ"]  # Lao
    assert found("ភ្នំពេញ", "ខ្ញុំរស់នៅភ្នំពេញ។") == ["ភ្នំពេញ"]  # Khmer
    assert found("ရန်ကုန်", "ကျွန်တော်ရန်ကုန်မှာနေတယ်။") == ["ရန်ကုန်"]  # Burmese
    assert found("이순신", "서울에서 이순신을 만났다") == ["이순신"]  # Korean: a particle joins the name


def test_a_line_break_or_a_space_inside_an_unspaced_name_is_no_gap():
    assert found("北京协和医院", "他在北京协和\n医院工作") == ["北京协和\n医院"]
    assert found("山田 太郎", "山田太郎は教授だ") == ["山田太郎"] and found("山田太郎", "山田 太郎は") == ["山田 太郎"]


def test_a_spaced_script_edge_is_a_whole_word_only_next_to_a_spaced_script():
    assert found("iPhone", "我买了iPhone手机。") == ["iPhone"] and found("iPhone手机", "他的iPhone手机坏了") == ["iPhone手机"]
    assert found("Python", "用Python编程") == ["Python"]
    assert found("Lin", "Berlin and Linz") == [] and found("Lin", "Berlin林Lin是") == ["Lin"]
    assert found("张Lin", "张Linx, 张Lin是") == ["张Lin"]
    assert found("7号线", "地铁17号线和7号线") == ["7号线"]  # a digit is no letter of an unspaced script
    assert found("Zoë", "ZoëA Zoë是") == ["Zoë"]  # the pattern's path: a non-ASCII name


def test_grounding_finds_chinese_names_and_keeps_them_when_ungrounded_nodes_are_dropped():
    text = "Preface.\n" + CHINESE
    chunks = {"c": Chunk("c", "d", 0, text, 100, 100 + len(text), 0)}
    graph = nx.Graph()
    for name in ["张伟", "李娜", "北京协和医院", "王芳"]:
        graph.add_node(name, name=name, source_ids=["c"])
    assert ground(graph, chunks, drop_ungrounded=True) == 1
    assert set(graph) == {"张伟", "李娜", "北京协和医院"}  # 王芳 is not in the text
    assert [text[a - 100:b - 100] for _, a, b in graph.nodes["张伟"]["spans"]] == ["张伟", "张伟"]


def test_unspaced_names_in_decomposed_text_point_into_the_original():
    import unicodedata

    text = unicodedata.normalize("NFD", "東京のグランドホテルでガブリエル・ガルシアに会った。")
    assert text != unicodedata.normalize("NFC", text)  # グ, ガ, ブ decompose
    graph = nx.Graph()
    for name in ["グランドホテル", "ガブリエル・ガルシア"]:
        graph.add_node(name, name=name, source_ids=["c"])
    ground(graph, {"c": Chunk("c", "d", 0, text, 0, len(text), 0)})
    for name in graph:
        [[_, a, b]] = graph.nodes[name]["spans"]
        assert unicodedata.normalize("NFC", text[a:b]) == name


def _chinese_answer(req):
    if "Records:" in req.last_user and req.assistant_turns == 0:
        return ('("entity"<|>张伟<|>person<|>外科医生。)##\n("entity"<|>李娜<|>person<|>张伟的学生。)##\n'
                '("entity"<|>北京协和医院<|>organization<|>医院。)##\n'
                '("relationship"<|>张伟<|>北京协和医院<|>在这里工作<|>8)##\n'
                '("relationship"<|>张伟<|>李娜<|>培训了她三年<|>7)\n<|COMPLETE|>')
    return "NO" if req.max_tokens == 1 else "<|COMPLETE|>"


async def test_a_run_on_chinese_text_keeps_its_nodes_when_ungrounded_ones_are_dropped():
    from graphglean.graph.extract import extract_graph
    from graphglean.testing import FakeLLMServer

    from .helpers import config

    async with FakeLLMServer(_chinese_answer).running() as s:
        cfg = config(s)
        cfg.graph.drop_ungrounded = True
        graph = (await extract_graph(CHINESE, cfg)).output
    assert {d["name"] for _, d in graph.nodes(data=True)} == {"张伟", "李娜", "北京协和医院"}
    assert all(d["grounded"] for _, d in graph.nodes(data=True)) and graph.number_of_edges() == 2
    assert sorted(CHINESE[a:b] for _, d in graph.nodes(data=True) for _, a, b in d["spans"]) == sorted(
        ["张伟", "张伟", "李娜", "北京协和医院"])
