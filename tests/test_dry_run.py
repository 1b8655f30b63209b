"""--dry-run as a user meets it: it counts only what the run would ask (what the output folder holds is not asked
again), within 2x of what the run then asks, writes nothing, and fails where the run fails, with its line."""

import contextlib
import hashlib
import io
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from graphglean.core.errors import InputError
from graphglean.launch import run
from graphglean.pipeline.estimate.stored import StoredNode, last_graph, mentioned
from graphglean.text.chunking import Chunk
from graphglean.testing import FakeLLMServer
from graphglean.testing.models.responders import synthetic

from .helpers import config
from .test_cli import STAVE, cli, write_config

NEW_DOCUMENT = ("Jacob Marley's ghost visited Ebenezer Scrooge in London on Christmas Eve. Bob Cratchit, his clerk, "
                "worked at the counting-house on Cornhill.")


def quiet() -> dict:
    return {"notice": lambda _: None, "out": io.StringIO()}


def corpus_config(server, tmp_path: Path):
    folder = tmp_path / "docs"
    folder.mkdir(exist_ok=True)
    paras = STAVE.read_text().split("\n\n")
    third = len(paras) // 3
    for k in range(3):
        (folder / f"part{k}.txt").write_text("\n\n".join(paras[k * third:(k + 1) * third]))
    cfg = config(server)
    cfg.llm.model = "gpt-4o-mini"
    cfg.input.path, cfg.output.dir = str(folder), str(tmp_path / "out")
    cfg.output.formats = ["json", "jsonl", "lightrag"]
    cfg.graph.communities.enabled = True
    return cfg


def files(folder: Path) -> dict[str, str]:
    """Each file's bytes (a hash of them), SQLite's own too, and what the run store holds."""
    found = {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
             for p in folder.rglob("*") if p.is_file()}
    return {**found, "run.sqlite content": content(folder / "run.sqlite")}


def content(path: Path) -> str:
    """An SQLite file's rows, read from a copy of it and its write-ahead log (the file itself untouched)."""
    with tempfile.TemporaryDirectory() as tmp:
        for name in (path.name, path.name + "-wal"):
            if (path.parent / name).is_file():
                shutil.copyfile(path.parent / name, Path(tmp) / name)
        with contextlib.closing(sqlite3.connect(Path(tmp) / path.name)) as db:
            return hashlib.sha256("\n".join(db.iterdump()).encode()).hexdigest()


def calls(report: dict) -> dict[str, int]:
    return {r["pass"]: r["calls_est"] for r in report["passes"]}


def made(out: Path) -> dict[str, int]:
    with contextlib.closing(sqlite3.connect(out / "run.sqlite")) as db:
        row = db.execute("SELECT accounts FROM invocations ORDER BY id DESC LIMIT 1").fetchone()
    return {name: r["calls"] for name, r in json.loads(row[0]).items()}


async def test_estimates_are_within_2x_of_each_run_and_nothing_is_asked_twice(tmp_path):
    async with FakeLLMServer(synthetic).running() as s:
        cfg = corpus_config(s, tmp_path)
        first = calls((await run(cfg, dry=True, **quiet())).report)
        assert s.requests == [] and not (tmp_path / "out").exists()  # a dry run writes nothing
        await run(cfg, **quiet())
        paid = made(tmp_path / "out")
        listing = files(tmp_path / "out")
        again = (await run(cfg, dry=True, **quiet())).report
        assert files(tmp_path / "out") == listing
        (tmp_path / "docs" / "part9.txt").write_text(NEW_DOCUMENT)
        incremental = calls((await run(cfg, dry=True, **quiet())).report)
        await run(cfg, **quiet())
        added = made(tmp_path / "out")
    assert 0.5 <= first["graph.communities"] / paid["graph.communities"] <= 2
    assert 0.5 <= sum(first.values()) / sum(paid.values()) <= 2
    assert again["calls_est"] == 0 and all(r["calls_est"] == 0 for r in again["passes"])
    assert incremental["graph"] == added["graph"] == 3  # the new chunk's extraction and gleaning only
    assert 0.5 <= sum(incremental.values()) / sum(added.values()) <= 2
    assert 0.5 <= incremental["graph.communities"] / added["graph.communities"] <= 2
    assert sum(incremental.values()) < sum(first.values()) / 3


