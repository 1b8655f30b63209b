"""Unicode NFC: matching reads composed text (decomposed accents from macOS or PDF extractors match composed
names), and what it finds points into the original text."""

from __future__ import annotations

import io
import json
import unicodedata

import networkx as nx
from hypothesis import given, settings
from hypothesis import strategies as st

from graphglean.graph.building.grounding import ground
from graphglean.graph.extraction.parser import RecordParser
from graphglean.graph.resolution.names import read_name
from graphglean.launch import run
from graphglean.testing import FakeLLMServer
from graphglean.text.chunking import Chunk
from graphglean.text.language import detect, script_of
from graphglean.text.nfc import Composed, nfc
from graphglean.view import ChunkText, build_payload

from .helpers import config

NFD = lambda text: unicodedata.normalize("NFD", text)  # noqa: E731
# characters whose normal forms differ in every way: accents that compose, marks that reorder, Hangul jamo,
# Indic vowel signs made of two parts, singletons (Å as an Angstrom sign), marks that decompose into marks
PIECES = ["a", "e", "u", "A", "x", " ", ".", "\u0301", "\u0308", "\u0327", "\u0316", "\u0300", "\u1100", "\u1161",
          "\u11a8", "\u0b47", "\u0b3e", "\u0b57", "\u212b", "\u0f73", "\u0344", "\u0958", "\u093c", "\u00e9",
          "\u1e0a", "\u0323", "\u0cbf", "\u0cd5", "\u3099", "\u304b", "\U0001d15e", "\u2126", "\u0387"]


@settings(max_examples=800, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=16))
def test_the_composed_text_is_the_nfc_and_its_spans_come_back_to_the_original(pieces):
    original = "".join(pieces)
    composed = Composed(original)
    assert composed.text == unicodedata.normalize("NFC", original)
    n = len(composed.text)
    # where a character does not attach to the one before it (what names start and end at)
    edges = [i for i in range(n + 1) if i in (0, n) or not unicodedata.combining(NFD(composed.text[i])[0])]
    for a in edges:
        for b in edges:
            if a <= b:
                x, y = composed.span(a, b)
                assert 0 <= x <= y <= len(original)
                assert composed.text[a:b] in unicodedata.normalize("NFC", original[x:y])


def test_nfc_text_is_its_own_view():
    assert Composed.of("Zürich") is None and nfc("Zürich") == "Zürich" and nfc(NFD("Zürich")) == "Zürich"


TEXT = NFD("Société Générale cut 900 jobs in Île-de-France. Zürich-based UBS and Nestlé were named in the "
           "Müller report; 한국은행 agreed.")


def test_grounding_finds_composed_names_in_decomposed_text_and_points_into_it():
    chunk = Chunk("c", "d", 0, TEXT, 40, 40 + len(TEXT), 0)  # the chunk starts at offset 40 of its document
    g = nx.Graph()
    names = ["Société Générale", "Île-de-France", "Zürich", "Nestlé", "Müller Report", "한국은행", "UBS"]
    for name in names:
        g.add_node(name.casefold(), name=name, source_ids=["c"])
    g.add_node("zurich", name=NFD("ZÜRICH"), source_ids=["c"])  # a decomposed name too
    assert ground(g, {"c": chunk}) == 0
    for name in names + ["Zürich"]:
        [[cid, start, end]] = g.nodes[name.casefold()]["spans"]
        assert nfc(TEXT[start - 40:end - 40]).casefold() == name.casefold()


def test_graph_html_marks_the_decomposed_names_where_grounding_found_them():
    chunk = Chunk("c", "d", 0, TEXT, 0, len(TEXT), 0)
    g = nx.Graph()
    g.add_node("nestlé", name="Nestlé", type="organization", source_ids=["c"])
    ground(g, {"c": chunk})
    payload = build_payload(g, [ChunkText("c", "d", 0, 0, TEXT)])
    [[number, ranges]] = payload["nodes"][0]["src"]
    text = payload["chunks"][number]["text"]
    assert nfc(text[ranges[2]:ranges[3]]) == "Nestlé" and "Müller report" in nfc(text[ranges[0]:ranges[1]])


def test_record_names_are_read_in_nfc():
    r = RecordParser().parse(f'("entity"<|>{NFD("Zürich")}<|>{NFD("géo")}<|>A city.)##'
                             f'("relationship"<|>{NFD("Zürich")}<|>{NFD("Nestlé")}<|>near<|>3)')
    assert [(e.name, e.type) for e in r.entities] == [("Zürich", "géo")]
    assert [(x.source_name, x.target_name) for x in r.relationships] == [("Zürich", "Nestlé")]


def test_resolution_keys_do_not_see_the_form():
    for name in ["Société Générale S.A.", "Mrs. Müller", "Île-de-France", "한국은행", "Ελλάδα"]:
        a, b = read_name(name), read_name(NFD(name))
        assert (a.key, a.core, a.person, a.initials) == (b.key, b.core, b.person, b.initials)


VIETNAMESE = ("Ủy ban đã họp vào thứ Hai và đồng ý rằng kế hoạch chưa sẵn sàng, nhưng nó sẽ được trình bày trong "
              "tháng Năm cho những người của bộ và các thành viên khác.")


def test_language_and_script_are_read_in_nfc():
    assert detect(VIETNAMESE).language == detect(NFD(VIETNAMESE)).language == "vi"
    korean = "위원회는 월요일에 모여 계획이 아직 준비되지 않았지만 오월에는 제출될 것이라는 데 동의했다."
    assert detect(NFD(korean)).language == "ko"
    assert script_of(NFD("Zürich")) == "Latin" and script_of("東京") == "Han" and script_of("42") == ""


def _answer(req):
    if "Records:" in req.last_user and req.assistant_turns == 0:
        return ('("entity"<|>Société Générale<|>organization<|>A bank.)##\n("entity"<|>Île-de-France<|>geo<|>A '
                'region.)##\n("relationship"<|>Société Générale<|>Île-de-France<|>cuts jobs there<|>7)\n<|COMPLETE|>')
    return "NO" if req.max_tokens == 1 else "<|COMPLETE|>"


async def test_a_run_on_decomposed_text_grounds_its_names_in_the_original(tmp_path):
    source = tmp_path / "in.txt"
    source.write_text(TEXT, encoding="utf-8")
    async with FakeLLMServer(_answer).running() as s:
        cfg = config(s)
        cfg.input.path, cfg.output.dir, cfg.output.formats = str(source), str(tmp_path / "out"), ["jsonl", "html"]
        await run(cfg, out=io.StringIO())
    rows = [json.loads(line) for line in (tmp_path / "out" / "entities.jsonl").open(encoding="utf-8")]
    assert {r["name"] for r in rows} == {"Société Générale", "Île-de-France"}
    for r in rows:
        assert r["grounded"] and [nfc(TEXT[a:b]) for _, a, b in r["spans"]] == [r["name"]]
