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
    (b"ok \xff\xfe bad", {}, "invalid UTF-8 at byte offset 3"),
    (b"a\x00b", {}, "looks binary (NUL byte at offset 1)"),
    (b"", {}, "empty input"),
    (b'{"text": "a"}\n{oops\n', {"format": "jsonl"}, ":2: invalid JSON"),
    (b'{"text": 3.5, "id": [1]}\n', {"format": "jsonl"}, ":1: field 'id' must be a string"),
    (b'{"id": "a"}\n', {"format": "chunks"}, ":1: missing field 'text'"),
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
