"""graph.schema's parts (issue 34): the configuration contract and its errors, matching what models write to
the schema, the typed tuple format's relation field, JSON answers (whole, cut, broken), the strict JSON schema,
records and graphs held to the schema, the prompts (unchanged without a schema), and the Neo4j types."""

from __future__ import annotations

import json
import re

import networkx as nx
import pytest

from graphglean.core.config import Config, GraphConfig
from graphglean.core.config_loader import load_config_text
from graphglean.core.errors import ConfigError
from graphglean.graph.extraction.json_records import read_json
from graphglean.graph.extraction.prompts import GraphPrompts
from graphglean.graph.extraction.record_reader import RecordReader
from graphglean.graph.formats.neo4j import cypher_name, write_neo4j
from graphglean.graph.records import EntityRecord, ParseResult, RelationshipRecord
from graphglean.graph.schema.conformance import conform_graph, conform_records
from graphglean.graph.schema.extraction import prompt_fingerprint, record_parser
from graphglean.graph.schema.json_schema import response_format
from graphglean.graph.schema.ontology import Schema, schema_of, type_key
from graphglean.graph.schema.prompts import SchemaPrompts
from graphglean.graph.schema.structured import StructuredChoice
from graphglean.llm.records import ChatResult, Usage

SCHEMA = {"entities": {"PERSON": "a human being", "ORGANIZATION": "a company, institution or group", "CITY": ""},
          "relationships": [["PERSON", "WORKS_FOR", "ORGANIZATION"], ["ORGANIZATION", "BASED_IN", "CITY"]]}


def schema(mode="open", **changes):
    return Schema.from_mapping({**SCHEMA, "mode": mode, **changes})


# -- the configuration ---------------------------------------------------------------------------------

def test_the_contract_loads_inline_and_from_a_file_relative_to_the_config(tmp_path):
    cfg = load_config_text("graph:\n  structured_output: json_schema\n  schema:\n    entities: {PERSON: a human being,"
                           " ORGANIZATION: a company}\n    relationships:\n      - [PERSON, WORKS_FOR, ORGANIZATION]\n"
                           "    mode: strict\n")
    assert cfg.graph.structured_output == "json_schema"
    assert schema_of(cfg.graph) == Schema({"PERSON": "a human being", "ORGANIZATION": "a company"},
                                          (("PERSON", "WORKS_FOR", "ORGANIZATION"),), "strict")
    (tmp_path / "conf").mkdir()
    (tmp_path / "conf" / "schema.yaml").write_text("entities:\n  NO: the type NO, not false\n  Persons: people\n")
    cfg = load_config_text("graph: {schema: schema.yaml}\n", "c.yaml", tmp_path / "conf")
    assert schema_of(cfg.graph).entities == {"NO": "the type NO, not false", "Persons": "people"}
    assert Config().graph.schema is None and Config().graph.structured_output == "auto"


@pytest.mark.parametrize("text,said", [
    ("graph:\n  schema:\n    entities: {PERSON: a}\n    mode: strictly\n", "c.yaml:4: graph.schema.mode: expected one of"),
    ("graph:\n  schema:\n    entitys: {PERSON: a}\n", "c.yaml:3: graph.schema.entitys: unknown key"),
    ("graph:\n  schema:\n    entities: {}\n", "c.yaml:3: graph.schema.entities: expected a mapping of types"),
    ("graph:\n  schema:\n    entities: {PERSON: [a]}\n", "c.yaml:3: graph.schema.entities.PERSON: expected TYPE"),
    ("graph:\n  schema:\n    entities: {A: x}\n    relationships: [[A, R]]\n",
     "c.yaml:4: graph.schema.relationships.0: expected [source type, relation, target type]"),
    ("graph:\n  entity_types: [person]\n  schema: {entities: {PERSON: a}}\n",
     "c.yaml:2: graph.entity_types: graph.schema and graph.entity_types are both set"),
    ("graph:\n  structured_output: always\n", "c.yaml:2: graph.structured_output: expected one of auto, json_schema, off"),
])
def test_configuration_errors_name_file_line_and_key(text, said):
    with pytest.raises(ConfigError) as e:
        load_config_text(text, "c.yaml")
    assert str(e.value).startswith(said), str(e.value)


