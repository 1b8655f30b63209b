"""The `graphglean run` process under kill -9, SIGINT, bad input and a secret to keep."""

import json
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import trio

from graphglean.testing import FakeLLMServer, FaultPlan, Reply
from graphglean.testing.models.responders import synthetic

from ..test_cli import cli, env, write_config


def outputs(out: Path) -> dict[str, str]:
    keep = ("graph.graphml", "graph.json", "entities.jsonl", "relationships.jsonl")
    return {name: (out / name).read_text() for name in keep}


async def test_five_kills_then_resume_equal_an_uninterrupted_run(tmp_path):
    rng = random.Random(5)
    async with FakeLLMServer(synthetic, latency=0.03).running() as s:
        (tmp_path / "ref").mkdir()
        assert (await cli("run", write_config(tmp_path / "ref", s.base_url))).returncode == 0
        reference = len(s.chat_requests())
        s.requests.clear()
        cfg = write_config(tmp_path, s.base_url)
        in_flight_at_kills = 0
        for _ in range(5):
            proc = await trio.lowlevel.open_process([sys.executable, "-m", "graphglean", "run", str(cfg)], env=env(),
                                                    stderr=subprocess.DEVNULL)
            start = len(s.chat_requests())
            target = start + rng.randint(3, max(4, reference // 6))
            with trio.move_on_after(30):
                while len(s.chat_requests()) < target and proc.poll() is None:
                    await trio.sleep(0.005)
            in_flight_at_kills += s.in_flight
            proc.kill()
            await proc.wait()
        final = await cli("run", cfg)
        assert final.returncode == 0, final.stderr.decode()
    total = len(s.chat_requests())
    assert reference <= total <= reference + in_flight_at_kills + 5 * 4  # at most what was in flight per kill
    assert outputs(tmp_path / "out") == outputs(tmp_path / "ref" / "out")
    leftovers = [p.name for p in (tmp_path / "out").iterdir() if p.name.endswith(".tmp")]
    assert leftovers == []


async def test_sigint_stops_promptly_and_keeps_work(tmp_path):
    interrupted = trio.Event()

    async def respond(req):  # after the interrupt, answers are held: no slot frees however long the signal takes
        await trio.sleep(0.2)
        if interrupted.is_set():
            await trio.sleep(60)
        return synthetic(req)

    async with FakeLLMServer(respond).running() as s:
        cfg = write_config(tmp_path, s.base_url)  # max_concurrency 4
        proc = await trio.lowlevel.open_process([sys.executable, "-m", "graphglean", "run", str(cfg)], env=env(),
                                                stderr=subprocess.PIPE)
        while len(s.chat_requests()) < 40:
            await trio.sleep(0.01)
        sent_at_interrupt = len(s.chat_requests())
        t0 = time.monotonic()
        interrupted.set()
        proc.send_signal(signal.SIGINT)
        await proc.wait()
        elapsed = time.monotonic() - t0
        err = (await proc.stderr.receive_some(65536)).decode()
    assert len(s.chat_requests()) <= sent_at_interrupt + 4  # only what was on its way when the signal came
    assert elapsed < 10.0 and proc.returncode == 130
    assert "interrupted" in err and "Traceback" not in err
    import sqlite3

    kept = sqlite3.connect(tmp_path / "out" / "run.sqlite").execute("SELECT COUNT(*) FROM results").fetchone()[0]
    assert kept > 0
    report = json.loads((tmp_path / "out" / "report.json").read_text())  # what it did and paid so far
    assert report["stopped"].startswith("interrupted") and report["passes"] == []
    assert 0 < report["invocation"]["calls"] <= len(s.chat_requests()) and report["totals"]["invocations"] == 1


async def test_an_endpoint_lost_mid_run_leaves_a_report_of_what_was_paid(tmp_path):
    async with FakeLLMServer(synthetic, latency=0.05).running() as s:
        cfg = write_config(tmp_path, s.base_url, llm={"max_retries": 1})
        proc = await trio.lowlevel.open_process([sys.executable, "-m", "graphglean", "run", str(cfg)], env=env(),
                                                stderr=subprocess.PIPE)
        while len(s.chat_requests()) < 12:
            await trio.sleep(0.01)
    with trio.fail_after(60):  # the server is gone: every connection is refused
        await proc.wait()
    err = (await proc.stderr.receive_some(65536)).decode()
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert proc.returncode == 2 and "Traceback" not in err, err
    assert report["stopped"].startswith("stopped: ") and "unreachable" in report["stopped"] and report["passes"] == []
    assert 8 <= report["invocation"]["calls"] <= len(s.chat_requests())  # the answers it was paid for


async def test_secret_appears_nowhere(tmp_path):
    marker = "sk-MARKER-7f3a9c1e5b"
    faults = FaultPlan(rate=0.15, kinds=("500", "503", "drop", "malformed"), seed=3)

    def leaky(req):  # an endpoint that echoes the key in an error body now and then
        if req.number % 7 == 3:
            return Reply(status=503, body={"error": {"message": f"overloaded for key {marker}"}})
        return synthetic(req)

    async with FakeLLMServer(leaky, faults=faults).running() as s:
        cfg = write_config(tmp_path, s.base_url, llm={"api_key": marker, "max_retries": 8},
                           summary={"enabled": True}, episodic={"enabled": True})
        r = await cli("run", cfg)
    (tmp_path / "x").mkdir()
    async with FakeLLMServer(lambda req: Reply(status=401, body={"error": {"message": f"bad key {marker}"}})
                             ).running() as s401:
        refused = await cli("run", write_config(tmp_path / "x", s401.base_url, llm={"api_key": marker}))
    assert refused.returncode == 2 and b"refused the API key" in refused.stderr
    places = [r.stdout, r.stderr, refused.stdout, refused.stderr]
    for path in tmp_path.rglob("*"):
        if path.is_file() and path.name != "config.yaml":
            places.append(path.read_bytes())
    assert r.returncode in (0, 1) and len(places) > 10
    assert sum(marker.encode() in p for p in places) == 0


BIG_LINE_MB = 50


def bad_inputs(tmp: Path) -> list[tuple[str, dict, str, bytes | None]]:
    """(case, config sections, expected message, input file bytes or None)."""
    return [
        ("invalid utf-8", {"input": {"encoding_errors": "strict"}}, "invalid UTF-8 at byte offset 6",
         b"hello \xff\xfe world"),
        ("not utf-8 nor windows-1252", {}, "not UTF-8 (9 bytes invalid, the first at byte offset 0) nor Windows-1252",
         "Привет мир".encode("cp1251")),
        ("nul bytes", {}, "looks binary (3 NUL bytes, the first at offset 2)", b"ab\x00\x00\x00cd"),
        ("empty file", {}, "empty input", b""),
        ("whitespace only", {}, "empty input", b"  \n\n\t"),
        ("binary file", {}, "looks binary", bytes(range(256)) * 4),
        ("jsonl bad line", {"input": {"format": "jsonl"}}, ":2: invalid JSON", b'{"text": "a"}\n{nope\n'),
        ("jsonl not object", {"input": {"format": "jsonl"}}, ":1: expected a JSON object, got list", b"[1, 2]\n"),
        ("jsonl no text", {"input": {"format": "jsonl"}}, ":1: missing field 'text'", b'{"body": "a"}\n'),
        ("jsonl dup id", {"input": {"format": "jsonl"}}, "duplicate document id 'a'",
         b'{"id": "a", "text": "x"}\n{"id": "a", "text": "y"}\n'),
        ("chunks no id", {"input": {"format": "chunks"}}, ":1: missing field 'id'", b'{"text": "a"}\n'),
        ("locomo not json", {"input": {"format": "locomo"}}, "invalid JSON", b"{oops"),
        ("locomo wrong shape", {"input": {"format": "locomo"}}, "missing 'conversation' object", b'[{"x": 1}]'),
        ("messages no role", {"input": {"format": "messages"}, "graph": {"enabled": False},
                              "enrich": {"enabled": True}}, ":1: missing field 'role'",
         b'{"session_id": "s", "content": "hi"}\n'),
        ("enrich without messages", {"graph": {"enabled": False}, "enrich": {"enabled": True}},
         "enrich needs chat messages", b"Some text."),
    ]


def bad_configs() -> list[tuple[str, str, str]]:
    return [
        ("malformed yaml", "llm: {model: [\n", "config.yaml:2: YAML syntax error"),
        ("tab indentation", "llm:\n\tmodel: x\n", "YAML syntax error"),
        ("unknown top key", "lmm: {}\n", "config.yaml:1: lmm: unknown key"),
        ("unknown nested key", "graph:\n  max_gleaning: 2\n", "config.yaml:2: graph.max_gleaning: unknown key"),
        ("wrong type bool", "graph: {enabled: maybe}\n", "graph.enabled: expected true or false, got 'maybe'"),
        ("wrong type int", "llm: {max_retries: lots}\n", "llm.max_retries: expected an integer, got 'lots'"),
        ("wrong type list", "graph: {entity_types: person}\n", "graph.entity_types: expected a list"),
        ("negative size", "chunking: {size: -5}\n", "chunking.size: expected a positive integer, got -5"),
        ("zero concurrency", "llm: {max_concurrency: 0}\n", "llm.max_concurrency: expected a positive integer"),
        ("overlap >= size", "chunking: {size: 100, overlap: 100}\n", "chunking.overlap: must be less than"),
        ("unset variable", "llm: {api_key: '${GG_NEVER_SET_VAR}'}\n", "environment variable GG_NEVER_SET_VAR is not set"),
        ("bad enum", "llm: {cache: {mode: sometimes}}\n", "llm.cache.mode: expected one of off, read, write"),
        ("bad format", "input: {format: pdf}\n", "input.format: expected one of auto, text"),
        ("detail out of range", "summary: {detail: 2}\n", "summary.detail: expected a number in [0, 1]"),
        ("not a mapping", "- a\n- b\n", "(top level): expected a mapping"),
        ("section not a mapping", "graph: true\n", "config.yaml:1: graph: expected a mapping"),
        ("bad price", "prices: {m: {input: free}}\n", "prices.m.input: expected a number"),
    ]


@pytest.mark.parametrize("case", range(len(bad_inputs(Path(".")))))
async def test_bad_input_exits_2_with_one_line(tmp_path, case):
    name, sections, message, data = bad_inputs(tmp_path)[case]
    target = tmp_path / "input.txt"
    target.write_bytes(data)
    sections = {**sections, "input": {"path": str(target), **sections.get("input", {})}}
    async with FakeLLMServer(synthetic).running() as s:
        r = await cli("run", write_config(tmp_path, s.base_url, **sections))
    err = r.stderr.decode()
    assert r.returncode == 2 and message in err, (name, err)
    assert "Traceback" not in err and len([l for l in err.splitlines() if "error:" in l]) == 1


@pytest.mark.parametrize("case", range(len(bad_configs())))
async def test_bad_config_exits_2_with_one_line(tmp_path, case):
    name, text, message = bad_configs()[case]
    path = tmp_path / "config.yaml"
    path.write_text(text)
    r = await cli("run", path)
    err = r.stderr.decode()
    assert r.returncode == 2 and message in err, (name, err)
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


async def test_unwritable_output_or_cache_folder(tmp_path):
    (tmp_path / "afile").write_text("x")
    r = await cli("run", write_config(tmp_path, "", output={"dir": str(tmp_path / "afile")}))
    assert r.returncode == 2 and b"output.dir: cannot write to" in r.stderr and b"Traceback" not in r.stderr
    async with FakeLLMServer(synthetic).running() as s:
        r = await cli("run", write_config(tmp_path, s.base_url, llm={"cache": {"path": str(tmp_path / "afile" / "c.db")}}))
    assert r.returncode == 2 and b"llm.cache.path: cannot write to" in r.stderr and len(s.requests) == 0


async def test_folder_without_readable_files_and_missing_config(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.bin").write_bytes(b"\x00\x01")
    r = await cli("run", write_config(tmp_path, "", input={"path": str(tmp_path / "docs")}))
    assert r.returncode == 2 and b"no readable text files" in r.stderr
    r = await cli("run", tmp_path / "missing.yaml")
    assert r.returncode == 2 and b"configuration file not found" in r.stderr


@pytest.mark.parametrize("endpoint,message", [
    ("unreachable", "llm.base_url: http://127.0.0.1:"),
    ("401", "refused the API key (HTTP 401)"),
    ("404", "does not serve model 'gpt-4' (HTTP 404): The model `gpt-9` does not exist"),
])
async def test_endpoint_errors_exit_2_with_one_line(tmp_path, endpoint, message):
    if endpoint == "unreachable":
        with trio.socket.socket() as sock:
            await sock.bind(("127.0.0.1", 0))
            url = f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
        r = await cli("run", write_config(tmp_path, url, llm={"max_retries": 1}))
    else:
        body = {"error": {"message": "The model `gpt-9` does not exist" if endpoint == "404" else "bad key"}}
        async with FakeLLMServer(lambda req: Reply(status=int(endpoint), body=body)).running() as s:
            r = await cli("run", write_config(tmp_path, s.base_url))
    err = r.stderr.decode()
    assert r.returncode == 2 and message in err and "Traceback" not in err, err


async def test_a_50_mb_single_line_is_read_and_chunked(tmp_path):
    line = ("Scrooge met Marley in London and they talked for hours about money. " * 15000).encode()
    big = tmp_path / "big.txt"
    with open(big, "wb") as f:
        while f.tell() < BIG_LINE_MB * 1_000_000:
            f.write(line)
    r = await cli("run", write_config(tmp_path, "", input={"path": str(big)}), "--dry-run")
    assert r.returncode == 0 and b"chunks" in r.stdout and b"Traceback" not in r.stderr
