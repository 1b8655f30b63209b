"""Parser debris: no node name keeps a piece of the answer's format (a broken delimiter, pipes, arrows, a stray
quote) that the input text does not hold, and the records around it are read as meant."""

import random
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphglean.graph.extract import extract_graph, parse_extraction
from graphglean.graph.extraction.debris import clean_names, foreign
from graphglean.graph.extraction.gleaning import ChunkExtraction
from graphglean.graph.extraction.parser import RecordParser
from graphglean.graph.records import EntityRecord, ParseResult, RelationshipRecord
from graphglean.testing import FakeLLMServer
from graphglean.testing.models.garbling import BROKEN, garbled_answer
from graphglean.testing.models.responders import ReplayResponder
from graphglean.text.chunking import Chunk
from graphglean.text.inputs import Inputs

from .helpers import config, replayed_graph

TEXT = ("The Government evaluates each Offeror. Annex 1606000 Water covers the supply. The Navy hires a Contractor "
        "at Naval Base Norfolk.")
TUPLE, LINE = RecordParser(), RecordParser("<|#|>", "##", "<|COMPLETE|>")


def read(answer, text=TEXT):
    parser = LINE if "<|#|>" in answer or "<#>" in answer else TUPLE
    chunk = Chunk("c1", "d", 0, text, 0, len(text), 0)
    result = parse_extraction(ChunkExtraction("c1", [answer], 0, 0, 0, 0), chunk, parser)
    return ([e.name for e in result.entities], [(r.source_name, r.target_name) for r in result.relationships],
            result)


@pytest.mark.parametrize("broken", [*BROKEN, "<|#|#|>", "<| # |>", "<||#| >", "|#|>"])
def test_a_broken_delimiter_after_a_name_is_a_delimiter(broken):
    names, _, _ = read(f"entity<|#|>Annex 1606000 Water{broken}location<|#|>The water annex.\n<|COMPLETE|>")
    assert names == ["Annex 1606000 Water"]
    _, found, _ = read(f"relation<|#|>Navy{broken}Contractor<|#|>hires<|#|>The Navy hires a contractor.")
    assert found == [("Navy", "Contractor")]


@pytest.mark.parametrize("answer,pairs", [
    ("relation<|#|>Government|Offeror|evaluates|The Government evaluates each Offeror.", [("Government", "Offeror")]),
    ("relation<|#|>Government<|#|>Offeror|evaluates|The Government evaluates.", [("Government", "Offeror")]),
    ('("relationship"<|>Government|Offeror|The Government evaluates each Offeror.|7)', [("Government", "Offeror")]),
    ("relation<|#|>Government -> Offeror<|#|>evaluates<|#|>The Government evaluates.", [("Government", "Offeror")]),
    ('("relationship"<|>"Navy" -> "Contractor"<|>"The Navy hires a contractor."<|>8)', [("Navy", "Contractor")]),
    ('("relationship" -> "Navy" -> "Contractor" -> "The Navy hires a contractor." -> 8)', [("Navy", "Contractor")]),
    ('("relationship"<|>Navy<|>-> "Contractor"<|>The Navy hires a contractor.<|>8)', [("Navy", "Contractor")]),
    ('("relationship"<|>Navy \u2192 Contractor<|>The Navy hires a contractor.<|>8)', [("Navy", "Contractor")]),
])
def test_pipes_and_arrows_between_names_are_read_as_fields(answer, pairs):
    names, found, result = read(answer)
    assert found == pairs and not result.malformed


@pytest.mark.parametrize("answer", [
    '("relationship"<|>"source_entity" -> "target_entity"<|>"desc"<|>8)',
    '("relationship"<|>"Navy"<|>-> "target_entity"|>desc<|>5)',
    '("entity"<|>-> "name"<|>person<|>A person.)',
    '("entity" -> "name" -> "type" -> "description")',
])
def test_the_format_line_copied_with_arrows_is_a_placeholder_row(answer):
    names, found, result = read(answer)
    assert names == [] and found == [] and result.placeholders == 1


