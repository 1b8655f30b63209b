"""Shapes QA found read wrong or lost with the default settings: drafts in a closed reasoning block read beside
the answer after it, XML and CSV answers gone without a trace, ``Relationship: A -> B`` blocks, a sentence's full
stop kept on a name, a pronoun made a node; and the safety net under every reading: what no reading takes is
kept as malformed text unless it is chatter."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphglean.graph.extraction.continuation import progressed
from graphglean.graph.extraction.fields import is_pronoun, without_sentence_stop
from graphglean.graph.extraction.shapes.leftovers import is_data
from graphglean.testing import FakeLLMServer
from graphglean.testing.models.responders import ReplayResponder

from .test_cli import cli
from .test_parser import LINE, P, names, pairs


ANSWER = ('("entity"<|>Yusuf Demir<|>person<|>A teacher in Ankara)##\n("entity"<|>Ankara<|>geo<|>A city)##\n'
          '("entity"<|>Ayşe Kaya<|>person<|>A doctor)##\n("relationship"<|>Yusuf Demir<|>Ankara<|>lives in<|>7)\n'
          '<|COMPLETE|>')
DRAFT = ('<think>\nThe passage mentions Yusuf Demir. Maybe I should write ("entity"<|>Draft Person<|>person<|>not real)'
         ' ... also "Mr. Nobody"? No.\n</think>\n')


# -- 1. a closed reasoning block's records are read only where the answer outside it holds none ------------------

def test_drafts_in_a_closed_reasoning_block_are_no_records_beside_the_answer_after_it():
    r = P.parse(DRAFT + ANSWER)  # QA's answer: "Draft Person" was a node
    assert names(r) == ["Yusuf Demir", "Ankara", "Ayşe Kaya"] and pairs(r) == [("Yusuf Demir", "Ankara")]
    assert r.reasoning_records == 0 and r.malformed == []


@pytest.mark.parametrize("draft", [
    '("entity"<|>Draft Person<|>person<|>not real)',
    '{"entities": [{"name": "Draft Person", "type": "person"}]}',
    "- Draft Person (person): not real",
    "entity,Draft Person,person,not real",
    '<entity name="Draft Person" type="person">not real</entity>',
])
@pytest.mark.parametrize("answer", [
    ANSWER,
    '{"entities": [{"name": "Yusuf Demir", "type": "person", "description": "A teacher"}], "relationships": []}',
    "**Entities:**\n- Yusuf Demir (person): A teacher\n- Ankara (geo): A city\n\n**Relationships:**\n"
    "- Yusuf Demir → Ankara: lives in (7)\n",
    "| Name | Type | Description |\n|---|---|---|\n| Yusuf Demir | person | A teacher |\n",
    '<entities><entity name="Yusuf Demir" type="person">A teacher</entity></entities>',
    "entity,Yusuf Demir,person,A teacher\n",
])
def test_every_shape_of_draft_beside_every_shape_of_answer(draft, answer):
    """The same rule for tuples, JSON, lists, tables, XML and CSV, inside the block and after it (a list answer
    after a block holding a tuple draft was lost whole: its draft made it no list answer)."""
    r = P.parse(f"<think>Let me try:\n{draft}\nNo, not that.</think>\n{answer}")
    assert "Draft Person" not in names(r) and "Yusuf Demir" in names(r) and r.reasoning_records == 0


def test_a_closed_block_is_read_where_the_answer_outside_holds_no_record():
    for draft in ('("entity"<|>Ada<|>person<|>x)', '{"entities": [{"name": "Ada", "type": "person"}]}',
                  "- Ada (person): x"):
        r = P.parse(f"<think>{draft}</think>\nThose are all the entities.")
        assert names(r) == ["Ada"] and r.reasoning_records == 1 and r.malformed == []
    r = P.parse("<think>unclosed, the answer inside:\n" + ANSWER.replace("<|COMPLETE|>", ""))
    assert len(names(r)) == 3 and r.reasoning_records == 4


def test_a_continuation_after_a_closed_block_of_drafts_is_progress():
    """A cut answer whose first record after the block is unfinished reads the block's drafts; once continued,
    the answer's own records replace them: fewer records, but progress."""
    drafts = "<think>" + "".join(f'("entity"<|>Draft {i}<|>person<|>x)\n' for i in range(5)) + "</think>\n"
    before = drafts + '("entity"<|>Yusuf Demir<|>person<|>A teach'
    more = 'er)##\n("entity"<|>Ankara<|>geo<|>A city)##\n("entity"<|>Ayşe'
    assert P.parse(before, truncated=True).records == 5
    assert progressed(before, before + more, more, P)


