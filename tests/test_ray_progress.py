"""What a user sees of a Ray run's progress: shards, and the items inside the shards while they run."""

from __future__ import annotations

import io

from graphglean.engines.ray.tasks import ItemProgress
from graphglean.engines.ray.shard_task import ShardProgress
from graphglean.llm.accounting import CallAccount
from graphglean.pipeline.progress import ConsoleProgress


def _account(calls: int) -> CallAccount:
    acc = CallAccount()
    acc.calls, acc.prompt_tokens = calls, 10 * calls
    return acc


def test_items_of_running_shards_show_as_they_finish_and_totals_grow_as_shards_start(tmp_path):
    shown = io.StringIO()
    items = ItemProgress(ConsoleProgress(shown, interval_s=0))
    a, b = ShardProgress(tmp_path / "00000", interval_s=0), ShardProgress(tmp_path / "00001", interval_s=0)
    (tmp_path / "00000").mkdir()
    (tmp_path / "00001").mkdir()
    a.start("graph", 5)
    for k in range(3):
        a.advance("graph", _account(k + 1), failed=k == 2)
    items.read(tmp_path / "00000")
    assert shown.getvalue().splitlines()[-1] == "graph               3/5 items, 3 calls, 0 cached, 30 tokens, 1 error"
    b.start("graph", 4)
    b.advance("graph", _account(2), failed=False)
    items.read(tmp_path / "00000")  # nothing new there: nothing counted twice
    items.read(tmp_path / "00001")
    assert shown.getvalue().splitlines()[-1] == "graph               4/9 items, 5 calls, 0 cached, 50 tokens, 1 error"


def test_a_shard_writes_its_progress_at_most_once_an_interval_and_always_at_a_pass_end(tmp_path):
    p = ShardProgress(tmp_path, interval_s=3600)
    p.start("graph", 100)
    for _ in range(99):
        p.advance("graph", _account(1), failed=False)
    written = (tmp_path / "progress.json").read_text()
    assert '"done": 0' in written  # the start was written, the items not yet
    p.finish("graph")
    shown = io.StringIO()
    ItemProgress(ConsoleProgress(shown, interval_s=0)).read(tmp_path)
    assert "graph               99/100 items, 1 call" in shown.getvalue()


def test_a_retried_shard_starting_over_never_takes_counts_back(tmp_path):
    shown = io.StringIO()
    items = ItemProgress(ConsoleProgress(shown, interval_s=0))
    first = ShardProgress(tmp_path, interval_s=0)
    first.start("graph", 4)
    for _ in range(3):
        first.advance("graph", _account(3), failed=False)
    items.read(tmp_path)
    again = ShardProgress(tmp_path, interval_s=0)  # its worker died: a new task resumes the shard
    again.start("graph", 1)
    again.advance("graph", _account(1), failed=False)
    items.read(tmp_path)
    assert shown.getvalue().splitlines()[-1].startswith("graph               3/4 items, 3 calls")
    items.read(tmp_path, finished=True)  # its task returned: every item of the shard is done
    assert shown.getvalue().splitlines()[-1].startswith("graph               4/4 items")