def test_a_name_the_reading_leaves_with_format_pieces_is_cut_or_set_aside_by_the_chunk_text():
    answer = ('("entity"<|>Naval Base "Norfolk<|>geo<|>A base.)##\n'
              '("entity"<|>Government|Offeror|evaluates|\u2026<|>organization<|>The buyer.)##\n'
              '("entity"<|>Port||Side<|>person<|>Someone.)')
    names, _, result = read(answer)
    assert names == ["Naval Base Norfolk"] and result.repaired_names == 1
    assert [m.split(" | ")[1] for m in result.malformed] == ["Government|Offeror|evaluates|\u2026", "Port||Side"]


@pytest.mark.parametrize("name,text", [
    ("a || b", "The operator a || b is lazy."), ("C->D", "Then C->D holds."), ('12" Pipe', 'A 12" pipe burst.'),
    ('Dwayne "The Rock" Johnson', "Dwayne 'The Rock' Johnson acts."), ("Ada|Byron", "Signed Ada|Byron."),
])
def test_names_whose_text_holds_the_same_characters_are_kept(name, text):
    names, _, result = read(f'("entity"<|>{name}<|>person<|>Named so.)', text)
    assert names == [name] and result.repaired_names == 0


async def test_garbled_real_answers_leave_no_debris_and_keep_every_grounded_name():
    folder = "lightrag-llama3.1-abstracts"
    clean, chunks = await replayed_graph(folder)
    garbled, _ = await replayed_graph(folder, garble=0.3)
    text = "\n".join(c.text for c in chunks)
    names = [d["name"] for _, d in garbled.nodes(data=True)]
    assert not [n for n in names if any(f in n and f not in text for f in ("<|", "|>", "||", "->", '"'))]
    grounded = {n for n, d in clean.nodes(data=True) if d["grounded"]}
    assert len(grounded) > 50 and grounded <= set(garbled.nodes)
    assert {e for e in clean.edges if set(e) <= grounded} <= set(garbled.edges)


def test_the_garbler_garbles():
    rng = random.Random(1)
    answer = "\n".join(f"relation<|#|>A{i} B<|#|>C{i}<|#|>kw<|#|>desc {i}" for i in range(50))
    assert sum(a != b for a, b in zip(answer.split("\n"), garbled_answer(answer, 0.5, rng).split("\n"))) > 15


QUOTES_SET = Path(__file__).parent / "data" / "quotes_ta_en.jsonl"
TAMIL = "சென்னையில் உள்ள அண்ணா நகரில் ராஜா என்ற தையல்காரர் வசித்து வந்தார். அவர் மதுரையைச் சேர்ந்தவர் என்று ஒரு வதந்தி பரவியது."
RUMOR = ('Raja, a tailor in Anna Nagar, was said to come from Madurai. His neighbour Kumaran runs Murugan Textiles '
         'shop; the "Vikram" lander and Dwayne "The Rock" Fernando were in the news.')


@pytest.mark.parametrize("name, text, kept", [
    ('"Raja"/"Raja the tailor"', RUMOR, "Raja"),  # alternatives: the first the text holds
    ('"Raja" (rumor)', RUMOR, "Raja"),  # a note after the quoted name
    ('"Kumaran", "neighbour"', RUMOR, "Kumaran"),
    ('"Madurai" or "Maturai"', RUMOR, "Madurai"),
    ('"Anna Nagar" aka "the tailors\' quarter"', RUMOR, "Anna Nagar"),
    ('\u201cMadurai\u201d/\u201cMaturai\u201d', RUMOR, "Madurai"),  # curly quotes
    ("'Madurai'/'Maturai'", RUMOR, "Madurai"),  # single quotes
    ('"Murugan Textiles" shop', RUMOR, "Murugan Textiles shop"),  # the text holds it unquoted
    ('"Kumaran" shop', RUMOR, "Kumaran"),  # a word of the model's after a quoted name
    ('Dwayne "The Rock" "Fernando', RUMOR, 'Dwayne "The Rock" Fernando'),  # one stray quote
    ('Dwayne "The Rocky" Fernando', RUMOR, "Dwayne The Rocky Fernando"),  # quotes of the model's own
    ('"Zeta"/"Eta"', RUMOR, "Zeta"),  # neither in the text: the first
    ('"சென்னை"/"Chennai"', TAMIL, "சென்னை"),  # the text's script, after a vowel sign
    ('"ராஜா" (rumor)', TAMIL, "ராஜா"),
    ('"மதுரை" (வதந்தி)', TAMIL, "மதுரை"),  # a Tamil note; the text inflects the name (மதுரையைச்)
    ('"Chennai"/"சென்னை"', TAMIL, "சென்னை"),
    ('-> "Raja"/"Raja the tailor"', RUMOR, "Raja"),  # an arrow before it too
    ('\\"Raja\\"/\\"Raja the tailor\\"', RUMOR, "Raja"),  # quotes escaped as in JSON
    ('"Raja" and "Kumaran"', RUMOR, "Raja"),
    ('“Raja”（rumor）', RUMOR, "Raja"),  # full-width brackets
    ('"The Rock" Fernando', RUMOR, "The Rock"),  # the text holds it, but a merge would cut its first quote
])
def test_names_built_from_quote_fragments_are_read_as_the_name_they_quote(name, text, kept):
    names, found, result = read(f'("entity"<|>{name}<|>person<|>Someone.)##\n'
                                f'("relationship"<|>{name}<|>Kumaran<|>knows<|>5)', text)
    assert names == [kept] and found == [(kept, "Kumaran")] and result.repaired_names >= 1
    assert not result.malformed


