"""Characters nobody cleaned: lone surrogates in JSON input, control characters in GraphML, writers that fail."""

import json
import warnings

import networkx as nx
import pytest

from graphglean.core.config import Config, InputConfig
from graphglean.core.tokens import Tokenizer
from graphglean.graph.formats.export import write_graphml
from graphglean.graph.formats.readback import read_graph
from graphglean.launch import run
from graphglean.testing import FakeLLMServer
from graphglean.testing.models.responders import passage_of, synthetic
from graphglean.text.inputs import InputWarning, read_inputs
from graphglean.text.surrogates import repair_json

from .helpers import config

TOK = Tokenizer("gpt-4")
CUT = "Scrooge sent Marley a note \\ud83d"  # JSON text: an emoji cut after its first half
ANSI = "\x1b[31mBob Cratchit\x1b[0m\x0c"  # a colour code and pdftotext's form feed


def _read(path, fmt):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        inputs = read_inputs(InputConfig(path=str(path), format=fmt), TOK)
    return inputs, [str(w.message) for w in seen if issubclass(w.category, InputWarning)]


def _lines(*objects):
    """JSON lines; ``@HALF@`` in a value is the escape of a lone high surrogate."""
    return "".join(json.dumps(o).replace("@HALF@", "\\ud83d") + "\n" for o in objects)


@pytest.mark.parametrize("fmt", ["jsonl", "chunks", "messages"])
def test_every_json_line_reader_replaces_lone_surrogates_warning_once_per_line(tmp_path, fmt):
    path = tmp_path / "in.jsonl"
    field = {"messages": '"session_id": "s", "role": "user", "content"'}.get(fmt, '"text"')
    path.write_text(f'{{"id": "a", {field}: "Plain text."}}\n'
                    f'{{"id": "b\\ud83d", {field}: "{CUT} and \\ude00 too", "metadata": {{"note": "\\ud83d"}}}}\n')
    inputs, warned = _read(path, fmt)
    texts = [d.text for d in inputs.documents] + [c.text for c in inputs.chunks] + [m.content for m in
                                                                                      inputs.messages]
    assert texts == ["Plain text.", "Scrooge sent Marley a note \ufffd and \ufffd too"]
    assert inputs.repairs.lone_surrogates == 4  # the text's two, the id's and the metadata's
    assert warned == [f"{path}:2: 4 lone surrogate escapes (text cut inside a character, e.g. an emoji) replaced "
                      "with U+FFFD"]
    for value in [*(d.id for d in inputs.documents), *(c.id for c in inputs.chunks)]:
        value.encode("utf-8")  # writable


def test_locomo_lone_surrogates_are_named_by_their_line(tmp_path):
    conv = {"sample_id": "c1", "conversation": {"speaker_a": "Ann", "speaker_b": "Bo", "session_1": [
        {"speaker": "Ann", "dia_id": "D1:1", "text": "Hello"},
        {"speaker": "Bo", "dia_id": "D1:2", "text": "Look @HALF@"}]}}
    path = tmp_path / "conv.json"
    path.write_text(json.dumps([conv], indent=1).replace("@HALF@", "\\ud83d"))
    inputs, warned = _read(path, "locomo")
    line = path.read_text().splitlines().index(next(x for x in path.read_text().splitlines() if "ud83d" in x)) + 1
    assert inputs.messages[1].content == "Look \ufffd" and inputs.repairs.lone_surrogates == 1
    assert warned == [f"{path}:{line}: a lone surrogate escape (text cut inside a character, e.g. an emoji) "
                      "replaced with U+FFFD"]


@pytest.mark.parametrize("text,kept", [
    ('{"t": "\\ud83d\\ude00"}', "\U0001f600"),  # an escaped pair is one character
    ('{"t": "a\\\\ud83d"}', "a\\ud83d"),  # an escaped backslash, then letters
    ('{"t": "\\u00e9\\n"}', "\u00e9\n"),
])
def test_whole_characters_and_escaped_backslashes_are_kept(text, kept):
    fixed, found = repair_json(text)
    assert found == [] and json.loads(fixed)["t"] == kept


def _responder(req):
    """A model that repeats the passage's control characters in a name and a description."""
    if "Records:" in req.last_user and req.assistant_turns == 0:
        passage = passage_of(req.last_user)
        first = passage.split(".")[0]
        return (f'("entity"<|>{ANSI}<|>person<|>{first}.)##\n("entity"<|>Scrooge<|>person<|>A miser.)##\n'
                f'("relationship"<|>{ANSI}<|>Scrooge<|>Works for him: {first}.<|>5)\n<|COMPLETE|>')
    return synthetic(req)