# -- 2. XML and CSV answers; the safety net ------------------------------------------------------------------

XML = ('<entities>\n<entity name="Wiktor Nowak" type="person">A surgeon.</entity>\n'
       '<entity name="Szpital Bielański" type="organization">A hospital in Warsaw.</entity>\n</entities>\n'
       '<relationships><relationship source="Wiktor Nowak" target="Szpital Bielański" strength="8">trained'
       '</relationship></relationships>')


def test_xml_answers_are_read():
    r = P.parse(XML)
    assert [(e.name, e.type, e.description) for e in r.entities] == [
        ("Wiktor Nowak", "person", "A surgeon."), ("Szpital Bielański", "organization", "A hospital in Warsaw.")]
    assert [(x.source_name, x.target_name, x.description, x.weight) for x in r.relationships] == [
        ("Wiktor Nowak", "Szpital Bielański", "trained", 8.0)]
    assert r.malformed == []  # the wrappers holding only records are no leftovers
    fields = ('<?xml version="1.0"?>\n<graph>\n  <entity>\n    <name>Wiktor Nowak</name>\n    <type>person</type>\n'
              '    <description>A surgeon &amp; teacher</description>\n  </entity>\n  <person>Jan Kowalski</person>\n'
              '  <edge><source>Wiktor Nowak</source><target>Jan Kowalski</target><weight>6</weight>'
              '<relation>mentors</relation></edge>\n  <entity name="Anna Zając" type="person"/>\n</graph>')
    r = P.parse(fields)
    assert [(e.name, e.type, e.description) for e in r.entities] == [
        ("Wiktor Nowak", "person", "A surgeon & teacher"), ("Jan Kowalski", "person", ""), ("Anna Zając", "person", "")]
    assert [(x.source_name, x.target_name, x.description, x.weight) for x in r.relationships] == [
        ("Wiktor Nowak", "Jan Kowalski", "mentors", 6.0)]
    assert r.malformed == []


def test_markup_that_names_no_record_is_kept_not_read():
    r = P.parse("Here you go:\n<people>\n  <item>Wiktor Nowak</item>\n</people>\n")
    assert r.records == 0 and r.malformed == ["<people>\n<item>Wiktor Nowak</item>\n</people>"]
    # a bracketed name in a tuple record is no element
    r = LINE.parse("entity<|#|><Parasite><|#|>work<|#|>A film.\nentity<|#|>Bong Joon-ho<|#|>person<|#|>x")
    assert names(r) == ["<Parasite>", "Bong Joon-ho"] and r.malformed == []


_MARKUP = ["<entity", "<entity>", "</entity>", "<relationship", "</relationship>", ' name="', ' source="', ' target="',
           ' type="person"', ' strength="8"', '"', ">", "/>", "<name>", "</name>", "<entities>", "</entities>",
           "<?xml?>", "<!--", "-->", "Wiktor Nowak", "Jan", " ", "\n", "&amp;", ",", "\t", ";", "entity",
           "relationship", '""']


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_MARKUP), max_size=40).map("".join), st.booleans())
def test_any_markup_or_delimited_text_is_read_or_kept(text, truncated):
    r = P.parse(text, truncated=truncated)
    assert all(e.name.strip() for e in r.entities)
    accounted = r.records or r.malformed or r.cut or r.placeholders or r.repeated  # "<entity--><entity>": a placeholder
    assert accounted or not any(map(is_data, text.split("\n")))


def test_markup_nested_deeper_than_records_are_is_text():
    for text in ("<entity>" * 5000 + "</x>", "<entity>" * 5000 + "Wiktor" + "</entity>" * 5000, "</entity>" * 5000):
        r = P.parse(text)  # no RecursionError, and kept
        assert r.records <= 1 and r.malformed


CSV = ('entity,name,type,description\nentity,Daan Visser,person,"A surgeon, at Erasmus Zuid."\n'
       'entity,Femke Smit,person,A nurse.\nentity,Erasmus Zuid,organization,"A hospital in ""Rotterdam"""\n'
       'relationship,Daan Visser,Femke Smit,trained,8\n')


