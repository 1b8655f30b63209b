"""Whether a file is text, and how its bytes are read, decided on its whole content: stray NULs and a few bytes
that are no UTF-8 do not drop a file, Latin-1 and Windows-1252 text is read as such, each with a warning naming
the file; binary files and text in other encodings are still named and not read; an explicit
``input.encoding_errors`` wins over the guesses; the Ray planner's byte ranges read as the whole file does."""

from __future__ import annotations

import io
import warnings

import pytest

from graphglean.core.config import Config, InputConfig
from graphglean.core.errors import InputError
from graphglean.core.tokens import Tokenizer
from graphglean.engines.ray import shards
from graphglean.engines.ray.shards import plan_shards, read_shard
from graphglean.text.decoding import Tally, reading_of_file
from graphglean.text.inputs import InputWarning, read_inputs

TOK = Tokenizer("gpt-4")
ENGLISH = "Ada Lovelace wrote notes on the Analytical Engine with Charles Babbage in London. "


def read(path, **kw):
    """(the inputs, the input warnings said)."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        inputs = read_inputs(InputConfig(path=str(path), **kw), TOK)
    said = [str(w.message) for w in seen if issubclass(w.category, InputWarning)]
    assert said == inputs.notes.warnings  # what is said is what report.json keeps
    return inputs, said


def text_of(path, **kw):
    inputs, said = read(path, **kw)
    [doc] = inputs.documents
    return doc.text, said


@pytest.mark.parametrize("body", [ENGLISH * 120, ("Zoë and Łukasz met in Kraków — “twice”. " * 250)])
def test_a_long_utf8_file_with_two_bad_bytes_at_its_end_is_read_with_them_replaced_and_said(tmp_path, body):
    p = tmp_path / "notes.txt"
    data = body.encode() + b"\xff\xfe bad bytes here"
    p.write_bytes(data)
    text, said = text_of(p)
    assert text == body + "\ufffd\ufffd bad bytes here"
    assert said == [f"{p}: 2 bytes of invalid UTF-8 from byte offset {len(body.encode())} replaced with U+FFFD"]


@pytest.mark.parametrize("unit", ["東京の天気は晴れ。", "Zoë in Kraków, ", "a\r"])
def test_a_file_of_one_long_line_is_read_as_the_whole_is(tmp_path, unit):
    p = tmp_path / "one_line.txt"  # blocks of it are cut between characters (and never inside a CR LF)
    body = (unit * (3 * (1 << 20) // len(unit.encode()) + 7)) + "\n end"
    p.write_bytes(body.encode() + b"\xff")
    reading = reading_of_file(p)
    whole = Tally()
    whole.add(body.encode() + b"\xff")
    assert reading == whole.reading(str(p), "auto")
    text, said = text_of(p)
    assert text[:-1] == body  # (its last byte as the reading of the whole says: U+FFFD, or "ÿ")
    assert not unit.isascii() or not said or "1 byte" in said[0]  # no character cut between two blocks
    if not unit.isascii():  # a cut inside a character would be bytes of invalid UTF-8 more
        assert said == [f"{p}: 1 byte of invalid UTF-8 from byte offset {len(body.encode())} replaced with U+FFFD"]


def test_a_utf8_text_cut_inside_a_character_is_utf8_not_windows_1252(tmp_path):
    p = tmp_path / "cut.txt"
    p.write_bytes((ENGLISH + "It don\u2019t").encode()[:-2])  # "’t" is e2 80 99 74: cut after e2 80
    text, said = text_of(p)
    assert text.endswith("It don\ufffd") and "replaced with U+FFFD" in said[0]


def test_a_file_that_says_it_is_utf8_with_a_byte_order_mark_is_never_read_as_windows_1252(tmp_path):
    p = tmp_path / "bom.txt"
    p.write_bytes(b"\xef\xbb\xbf" + "Le café est fermé.".encode("latin-1"))
    text, said = text_of(p)
    assert text == "Le caf\ufffd est ferm\ufffd." and "replaced with U+FFFD" in said[0]


def test_a_one_line_file_with_a_stray_nul_is_read_without_it_and_said(tmp_path):
    p = tmp_path / "line.txt"
    p.write_bytes(b"Charles Babbage designed the Difference Engine in London.\x00\n")
    text, said = text_of(p)
    assert text == "Charles Babbage designed the Difference Engine in London.\n"
    assert said == [f"{p}: 1 stray NUL byte left out (the first at offset 57)"]


@pytest.mark.parametrize("text", [
    "Le café de la Gare à Genève est fermé. Müller aß dort, à côté de l'hôtel Ça Va.\n",
    "He said \u201chello\u201d \u2014 it cost \u20ac5 \u2026 or \u00a34, 30\u00b0C.\n",  # Windows' quotes, dash, euro
    "Price: \u00a35 today",
    "Où est-il allé\u00a0? Il est à l\u2019hôtel\u00a0!",  # French typography's no-break spaces
    ENGLISH * 50 + "caf\u00e9",
])
def test_latin1_and_windows_1252_text_is_read_as_windows_1252_and_said(tmp_path, text):
    p = tmp_path / "latin.txt"
    data = text.encode("cp1252")
    p.write_bytes(data)
    got, said = text_of(p)
    assert got == text
    assert len(said) == 1 and said[0].startswith(f"{p}: not UTF-8 (") and "read as Windows-1252 (cp1252)" in said[0]


def test_a_folder_of_such_files_skips_none(tmp_path):
    (tmp_path / "a.txt").write_bytes(ENGLISH.encode() * 120 + b"\xff\xfe bad bytes here")
    (tmp_path / "b.txt").write_bytes(ENGLISH.encode() + b"\x00")
    (tmp_path / "c.txt").write_bytes("Genève, fermé.".encode("latin-1"))
    inputs, said = read(tmp_path)
    assert [d.id for d in inputs.documents] == ["a.txt", "b.txt", "c.txt"]
    assert len(said) == 3 and inputs.notes.skipped == [] and not any("skipped" in s for s in said)


@pytest.mark.parametrize("data, reason", [
    ("Привет, мир. Как дела у тебя сегодня?".encode("cp1251"), "not UTF-8 (28 bytes invalid, the first at byte "
                                                              "offset 0) nor Windows-1252 text"),
    ("日本語のテキストです。".encode("shift_jis"), "nor Windows-1252 text"),
    (("Zoë " * 2 + "\udcff").encode("utf-8", "surrogateescape") * 20, "nor Windows-1252 text"),  # 20 bad, 40 good
    (b"ab\x00\x00\x00cd", "looks binary (3 NUL bytes, the first at offset 2)"),
    (ENGLISH.encode() * 10 + b"\x00" * 4096, "looks binary (4096 NUL bytes"),
    (bytes(range(1, 9)) * 40, "looks binary (320 control bytes in 320)"),
    (b"%PDF-1.7\nnothing else", "looks binary (a PDF)"),
])
def test_binary_files_and_text_in_other_encodings_are_still_named_and_not_read(tmp_path, data, reason):
    p = tmp_path / "in.txt"
    p.write_bytes(data)
    with pytest.raises(InputError) as e:
        read(p)
    assert str(e.value).startswith(f"{p}: ") and reason in str(e.value)


def test_an_explicit_encoding_errors_wins_over_the_guesses(tmp_path):
    p = tmp_path / "latin.txt"
    p.write_bytes("Le café est fermé.".encode("latin-1"))
    with pytest.raises(InputError, match="invalid UTF-8 at byte offset 6"):
        read(p, encoding_errors="strict")
    text, said = text_of(p, encoding_errors="replace")
    assert text == "Le caf\ufffd est ferm\ufffd." and said == [
        f"{p}: 2 bytes of invalid UTF-8 from byte offset 6 replaced with U+FFFD"]
    utf16 = tmp_path / "utf16.txt"
    utf16.write_bytes("Hello UTF-16 without a mark".encode("utf-16-le"))
    assert text_of(utf16)[0] == "Hello UTF-16 without a mark"  # auto reads it, the others do not guess
    with pytest.raises(InputError, match=r"UTF-16 text without a byte-order mark\?"):
        read(utf16, encoding_errors="strict")


def test_stdin_and_jsonl_are_read_the_same_way():
    cfg = InputConfig(path="-")
    with pytest.warns(InputWarning, match="<stdin>: not UTF-8 .* Windows-1252"):
        docs = read_inputs(cfg, TOK, stdin=io.BytesIO("Genève est fermé.".encode("latin-1"))).documents
    assert docs[0].text == "Genève est fermé."


def test_jsonl_in_windows_1252_is_read_as_such(tmp_path):
    p = tmp_path / "docs.jsonl"
    p.write_bytes('{"id": "a", "text": "Genève est fermé."}\n'.encode("cp1252"))
    inputs, said = read(p)
    assert inputs.documents[0].text == "Genève est fermé." and "read as Windows-1252" in said[0]


def test_a_file_counted_in_blocks_is_decided_as_the_whole():
    data = ("Genève est fermé.\n" * 300 + "x\n").encode("latin-1") + b"\x00\n" + ENGLISH.encode() * 30
    whole = Tally()
    whole.add(data)
    parts = Tally()
    for line in data.splitlines(keepends=True):
        parts.add(line)
    assert parts == whole


@pytest.mark.parametrize("tail", [b"\xff\xfe bad bytes here\n", "Genève est fermé, à côté.\n".encode("latin-1"),
                                  b"a stray NUL\x00 in a line\n"])
def test_ray_text_ranges_read_a_file_as_the_whole_file_is_read(tmp_path, monkeypatch, tail):
    path = tmp_path / "book.txt"
    body = "\n\n".join(f"Paragraph {i} tells of Ada and the ghost." for i in range(120)).encode()
    path.write_bytes(body[:2000] + b"\n\n" + tail + body[2000:] + b"\n\n" + tail)
    cfg = Config()
    cfg.input.path, cfg.llm.model = str(path), "gpt-4"
    cfg.runtime.shard_chunks = 3
    cfg.chunking.size, cfg.chunking.overlap = 20, 4
    monkeypatch.setattr(shards, "TEXT_BLOCK", 256)
    whole = read_inputs(cfg.input, TOK).all_chunks(TOK, 20, 4)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        specs = list(plan_shards(cfg))
    assert len([w for w in seen if issubclass(w.category, InputWarning)]) == 1  # said once, by the plan
    assert len(specs) > 3 and {s.kind for s in specs} == {"text"}
    assert {s.reading for s in specs} == {reading_of_file(path)}
    parts = [c for s in specs for c in read_shard(s, cfg, TOK).all_chunks(TOK, 20, 4)]
    assert parts == whole and [(c.start, c.end) for c in parts] == [(c.start, c.end) for c in whole]


def test_ray_reads_utf16_whole(tmp_path):
    path = tmp_path / "book.txt"
    path.write_bytes(("Paragraph about Ada.\n\n" * 400).encode("utf-16-le"))
    cfg = Config()
    cfg.input.path = str(path)
    cfg.runtime.shard_chunks = 2
    assert [s.kind for s in plan_shards(cfg)] == ["whole"]
