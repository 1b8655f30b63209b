"""report.json's ``llm`` on Ray: what every task's clients learned of the server, merged as the tasks finish.

A task's client summarizes the server (`ServerProfile.summary`: its concurrency, the waits, streaming, what it
refused) as a local run's report does; a Ray run merges those summaries without knowing their fields one by
one: counts are summed, peaks, limits and rates (names saying so) take the largest, texts are kept once each,
nested blocks merge the same way, and each task's ``concurrency`` block is also listed as it was, by worker
process (lists, such as a timeline, are only there). Waits are merged before their percentiles: each task
sends its waits as a histogram of buckets 1% apart (bounded, whatever the task's size), so a run's p50 and p95
are those of every wait, within 1%, and its max exact.
"""

from __future__ import annotations

import math
import os
import re
import socket
from typing import Any, Iterable

RATIO = 1.01  # a histogram bucket's upper bound over its lower one
_LOG = math.log(RATIO)
_PEAK = re.compile(r"most|max|peak|limit|slots|per_s|start|final|p\d+")
WAITS = {"time_to_first_token_s": "first_token_s", "queue_wait_s": "queued_s"}  # summary key -> the measures' samples


def histogram(values: Iterable[float]) -> dict[int, int]:
    """Counts by bucket: 0 holds waits of at most a microsecond, bucket b > 0 those in (RATIO^(b-1), RATIO^b]
    microseconds."""
    found: dict[int, int] = {}
    for v in values:
        b = max(0, math.ceil(math.log(v * 1e6) / _LOG)) if v > 1e-6 else 0
        found[b] = found.get(b, 0) + 1
    return found


def _bucket_value(b: int) -> float:
    return 0.0 if b == 0 else RATIO ** b / 1e6


def stats_of(counts: dict[int, int], top: float) -> dict[str, float]:
    """The `ServerSlots.summary` wait statistics of a merged histogram (``top``: the largest wait seen)."""
    total = sum(counts.values())
    if not total:
        return {"count": 0}
    ordered = sorted(counts.items())

    def pick(p: float) -> float:
        rank, seen = min(total - 1, int(math.floor(p * (total - 1) + 0.5))), 0
        for b, n in ordered:
            seen += n
            if seen > rank:
                return round(min(_bucket_value(b), top), 3)
        return round(top, 3)

    return {"count": total, "p50": pick(0.5), "p95": pick(0.95), "max": round(top, 3)}


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def client_block(client: Any) -> dict[str, Any]:
    """What a task sends of one client: its summary, and its waits as histograms."""
    slots = client.server.measures  # the samples the summary reads
    waits = {}
    for key, attr in WAITS.items():
        if hasattr(slots, attr):  # else the summaries' own figures are merged (counts summed, the rest the largest)
            values = list(getattr(slots, attr) or ())
            waits[key] = {"counts": histogram(values), "max": max(values, default=0.0)}
    return {"summary": client.server.summary(client.usage_counted), "waits": waits}


class LLMTotals:
    """The merged summary, the merged wait histograms, and each worker's tasks' concurrency blocks."""

    def __init__(self) -> None:
        self.merged: dict[str, Any] = {}
        self.waits: dict[str, dict[str, Any]] = {}
        self.workers: dict[str, list[dict[str, Any]]] = {}

    def add(self, block: dict[str, Any], task: str, worker: str) -> None:
        summary = block.get("summary") or {}
        _merge(self.merged, summary, peak=False)
        concurrency = summary.get("concurrency")
        if concurrency is not None:
            self.workers.setdefault(worker, []).append({"task": task, "concurrency": concurrency})
        for key, wait in (block.get("waits") or {}).items():
            into = self.waits.setdefault(key, {"counts": {}, "max": 0.0})
            for b, n in wait["counts"].items():
                into["counts"][int(b)] = into["counts"].get(int(b), 0) + n
            into["max"] = max(into["max"], wait["max"])

    def report(self) -> dict[str, Any]:
        """The ``llm`` section (empty when no task made a call)."""
        if not self.merged:
            return {}
        out = self._with_waits(self.merged)
        out["workers"] = [{"worker": w, "tasks": tasks} for w, tasks in self.workers.items()]
        return out


    def _with_waits(self, block: dict[str, Any]) -> dict[str, Any]:
        """``block`` with each wait's statistics, wherever the summaries hold them, made from the histograms."""
        return {k: stats_of(self.waits[k]["counts"], self.waits[k]["max"]) if k in self.waits
                else self._with_waits(v) if isinstance(v, dict) else v for k, v in block.items()}


def _merge(into: dict[str, Any], new: dict[str, Any], peak: bool) -> None:
    for k, v in new.items():
        big = (peak or bool(_PEAK.search(str(k)))) and k != "count"
        old = into.get(k)
        if isinstance(v, bool):
            into[k] = bool(old) or v
        elif isinstance(v, dict):
            if not isinstance(old, dict):
                old = into[k] = {}
            _merge(old, v, big or "count" in v)  # waits: their count adds, the rest is replaced (`report`)
        elif isinstance(v, (int, float)):
            if old is None or not isinstance(old, (int, float)):
                into[k] = v
            else:
                into[k] = max(old, v) if big else round(old + v, 6)
        elif isinstance(v, str):
            seen = [x for x in str(old or "").split("; ") if x]
            into[k] = "; ".join(seen + ([v] if v and v not in seen else []))
        # None, or a list (a timeline): in the task's own block only
