"""Shard planning (no cluster needed): ids met twice across shards, one large text file cut into byte ranges."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
import trio

from graphglean.config import Config
from graphglean.errors import InputError
from graphglean.inputs import read_inputs
from graphglean.pipeline import run
from graphglean.runtime.shards import plan_shards, read_shard
from graphglean.tokens import Tokenizer

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


def test_an_engine_ray_run_stops_on_a_duplicate_before_any_work(tmp_path):
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
