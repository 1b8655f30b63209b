"""The local engine: the plan's passes in this process, concurrently on one scheduler, one client and the
run store in the output folder; then the report."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, Callable

from ..core.atomic import write_text
from ..core.config import Config
from ..core.tokens import Tokenizer
from ..graph.resolution.resolve import asks_llm
from ..llm.client import ChatClient
from ..pipeline.communities import reports_asked
from ..pipeline.context import PassOutcome, RunContext
from ..pipeline.plan import plan_passes, run_passes, writable_dir
from ..pipeline.report import run_report
from ..pipeline.runstore import RunStore
from ..pipeline.steps import graph_nlp_pass
from ..scheduling.scheduler import Progress, Scheduler
from ..text.inputs import read_inputs


async def run_local(cfg: Config, *, fresh: bool, progress: Progress | None, notice: Callable[[str], None],
                    stdin: Any = None) -> tuple[dict[str, Any], list[PassOutcome]]:
    """Run ``cfg``'s passes here. Returns the report (also written to report.json) and one outcome per pass."""
    tokenizer = Tokenizer(cfg.llm.model)
    inputs = read_inputs(cfg.input, tokenizer, stdin=stdin)
    chunks = inputs.all_chunks(tokenizer, cfg.chunking.size, cfg.chunking.overlap)
    passes = plan_passes(cfg, notice)
    out_dir = Path(cfg.output.dir)
    writable_dir(out_dir, "output.dir")
    needs_llm = any(fn is not graph_nlp_pass or asks_llm(cfg, offline=True) or reports_asked(cfg) for _, fn in passes)
    if cfg.llm.cache.mode != "off" and needs_llm:
        writable_dir(Path(cfg.llm.cache.path).parent, "llm.cache.path")
    store = RunStore(out_dir, fresh=fresh)
    for stale in out_dir.glob(".*.tmp"):  # half-written by a run that was killed: never an output
        stale.unlink(missing_ok=True)
    ctx = RunContext(cfg, inputs, chunks, tokenizer, out_dir, store, notice=notice, fresh=fresh, progress=progress)
    started = time.monotonic()
    outcomes: list[PassOutcome] = []
    try:
        if needs_llm:
            async with ChatClient.from_config(cfg.llm, count_tokens=tokenizer.count,
                                              journal=store.journal()) as client:
                ctx.scheduler = Scheduler(client, fail_fast=cfg.fail_fast, progress=progress)
                outcomes = await run_passes(ctx, passes)
        else:
            outcomes = await run_passes(ctx, passes)
        if not any(o.failed for o in outcomes):  # nothing left to resume: the journal has served
            store.clear_journal()
    finally:
        store.close()
    report = run_report(ctx, outcomes, time.monotonic() - started)
    write_text(out_dir / "report.json", json.dumps(report, indent=1, ensure_ascii=False) + "\n")
    return report, outcomes