@pytest.mark.parametrize("answer", [
    CSV,
    CSV.replace(",", "\t").replace('"A surgeon\t at Erasmus Zuid."', "A surgeon, at Erasmus Zuid.")
    .replace('"A hospital in ""Rotterdam"""', 'A hospital in "Rotterdam"'),
    CSV.split("\n", 1)[1],  # no header
    "Here is the CSV:\n```csv\n" + CSV + "```\n",
    CSV.replace(",", ";").replace('"A surgeon; at Erasmus Zuid."', '"A surgeon, at Erasmus Zuid."')
    .replace('"A hospital in ""Rotterdam"""', '"A hospital in ""Rotterdam"""'),
])
def test_csv_and_tsv_answers_are_read(answer):
    r = P.parse(answer)
    assert [(e.name, e.description) for e in r.entities] == [
        ("Daan Visser", "A surgeon, at Erasmus Zuid."), ("Femke Smit", "A nurse."),
        ("Erasmus Zuid", 'A hospital in "Rotterdam"')]
    assert [(x.source_name, x.target_name, x.description, x.weight) for x in r.relationships] == [
        ("Daan Visser", "Femke Smit", "trained", 8.0)]
    assert r.malformed == []


def test_csv_under_a_header_of_roles_and_by_place():
    r = P.parse("name,type,description\nDaan Visser,person,A surgeon\n\nsource,target,description,strength\n"
                "Daan Visser,Femke Smit,trained,8\n")
    assert names(r) == ["Daan Visser"] and pairs(r) == [("Daan Visser", "Femke Smit")] and r.malformed == []
    r = P.parse("Daan Visser,person,A surgeon\nFemke Smit,person,A nurse\nDaan Visser,Femke Smit,trained,8\n")
    assert names(r) == ["Daan Visser", "Femke Smit"] and pairs(r) == [("Daan Visser", "Femke Smit")]
    # prose with commas is no row
    r = P.parse("Daan, Femke, and the others work at the hospital, as the text says.\n<|COMPLETE|>")
    assert r.records == 0 and r.malformed == []


@pytest.mark.parametrize("answer", [
    '(entity "Wiktor Nowak" person "A surgeon")\n(relationship "Wiktor Nowak" "Jan" "trained")',
    'person("Wiktor Nowak").\ntrained("Wiktor Nowak", "Jan Kowalski").',
    'CREATE (w:Person {name: "Wiktor Nowak"})-[:TRAINED]->(j:Person {name: "Jan Kowalski"})',
    "Wiktor Nowak\nJan Kowalski\nSzpital Bielański",
    "- Wiktor Nowak\n- Jan Kowalski",
    "Persons: Wiktor Nowak, Jan Kowalski",
    "Wiktor Nowak => trained => Jan Kowalski",
    "Wiktor Nowak | surgeon | Szpital Bielański",
    "<ul><li>Wiktor Nowak</li><li>Jan Kowalski</li></ul>",
    '{"people": ["Wiktor Nowak", "Jan Kowalski"]}',
    "Wiktor Nowak\tsurgeon",
])
def test_an_answer_of_a_shape_no_reading_knows_is_kept_as_malformed_text(answer):
    """The safety net: nothing of these is a record, all of it stays in malformed_records."""
    r = P.parse("Here are the entities:\n\n" + answer + "\n\nI hope this helps!\n<|COMPLETE|>")
    assert r.records == 0 and "\n".join(r.malformed) == answer.strip()


CHATTER = ["Here are the entities:", "Here are the entities and relationships extracted from the text:",
           "I hope this helps!", "That is all I found", "No entities found.", "Note: the passage names two companies.",
           "Summary: Acme (a firm), Beta (another) and more", "Relationships: none", "**Entities:**", "### Persons",
           "---", "The capital - as the text says - is small.", "Translation: 東京 → Tokyo",
           "Step 1: Identify entities -> Step 2: relationships (8)", "### Relationships (source -> target)",
           "Confidence: high; Category: event; Notes: none", "以上です。",
           "설명: 삼성전자와 SK하이닉스는 경쟁 관계입니다.",
           'The text names "Scrooge," "Marley," and "Fred," among others.', "Entities", "Done.",
           "Let me know if you need anything else.", "It has 1,234,567 inhabitants, or so."]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(CHATTER), min_size=1, max_size=6), st.sampled_from(["\n", "\n\n"]),
       st.sampled_from(["", ANSWER, "- Ada (person): x"]))
def test_chatter_is_no_malformed_text(lines, sep, records):
    """Lead-ins, notes, summaries, headings and remarks around records (or alone) are not kept as malformed."""
    r = P.parse(sep.join(lines) + "\n" + records)
    assert r.malformed == []