@pytest.mark.parametrize("name, text", [
    ("Priya's Kitchen", "Priya's Kitchen opened."), ("Grocers' Shops", "the Grocers' windows"),
    ('Dwayne "The Rock" Johnson', "Dwayne 'The Rock' Johnson acts."), ('"Love"/"Hate"', 'The single "Love"/"Hate".'),
])
def test_apostrophes_and_quotes_the_text_holds_stay(name, text):
    names, _, result = read(f'("entity"<|>{name}<|>person<|>Named so.)', text)
    assert names == [name.strip('"') if name.count('"') == 4 else name] and result.repaired_names == 0


HEBREW = "נשיא ארה״ב ג׳ורג׳ בוש ביקר בבסיס צה״ל בת״א."


@pytest.mark.parametrize("name, text, kept", [
    ('ארה"ב', HEBREW, 'ארה"ב'),  # gershayim typed as a quote, the text writes U+05F4
    ('צה"ל', HEBREW, 'צה"ל'),
    ("ג'ורג' בוש", HEBREW, "ג'ורג' בוש"),  # geresh typed as an apostrophe
    ('"ארה"ב"', HEBREW, 'ארה"ב'),  # quoted: the outer quotes go, the word's stays
    ('"ארה"ב"/"USA"', HEBREW, 'ארה"ב'),
    ('ארה״ב', 'נשיא ארה"ב ביקר.', "ארה״ב"),  # and the other way round
    ("мʼята", "свіжа м'ята", "мʼята"),  # the modifier-letter apostrophe
    ('בצה"ל', 'ביקר בצה״ל', 'בצה"ל'),
])
def test_quotes_inside_words_are_parts_of_them_in_every_script(name, text, kept):
    names, _, result = read(f'("entity"<|>{name}<|>geo<|>x)', text)
    assert names == [kept] and not result.malformed


async def test_the_small_model_set_in_tamil_and_english_leaves_no_quote_debris():
    """tests/data/quotes_ta_en.jsonl: answers in the style of qwen2-7B on Tamil and English text, read with the
    defaults (resolution on): no node keeps a quote fragment, every real name is a node."""
    responder = ReplayResponder.from_file(QUOTES_SET)
    chunks = [Chunk(e["chunk_id"], e["chunk_id"], i, e["content"], 0, len(e["content"]), 0)
              for i, e in enumerate(responder.entries)]
    async with FakeLLMServer(responder).running() as s:
        result = await extract_graph(Inputs(chunks=chunks), config(s, max_concurrency=8))
    names = {d["name"] for _, d in result.output.nodes(data=True)}
    text = "\n".join(c.text for c in chunks)
    assert [n for n in names if ('"' in n or "\u201c" in n or "\u201d" in n) and n not in text] == []
    real = {n for e in responder.entries for n in e["real"]}
    assert real - names == {"Vikram", "Murugan Textiles"}  # the text's own longer forms are the nodes
    assert {"Vikram lander", "Murugan Textiles shop"} <= names and result.stats.repaired_names >= 60