def test_what_needs_the_types_read_is_refused_before_any_work(tmp_path):
    g = GraphConfig(schema={"entities": {"PERSON": "a", "persons": "b"}})
    with pytest.raises(ConfigError, match="graph.schema.entities.persons: names the type PERSON again"):
        schema_of(g)
    g = GraphConfig(schema={"entities": {"PERSON": "a"}, "relationships": [["PERSON", "KNOWS", "ORG"]]})
    with pytest.raises(ConfigError, match=r"graph.schema.relationships.0: ORG is not one of the entity types \(PERSON\)"):
        schema_of(g)
    (tmp_path / "s.yaml").write_text("entities:\n  PERSON: a\nrelationships:\n  - [PERSON, KNOWS, ORG]\n")
    with pytest.raises(ConfigError, match=r"s.yaml:4: relationships.0: ORG is not"):
        schema_of(GraphConfig(schema=str(tmp_path / "s.yaml")))
    with pytest.raises(ConfigError, match="cannot read"):
        schema_of(GraphConfig(schema=str(tmp_path / "missing.yaml")))
    with pytest.raises(ConfigError, match="both set"):  # a Config built in code
        schema_of(GraphConfig(schema=SCHEMA, entity_types=["person"]))


def test_types_match_case_insensitively_singular_or_plural():
    s = schema()
    for written, meant in [("person", "PERSON"), ("Persons", "PERSON"), ("PEOPLE", "PERSON"),
                           ("organizations", "ORGANIZATION"), ("Cities", "CITY"), ("city", "CITY")]:
        assert s.entity_type(written) == meant
    assert s.entity_type("event") is None and s.relation("works for") == "WORKS_FOR"
    assert type_key("Business") == type_key("business") == "business" and type_key("boxes") == "box"
    assert s.fits("ORGANIZATION", "WORKS_FOR", "PERSON", directed=False)
    assert not s.fits("ORGANIZATION", "WORKS_FOR", "PERSON", directed=True)


# -- reading answers -----------------------------------------------------------------------------------

def test_the_typed_tuple_format_reads_the_relation_field():
    parser = record_parser(GraphConfig(schema=SCHEMA))
    text = ('("entity"<|>Ada Lovelace<|>person<|>A mathematician.)##\n'
            '("relationship"<|>Ada Lovelace<|>Analytical Society<|>WORKS_FOR<|>She worked there.<|>7)##\n'
            '("relationship"<|>Analytical Society<|>London<|>It met in London.<|>based in<|>5)##\n'
            '("relationship"<|>Ada Lovelace<|>Babbage<|>She wrote to Babbage.<|>4)##\n'
            '("relationship"<|>Babbage<|>Analytical Society<|>colleagues<|>Works for<|>3)\n<|COMPLETE|>')
    r = parser.parse(text).relationships
    assert [(x.relation, x.description, x.weight) for x in r] == [
        ("WORKS_FOR", "She worked there.", 7.0), ("based in", "It met in London.", 5.0),
        ("", "She wrote to Babbage.", 4.0), ("Works for", "colleagues", 3.0)]  # the schema's relation, wherever
    plain = record_parser(GraphConfig())  # without a schema a fourth field is LightRAG's keywords, as always
    assert plain.parse(text).relationships[0].keywords == ("She worked there.",)


def read(text, truncated=False):
    """(whether JSON records were read, the result), through the one JSON reader of every path."""
    result = ParseResult()
    ok = read_json(text, RecordReader(result, None, 0, frozenset(), schema().is_relation), truncated) != text
    return ok, result


def test_json_answers_whole_in_prose_repaired_and_cut():
    whole = {"entities": [{"name": "Ada", "type": "PERSON", "description": "x"}],
             "relationships": [{"source": "Ada", "target": "Bee", "relation": "KNOWS", "description": "d",
                                "strength": 3}]}
    ok, r = read("<think>hm</think>\n```json\n" + json.dumps(whole) + "\n```\nDone.")
    assert ok and [e.name for e in r.entities] == ["Ada"] and r.relationships[0].relation == "KNOWS"
    ok, r = read('{"entities": [{"name": "Ada", "type": "PERSON", "description": "x",}], "relationships": [')
    assert ok and [e.name for e in r.entities] == ["Ada"]  # repaired
    text = json.dumps(whole)[:-60]
    ok, r = read(text, truncated=True)
    assert ok and [e.name for e in r.entities] == ["Ada"] and not r.relationships and r.cut == [text[text.index(
        '{"source"'):]]
    ok, r = read('{"entities": [{"type": "PERSON"}, 7], "relationships": [{"source": "Ada"}], "note": "n"}')
    assert ok and r.records == 0 and len(r.malformed) == 4  # kept as text, never dropped
    assert read("(\"entity\"<|>Ada<|>person<|>x)")[0] is False  # not JSON: the tuple parser's


