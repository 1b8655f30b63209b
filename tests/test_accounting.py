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


def test_cached_prompt_tokens_are_read_from_every_server_family_and_priced_at_the_cached_rate():
    from graphglean.core.config import PriceConfig
    from graphglean.llm.records import parse_chat_body
    from graphglean.pipeline.report import cost, format_table, pass_row

    def body(usage, **extra):
        return {"choices": [{"message": {"content": "x"}, "finish_reason": "stop"}], "usage": usage, **extra}

    read = [parse_chat_body(b).usage.cached_tokens for b in (
        body({"prompt_tokens": 2000, "prompt_tokens_details": {"cached_tokens": 1920}}),  # OpenAI, vLLM
        body({"prompt_tokens": 2000, "prompt_cache_hit_tokens": 1920}),  # DeepSeek
        body({"prompt_tokens": 2000, "cache_read_input_tokens": 1920}),  # Anthropic-style proxies
        body({"prompt_tokens": 2000}, timings={"cache_n": 1920}),  # llama.cpp's server
        body({"prompt_tokens": 100, "prompt_tokens_details": {"cached_tokens": 1920}}),  # never above the prompt
        body({"prompt_tokens": 2000, "prompt_tokens_details": None}))]
    assert read == [1920, 1920, 1920, 1920, 100, 0]
    account = CallAccount(calls=1, prompt_tokens=2_000_000, completion_tokens=1_000_000, cached_tokens=1_500_000)
    assert cost(account, "gpt-4o-mini", {}) == 0.5 * 0.15 + 1.5 * 0.075 + 0.60
    assert cost(account, "mine", {"mine": PriceConfig(1.0, 2.0)}) == 2.0 + 2.0  # cached at the input price
    assert cost(account, "mine", {"mine": PriceConfig(1.0, 2.0, 0.1)}) == 0.5 + 0.15 + 2.0
    row = pass_row("graph", account, None, 1.0, 0)
    assert row["cached_share"] == 0.75 and "75%" in format_table([row])