_word = st.sampled_from(["Wiktor", "Nowak", "Jan", "surgeon", "trained", "Szpital", "東京", "a", "the", "8"])
_words = st.lists(_word, min_size=1, max_size=3).map(" ".join)
_data_line = st.one_of(
    st.tuples(st.sampled_from(["node", "person", "item", "n"]), _words).map(lambda t: f'<{t[0]} label="{t[1]}"/>'),
    st.tuples(_words, _words).map(lambda t: "{" + f'"{t[0]}": "{t[1]}"' + "}"),
    st.lists(_words, min_size=3, max_size=5).map(",".join),
    st.lists(_words, min_size=2, max_size=4).map("\t".join),
    st.lists(_words, min_size=3, max_size=4).map(" | ".join),
    st.tuples(_words, _words).map(lambda t: f"{t[0]} -> {t[1]}"),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(CHATTER), max_size=3), st.lists(_data_line, min_size=1, max_size=4),
       st.lists(st.sampled_from(CHATTER), max_size=3), st.booleans())
def test_no_line_of_data_is_lost_silently(before, data, after, reasoning):
    """Whatever the data lines hold, each is read as a record or kept as malformed text (where reasoning comes
    first, it stays reasoning)."""
    lead = "<think>\nsome thoughts, x,y,z | a | b\n</think>\n" if reasoning else ""
    r = P.parse(lead + "\n".join([*before, "", *data, "", *after]))
    kept = "\n".join(r.malformed)
    assert all(line.strip() in kept for line in data) or r.records
    assert "thoughts" not in kept


def test_the_marks_of_data_and_of_prose():
    assert is_data('<entity name="X">') and is_data("a,b,c") and is_data("Type: person")
    assert is_data("Wiktor Nowak -> Jan") and is_data("x\ty")
    assert not any(map(is_data, ["Here are the entities:", "Note: Alice -> Acme is key.", "Relationships: none",
                                 "He said \"yes,\" then left.", "1,000,000 people live there."]))


# -- 3. ``Relationship: A -> B`` blocks ------------------------------------------------------------------------

@pytest.mark.parametrize("gap", ["\n\n", "\n"])
def test_a_relationship_block_keyed_by_an_arrow_is_a_relationship(gap):
    answer = ("Entity: Chidi Okafor\nType: person\nDescription: A surgeon in Lagos." + gap +
              "Entity: Ngozi Eze\nType: person\nDescription: A nurse." + gap +
              "Relationship: Chidi Okafor -> Ngozi Eze\nDescription: trained\nStrength: 8\n")
    r = P.parse(answer)
    assert [(e.name, e.type, e.description) for e in r.entities] == [
        ("Chidi Okafor", "person", "A surgeon in Lagos."), ("Ngozi Eze", "person", "A nurse.")]
    assert [(x.source_name, x.target_name, x.description, x.weight) for x in r.relationships] == [
        ("Chidi Okafor", "Ngozi Eze", "trained", 8.0)]
    assert r.malformed == []
    r = P.parse("Relationship: Chidi Okafor → Ngozi Eze\n")
    assert pairs(r) == [("Chidi Okafor", "Ngozi Eze")]


# -- 4. names: a sentence's full stop, pronouns --------------------------------------------------------------

def test_a_full_stop_the_sentence_left_on_a_name_goes_an_abbreviations_stays():
    r = P.parse('("entity"<|>Clinica Sur.<|>organization<|>A clinic)##\n'
                '("entity"<|>Rosa Díaz<|>person<|>A doctor at Clinica Sur.)##\n'
                '("relationship"<|>Rosa Díaz<|>Clinica Sur.<|>works at<|>8)##\n'
                + "".join(f'("entity"<|>{n}<|>organization<|>x)##\n' for n in (
                    "Acme Inc.", "Martin Luther King Jr.", "U.S.", "Washington, D.C.", "Li, M.", "Sakirin et al.",
                    "ČEZ, a. s.", "Nestlé S.A.", "St.", "ปตท.", "Siemens AG.", "东京。")) + "<|COMPLETE|>")
    assert names(r) == ["Clinica Sur", "Rosa Díaz", "Acme Inc.", "Martin Luther King Jr.", "U.S.", "Washington, D.C.",
                        "Li, M.", "Sakirin et al.", "ČEZ, a. s.", "Nestlé S.A.", "St.", "ปตท.", "Siemens AG", "东京"]
    assert pairs(r) == [("Rosa Díaz", "Clinica Sur")]  # the description keeps its own
    assert r.entities[1].description == "A doctor at Clinica Sur."
    r = P.parse('{"entities": [{"name": "Clinica Sur.", "type": "organization"}]}')
    assert names(r) == ["Clinica Sur"]
    assert without_sentence_stop("Wait...") == "Wait..."


