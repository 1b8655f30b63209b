"""What a group of LLM calls cost: counts, tokens and latencies."""

from __future__ import annotations

from typing import Any

import attrs


@attrs.define
class CallAccount:
    """Counters for one pass (or one client). Mutated only from the trio thread."""

    calls: int = 0            # answers received over the network
    requests: int = 0         # HTTP requests sent, retries included
    retries: int = 0
    cache_hits: int = 0
    rate_limited: int = 0     # 429 answers
    failures: int = 0         # calls that failed for good
    prompt_tokens: int = 0
    completion_tokens: int = 0
    batch_calls: int = 0      # of the calls, answers that came in a batch (batch mode), and their tokens
    batch_prompt_tokens: int = 0
    batch_completion_tokens: int = 0
    cached_tokens: int = 0    # prompt tokens served from the endpoint's prompt cache
    latencies: list[float] = attrs.field(factory=list, repr=False)

    def percentile(self, p: float) -> float:
        return self.percentiles(p)[0]

    def percentiles(self, *ps: float) -> list[float]:
        """The latency at each percentile ``p`` (0 without calls), from one sort."""
        if not self.latencies:
            return [0.0] * len(ps)
        ordered = sorted(self.latencies)
        return [ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))] for p in ps]

    def add(self, other: "CallAccount") -> None:
        for f in attrs.fields(CallAccount):
            if f.name == "latencies":
                self.latencies.extend(other.latencies)
            else:
                setattr(self, f.name, getattr(self, f.name) + getattr(other, f.name))

    def snapshot(self) -> dict[str, Any]:
        out = {f.name: getattr(self, f.name) for f in attrs.fields(CallAccount) if f.name != "latencies"}
        p50, p95, p99 = self.percentiles(50, 95, 99)
        out.update(latency_p50_s=round(p50, 4), latency_p95_s=round(p95, 4), latency_p99_s=round(p99, 4))
        return out


class Accounts:
    """Bumps the client's own account and the caller's (a pass's) together."""

    def __init__(self, *accounts: CallAccount | None) -> None:
        self._accounts = [a for a in accounts if a is not None]

    def include(self, accounts: Any) -> bool:
        """Whether any of ``accounts`` (a pass's, or its parts') is one of these."""
        return any(a is b for a in self._accounts[1:] for b in accounts)

    def bump(self, **counts: int) -> None:
        for name, n in counts.items():
            self.add(name, n)

    def add(self, name: str, n: int = 1) -> None:
        for a in self._accounts:
            setattr(a, name, getattr(a, name) + n)

    def latency(self, seconds: float) -> None:
        for a in self._accounts:
            a.latencies.append(seconds)
