"""Echoed examples: only the examples this run's prompt sent and true placeholders can be echoes, and only where
their chunk, written in the name's script, holds none of their distinctive words; real entities a model named
in another form (expanded, normalised, translated) stay, with their relationships."""

import io
import json
import unicodedata
from pathlib import Path

import networkx as nx
import pytest

from graphglean.core.config import GraphConfig
from graphglean.graph.building.echoes import Examples, distinctive_words, drop_echoes
from graphglean.graph.extract import extract_graph
from graphglean.launch import run
from graphglean.testing import FakeLLMServer
from graphglean.testing.models.responders import ReplayResponder, passage_of, synthetic
from graphglean.text.chunking import Chunk
from graphglean.text.inputs import Inputs

from .helpers import config, replayed

CONTRACT = ("The Government awards the contract for Naval Station Norfolk. The Offeror shall deliver water to "
            "Building 1606 by March. Captain Ruiz signs for the Navy.")
HELD_BACK = Path(__file__).parent / "data" / "echoes_heldback.jsonl"


def test_only_the_prompts_own_examples_and_true_placeholders_can_echo():
    examples = Examples.of(GraphConfig())
    can = ["John Doe", "Jane Doe Jr.", "Acme Corp", "Company X", "Person A", "Organization 2", "Port Ellis",
           "Mara Quint", "Bluewake", "Bluewake Ferry Company", "The Harbour Board of Port Ellis", "Spring Storms"]
    # real names, however much they look like someone's example: other tools' prompt examples, names once on
    # placeholder lists, names a model expands or normalises
    cannot = ["Apple Inc.", "New York City", "Tokyo", "Noah Carter", "Nexon Technologies", "Martin Smith",
              "Firuzabad", "World Athletics Championship", "Gold Futures", "Alex", "John Smith", "Alice",
              "Naval Station Norfolk", "Captain Ruiz", "Tokyo Stock Exchange", "Apple Orchard", "Port Authority",
              "Harbour"]
    assert [n for n in can if not examples.echoes(n)] == []
    assert [n for n in cannot if examples.echoes(n)] == []
    assert distinctive_words("Bluewake Ferry Company") == {"bluewake", "ferry"}
    assert distinctive_words("Company X") == {"x"} and distinctive_words("Person A") == set()


def test_a_custom_examples_file_gives_its_own_names(tmp_path):
    path = tmp_path / "examples.txt"
    path.write_text('Example.\nPassage:\nThe Zephyr Guild hired Orla Venn in Quillmarsh.\nRecords:\n'
                    '("entity"{tuple_delimiter}Zephyr Guild{tuple_delimiter}organization{tuple_delimiter}A guild.)\n'
                    '{completion_delimiter}\n')
    examples = Examples.of(GraphConfig(examples=str(path)))
    assert examples.echoes("Zephyr Guild") and examples.echoes("Orla Venn") and examples.echoes("Quillmarsh")
    assert not examples.echoes("Port Ellis")  # the default examples are not this prompt's
    assert examples.echoes("John Doe")  # true placeholders whatever the prompt
    assert not Examples.of(GraphConfig(examples="none")).echoes("Port Ellis")


def _graph(nodes: dict[str, list[str]]) -> nx.Graph:
    graph = nx.Graph()
    for name, cids in nodes.items():
        graph.add_node(name.casefold(), name=name, grounded=False, source_ids=cids)
    return graph


CHUNKS = {cid: Chunk(cid, "d", i, text, 0, len(text), 0) for i, (cid, text) in enumerate({
    "en": "Shell agreed to sell its stake in a Nigerian oil venture, the company said in London.",
    "storm": "The spring storm that hit the coast cost insurers $4 billion; Ellis Harbour closed for a week.",
    "ja": "東京証券取引所で日経平均株価が三日続けて上昇した。日本銀行の植田総裁が記者会見を開いた。",
    "x": "X, formerly Twitter, lost another advertiser; the platform will sue.",
}.items())}


