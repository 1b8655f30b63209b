import io
import json
import warnings

import pytest

from graphglean.core.config import InputConfig
from graphglean.core.errors import InputError
from graphglean.core.tokens import Tokenizer
from graphglean.text.inputs import InputWarning, read_inputs

from .conftest import shared_path

TOK = Tokenizer("gpt-4")


def read(path, **kw):
    return read_inputs(InputConfig(path=str(path), **kw), TOK)


def test_folder_is_recursive_sorted_and_reports_skips(tmp_path):
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "two.md").write_text("# Two")
    (tmp_path / "a.txt").write_text("One")
    (tmp_path / "image.png").write_bytes(b"\x89PNG")
    with pytest.warns(InputWarning, match="image.png"):
        docs = read(tmp_path).documents
    assert [d.id for d in docs] == ["a.txt", "b/two.md"]


def test_jsonl_fields_ids_metadata(tmp_path):
    p = tmp_path / "d.jsonl"
    p.write_text(json.dumps({"id": "x", "body": "Hello", "lang": "en"}) + "\n\n" + json.dumps({"body": "World"}) + "\n")
    docs = read(p, text_field="body", metadata_fields=["lang"]).documents
    assert [(d.id, d.text, d.metadata) for d in docs] == [("x", "Hello", {"lang": "en"}), ("d.jsonl:3", "World", {})]


def test_prechunked_used_as_given(tmp_path):
    p = tmp_path / "c.jsonl"
    p.write_text('{"id": "c1", "text": "alpha"}\n{"id": "c2", "text": "beta"}\n')
    chunks = read(p, format="chunks").chunks
    assert [(c.id, c.text) for c in chunks] == [("c1", "alpha"), ("c2", "beta")]


def test_stdin():
    cfg = InputConfig(path="-")
    docs = read_inputs(cfg, TOK, stdin=io.BytesIO(b"from stdin")).documents
    assert docs[0].text == "from stdin" and docs[0].id.startswith("doc-")


@pytest.mark.parametrize("content,kw,message", [
    (b"ok \xff\xfe bad", {"encoding_errors": "strict"}, "invalid UTF-8 at byte offset 3"),
    (b"a\x00\x00b", {}, "looks binary (2 NUL bytes, the first at offset 1)"),
    (b"", {}, "empty input"),
    (b'{"text": "a"}\n{oops\n', {"format": "jsonl"}, ":2: invalid JSON"),
    (b'{"text": 3.5, "id": [1]}\n', {"format": "jsonl"}, ":1: field 'id' must be a string"),
    (b'{"id": "a"}\n', {"format": "chunks"}, ":1: missing field 'text'"),
    # chat messages: what is no message in any shape is still an error naming the line
    (b'{"session_id": "s", "role": "user"}\n', {"format": "messages"}, ":1: missing field 'content'"),
    (b'{"session_id": "s", "role": "user", "content": {"text": "hi"}}\n', {"format": "messages"},
     ":1: field 'content' must be a string or a list of parts, got dict"),
    (b'{"session_id": "s", "role": "user", "content": "a"}\n{"session_id": "s", "role": "user", "content": [3]}\n',
     {"format": "messages"}, ":2: content part 1 must be an object with a 'type'"),
    (b'{"session_id": "s", "role": "user", "content": [{"type": "text", "text": ["a"]}]}\n', {"format": "messages"},
     ":1: content part 1 (text) must hold its text as a string in 'text', got list"),
    (b'{"session_id": "s", "content": [{"type": "text", "text": "a"}]}\n', {"format": "messages"},
     ":1: missing field 'role'"),
])
def test_bad_inputs_name_the_file(tmp_path, content, kw, message):
    p = tmp_path / "in.txt"
    p.write_bytes(content)
    with pytest.raises(InputError) as e:
        read(p, **kw)
    assert str(p) in str(e.value) and message in str(e.value)


def test_invalid_utf8_replace_warns(tmp_path):
    p = tmp_path / "in.txt"
    p.write_bytes(b"ok \xff end")
    with pytest.warns(InputWarning, match="byte offset 3"):
        assert read(p, encoding_errors="replace").documents[0].text == "ok \ufffd end"


def test_empty_folder_and_missing(tmp_path):
    with pytest.raises(InputError, match="no readable text files"):
        read(tmp_path)
    with pytest.raises(InputError, match="input not found"):
        read(tmp_path / "nope.txt")


def test_locomo_sessions_turns_and_messages():
    path = shared_path("corpora", "locomo", "locomo10.json")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        inputs = read(path)
    assert len(inputs.messages) == 5882
    first = inputs.chunks[0]
    assert first.metadata["date"] == "1:56 pm on 8 May, 2023" and first.text.startswith("Caroline: Hey Mel!")
    turns = read(path, locomo_granularity="turn").chunks
    assert len(turns) == 5882 and turns[0].metadata["speaker"] == "Caroline"