def test_a_pronoun_alone_is_no_node():
    r = P.parse('("entity"<|>Rosa Díaz<|>person<|>A doctor)##\n("entity"<|>she<|>person<|>Rosa)##\n'
                '("entity"<|>They<|>person<|>the doctors)##\n("relationship"<|>she<|>Rosa Díaz<|>is<|>9)##\n'
                '("entity"<|>他<|>人物<|>x)##\n("entity"<|>они<|>person<|>x)##\n("entity"<|>Sie<|>person<|>x)##\n'
                '("entity"<|>IT<|>organization<|>the IT department)##\n("entity"<|>US<|>geo<|>the country)##\n'
                '("entity"<|>It<|>novel<|>A novel by Stephen King)##\n'
                '("relationship"<|>Stephen King<|>It<|>wrote<|>9)\n<|COMPLETE|>')
    assert names(r) == ["Rosa Díaz", "IT", "US", "It"] and pairs(r) == [("Stephen King", "It")]
    assert r.malformed == ["entity | she | person | Rosa", "entity | They | person | the doctors",
                           "relationship | she | Rosa Díaz | is", "entity | 他 | 人物 | x", "entity | они | person | x",
                           "entity | Sie | person | x"]
    r = P.parse("- she (person): the narrator\n- Rosa (person): a doctor\n")
    assert names(r) == ["Rosa"]
    assert is_pronoun("她") and is_pronoun("hän") and not is_pronoun("Han") and not is_pronoun("Ella")


# -- end to end: the run's files -----------------------------------------------------------------------------

UNKNOWN = 'person("Wiktor Nowak").\nworks_at("Wiktor Nowak", "Szpital").'


async def test_a_run_reads_these_shapes_and_keeps_what_it_cannot_in_malformed_records(tmp_path):
    texts = ["Yusuf Demir teaches in Ankara. Ayşe Kaya is a doctor.",
             "Wiktor Nowak, a surgeon, trained at Szpital Bielański in Warsaw.",
             "Daan Visser, a surgeon at Erasmus Zuid, trained Femke Smit, a nurse.",
             "Chidi Okafor, a surgeon in Lagos, trained Ngozi Eze, a nurse.",
             "Wiktor Nowak works at the Szpital."]
    answers = [DRAFT + ANSWER, XML, CSV, "Entity: Chidi Okafor\nType: person\nDescription: A surgeon.\n\n"
               "Entity: Ngozi Eze\nType: person\nDescription: A nurse.\n\nRelationship: Chidi Okafor -> Ngozi Eze\n"
               "Description: trained\nStrength: 8\n", "Here are the facts:\n" + UNKNOWN]
    replay = tmp_path / "replay.jsonl"
    replay.write_text("".join(json.dumps({"chunk_id": f"c{i}", "content": t, "calls": [{"response": a}]}) + "\n"
                              for i, (t, a) in enumerate(zip(texts, answers))))
    chunks = tmp_path / "chunks.jsonl"
    chunks.write_text("".join(json.dumps({"id": f"c{i}", "text": t}) + "\n" for i, t in enumerate(texts)))
    async with FakeLLMServer(ReplayResponder.from_file(replay), embedding_dim=32).running() as s:
        cfg = {"llm": {"base_url": s.base_url, "api_key": "sk-test", "cache": {"path": str(tmp_path / "c.sqlite")}},
               "input": {"path": str(chunks), "format": "chunks"}, "output": {"dir": str(tmp_path / "out")},
               "graph": {"resolve": {"enabled": False}}}
        (tmp_path / "config.yaml").write_text(json.dumps(cfg))
        r = await cli("run", tmp_path / "config.yaml")
    assert r.returncode == 0, r.stderr.decode()[-2000:]
    out = tmp_path / "out"
    graph = json.loads((out / "graph.json").read_text())
    nodes = {n["name"] for n in graph["nodes"]}
    assert {"Yusuf Demir", "Wiktor Nowak", "Szpital Bielański", "Daan Visser", "Femke Smit", "Chidi Okafor",
            "Ngozi Eze"} <= nodes and "Draft Person" not in nodes
    assert len(graph.get("links", graph.get("edges", []))) >= 4
    kept = [json.loads(line) for line in (out / "malformed_records.jsonl").read_text().splitlines()]
    assert kept == [{"chunk_id": "c4", "text": UNKNOWN}]
    report = json.loads((out / "report.json").read_text())
    assert report["passes"][0]["malformed"] == 1