@pytest.mark.parametrize("name, cids, dropped", [
    ("Mara Quint", ["en"], True),  # the prompt's example, nothing of it in the chunk
    ("Bluewake Ferry Company", ["en"], True),
    ("John Doe", ["en"], True),
    ("Company X", ["en"], True),
    ("Acme Corp", ["en"], True),
    ("Spring Storms", ["storm"], False),  # the chunk's own storm, named the example's way
    ("Port Ellis", ["storm"], False),  # "Ellis" is in the chunk
    ("Mara Quint", ["ja"], False),  # a Japanese chunk: a Latin name there is a translation, not a copy
    ("Mara Quint", ["en", "ja"], False),
    ("Company X", ["x"], False),  # "X" is in the chunk
    ("Tokyo", ["ja"], False),  # another tool's example (LightRAG's), translated from the chunk: never an echo
    ("Apple Inc.", ["en"], False),  # a name once on placeholder lists
    ("Mara Quint", ["gone"], False),  # a chunk whose text is not known cannot tell
])
def test_an_ungrounded_example_name_is_an_echo_only_where_its_chunk_lacks_its_words(name, cids, dropped):
    graph = _graph({name: cids})
    assert drop_echoes(graph, Examples.of(GraphConfig()), CHUNKS) == dropped
    assert (graph.number_of_nodes() == 0) == dropped


def test_chunks_kept_on_disk_are_read_by_their_get_many():
    class OnDisk:
        def __init__(self):
            self.asked = []

        def get_many(self, ids):
            self.asked.append(set(ids))
            return {cid: CHUNKS[cid] for cid in ids if cid in CHUNKS}

    chunks = OnDisk()
    graph = _graph({"Mara Quint": ["en"], "Port Ellis": ["storm"], "Shell": ["en"]})
    graph.nodes["shell"]["grounded"] = True
    assert drop_echoes(graph, Examples.of(GraphConfig()), chunks) == 1 and set(graph) == {"port ellis", "shell"}
    assert chunks.asked == [{"en", "storm"}]  # once, for the candidates only


def echoing(req):
    """A model that adds example and placeholder entities, and real ones named in other forms, tied to a real one,
    to its first answer."""
    if "Records:" in req.last_user and req.assistant_turns == 0:
        passage = passage_of(req.last_user)
        extra = [("John Doe", "person"), ("Apple Inc.", "organization"), ("New York City", "geo"),
                 ("Port Ellis", "geo"), ("United States Navy", "organization")]
        lines = ['("entity"<|>Naval Station Norfolk<|>geo<|>A naval base.)']
        lines += [f'("entity"<|>{n}<|>{t}<|>Copied from somewhere.)' for n, t in extra]
        lines += [f'("relationship"<|>Naval Station Norfolk<|>{n}<|>Related.<|>3)' for n, _ in extra]
        if "Port Ellis" in passage:  # here the text holds it: grounded, it stays
            lines.append('("entity"<|>Port Ellis<|>geo<|>A harbour town in the text.)')
        return "##\n".join(lines) + "\n<|COMPLETE|>"
    return synthetic(req)


@pytest.mark.parametrize("grounded_example", [False, True])
async def test_a_run_drops_ungrounded_echoes_with_their_relationships_and_counts_them(tmp_path, grounded_example):
    source = tmp_path / "in.txt"
    source.write_text(CONTRACT + (" Supplies leave from Port Ellis." if grounded_example else ""))
    async with FakeLLMServer(echoing).running() as s:
        cfg = config(s)
        cfg.graph.max_gleanings, cfg.graph.resolve.enabled = 0, False
        cfg.input.path, cfg.output.dir, cfg.output.formats = str(source), str(tmp_path / "out"), ["jsonl"]
        result = await run(cfg, out=io.StringIO())
    names = {json.loads(line)["name"] for line in (tmp_path / "out" / "entities.jsonl").open()}
    rows = map(json.loads, (tmp_path / "out" / "relationships.jsonl").open())
    pairs = {frozenset((r["source"], r["target"])) for r in rows}
    real = {"Naval Station Norfolk", "Apple Inc.", "New York City", "United States Navy"}  # "Navy" is in the text
    assert names == real | ({"Port Ellis"} if grounded_example else set())
    assert pairs == {frozenset(("naval station norfolk", n.casefold())) for n in names - {"Naval Station Norfolk"}}
    row = json.loads((tmp_path / "out" / "report.json").read_text())["passes"][0]
    assert row["echoed_examples"] == result.report["passes"][0]["echoed_examples"] == 2 - grounded_example