async def test_a_short_document_of_new_names_is_estimated_by_its_names(tmp_path):
    # the stored answers' tokens per passage token, for a short text dense with names none of the graph's,
    # would draw no record at all: its names draw records (the model's answers per name word)
    async with FakeLLMServer(synthetic).running() as s:
        cfg = corpus_config(s, tmp_path)
        await run(cfg, **quiet())
        (tmp_path / "docs" / "part9.txt").write_text(
            "Field trials in Brazil released Wolbachia against Aedes aegypti; the World Health Organization "
            "reviewed Dengue cases in Rio de Janeiro and Recife with Oxitec.")
        report = (await run(cfg, dry=True, **quiet())).report
        await run(cfg, **quiet())
        added = made(tmp_path / "out")
    assert report["graph"]["new_entities"] >= 4 and report["graph"]["touched_entities"] == 0
    reports = calls(report)["graph.communities"]
    assert added["graph.communities"] >= 1 and 0.5 <= reports / added["graph.communities"] <= 2


def _references(count: int) -> str:
    """A paper's reference list: author lists, venues, years."""
    surnames = ["Okafor", "Brandt", "Iwasaki", "Haldane", "Mbeki", "Quist", "Lindqvist", "Ferreira", "Demir"]
    return "\n".join(f"[{k}] {'ABCDEFGHJ'[k % 9]}. {surnames[k % 9]}, {'KLMNP'[k % 5]}. {surnames[(k + 4) % 9]}, and "
                     f"R. {surnames[(k + 7) % 9]}, \"A study of sparse decoders {k},\" in Proc. ICML, {1990 + k % 30}, "
                     f"pp. {k}-{k + 9}." for k in range(count))


async def test_a_reference_list_draws_entities_but_few_reports(tmp_path):
    """Names standing in lists (a paper's references) are extracted, and a model relates few of them: a new
    document of references is estimated at about the extraction a prose document of its size draws, and at
    fewer community reports."""
    prose = " ".join(f"{a} met {b} at the {c} mill, and they walked to {d} together." for a, b, c, d in
                     zip(["Ada Ames", "Bram Coll", "Cora Dent"] * 20, ["Finn Gale", "Hal Iver", "Jo Kent"] * 20,
                         ["Larch", "Moss", "Nettle", "Oak"] * 15, ["Pell", "Quay", "Rook", "Sedge", "Tarn"] * 12))
    estimates = {}
    async with FakeLLMServer(synthetic).running() as s:
        for kind, text in (("prose", prose), ("references", _references(60))):
            (tmp_path / kind).mkdir()
            cfg = corpus_config(s, tmp_path / kind)
            cfg.input.path = str(tmp_path / kind / "docs" / "new.txt")
            Path(cfg.input.path).write_text(text)
            estimates[kind] = calls((await run(cfg, dry=True, **quiet())).report)
    assert estimates["references"]["graph"] >= estimates["prose"]["graph"] / 2
    assert estimates["references"]["graph.communities"] < estimates["prose"]["graph.communities"] / 3


async def test_description_summaries_before_any_run_count_names_not_letters_or_possessives(tmp_path):
    """A name in every chunk outgrows the description budget and is summarized once; the pronoun "I", an
    initial and the name's possessive recur as often and are no node of their own."""
    chunk = ("Next morning I went with Wenna Holt to the harbour, and Wenna Holt's brother Abel J Quill said that "
             "Holt's boat was gone.")
    async with FakeLLMServer(synthetic).running() as s:
        cfg = corpus_config(s, tmp_path)
        cfg.input.path, cfg.input.format = str(tmp_path / "chunks.jsonl"), "chunks"
        Path(cfg.input.path).write_text("".join(json.dumps({"id": f"c{k}", "text": chunk}) + "\n" for k in range(20)))
        estimate = calls((await run(cfg, dry=True, **quiet())).report)
    assert estimate["graph.describe"] == 4  # Wenna, Holt, Abel, Quill: not "I", "J" nor "Holt's"


async def test_the_dry_run_fails_where_the_run_fails_with_the_same_line(tmp_path):
    async with FakeLLMServer(synthetic).running() as s:
        path = write_config(tmp_path, s.base_url, enrich={"enabled": True})
        dry = await cli("run", path, "--dry-run")
        real = await cli("run", path)
        assert s.chat_requests() == []  # refused before any call
    said = [line for line in dry.stderr.decode().splitlines() if "error" in line]
    assert dry.returncode == real.returncode == 2 and said
    assert said == [line for line in real.stderr.decode().splitlines() if "error" in line]
    assert "enrich needs chat messages" in said[0]


