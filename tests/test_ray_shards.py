"""Shard planning (no cluster needed): ids met twice across shards, one large text file cut into byte ranges."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
import trio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphglean.core.config import Config
from graphglean.core.errors import InputError
from graphglean.core.tokens import Tokenizer
from graphglean.engines.ray import shards
from graphglean.engines.ray.shards import plan_shards, read_shard
from graphglean.launch import run
from graphglean.text.inputs import read_inputs

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def _config(path: Path, fmt: str = "auto", shard_chunks: int = 3) -> Config:
    cfg = Config()
    cfg.input.path, cfg.input.format = str(path), fmt
    cfg.runtime.shard_chunks = shard_chunks
    return cfg


def _local_error(cfg: Config) -> str:
    with pytest.raises(InputError) as e:
        read_inputs(cfg.input, Tokenizer.cl100k())
    return str(e.value)


@pytest.mark.parametrize("fmt,kind", [("jsonl", "document"), ("chunks", "chunk")])
def test_an_id_met_again_in_another_shard_is_the_local_error_naming_file_and_line(tmp_path, fmt, kind):
    path = tmp_path / "in.jsonl"
    rows = [{"id": f"r{i}", "text": f"Text {i} about Ada."} for i in range(12)]
    rows[10]["id"] = "r1"  # shard 0 holds line 2; line 11 is in shard 3
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    cfg = _config(path, fmt)
    expected = _local_error(cfg)
    assert expected == f"{path}:11: duplicate {kind} id 'r1'"
    with pytest.raises(InputError) as e:
        list(plan_shards(cfg))
    assert str(e.value) == expected


def test_a_malformed_line_before_a_duplicate_is_the_error_as_locally(tmp_path):
    path = tmp_path / "in.jsonl"
    lines = [json.dumps({"id": f"r{i}", "text": f"Text {i}."}) for i in range(10)]
    lines[5] = '{"id": "r5", "text": '  # line 6: cut short
    lines[8] = json.dumps({"id": "r0", "text": "again"})
    path.write_text("\n".join(lines) + "\n")
    cfg = _config(path, "jsonl")
    expected = _local_error(cfg)
    assert expected.startswith(f"{path}:6: invalid JSON")
    with pytest.raises(InputError) as e:
        list(plan_shards(cfg))
    assert str(e.value) == expected


@pytest.mark.ray
def test_an_engine_ray_run_stops_on_a_duplicate_before_any_work(tmp_path):
    pytest.importorskip("ray", reason="Ray is not installed (pip install '.[ray]')")
    path = tmp_path / "in.jsonl"
    path.write_text("".join(json.dumps({"id": "same" if i in (0, 7) else f"d{i}", "text": f"Ada {i}."}) + "\n"
                            for i in range(9)))
    cfg = _config(path, "jsonl")
    cfg.runtime.engine = "ray"
    cfg.output.dir = str(tmp_path / "out")
    cfg.graph.method = "nlp"
    cfg.graph.resolve.enabled = False
    with pytest.raises(InputError, match=r"in\.jsonl:8: duplicate document id 'same'"):
        trio.run(lambda: run(cfg, out=io.StringIO(), notice=lambda m: None))
    assert not (tmp_path / "out" / "shards").exists()


WORDS = ["Ada", "met", "the", "ghost", "café", "naïve", "日本", "—", "“quoted”", "1999", "Mr.", "end.", "x", "  ", "\t",
         "e\u0301", "'s", "?!"]
SEPARATORS = ["\n\n", "\n", " ", "\r\n\r\n", "\n \n", ". ", "\n\n\n", ".\n\n", "\n\n  "]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(paragraphs=st.lists(st.tuples(st.lists(st.sampled_from(WORDS), min_size=1, max_size=30),
                                     st.sampled_from(SEPARATORS)), min_size=5, max_size=80),
       bom=st.booleans(), model=st.sampled_from(["gpt-4", "gpt-4o"]), size=st.integers(6, 50),
       overlap_share=st.floats(0, 0.9), shard_chunks=st.integers(1, 5), block=st.sampled_from([48, 200, 4096]))
def test_text_ranges_chunk_exactly_as_the_whole_text(tmp_path, monkeypatch, paragraphs, bom, model, size,
                                                      overlap_share, shard_chunks, block):
    text = ("\ufeff" if bom else "") + "".join(" ".join(words) + sep for words, sep in paragraphs)
    path = tmp_path / "book.txt"
    path.write_bytes(text.encode())
    cfg = _config(path, shard_chunks=shard_chunks)
    cfg.llm.model = model
    cfg.chunking.size, cfg.chunking.overlap = size, int(size * overlap_share)
    monkeypatch.setattr(shards, "TEXT_BLOCK", block)  # many cuts in a small text
    tok = Tokenizer(model)
    whole = read_inputs(cfg.input, tok).all_chunks(tok, size, cfg.chunking.overlap)
    specs = list(plan_shards(cfg))
    parts = [c for s in specs for c in read_shard(s, cfg, tok).all_chunks(tok, size, cfg.chunking.overlap)]
    assert parts == whole  # ids, document id, indices, texts, offsets and token counts
    assert [(c.start, c.end) for c in parts] == [(c.start, c.end) for c in whole]
    if len(whole) > shard_chunks:
        assert len(specs) == -(-len(whole) // shard_chunks) and {s.kind for s in specs} == {"text"}


def test_a_text_is_not_read_whole_by_the_planner_and_stays_one_shard_when_summarized(tmp_path, monkeypatch):
    path = tmp_path / "book.txt"
    path.write_text("\n\n".join(f"Paragraph {i} tells of Ada and the ghost." for i in range(400)))
    cfg = _config(path, shard_chunks=4)
    cfg.chunking.size, cfg.chunking.overlap = 40, 5
    monkeypatch.setattr(shards, "TEXT_BLOCK", 512)
    reads: list[int] = []
    real_open = Path.open

    def spy_open(self, mode="r", *a, **kw):
        f = real_open(self, mode, *a, **kw)
        if self == path:
            real_read = f.read
            f.read = lambda n=-1: (reads.append(n), real_read(n))[1]
        return f

    monkeypatch.setattr(Path, "open", spy_open)
    specs = list(plan_shards(cfg))
    assert len(specs) > 10 and reads and max(reads) == 512 and -1 not in reads
    cfg.summary.enabled = True
    assert [s.kind for s in plan_shards(cfg)] == ["whole"]


def test_an_invalid_byte_in_a_later_block_is_named_at_its_offset_in_the_file(tmp_path, monkeypatch):
    path = tmp_path / "book.txt"
    data = "\n\n".join(f"Paragraph {i} about Ada." for i in range(200)).encode()
    path.write_bytes(data[:3000] + b"\xff" + data[3000:])
    cfg = _config(path, shard_chunks=2)
    cfg.input.encoding_errors = "strict"  # auto reads it, the byte replaced (test_input_encodings)
    cfg.chunking.size, cfg.chunking.overlap = 20, 0
    monkeypatch.setattr(shards, "TEXT_BLOCK", 256)
    expected = _local_error(cfg)
    assert "byte offset 3000" in expected
    with pytest.raises(InputError) as e:
        list(plan_shards(cfg))
    assert str(e.value) == expected


@pytest.mark.parametrize("model", ["gpt-4", "gpt-4o"])
def test_one_long_line_is_cut_between_words_and_chunks_as_the_whole(tmp_path, monkeypatch, model):
    words = ["met", "the", "ghost", "in", "1999", "naïve", "café", "x", "ada", "e\u0301", "'s"]
    text = " ".join(words[i % len(words)] for i in range(3000))  # one line, no sentence end, no capital
    path = tmp_path / "line.txt"
    path.write_bytes(text.encode())
    cfg = _config(path, shard_chunks=3)
    cfg.llm.model = model
    cfg.chunking.size, cfg.chunking.overlap = 40, 8
    monkeypatch.setattr(shards, "TEXT_BLOCK", 256)
    cuts, tokens = shards._text_cuts(path, cfg, None)
    tok = Tokenizer(model)
    assert len(cuts) > 10 and tokens == len(tok.encode(text))  # cut as it is read, not held whole
    whole = read_inputs(cfg.input, tok).all_chunks(tok, 40, 8)
    parts = [c for s in plan_shards(cfg) for c in read_shard(s, cfg, tok).all_chunks(tok, 40, 8)]
    assert parts == whole