def _owners(graph: nx.Graph) -> dict[str, str]:
    """Each name of a node (its name and aliases), NFC and case-folded, to the node."""
    fold = lambda n: unicodedata.normalize("NFC", n).casefold()  # noqa: E731
    return {fold(n): node for node, d in graph.nodes(data=True) for n in [d.get("name", node), *d.get("aliases", [])]}


async def test_a_second_held_back_set_loses_nothing_real_and_keeps_echoes_only_in_other_scripts():
    """Written blind to the rules (tests/data/echoes_heldback2.jsonl: 35 chunks, 16 languages; example names real in
    some chunks and echoed in others, real names like placeholders, NFD text, echoes in gleaning answers)."""
    from graphglean.text.language import script_of
    responder = ReplayResponder.from_file(HELD_BACK.with_name("echoes_heldback2.jsonl"))
    chunks = [Chunk(e["chunk_id"], e["chunk_id"], i, e["content"], 0, len(e["content"]), 0)
              for i, e in enumerate(responder.entries)]
    async with FakeLLMServer(responder).running() as s:
        result = await extract_graph(Inputs(chunks=chunks), config(s, max_concurrency=8))
    owner = _owners(result.output)
    fold = lambda n: unicodedata.normalize("NFC", n).casefold()  # noqa: E731
    assert [n for e in responder.entries for n in e["real"] if fold(n) not in owner] == []
    pairs = [(a, b) for e in responder.entries for a, b in e["real_pairs"]]
    assert [p for p in pairs if not result.output.has_edge(owner[fold(p[0])], owner[fold(p[1])])] == []
    # an echo stays only where its chunk is written in another script than its name (a translation, to the
    # rules), or where the model translated the example ("埃利斯港"), which no prompt showed it
    kept = [(e["content"], n) for e in responder.entries for n in e["echoes"]
            if fold(n) in owner and e["chunk_id"] in result.output.nodes[owner[fold(n)]]["source_ids"]]
    shown = Examples.of(GraphConfig())
    assert kept and all(script_of(text) != script_of(n) or not shown.echoes(n) for text, n in kept), kept
    assert len(kept) <= 5


async def test_the_held_back_news_set_loses_no_real_entity_and_no_real_relationship():
    """Written before the rules: expanded, normalised and translated names, names that match placeholder lists
    or other tools' examples, NFD text, and true echoes (tests/data/echoes_heldback.jsonl)."""
    responder = ReplayResponder.from_file(HELD_BACK)
    chunks = [Chunk(e["chunk_id"], e["chunk_id"], i, e["content"], 0, len(e["content"]), 0)
              for i, e in enumerate(responder.entries)]
    async with FakeLLMServer(responder).running() as s:
        result = await extract_graph(Inputs(chunks=chunks), config(s, max_concurrency=8))  # resolution on
    owner = _owners(result.output)
    fold = lambda n: unicodedata.normalize("NFC", n).casefold()  # noqa: E731
    real = [n for e in responder.entries for n in e["real"]]
    assert [n for n in real if fold(n) not in owner] == []
    pairs = [(a, b) for e in responder.entries for a, b in e["real_pairs"]]
    assert [p for p in pairs if not result.output.has_edge(owner[fold(p[0])], owner[fold(p[1])])] == []
    # every echo goes from its chunk; "Spring Storms" stays, a real event of another chunk by that name, and
    # gathers nothing from the chunk that echoes it
    echoes = [(e["chunk_id"], n) for e in responder.entries for n in e["echoes"]]
    assert [n for _, n in echoes if fold(n) in owner] == ["SPRING STORMS"]
    assert [n for cid, n in echoes if fold(n) in owner and cid in result.output.nodes[owner[fold(n)]]["source_ids"]] \
        == []
    assert result.stats.echoed_examples == len(echoes)