async def test_a_pass_with_nothing_to_read_says_so_in_one_line(tmp_path):
    messages = tmp_path / "chat.jsonl"
    messages.write_text("".join(json.dumps({"session_id": "s", "role": r, "content": c}) + "\n"
                                for r, c in (("user", "I am Ada."), ("assistant", "Hello Ada."))))
    async with FakeLLMServer(synthetic).running() as s:
        cfg = config(s)
        cfg.input.path, cfg.input.format = str(messages), "messages"
        cfg.output.dir = str(tmp_path / "out")
        cfg.graph.enabled, cfg.episodic.enabled = False, True
        for dry in (True, False):
            said: list[str] = []
            await run(cfg, dry=dry, notice=said.append, out=io.StringIO())
            assert said == ["episodic: nothing to read (input.format messages gives chat messages, which only "
                            "enrich reads); it produces nothing"]
        cfg.input.format, cfg.input.path = "text", str(STAVE)
        cfg.episodic.enabled, cfg.enrich.enabled = False, True
        with pytest.raises(Exception) as raised:
            await run(cfg, dry=True, **quiet())
    assert any(isinstance(e, InputError) for e in [raised.value, *getattr(raised.value, "exceptions", [])])


async def test_the_printed_estimate_speaks_plainly(tmp_path):
    r = await cli("run", write_config(tmp_path, "http://127.0.0.1:9/v1", llm={"model": "gpt-4o-mini"},
                                      graph={"resolve": {"enabled": False}}), "--dry-run")
    out = r.stdout.decode()
    assert r.returncode == 0, r.stderr.decode()
    assert " 1 calls" not in out and "e-0" not in out and not (tmp_path / "out").exists()
    costs = [c for line in out.splitlines() for c in line.split("$")[1:]]
    assert costs and all(c.split()[0].rstrip(",").count(".") == 1 and len(c.split()[0].rstrip(",").split(".")[1]) == 4
                         for c in costs)


def test_stored_nodes_are_found_by_their_names_as_whole_words():
    nodes = [StoredNode("jacob marley", ("jacob marley", "marley"), 3, 40), StoredNode("lon", ("lon",), 1, 5),
             StoredNode("bob cratchit", ("bob cratchit",), 2, 30)]
    found = mentioned(nodes, [NEW_DOCUMENT])
    assert [n.id for n in found] == ["jacob marley", "bob cratchit"]  # "London" is no mention of "Lon"


def test_a_name_inside_a_longer_stored_name_is_no_mention_of_its_own_node():
    nodes = [StoredNode("christmas", ("christmas",), 4, 20), StoredNode("christmas eve", ("christmas eve",), 2, 10),
             StoredNode("marley", ("marley",), 3, 10), StoredNode("jacob marley", ("jacob marley",), 3, 10)]
    assert [n.id for n in mentioned(nodes, [NEW_DOCUMENT])] == ["christmas eve", "jacob marley"]
    later = "Scrooge kept Christmas well. Marley was dead."
    assert [n.id for n in mentioned(nodes, [NEW_DOCUMENT, later])] == [n.id for n in nodes]


def test_a_name_its_sources_capitalize_is_not_named_by_a_common_word_in_lower_case():
    uncle, clerk = StoredNode("uncle", ("uncle",), 1, 5, capitals=1.0), StoredNode("clerk", ("clerk",), 1, 5)
    house = StoredNode("counting-house", ("counting-house",), 2, 9, capitals=0.5)
    ghost = StoredNode("ghost of christmas past", ("ghost of christmas past",), 3, 9, capitals=0.9)
    nodes = [uncle, clerk, house, ghost]
    text = "Bob Cratchit, his clerk, worked at the counting-house; Fred invited his uncle to dinner."
    assert mentioned(nodes, [text]) == [clerk, house]  # no spans read: case aside, as an upper bound
    assert mentioned(nodes, ["Uncle Fred came to dinner. Then the ghost of Christmas Past."]) == [uncle, ghost]
    assert mentioned(nodes, ["So Fred said the ghost of christmas past was late."]) == []
    assert mentioned(nodes, ["his uncle came by"]) == [uncle]  # a text that capitalizes no name at all