async def test_quoted_names_in_real_answers_leave_no_debris_and_keep_every_grounded_name():
    folder = "lightrag-gpt4o-mini-dickens"
    clean, chunks = await replayed_graph(folder)
    garbled, _ = await replayed_graph(folder, garble=0.3, quotes=True)
    text = "\n".join(c.text for c in chunks)
    names = [d["name"] for _, d in garbled.nodes(data=True)]
    assert not [n for n in names if any(q in n and n not in text for q in ('"', "\u201c", "\u201d"))]
    grounded = {n for n, d in clean.nodes(data=True) if d["grounded"]}
    assert len(grounded) > 200 and grounded <= set(garbled.nodes)
    assert {e for e in clean.edges if set(e) <= grounded} <= set(garbled.edges)


_PIECES = ['"', "'", "\u201c", "\u201d", "\u2018", "\u2019", "\u00ab", "\u00bb", "\\", "/", ",", " ", "(", ")", "<|",
           "|>", "|", "->", "#", "or", "Raja", "Kumaran", "சென்னை", "ை", "e\u0301", "s", "x"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.lists(st.sampled_from(_PIECES), min_size=1, max_size=10).map("".join), min_size=1, max_size=4),
       st.lists(st.sampled_from(_PIECES), max_size=30).map("".join))
def test_whatever_the_quotes_no_kept_name_holds_a_piece_its_text_lacks(names, text):
    result = ParseResult()
    result.entities = [EntityRecord(n, "person", "d", None) for n in names]
    result.relationships = [RelationshipRecord(a, b, "d", 1.0, (), None) for a, b in zip(names, names[1:])]
    clean_names(result, text + " " + RUMOR)
    kept = [e.name for e in result.entities] + [n for r in result.relationships for n in (r.source_name, r.target_name)]
    assert not [n for n in kept if foreign(n, text + " " + RUMOR)]
    assert len(result.entities) + len([m for m in result.malformed if m.startswith("entity")]) + result.placeholders \
        >= len(names)


async def _read_set(name: str):
    """A replay set of tests/data read by a run's extraction with the defaults (resolution on)."""
    responder = ReplayResponder.from_file(QUOTES_SET.with_name(name))
    chunks = [Chunk(e["chunk_id"], e["chunk_id"], i, e["content"], 0, len(e["content"]), 0)
              for i, e in enumerate(responder.entries)]
    async with FakeLLMServer(responder).running() as s:
        return responder, chunks, await extract_graph(Inputs(chunks=chunks), config(s, max_concurrency=8))


async def test_a_blind_small_model_set_is_read_whole_with_the_defaults():
    """tests/data/smallmodel_heldback.jsonl, written blind to the parser: 42 answers in the style of small local
    models (31 not in English): lists under "Entities:" headings, tab rows, spaced dashes, key-value items in the
    answer's language, arrows with strengths, types glued to names, glosses, JSON, split records. Every name a
    reader takes from the answers is a node as the chunk writes it (any case), no node keeps a quote or a piece of
    the format, and the relationships are edges (but three whose end is a shorter name of an entity: "华为", "삼성",
    "O'Brien", which resolution leaves to the LLM tier)."""
    responder, chunks, result = await _read_set("smallmodel_heldback.jsonl")
    fold = lambda n: unicodedata.normalize("NFC", n).casefold()  # noqa: E731
    owner = {fold(n): node for node, d in result.output.nodes(data=True) for n in [d["name"], *d.get("aliases", [])]}
    # "Posen" as "Posen (Poznań)": an alias in brackets stays (an acronym's expansion does: "DHF (Dengue ...)")
    assert [n for e in responder.entries for n in e["expected"] if fold(n) not in owner] == ["Posen"]
    assert fold("Posen (Poznań)") in owner
    names = [d["name"] for _, d in result.output.nodes(data=True)]
    text = "\n".join(c.text for c in chunks)
    assert [n for n in names if any(p in n for p in ("<|", "|>", '"', "\u201c", "\u201d")) and n not in text] == []
    pairs = [(a, b) for e in responder.entries for a, b in e["expected_pairs"]]
    missed = [p for p in pairs if not result.output.has_edge(owner[fold(p[0])], owner[fold(p[1])])]
    assert len(pairs) > 190 and len(missed) <= 3, missed