async def test_a_replay_of_another_tools_answers_echoes_nothing_of_graphglean():
    """A replayed run sends graphglean's prompt, so its examples are graphglean's: the recorded model saw
    LightRAG's, and echoed four of them into chunks that do not hold them (the llama3.1 set). Those names are
    real names elsewhere (Tokyo, World Athletics Federation): they stay, as ungrounded nodes, and nothing is
    counted as echoed."""
    result, _ = await replayed("lightrag-llama3.1-abstracts")  # recorded with LightRAG's prompt
    nodes = {d["name"]: d for _, d in result.output.nodes(data=True)}
    assert {"Tokyo", "World Athletics Federation"} <= nodes.keys()
    assert not nodes["Tokyo"]["grounded"] and not nodes["World Athletics Federation"]["grounded"]
    assert {"Fortaleza", "Funnel Trap", "Aedes aegypti"} <= nodes.keys() and result.stats.echoed_examples == 0
    for folder in ("lightrag-gpt4o-mini-dickens", "nano-qwen3-8b-papers"):
        result, _ = await replayed(folder)
        assert result.stats.ungrounded > 20 and result.stats.echoed_examples == 0


@pytest.mark.parametrize("examples, name, text, dropped", [
    ("港湾局在滨海市开会。", "滨海市", "东京证券交易所的股价上涨。", True),  # a Chinese example, nothing of it in the chunk
    ("港湾局在滨海市开会。", "滨海市", "市长在滨海市宣布了新计划。", False),  # written without spaces: found inside
    ("சென்னையில் மாரா குயின்ட் பேசினார்.", "மாரா குயின்ட்", "மாராவின் கடை மதுரையில் உள்ளது.", False),  # a case ending
])
def test_words_are_found_in_scripts_without_spaces_and_with_case_endings(tmp_path, examples, name, text, dropped):
    path = tmp_path / "examples.txt"
    path.write_text(f'Example.\nPassage:\n{examples}\nRecords:\n("entity"{{tuple_delimiter}}{name}'
                    '{tuple_delimiter}geo{tuple_delimiter}A place.)\n{completion_delimiter}\n', encoding="utf-8")
    graph = _graph({name: ["c"]})
    chunks = {"c": Chunk("c", "d", 0, text, 0, len(text), 0)}
    assert drop_echoes(graph, Examples.of(GraphConfig(examples=str(path))), chunks) == dropped


def test_an_echo_leaves_its_chunk_whatever_other_chunks_hold():
    """Per chunk: the example's name where this chunk does not hold it goes with its relationships (plurals of the
    example's words too); a placeholder the chunk writes ("Entity A" in a filing) stays."""
    from graphglean.graph.building.echoes import drop_echoed_records
    from graphglean.graph.extraction.fields import is_placeholder
    from graphglean.graph.records import EntityRecord, ParseResult, Provenance, RelationshipRecord
    src = Provenance("d", 0, "c", 0)
    result = ParseResult(
        entities=[EntityRecord("BLUEWAKE FERRIES", "organization", "ferries", src),
                  EntityRecord("ENTITY A", "organization", "an SPV", src), EntityRecord("KIEL", "geo", "port", src)],
        relationships=[RelationshipRecord("BLUEWAKE FERRIES", "KIEL", "runs to", 5.0, source=src),
                       RelationshipRecord("ENTITY A", "KIEL", "registered in", 5.0, source=src)])
    text = "The Group acquired Entity A, a vehicle registered in Kiel."
    assert drop_echoed_records(result, text, Examples.of(GraphConfig())) == 1
    assert [e.name for e in result.entities] == ["ENTITY A", "KIEL"] and len(result.relationships) == 1
    assert not is_placeholder("Entity A") and is_placeholder("entity_a") and is_placeholder("Entity1")


def test_a_labelled_group_a_list_writes_is_no_echo():
    from graphglean.graph.building.echoes import drop_echoed_records
    from graphglean.graph.records import EntityRecord, ParseResult
    result = ParseResult(entities=[EntityRecord("Group A", "organization", "", None)])
    assert drop_echoed_records(result, "Brazil and Spain lead Groups A and B.", Examples.of(GraphConfig())) == 0