def test_folder_listing_work_grows_linearly_with_the_files(tmp_path, monkeypatch):
    import pathlib

    for i in range(300):
        (tmp_path / f"f{i:03d}{'.txt' if i % 3 else '.dat'}").write_text(f"text {i}")
    calls = {"n": 0}
    hash_, eq = pathlib.PurePath.__hash__, pathlib.PurePath.__eq__

    def counted(fn):
        def wrapper(*args):
            calls["n"] += 1
            return fn(*args)
        return wrapper

    monkeypatch.setattr(pathlib.PurePath, "__hash__", counted(hash_))
    monkeypatch.setattr(pathlib.PurePath, "__eq__", counted(eq))
    with pytest.warns(InputWarning, match="skipped 100 file"):
        docs = read(tmp_path).documents
    assert [d.id for d in docs] == [f"f{i:03d}.txt" for i in range(300) if i % 3]
    assert calls["n"] <= 10 * 300  # path hashing and comparing; rebuilding a set per file costs ~300 x 200


PDF = b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nstream\nx\x9c\xcb\xc9\xc1\x1e\x85\nendstream\n"


def test_a_file_that_is_not_text_is_skipped_whatever_its_name_with_one_warning_naming_it(tmp_path):
    (tmp_path / "a.txt").write_text("Ada Lovelace wrote the first program.")
    (tmp_path / "picture.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    (tmp_path / "scan.txt").write_bytes(PDF)  # a PDF under a text name
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "dump.md").write_bytes(b"header\x00\x00\x01\x02 binary")
    (tmp_path / "sub" / "noise.txt").write_bytes(bytes(range(1, 9)) * 40)  # control bytes, no NUL
    (tmp_path / "sub" / "notes.md").write_text("# Notes\n\nGrace Hopper found a moth.\f\n", encoding="utf-8")
    with pytest.warns(InputWarning) as caught:
        docs = read(tmp_path).documents
    assert [d.id for d in docs] == ["a.txt", "sub/notes.md"]
    [warning] = [str(w.message) for w in caught]
    assert "skipped 4 file(s)" in warning and "picture.png" in warning and "scan.txt (a PDF)" in warning
    assert "sub/dump.md (2 NUL bytes, the first at offset 6)" in warning and "sub/noise.txt (320 control bytes" in warning


def test_a_folder_reads_utf16_with_or_without_a_mark_and_latin1_each_said_and_skips_what_does_not_decode(tmp_path):
    (tmp_path / "a.txt").write_bytes("\ufeffHello UTF-16 text here".encode("utf-16-le"))
    (tmp_path / "b.txt").write_bytes("Hello UTF-16 without a mark".encode("utf-16-le"))
    (tmp_path / "c.txt").write_bytes(b"plain " * 20000 + b"caf\xe9")  # Latin-1 past what the sniff reads
    (tmp_path / "d.txt").write_text("Ada Lovelace wrote the first program.")
    (tmp_path / "e.txt").write_bytes("Привет, мир. Как дела?".encode("cp1251"))  # no UTF-8, no Windows-1252
    with pytest.warns(InputWarning) as caught:
        docs = read(tmp_path).documents
    assert [(d.id, d.text[:5], d.text[-4:]) for d in docs] == [
        ("a.txt", "Hello", "here"), ("b.txt", "Hello", "mark"), ("c.txt", "plain", "café"), ("d.txt", "Ada L", "ram.")]
    said = [str(w.message) for w in caught]
    assert len(said) == 3
    assert said[0].endswith("b.txt: read as UTF-16-LE (it has no byte-order mark)")
    assert "c.txt: not UTF-8 (1 byte invalid, the first at byte offset 120003); read as Windows-1252" in said[1]
    assert "skipped 1 file(s)" in said[2] and "e.txt (not UTF-8 (16 bytes invalid, the first at byte offset 0) nor " \
        "Windows-1252 text" in said[2]


def test_a_folder_of_nothing_but_binary_files_is_an_error(tmp_path):
    (tmp_path / "scan.txt").write_bytes(PDF)
    with pytest.warns(InputWarning, match="scan.txt"), pytest.raises(InputError, match="no readable text files"):
        read(tmp_path)


@pytest.mark.parametrize("content, message", [
    (PDF, "looks binary (a PDF)"),
    (b"\xff\xfeh\x00\x00\xd8i\x00", "invalid UTF-16 at byte offset 4"),  # a lone surrogate
    (b"\xef\xbb\xbfplain text with a byte-order mark", None),
    ("\ufeffplain text with a byte-order mark".encode("utf-16-le"), None),
    ("\ufeffplain text with a byte-order mark".encode("utf-16-be"), None),
    ("\ufeffplain text with a byte-order mark".encode("utf-32-le"), None),
])
def test_a_file_given_by_name_says_what_it_is(tmp_path, content, message):
    p = tmp_path / "in.txt"
    p.write_bytes(content)
    if message is None:  # UTF-8, UTF-16 and UTF-32 that carry a byte-order mark are text
        assert read(p).documents[0].text == "plain text with a byte-order mark"
        return
    with pytest.raises(InputError) as e:
        read(p)
    assert str(e.value).startswith(f"{p}: {message}")


