"""engine ray on one large text file: byte-range shards give the local rows, and the progress shows items."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest

from graphglean.core.config import Config
from graphglean.launch import run
from graphglean.pipeline.progress import ConsoleProgress
from graphglean.testing import FakeLLMServer
from graphglean.testing.models.responders import synthetic

from .helpers import llm_config

pytest.importorskip("ray", reason="Ray is not installed (pip install '.[ray]')")
pytestmark = pytest.mark.ray
ROOT = Path(__file__).resolve().parent.parent


def _config(server, book: Path, out: Path, **runtime) -> Config:
    cfg = Config()
    cfg.llm = llm_config(server)
    cfg.llm.max_concurrency = 16
    cfg.input.path, cfg.output.dir = str(book), str(out)
    cfg.chunking.size, cfg.chunking.overlap = 300, 40
    cfg.graph.method, cfg.graph.max_gleanings, cfg.graph.description_max_tokens = "llm", 0, 12
    cfg.graph.resolve.enabled = False
    for k, v in runtime.items():
        setattr(cfg.runtime, k, v)
    return cfg


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


async def test_a_text_file_cut_into_shards_gives_the_local_rows_and_shows_its_items(cluster, tmp_path):
    book = tmp_path / "stave1.txt"
    book.write_bytes(b"\xef\xbb\xbf" + (ROOT / "examples" / "a_christmas_carol_stave1.txt").read_bytes())
    shown = io.StringIO()
    async with FakeLLMServer(synthetic).running() as server:
        await run(_config(server, book, tmp_path / "local"), out=io.StringIO(), notice=lambda m: None)
        result = await run(_config(server, book, tmp_path / "ray", engine="ray", workers=2, shard_chunks=7,
                                   graph_partitions=3),
                           out=io.StringIO(), notice=lambda m: None, progress=ConsoleProgress(shown, interval_s=0))
    a, b = tmp_path / "local", tmp_path / "ray"
    chunks = _rows(a / "chunks.jsonl")
    assert len(chunks) > 21 and result.report["runtime"]["shards"] == -(-len(chunks) // 7)
    assert _rows(b / "chunks.jsonl") == chunks  # ids, indices, offsets of the whole text
    assert _rows(b / "entities.jsonl") == _rows(a / "entities.jsonl")
    assert _rows(b / "relationships.jsonl") == _rows(a / "relationships.jsonl")
    assert result.report["chunks"] == len(chunks) and result.report["documents"] == 1
    lines = shown.getvalue().splitlines()
    shards = result.report["runtime"]["shards"]
    assert any(re.match(rf"shards +{shards}/{shards} items?", line) for line in lines)
    graph_lines = [line for line in lines if line.startswith("graph ")]
    assert graph_lines[-1].startswith(f"{'graph':<20}{len(chunks)}/{len(chunks)} items, {len(chunks)} calls")
    assert len(graph_lines) >= len(chunks)  # item by item, not shard by shard