TYPED_TUPLES = ('("entity"<|>Ada Lovelace<|>PERSON<|>A mathematician.)##\n'
                '("entity"<|>Analytical Society<|>ORGANIZATION<|>A club.)##\n'
                '("relationship"<|>Ada Lovelace<|>Analytical Society<|>WORKS_FOR<|>She worked there.<|>7)\n'
                '<|COMPLETE|>')
ADA = {"name": "Ada Lovelace", "type": "PERSON", "description": "A mathematician."}
CLUB = {"name": "Analytical Society", "type": "ORGANIZATION", "description": "A club."}


def fields_of(result):
    return ([(e.name, e.type, e.description) for e in result.entities],
            [(r.source_name, r.target_name, r.relation, r.description, r.weight, r.keywords)
             for r in result.relationships], result.malformed)


@pytest.mark.parametrize("text", [
    '["entity"<|>"Ada Lovelace"<|>"PERSON"<|>"A mathematician."]##\n["entity"<|>"Analytical Society"<|>'
    '"ORGANIZATION"<|>"A club."]##\n["relationship"<|>"Ada Lovelace"<|>"Analytical Society"<|>"WORKS_FOR"<|>'
    '"She worked there."<|>7]\n<|COMPLETE|>',
    "[entity<|>Ada Lovelace<|>PERSON<|>A mathematician.]\n[entity<|>Analytical Society<|>ORGANIZATION<|>A club.]\n"
    "[relationship<|>Ada Lovelace<|>Analytical Society<|>WORKS_FOR<|>She worked there.<|>7]"])
async def test_a_tuple_answer_that_opens_with_a_bracket_keeps_its_records_under_a_schema(text):
    parser = record_parser(GraphConfig(schema=SCHEMA))
    assert fields_of(parser.parse(text)) == fields_of(parser.parse(TYPED_TUPLES))
    choice = StructuredChoice("auto", probes=True)

    async def answer():
        return ChatResult(text, "stop", Usage(1, 1))

    with pytest.warns(UserWarning, match="answered without JSON"):
        await choice.request(answer)
    assert choice.state == "ignored"  # records, not JSON: the server did not follow json_schema


@pytest.mark.parametrize("answer", [
    {"entities": [ADA, CLUB], "relationships": [{"source": "Ada Lovelace", "target": "Analytical Society",
                                                 "relation": "WORKS_FOR", "description": "She worked there.",
                                                 "strength": 7}]},
    {"entities": [{"entity_name": "Ada Lovelace", "entity_type": "PERSON", "entity_description": "A mathematician."},
                  {"entity_name": "Analytical Society", "entity_type": "ORGANIZATION",
                   "entity_description": "A club."}],
     "relationships": [{"source_entity": "Ada Lovelace", "target_entity": "Analytical Society",
                        "relation_type": "WORKS_FOR", "relationship_description": "She worked there.",
                        "relationship_strength": 7}]},  # GraphRAG's keys
    [ADA, CLUB, {"src_id": "Ada Lovelace", "tgt_id": "Analytical Society", "relationship": "works for",
                 "description": "She worked there.", "weight": 7}],  # LightRAG's
])
@pytest.mark.parametrize("wrap", ["{}", "Here is the extraction:\n```json\n{}\n```\nDone.", "<think>x</think>{}"])
def test_json_records_give_the_tuple_format_s_records_whatever_their_keys_and_lead_in(answer, wrap):
    """One JSON reader for the JSON answer and for JSON after a lead-in: the same records either way."""
    parser = record_parser(GraphConfig(schema=SCHEMA))
    text = wrap.replace("{}", json.dumps(answer))
    want, got = fields_of(parser.parse(TYPED_TUPLES)), fields_of(parser.parse(text))
    spelled = lambda rs: [(*r[:2], type_key(r[2]), *r[3:]) for r in rs]  # noqa: E731  (held to the schema later)
    assert got[0] == want[0] and spelled(got[1]) == spelled(want[1]) and got[2] == []
    plain = record_parser(GraphConfig())  # no schema: the relation is no field of the tuple format, a keyword
    assert [r.keywords for r in plain.parse(text).relationships] == [(got[1][0][2],)]


def test_an_unreadable_json_answer_is_kept_as_malformed():
    parser = record_parser(GraphConfig(schema=SCHEMA, structured_output="json_schema"))
    result = parser.parse('{"entities": [{"name": "Ada", "type"')
    assert result.records == 0 and result.malformed == ['{"name": "Ada", "type"']


# -- the JSON schema -------------------------------------------------------------------------------------