@pytest.mark.slow
async def test_a_run_over_a_folder_with_a_binary_text_file_reads_the_rest_and_says_which_it_skipped(tmp_path):
    from graphglean.testing import FakeLLMServer
    from graphglean.testing.models.responders import synthetic

    from .test_cli import cli, write_config

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("Ada Lovelace worked with Charles Babbage in London.")
    (docs / "scan.txt").write_bytes(PDF)
    async with FakeLLMServer(synthetic).running() as s:
        done = await cli("run", write_config(tmp_path, s.base_url, input={"path": str(docs)}))
    err = done.stderr.decode()
    assert done.returncode == 0, err
    assert err.count("scan.txt (a PDF)") == 1 and "Traceback" not in err


def test_chat_messages_in_openais_shape_join_their_text_parts_and_skip_tool_calls_with_a_warning(tmp_path):
    p = tmp_path / "m2.jsonl"
    call = [{"id": "c1", "type": "function", "function": {"name": "lookup", "arguments": "{}"}}]
    lines = [
        {"session_id": "s1", "role": "user", "content": "Hi, I am Bob."},
        {"session_id": "s1", "role": "user", "content": [{"type": "text", "text": "My sister Carol lives in Porto."}]},
        {"session_id": "s1", "role": "assistant", "content": None, "tool_calls": call},
        {"session_id": "s1", "role": "tool", "tool_call_id": "c1", "content": "Porto is in Portugal."},
        {"session_id": "s1", "role": "user", "content": [
            {"type": "text", "text": "Here is her photo."}, {"type": "image_url", "image_url": {"url": "https://x/y.png"}},
            {"type": "input_text", "text": "She moved in 2019."}]},
        {"session_id": "s1", "role": "user", "content": [
            {"type": "image_url", "image_url": {"url": "https://x/z.png"}},
            {"type": "input_audio", "input_audio": {"data": "", "format": "wav"}}]},
        {"session_id": "s1", "role": "assistant", "tool_calls": call},  # no content at all, as the API allows
        {"session_id": "s1", "role": "assistant", "content": [{"type": "text", "text": {"value": "Noted.",
                                                                                         "annotations": []}}]},
    ]
    p.write_text("".join(json.dumps(line) + "\n" for line in lines))
    with pytest.warns(InputWarning) as caught:
        inputs = read(p, format="messages")
    assert [(m.role, m.content) for m in inputs.messages] == [
        ("user", "Hi, I am Bob."), ("user", "My sister Carol lives in Porto."), ("tool", "Porto is in Portugal."),
        ("user", "Here is her photo.\nShe moved in 2019."), ("assistant", "Noted.")]
    assert [str(w.message) for w in caught] == [
        f"{p}: 3 content part(s) that are not text left out (2 image_url, 1 input_audio); the text parts are read",
        f"{p}:3, {p}:6, {p}:7: 3 messages without text skipped (content null, as a tool call's, or no text part)"]
    assert inputs.notes.warnings == [str(w.message) for w in caught]


@pytest.mark.slow
async def test_a_run_names_every_skipped_file_in_its_log_and_report_and_keeps_the_input_warnings(tmp_path):
    from graphglean.testing import FakeLLMServer
    from graphglean.testing.models.responders import synthetic

    from .test_cli import cli, write_config

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("Ada Lovelace worked with Charles Babbage in London.")
    (docs / "b.txt").write_bytes("Le café de Genève est fermé.".encode("latin-1"))
    (docs / "scan.txt").write_bytes(PDF)
    for i in range(6):
        (docs / f"image{i}.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    async with FakeLLMServer(synthetic).running() as s:
        done = await cli("run", write_config(tmp_path, s.base_url, input={"path": str(docs)}))
    err = done.stderr.decode()
    assert done.returncode == 0, err
    skipped_line = f"{docs}: skipped 7 file(s) that are not text (.txt, .md, .markdown, .rst, .text): image0.png, " \
                   "image1.png, image2.png, image3.png, image4.png and 2 more"
    assert f"graphglean: warning: {skipped_line} (logs/run.log names every one)" in err.splitlines()
    assert "image5.png" not in err and "scan.txt" not in err  # the console stays short
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    named = "its name ends in none of .txt, .md, .markdown, .rst, .text"
    assert report["skipped"] == [{"file": str(docs / f"image{i}.png"), "reason": named} for i in range(6)] + [
        {"file": str(docs / "scan.txt"), "reason": "a PDF"}]
    assert report["warnings"] == [
        f"{docs / 'b.txt'}: not UTF-8 (3 bytes invalid, the first at byte offset 6); read as Windows-1252 (cp1252), "
        "in which it is text (input.encoding_errors: replace reads it as UTF-8, strict refuses it)", skipped_line]
    assert report["documents"] == 2
    log = (tmp_path / "out" / "logs" / "run.log").read_text()
    for row in report["skipped"]:
        assert f"  {row['file']} ({row['reason']})" in log
