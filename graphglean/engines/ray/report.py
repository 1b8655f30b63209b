"""A Ray run's report: the shard reports summed as they come (`Totals`), with the driver's stage times and
the tasks' CPU, and `report.json` made of them as a local run's is."""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path
from typing import Any, Callable

import attrs

from ...core.config import Config
from ...llm.accounting import CallAccount
from ...pipeline.report import DEFAULT_PRICES, price_of, with_cached_share
from . import shard_task


@attrs.define
class Totals:
    """The shard reports summed, kept as they come (the driver holds no per-chunk state)."""

    rows: dict[str, dict[str, Any]] = attrs.field(factory=dict)
    failed: list[dict[str, Any]] = attrs.field(factory=list)
    outputs: dict[str, list[Path]] = attrs.field(factory=dict)
    chunks: int = 0
    documents: int = 0
    lone_surrogates: int = 0  # replaced by the input readers
    shards: int = 0
    skipped: int = 0
    retries: int = 0
    leases: dict[str, float] = attrs.field(factory=dict)
    stages_s: dict[str, float] = attrs.field(factory=dict)  # the driver's wall time per stage
    cpu_s: dict[str, float] = attrs.field(factory=dict)  # CPU time per stage, the tasks' summed

    def add(self, report: dict[str, Any], folder: Path, skipped: bool) -> None:
        self.shards += 1
        self.skipped += skipped
        self.retries += max(0, shard_task.attempts(folder) - 1)
        if not skipped:
            self.add_cpu("shards", report.get("cpu_s", 0.0))
        self.chunks += report["chunks"]
        self.documents += report["documents"]
        self.lone_surrogates += report.get("lone_surrogates", 0)
        self.failed += report["failed"]
        for row in report["passes"]:
            add_row(self.rows.setdefault(row["pass"], {"pass": row["pass"]}), row)
        for path in report["outputs"]:
            self.outputs.setdefault(Path(path).name, []).append(folder / Path(path).name)
        for k, v in report.get("leases", {}).items():
            self.leases[k] = self.leases.get(k, 0) + v


    def add_cpu(self, stage: str, seconds: float) -> None:
        self.cpu_s[stage] = round(self.cpu_s.get(stage, 0.0) + seconds, 3)

    def stage_clock(self) -> Callable[[str], None]:
        """``stage(name)`` records the wall time since the previous call (or this one) under ``name``."""
        last = [time.monotonic()]

        def stage(name: str) -> None:
            now = time.monotonic()
            self.stages_s[name] = round(self.stages_s.get(name, 0.0) + now - last[0], 3)
            last[0] = now
        return stage


SUMMED_ACCOUNTS = ("structured_output",)  # a pass row's accounts of mixed values that shards add up


def add_row(into: dict[str, Any], row: dict[str, Any]) -> None:
    """Sum a pass row into another: counts add, latency percentiles and wall times take the largest, texts
    (the offline backend) are kept once each, counts by name (documents by language) add by name."""
    for k, v in row.items():
        if k == "pass" or isinstance(v, bool):
            continue
        if isinstance(v, dict) and v and all(isinstance(n, int) for n in v.values()):
            into[k] = dict(sorted((Counter(into.get(k, {})) + Counter(v)).items()))
            continue
        if k in SUMMED_ACCOUNTS and isinstance(v, dict):  # its counts add, its texts are kept once each
            add_row(into.setdefault(k, {}), v)
            continue
        if k.startswith("latency_") or k == "wall_s":
            into[k] = max(into.get(k, 0), v)
        elif v is None or (k in into and into[k] is None):
            into[k] = None
        elif isinstance(v, (int, float)):
            into[k] = round(into.get(k, 0) + v, 6) if isinstance(v, float) else into.get(k, 0) + v
        elif isinstance(v, str) and v:  # e.g. the offline backends ("a; b"): each distinct value once
            seen = [x for x in into.get(k, "").split("; ") if x]
            into[k] = "; ".join([*seen, *(x for x in dict.fromkeys(v.split("; ")) if x not in seen)])


def account_of(rows: dict[str, dict[str, Any]]) -> CallAccount:
    """The calls, cache hits and tokens of pass rows, summed."""
    acc = CallAccount()
    for row in rows.values():
        for f in ("calls", "cache_hits", "prompt_tokens", "completion_tokens"):
            setattr(acc, f, getattr(acc, f) + row.get(f, 0))
    return acc


def run_report(cfg: Config, passes: list[Any], totals: Totals, outputs: list[str], wall_s: float) -> dict[str, Any]:
    # shares of the shards' rows do not add up: each is that of the summed tokens
    rows = [with_cached_share(dict(totals.rows.get(name, {"pass": name}), wall_s=round(wall_s, 3)))
            for name, _ in passes]
    leases = dict(totals.leases)
    if leases.get("leased_permits"):
        for k in ("round_trip", "reply_wait", "stall"):
            leases[f"{k}_ms_per_permit"] = round(1000 * leases[f"lease_{k}_s"] / leases["leased_permits"], 4)
    return {"passes": rows, "wall_s": round(wall_s, 3), "chunks": totals.chunks, "documents": totals.documents,
            "lone_surrogates": totals.lone_surrogates, "model": cfg.llm.model, "failed": totals.failed, "outputs": outputs,
            "prices_known": cfg.llm.model in cfg.prices or price_of(cfg.llm.model, {}) is not None,
            "default_prices": {k: list(v) for k, v in DEFAULT_PRICES.items()},
            "runtime": {"engine": "ray", "workers": cfg.runtime.workers, "shards": totals.shards,
                        "shards_skipped": totals.skipped, "retries": totals.retries,
                        "graph_partitions": cfg.runtime.graph_partitions, "leases": leases,
                        "stages_s": totals.stages_s, "cpu_s": totals.cpu_s}}