def test_names_are_restored_as_the_chunk_writes_them():
    """A gloss the chunk does not write goes when it is another script's, a note or a type; an alias stays; an
    apostrophe that stands for letters comes back; a misspelt relationship end is its entity's name."""
    from graphglean.graph.building.merge import clean_name
    from graphglean.graph.extraction.debris import restore_names, snap_endpoints
    from graphglean.graph.records import EntityRecord, ParseResult, RelationshipRecord
    text = "大阪城 stands near 't Hooft's office; Frankfurt (Oder), Posen and the Meuse meet the Komisja Europejska."
    result = ParseResult(entities=[EntityRecord(n, "geo", "", None) for n in (
        "大阪城 (Osaka Castle)", "t Hooft", "Frankfurt (Oder)", "Posen (Poznań)", "Meuse [geo]", "Komisja Europejska")],
        relationships=[RelationshipRecord("Komisja Europejskaa", "Posen (Poznań)", "", 1.0)])
    restore_names(result, text)
    snap_endpoints(result)
    assert [e.name for e in result.entities] == ["大阪城", "'t Hooft", "Frankfurt (Oder)", "Posen (Poznań)", "Meuse",
                                                  "Komisja Europejska"]
    assert [(r.source_name, r.target_name) for r in result.relationships] == [("Komisja Europejska", "Posen (Poznań)")]
    assert clean_name("「しらせ」") == "しらせ" and clean_name("'s-Gravenhage") == "'s-Gravenhage"
    assert clean_name("'quoted'") == "quoted"
    plural = ParseResult(entities=[EntityRecord("Cratchit", "person", "", None)],
                         relationships=[RelationshipRecord("Cratchits", "Cratchit", "", 1.0)])
    snap_endpoints(plural)
    assert plural.relationships[0].source_name == "Cratchits"  # a plural is the family, not a misspelling


def test_name_repairs_leave_namesakes_and_numbers_alone():
    """Found by a reviewer: glosses that tell two apart, quoted phrases, a number or a short word one letter off."""
    from graphglean.graph.extraction.debris import misspelt, restore_names
    from graphglean.graph.records import EntityRecord, ParseResult
    result = ParseResult(entities=[EntityRecord(n, "geo", "", None) for n in ("Georgia (state)", "Georgia (country)",
                                                                              "iPhone")])
    restore_names(result, "Georgia, the Peach State, and Georgia, the nation; the 'iPhone 15 Pro' launch")
    assert [e.name for e in result.entities] == ["Georgia (state)", "Georgia (country)", "iPhone"]
    assert not any(misspelt(a, b) for a, b in [("apollo 12", "apollo 11"), ("henry vii", "henry viii"),
                                               ("joan smith", "john smith"), ("homburg", "hamburg"),
                                               ("gambia", "zambia")])
    assert misspelt("organisation for security", "organization for security")


async def test_a_second_blind_small_model_set_reads_records_and_no_prose():
    """tests/data/smallmodel_heldback2.jsonl, written blind after the first was read (36 answers, 33 not in
    English; the asked format broken, lists, tables and key-value items headed in the answer's language, JSON,
    explanations with arrows after the records): no string its prose holds is an entity, no debris, and the
    names a reader takes are nodes but a few (279: 275 at this commit; 156 at the session's start)."""
    responder, chunks, result = await _read_set("smallmodel_heldback2.jsonl")
    fold = lambda n: unicodedata.normalize("NFC", n).casefold()  # noqa: E731
    nodes = {fold(n): d for _, d in result.output.nodes(data=True) for n in [d["name"], *d.get("aliases", [])]}
    prose = [(e["chunk_id"], n) for e in responder.entries for n in e["not_records"]
             if fold(n) in nodes and e["chunk_id"] in nodes[fold(n)]["source_ids"]]
    assert prose == []
    missed = [n for e in responder.entries for n in e["expected"]
              if fold(n) not in nodes and not any(k.startswith(fold(n) + " ") for k in nodes)]
    assert len(missed) <= 5, missed
    text = "\n".join(c.text for c in chunks)
    assert [n for n in (d["name"] for d in nodes.values()) if any(p in n for p in ("<|", "|>")) and n not in text] == []