@pytest.mark.parametrize("method", ["llm", "nlp"])
async def test_a_run_on_cut_emoji_and_control_characters_carries_on_and_writes_valid_files(tmp_path, method):
    pytest.importorskip("pyarrow")
    source = tmp_path / "in.jsonl"
    source.write_text(_lines({"id": "d1", "text": f"{ANSI} worked for Scrooge. A note @HALF@ Scrooge paid."},
                             {"id": "d2", "text": "Scrooge met Marley in London @HALF@."}))
    async with FakeLLMServer(_responder).running() as s:
        cfg = config(s) if method == "llm" else Config()
        cfg.graph.method = method
        cfg.input.path, cfg.output.dir = str(source), str(tmp_path / "out")
        cfg.output.formats = ["graphml", "json", "jsonl", "html", "neo4j", "parquet"]
        with pytest.warns(InputWarning, match="in.jsonl:1: a lone surrogate"):
            result = await run(cfg, out=open("/dev/null", "w"))
    out = tmp_path / "out"
    assert result.failed == 0 and result.report["lone_surrogates"] == 2
    assert json.loads((out / "report.json").read_text())["lone_surrogates"] == 2
    graphml = nx.read_graphml(out / "graph.graphml")  # valid XML
    text = (out / "graph.graphml").read_text(encoding="utf-8")
    assert "\x1b" not in text and "\x0c" not in text
    if method == "llm":
        assert graphml.nodes["\x1b[31mbob cratchit\x1b[0m\x0c".replace("\x1b", "").replace("\x0c", "")]
        names = {json.loads(line)["name"] for line in (out / "entities.jsonl").open()}
        assert ANSI.strip() in names  # JSONL keeps the text as it was
        import pyarrow.parquet as pq

        assert ANSI.strip() in pq.read_table(out / "entities.parquet").column("name").to_pylist()


def test_graphml_keeps_node_ids_apart_that_differ_only_by_forbidden_characters(tmp_path):
    g = nx.Graph()
    g.add_node("a\x0cb", name="a\x0cb", descriptions=["x\x1by", "[1, 2]"])
    g.add_node("ab", name="[1, 2]")
    g.add_edge("a\x0cb", "ab", keywords=["k\x0c"], description="\x00d")
    write_graphml(g, tmp_path / "graph.graphml")
    back = read_graph(tmp_path)
    assert back.number_of_nodes() == 2 and back.number_of_edges() == 1
    assert back.nodes["ab"]["name"] == "[1, 2]"  # a name that looks like a JSON list stays text
    assert back.nodes["ab\ufffd"]["descriptions"] == ["x\x1by", "[1, 2]"]  # JSON keeps it as an escape
    assert back.edges["ab", "ab\ufffd"] == {"keywords": ["k\x0c"], "description": "d"}


async def test_a_file_that_cannot_be_written_fails_the_run_and_the_others_are_written(tmp_path):
    from .test_cli import cli, write_config

    async with FakeLLMServer(synthetic).running() as s:
        cfg = write_config(tmp_path, s.base_url, graph={"max_gleanings": 0, "resolve": {"enabled": False}},
                           output={"dir": str(tmp_path / "out"), "formats": ["graphml", "jsonl"]})
        (tmp_path / "out" / "graph.graphml").mkdir(parents=True)  # a folder where the file goes
        r = await cli("run", cfg)
        calls = len(s.chat_requests())
        assert r.returncode == 1, r.stderr.decode()
        err = r.stderr.decode()
        assert f"graph {tmp_path / 'out' / 'graph.graphml'}: cannot write: " in err and "Traceback" not in err
        report = json.loads((tmp_path / "out" / "report.json").read_text())
        assert [f["item"] for f in report["failed"]] == [str(tmp_path / "out" / "graph.graphml")]
        assert (tmp_path / "out" / "entities.jsonl").stat().st_size > 0
        (tmp_path / "out" / "graph.graphml").rmdir()
        again = await cli("run", cfg)  # written again from the run store: no call
        assert again.returncode == 0 and len(s.chat_requests()) == calls
        nx.read_graphml(tmp_path / "out" / "graph.graphml")


@pytest.mark.parametrize("fmt", ["jsonl", "chunks"])
def test_ray_shards_read_what_the_local_reader_reads_and_the_planner_warns_once(tmp_path, fmt):
    from graphglean.engines.ray.shards import plan_shards, read_shard

    path = tmp_path / "in.jsonl"
    path.write_text(_lines(*({"id": f"r{i}", "text": f"Text {i} @HALF@" if i in (1, 10) else f"Text {i}."}
                             for i in range(12))))
    cfg = Config()
    cfg.input.path, cfg.input.format, cfg.runtime.shard_chunks = str(path), fmt, 3
    local, _ = _read(path, fmt)
    with warnings.catch_warnings(record=True) as planned:
        warnings.simplefilter("always")
        specs = list(plan_shards(cfg))
        shard_inputs = [read_shard(spec, cfg, TOK) for spec in specs]
    assert [str(w.message).split(": ")[0] for w in planned] == [f"{path}:2", f"{path}:11"]  # the planner's
    assert sum(i.repairs.lone_surrogates for i in shard_inputs) == local.repairs.lone_surrogates == 2
    texts = [x.text for i in shard_inputs for x in i.documents + i.chunks]
    assert texts == [x.text for x in local.documents + local.chunks] and texts[1] == "Text 1 \ufffd"