def _objects(node):
    if isinstance(node, dict):
        if node.get("type") == "object":
            yield node
        for v in node.values():
            yield from _objects(v)
    elif isinstance(node, list):
        for v in node:
            yield from _objects(v)


def test_the_json_schema_is_what_openai_strict_mode_takes():
    fmt = response_format(schema())
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["strict"] is True
    root = fmt["json_schema"]["schema"]
    for obj in _objects(root):
        assert obj["additionalProperties"] is False and obj["required"] == list(obj["properties"])
    items = root["properties"]["relationships"]["items"]["properties"]
    assert items["relation"]["enum"] == ["WORKS_FOR", "BASED_IN"]
    assert root["properties"]["entities"]["items"]["properties"]["type"]["enum"] == ["PERSON", "ORGANIZATION", "CITY"]
    assert "a human being" in root["properties"]["entities"]["items"]["properties"]["type"]["description"]
    forbidden = {"minimum", "maximum", "pattern", "format", "minLength", "maxLength", "default"}
    assert not forbidden & set(json.dumps(root).replace('"', " ").split())
    untyped = response_format(Schema.from_mapping({"entities": {"PERSON": ""}}))
    assert "relation" not in untyped["json_schema"]["schema"]["properties"]["relationships"]["items"]["properties"]


# -- the prompts -------------------------------------------------------------------------------------------

def test_without_a_schema_the_prompts_and_fingerprint_are_the_ones_always_sent():
    cfg = Config()
    p = GraphPrompts.from_config(cfg.graph)
    assert prompt_fingerprint(cfg) == (p.extraction_template, p.continue_prompt, p.loop_prompt, p.resume_prompt)
    typed = Config()
    typed.graph.schema = SCHEMA
    assert prompt_fingerprint(typed) != prompt_fingerprint(cfg)
    off = Config()
    off.graph.schema, off.graph.structured_output = SCHEMA, "off"
    assert len(prompt_fingerprint(off)) == 4 < len(prompt_fingerprint(typed))  # JSON's texts only where used


def test_the_prompts_describe_the_types_and_relations_and_show_examples_in_the_asked_format():
    prompts = SchemaPrompts.of(GraphConfig(), schema())
    tuple_prompt, json_prompt = prompts.tuple_format.extraction_template, prompts.json_format.extraction_template
    for prompt in (tuple_prompt, json_prompt):
        assert "- PERSON: a human being\n" in prompt and "- CITY\n" in prompt
        assert "PERSON WORKS_FOR ORGANIZATION" in prompt and "Mara Quint" in prompt
    assert "<target><|><relation><|><description>" in tuple_prompt
    assert '"relation": "CHAIRS_BOARD_OF"' in json_prompt and '("entity"' not in json_prompt
    assert "The example's types and relations are its own" in json_prompt  # its GEO, EVENT are not the schema's
    assert "{records_read}" in prompts.json_format.resume_prompt


# -- held to the schema --------------------------------------------------------------------------------------

def records():
    return ParseResult(
        entities=[EntityRecord("Ada", "persons", "x"), EntityRecord("Acme", "organization", "y"),
                  EntityRecord("Fair", "event", "z"), EntityRecord("Paris", "City", "w")],
        relationships=[RelationshipRecord("Ada", "Acme", "works", relation="works for"),
                       RelationshipRecord("Ada", "Fair", "went", relation="ATTENDED"),
                       RelationshipRecord("Acme", "Ada", "employs", relation="BASED_IN"),
                       RelationshipRecord("Acme", "Paris", "in", relation="BASED_IN")])


def test_open_spells_as_the_schema_and_keeps_everything():
    r = records()
    conform_records(r, schema("open"), "c1", directed=False)
    assert [e.type for e in r.entities] == ["PERSON", "ORGANIZATION", "event", "CITY"]
    assert [x.relation for x in r.relationships] == ["WORKS_FOR", "ATTENDED", "BASED_IN", "BASED_IN"]
    assert not r.off_schema


def test_strict_leaves_out_and_keeps_what_falls_outside():
    r = records()
    conform_records(r, schema("strict"), "c1", directed=False)
    assert [e.name for e in r.entities] == ["Ada", "Acme", "Paris"]
    assert [(x.source_name, x.target_name) for x in r.relationships] == [("Ada", "Acme"), ("Acme", "Paris")]
    why = {(o["kind"], o.get("name") or o.get("relation")): o["why"] for o in r.off_schema}
    assert why == {("entity", "Fair"): "type event is not in the schema",
                   ("relationship", "ATTENDED"): "relation ATTENDED is not in the schema",
                   ("relationship", "BASED_IN"): "no pattern of the schema relates these types by BASED_IN"}
    assert all(o.get("chunk_id") == "c1" for o in r.off_schema)


