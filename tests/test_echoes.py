"""Echoed examples: an ungrounded node named after the prompt's own examples or a stock placeholder is dropped
and counted; a grounded one stays."""

import io
import json

import pytest

from graphglean.core.config import GraphConfig
from graphglean.graph.building.echoes import Examples
from graphglean.launch import run
from graphglean.testing import FakeLLMServer
from graphglean.testing.models.responders import passage_of, synthetic

from .helpers import config, replayed

CONTRACT = ("The Government awards the contract for Naval Station Norfolk. The Offeror shall deliver water to "
            "Building 1606 by March. Captain Ruiz signs for the Navy.")


def test_example_and_placeholder_names_echo_and_real_names_do_not():
    examples = Examples.of(GraphConfig())
    echoed = ["John Doe", "Jane Doe Jr.", "Apple Inc.", "New York City", "Company X", "Person A", "Port Ellis",
              "Mara Quint", "Bluewake", "The Harbour Board of Port Ellis", "Noah Carter's Record-Breaking 100m Sprint",
              "World Athletics Championship Tokyo", "Tokyo", "Nexon Technologies", "Martin Smith", "Firuzabad"]
    real = ["Naval Station Norfolk", "Captain Ruiz", "Tokyo Stock Exchange", "Microsoft", "Dengue Fever", "Bob Cratchit",
            "New York City Police Department", "Apple Orchard", "Harbour", "Smithsonian", "Port Authority"]
    assert [n for n in echoed if not examples.echoes(n)] == []
    assert [n for n in real if examples.echoes(n)] == []


def test_a_custom_examples_file_gives_its_own_names(tmp_path):
    path = tmp_path / "examples.txt"
    path.write_text('Example.\nPassage:\nThe Zephyr Guild hired Orla Venn in Quillmarsh.\nRecords:\n'
                    '("entity"{tuple_delimiter}Zephyr Guild{tuple_delimiter}organization{tuple_delimiter}A guild.)\n'
                    '{completion_delimiter}\n')
    examples = Examples.of(GraphConfig(examples=str(path)))
    assert examples.echoes("Zephyr Guild") and examples.echoes("Orla Venn") and examples.echoes("Quillmarsh")
    assert not examples.echoes("Port Ellis")  # the default examples are not this prompt's
    assert examples.echoes("John Doe")  # stock placeholders whatever the prompt
    assert not Examples.of(GraphConfig(examples="none")).echoes("Port Ellis")


def echoing(req):
    """A model that adds example and placeholder entities, tied to a real one, to its first answer."""
    if "Records:" in req.last_user and req.assistant_turns == 0:
        passage = passage_of(req.last_user)
        extra = [("John Doe", "person"), ("Apple Inc.", "organization"), ("New York City", "geo"),
                 ("Port Ellis", "geo")]
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
    ends = {json.loads(line)["target"] for line in (tmp_path / "out" / "relationships.jsonl").open()}
    kept = {"Naval Station Norfolk"} | ({"Port Ellis"} if grounded_example else set())
    assert names == kept and ends <= {"port ellis"}
    row = json.loads((tmp_path / "out" / "report.json").read_text())["passes"][0]
    assert row["echoed_examples"] == result.report["passes"][0]["echoed_examples"] == 4 - grounded_example


async def test_the_real_sets_lose_only_their_echoed_examples():
    result, _ = await replayed("lightrag-llama3.1-abstracts")  # recorded with LightRAG's prompt
    names = {d["name"] for _, d in result.output.nodes(data=True)}
    assert not names & {"Tokyo", "World Athletics Federation", "World Athletics Championship Tokyo",
                        "Noah Carter's Record-Breaking 100m Sprint"}
    assert {"Fortaleza", "Funnel Trap", "Aedes aegypti"} <= names and result.stats.echoed_examples == 4
    for folder in ("lightrag-gpt4o-mini-dickens", "nano-qwen3-8b-papers"):
        result, _ = await replayed(folder)
        assert result.stats.ungrounded > 20 and result.stats.echoed_examples == 0
