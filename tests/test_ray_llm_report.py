"""A Ray run's ``llm`` section: what each task's clients learned of the server, merged."""

from __future__ import annotations

import json
import math

from hypothesis import given, settings
from hypothesis import strategies as st

from graphglean.engines.ray.llm_totals import LLMTotals, histogram, stats_of


def _block(waits: list[float], streamed: int, peak: int, refused: dict, timeline: list) -> dict:
    summary = {"concurrency": {"server_slots": 4, "in_flight_limit": 8, "most_generating_at_once": peak,
                               "time_to_first_token_s": {"count": len(waits)}, "abandoned_attempts": 1,
                               "tokens_per_s_by_answers_at_once": {"1": 10.0 + peak}, "timeline": timeline},
               "streaming": {"mode": "on", "streamed_calls": streamed, "unstreamed_calls": 0, "usage": "the server's"},
               "refused": refused}
    return {"summary": summary, "waits": {"time_to_first_token_s": {"counts": histogram(waits),
                                                                    "max": max(waits, default=0.0)}}}


def test_counts_add_peaks_take_the_largest_waits_merge_before_percentiles_and_each_worker_is_listed():
    totals = LLMTotals()
    totals.add(_block([1.0] * 100, 100, 3, {}, [[0, 2], [5, 4]]), "shard 00000", "h:1")
    totals.add(_block([3.0] * 101, 101, 5, {"logit_bias": "400"}, [[0, 2]]), "shard 00001", "h:2")
    totals.add(_block([], 0, 1, {}, []), "graph.node_partitions 0", "h:1")
    llm = json.loads(json.dumps(totals.report()))  # it is written as JSON
    c = llm["concurrency"]
    assert c["abandoned_attempts"] == 3 and c["most_generating_at_once"] == 5 and c["in_flight_limit"] == 8
    assert c["tokens_per_s_by_answers_at_once"] == {"1": 15.0}  # a rate: the largest, not a sum
    waits = c["time_to_first_token_s"]
    assert waits["count"] == 201 and waits["max"] == 3.0
    assert math.isclose(waits["p50"], 3.0, rel_tol=0.01)  # the median of every wait, not of the medians
    assert "timeline" not in c  # a task's own
    assert llm["streaming"] == {"mode": "on", "streamed_calls": 201, "unstreamed_calls": 0, "usage": "the server's"}
    assert llm["refused"] == {"logit_bias": "400"}
    by_worker = {w["worker"]: w["tasks"] for w in llm["workers"]}
    assert [t["task"] for t in by_worker["h:1"]] == ["shard 00000", "graph.node_partitions 0"]
    assert by_worker["h:1"][0]["concurrency"]["timeline"] == [[0, 2], [5, 4]]


def test_no_task_made_a_call_no_section():
    assert LLMTotals().report() == {}


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.floats(0.0, 500.0), max_size=40), min_size=1, max_size=5))
def test_merged_histograms_give_every_waits_percentiles_within_one_percent(parts):
    counts: dict[int, int] = {}
    for part in parts:
        for b, n in histogram(part).items():
            counts[b] = counts.get(b, 0) + n
    every = sorted(v for part in parts for v in part)
    got = stats_of(counts, max(every, default=0.0))
    if not every:
        assert got == {"count": 0}
        return
    assert got["count"] == len(every) and got["max"] == round(every[-1], 3)
    for p in ("p50", "p95"):
        q = 0.5 if p == "p50" else 0.95
        exact = every[min(len(every) - 1, int(math.floor(q * (len(every) - 1) + 0.5)))]
        assert abs(got[p] - exact) <= 0.011 * exact + 0.001