def typed_graph():
    g = nx.Graph()
    g.add_node("ada", name="Ada", type="person", types=["person"], source_ids=["c1"])
    g.add_node("acme", name="Acme", type="organization", types=["organization"], source_ids=["c1"])
    g.add_node("bob", name="Bob", type="unknown", types=[], source_ids=["c2"])
    g.add_edge("ada", "acme", relation="WORKS_FOR", relations=["WORKS_FOR"], source_ids=["c1"])
    g.add_edge("ada", "bob", relation="works for", relations=["works for"], source_ids=["c2"])
    return g


def test_graphs_are_flagged_or_pruned_by_mode():
    g = typed_graph()
    assert conform_graph(g, schema("flag")) == []
    assert dict(g.nodes(data="off_schema")) == {"ada": False, "acme": False, "bob": True}
    assert g.nodes["ada"]["type"] == "PERSON" and g.edges["ada", "bob"]["relation"] == "WORKS_FOR"
    assert g.edges["ada", "bob"]["off_schema"] is True and g.edges["ada", "acme"]["off_schema"] is False
    g = typed_graph()
    rows = conform_graph(g, schema("strict"))
    assert set(g.nodes) == {"ada", "acme"} and [r["kind"] for r in rows] == ["node", "edge"]  # and its edge


@pytest.mark.parametrize("directed", [False, True])
def test_strict_keeps_a_row_for_every_edge_of_a_node_it_leaves_out(directed):
    g = typed_graph()
    if directed:
        g = nx.DiGraph(g)
        g.remove_edge("bob", "ada")
        g.add_edge("acme", "bob", relation="WORKS_FOR", source_ids=["c3"])  # into the node left out
    rows = conform_graph(g, schema("strict"))
    assert "bob" not in g and [r["kind"] for r in rows].count("node") == 1
    edges = {(r["source"], r["target"]) if directed else frozenset((r["source"], r["target"]))
             for r in rows if r["kind"] == "edge" and r["why"] == "an end is a node outside the schema"}
    assert edges == ({("Ada", "Bob"), ("Acme", "Bob")} if directed else {frozenset(("Ada", "Bob"))})


def test_neo4j_relationship_types_are_the_relations(tmp_path):
    g = typed_graph()
    g.add_edge("acme", "bob", relation="is `odd` partner")
    g.add_edge("ada", "ada", description="no relation")
    paths = write_neo4j(g, tmp_path)
    rows = (tmp_path / "relationships.csv").read_text().splitlines()
    assert [r.split(",")[2] for r in rows[1:]] == ["WORKS_FOR", "works for", "RELATED_TO", "is `odd` partner"]
    cypher = (tmp_path / "import.cypher").read_text()
    assert "CREATE (a)-[r:WORKS_FOR]->(b)" in cypher and "CREATE (a)-[r:`works for`]->(b)" in cypher
    assert "CREATE (a)-[r:`is ``odd`` partner`]->(b)" in cypher
    assert cypher_name("WORKS_FOR") == "WORKS_FOR" and cypher_name("née à") == "`née à`"
    assert tmp_path / "import.cypher" in paths


def test_neo4j_import_cypher_loads_typed_relationships_in_one_valid_pass(tmp_path):
    """Neo4j refuses WHERE (ORDER BY, SKIP, LIMIT, DISTINCT) right after a subquery's importing WITH; the typed
    relationships are read in one pass over the one file, each row created by the one guard of its type."""
    g = typed_graph()
    g.add_edge("acme", "bob", relation="is `odd` partner")
    g.add_edge("ada", "ada", description="no relation")
    write_neo4j(g, tmp_path)
    cypher = (tmp_path / "import.cypher").read_text()
    assert not re.search(r"CALL \{\s*WITH [\w, ]+\s+(?:WHERE|ORDER|SKIP|LIMIT|DISTINCT)\b", cypher)
    assert cypher.count("FROM 'file:///relationships.csv'") == 1
    guards = dict(re.findall(r"WHEN kind = '((?:[^'\\]|\\.)*)' THEN \[1\] ELSE \[\] END \|\n\s+CREATE \(a\)-\[r:(.+?)\]->", cypher))
    kinds = [r.split(",")[2] for r in (tmp_path / "relationships.csv").read_text().splitlines()[1:]]
    assert {k: guards.get(k) for k in kinds} == {k: cypher_name(k) for k in kinds}
    assert "SET r = props" in cypher and "`relation`: row.`relation:string`" in cypher
