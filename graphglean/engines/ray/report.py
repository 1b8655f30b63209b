"""A Ray run's report: the shard reports summed as they come (`Totals`), with the driver's stage times and
the tasks' CPU, and `report.json` made of them as a local run's is."""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path
from typing import Any, Callable

import attrs

from ... import __version__
from ...core.config import Config
from ...llm.accounting import CallAccount
from ...pipeline.report import COUNTS, calls_section, model_fields, whole_run, with_cached_share
from ...pipeline.runstore import RunStore, now_iso
from ...text.notes import Notes
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
    notes: Notes = attrs.field(factory=Notes)  # the input's warnings and skipped files: the plan's, the shards'
    shards: int = 0
    skipped: int = 0
    retries: int = 0
    leases: dict[str, float] = attrs.field(factory=dict)
    stages_s: dict[str, float] = attrs.field(factory=dict)  # the driver's wall time per stage
    cpu_s: dict[str, float] = attrs.field(factory=dict)  # CPU time per stage, the tasks' summed
    shard_rows: dict[str, dict[str, Any]] = attrs.field(factory=dict)  # the shards' rows alone (``rows`` less
    # what the driver's stages add to them), finished before or not
    fresh: dict[str, dict[str, Any]] = attrs.field(factory=dict)  # the rows of the shards this invocation ran
    on_shard: Callable[[], None] | None = None  # told after each shard's report is added
    llm: dict[str, Any] = attrs.field(factory=dict)  # the tasks' clients' summaries merged (`llm_totals`)

    def add(self, report: dict[str, Any], folder: Path, skipped: bool) -> None:
        self.shards += 1
        self.skipped += skipped
        self.retries += max(0, shard_task.attempts(folder) - 1)
        if not skipped:
            self.add_cpu("shards", report.get("cpu_s", 0.0))
        self.chunks += report["chunks"]
        self.documents += report["documents"]
        self.lone_surrogates += report.get("lone_surrogates", 0)
        self.notes.warnings += report.get("warnings", [])
        self.notes.skipped += [(row["file"], row["reason"]) for row in report.get("skipped", [])]
        self.failed += report["failed"]
        for row in report["passes"]:
            for rows in (self.rows, self.shard_rows, *([] if skipped else [self.fresh])):
                add_row(rows.setdefault(row["pass"], {"pass": row["pass"]}), row)
        for path in report["outputs"]:
            self.outputs.setdefault(Path(path).name, []).append(folder / Path(path).name)
        for k, v in report.get("leases", {}).items():
            self.leases[k] = self.leases.get(k, 0) + v
        if self.on_shard is not None:
            self.on_shard()

    def invocation_accounts(self) -> dict[str, dict[str, Any]]:
        """This invocation's calls and their cost per pass (`account_rows`' shape): those of the shards it ran,
        and those its driver's stages (merge, resolution, communities, peer indexes) added to the rows."""
        out = {}
        for name in sorted(set(self.rows) | set(self.fresh)):
            fresh, row, shards = (r.get(name, {}) for r in (self.fresh, self.rows, self.shard_rows))
            out[name] = {k: fresh.get(k, 0) + row.get(k, 0) - shards.get(k, 0) for k in COUNTS}
            for k in ("cost_usd", "cost_online_usd"):
                parts = [fresh.get(k, 0.0), row.get(k, 0.0), shards.get(k, 0.0)]
                out[name][k] = None if None in parts else round(parts[0] + parts[1] - parts[2], 6)  # type: ignore[operator]
        return out

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


class RunBook:
    """The invocations of a Ray run, in the driver's run store (``OUTPUT/run.sqlite``): this one's accounts are
    recorded as each shard finishes and at the end, so the run's totals count every invocation's calls."""

    def __init__(self, out: Path, fresh: bool, totals: Totals) -> None:
        self.store, self.totals, self.since = RunStore(out, fresh=fresh), totals, time.monotonic()
        self.started = now_iso()
        self.book = self.store.invocations()
        self.book.begin(self.started)
        totals.on_shard = self.record

    def record(self) -> None:
        self.book.record_now(self.totals.invocation_accounts(), time.monotonic() - self.since)

    def close(self) -> dict[str, Any]:
        """The last record, and `whole_run` of it all."""
        try:
            self.record()
            wall = time.monotonic() - self.since
            return whole_run(self.book.all(), self.book.id, self.totals.invocation_accounts(), self.started, wall)
        finally:
            self.store.close()


def run_report(cfg: Config, passes: list[Any], totals: Totals, outputs: list[str], wall_s: float,
               whole: dict[str, Any] | None = None) -> dict[str, Any]:
    # shares of the shards' rows do not add up: each is that of the summed tokens
    rows = [with_cached_share(dict(totals.rows.get(name, {"pass": name}), wall_s=round(wall_s, 3)))
            for name, _ in passes]
    leases = dict(totals.leases)
    if leases.get("leased_permits"):
        for k in ("round_trip", "reply_wait", "stall"):
            leases[f"{k}_ms_per_permit"] = round(1000 * leases[f"lease_{k}_s"] / leases["leased_permits"], 4)
    whole = whole or {}
    return {"version": __version__, **whole, "passes": rows, "wall_s": round(wall_s, 3), "chunks": totals.chunks,
            "documents": totals.documents, "lone_surrogates": totals.lone_surrogates, "failed": totals.failed,
            "outputs": outputs, "skipped": totals.notes.skipped_rows(),
            "warnings": list(dict.fromkeys(totals.notes.warnings)),  # a part of a file read by the plan and a shard
            **model_fields(cfg, whole.get("totals") or calls_section([totals.invocation_accounts()])),
            "runtime": {"engine": "ray", "workers": cfg.runtime.workers, "shards": totals.shards,
                        "shards_skipped": totals.skipped, "retries": totals.retries,
                        "graph_partitions": cfg.runtime.graph_partitions, "leases": leases,
                        "stages_s": totals.stages_s, "cpu_s": totals.cpu_s},
            **({"llm": totals.llm} if totals.llm else {})}
