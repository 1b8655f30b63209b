"""CallAccount's latency percentiles: one sort for the report's three."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from graphglean.llm.accounting import CallAccount


def _nearest_rank(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


@given(st.lists(st.floats(0, 1e4, allow_nan=False), max_size=200),
       st.lists(st.sampled_from([0, 1, 25, 50, 90, 95, 99, 99.9, 100]), min_size=1, max_size=4))
def test_percentiles_from_one_sort_are_each_percentile(latencies, ps):
    account = CallAccount(latencies=list(latencies))
    expected = [_nearest_rank(latencies, p) for p in ps] if latencies else [0.0] * len(ps)
    assert account.percentiles(*ps) == expected
    assert [account.percentile(p) for p in ps] == expected
    snap = account.snapshot()
    assert [snap["latency_p50_s"], snap["latency_p95_s"], snap["latency_p99_s"]] == [
        round(v, 4) for v in (account.percentiles(50, 95, 99))]
    assert account.latencies == latencies  # not sorted in place