def test_the_last_graph_reads_how_its_sources_write_each_node(tmp_path):
    text = "The Ghost spoke. Scrooge saw the ghost and the Ghost again."
    chunk = Chunk("c1", "d", 0, text[4:], 4, len(text), 10)
    rows = [{"id": "ghost", "name": "Ghost", "source_ids": ["c1"],
             "spans": [["c1", 4, 9], ["c1", 33, 38], ["c1", 47, 52]]},
            {"id": "scrooge", "name": "Scrooge", "source_ids": ["c1", "gone"],
             "spans": [["c1", 17, 24], ["gone", 0, 7]]},
            {"id": "odd", "name": "Odd", "spans": [["c1", "x"], 5]}]
    (tmp_path / "entities.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    nodes = {n.id: n for n in last_graph(tmp_path, {"c1": chunk})}
    assert nodes["ghost"].capitals == 2 / 3 and nodes["scrooge"].capitals == 1.0  # of the spans read
    assert nodes["odd"].capitals is None and last_graph(tmp_path)[0].capitals is None


async def test_a_fresh_dry_run_counts_on_a_cache_that_replays(tmp_path):
    async with FakeLLMServer(synthetic).running() as s:
        cfg = corpus_config(s, tmp_path)
        cfg.llm.cache.mode, cfg.llm.cache.path = "readwrite", ""
        await run(cfg, **quiet())
        fresh = (await run(cfg, dry=True, fresh=True, **quiet())).report
        cfg.llm.cache.mode = "read"  # replays too (it keeps nothing new)
        reading = (await run(cfg, dry=True, fresh=True, **quiet())).report
        cfg.llm.cache.mode = "off"
        forgetting = (await run(cfg, dry=True, fresh=True, **quiet())).report
    assert fresh["calls_est"] == reading["calls_est"] == 0 < forgetting["calls_est"]
    assert os.path.isfile(tmp_path / "out" / "cache.sqlite")


KILLED_WRITER = """
import os, signal, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("PRAGMA journal_mode=WAL")
db.execute("PRAGMA wal_autocheckpoint=0")
db.execute("DELETE FROM results WHERE pass = 'graph' AND item = (SELECT MIN(item) FROM results WHERE pass = 'graph')")
db.commit()
os.kill(os.getpid(), signal.SIGKILL)
"""


async def test_the_dry_run_reads_what_a_killed_run_left_in_its_log_and_writes_no_byte(tmp_path):
    async with FakeLLMServer(synthetic).running() as s:
        cfg = corpus_config(s, tmp_path)
        await run(cfg, **quiet())
    out = tmp_path / "out"
    killed = subprocess.run([sys.executable, "-c", KILLED_WRITER, str(out / "run.sqlite")], check=False)
    assert killed.returncode == -signal.SIGKILL and (out / "run.sqlite-wal").stat().st_size > 0
    assert (out / "run.sqlite-shm").is_file()
    listing = files(out)
    estimate = calls((await run(cfg, dry=True, **quiet())).report)
    assert files(out) == listing  # not a byte: the store, its log, its index of the log
    assert estimate["graph"] > 0  # the chunk whose answers the killed run took out is asked again


async def test_a_store_that_cannot_be_read_is_one_line(tmp_path, monkeypatch):
    from graphglean.pipeline.estimate.stored import StoredRun

    async with FakeLLMServer(synthetic).running() as s:
        cfg = corpus_config(s, tmp_path)
        await run(cfg, **quiet())

    def damaged(*args):
        raise sqlite3.DatabaseError("database disk image is malformed")

    monkeypatch.setattr(StoredRun, "load", damaged)
    monkeypatch.setattr(StoredRun, "get", damaged)
    with pytest.raises(InputError, match=r"^output.dir .*: what earlier runs stored there, or the response cache .* "
                       r"could not be read \(database disk image is malformed\): a run writing there now"):
        await run(cfg, dry=True, **quiet())


async def test_a_dry_run_for_a_new_folder_counts_on_the_cache_for_the_requests_it_can_build(tmp_path):
    async with FakeLLMServer(synthetic).running() as s:
        cfg = corpus_config(s, tmp_path)
        cfg.llm.cache.mode, cfg.llm.cache.path = "readwrite", str(tmp_path / "shared.sqlite")
        cold = {r["pass"]: r for r in (await run(cfg, dry=True, **quiet())).report["passes"]}
        await run(cfg, **quiet())
        cfg.output.dir = str(tmp_path / "again")  # no run store there: the cache alone
        warm = {r["pass"]: r for r in (await run(cfg, dry=True, **quiet())).report["passes"]}
        asked = len(s.chat_requests())
        await run(cfg, **quiet())
        extraction = made(tmp_path / "again")["graph"]
    assert cold["graph"]["calls_est"] > 0 and warm["graph"]["calls_est"] == extraction == 0  # all answered there
    assert warm["graph"]["exact"] and asked > 0
    embed = "graph.peers.embed"  # the chunks' vectors are cached: only the graph's texts are asked
    assert warm[embed]["tokens_in_est"] < cold[embed]["tokens_in_est"]
