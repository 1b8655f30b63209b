"""The local engine: the plan's passes in this process, concurrently on one scheduler, one client and the
run store in the output folder; then the report."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Callable

from .. import __version__
from ..core.config import Config
from ..core.errors import leaves
from ..core.tokens import Tokenizer
from ..llm.batch.waves import Detached, Waves
from ..llm.client import ChatClient
from ..pipeline.context import PassOutcome, RunContext
from ..pipeline.folder_lock import output_folder_lock
from ..pipeline.plan import asks_the_llm, check_inputs, plan_passes, run_passes, writable_dir
from ..pipeline.report import account_rows, accounts_kept, report_stopped, run_report, whole_run, write_report
from ..pipeline.runstore import RunStore, now_iso
from ..scheduling.scheduler import Progress, Scheduler
from ..text.inputs import read_inputs


async def run_local(cfg: Config, *, fresh: bool, progress: Progress | None, notice: Callable[[str], None],
                    stdin: Any = None, detach: bool = False) -> tuple[dict[str, Any], list[PassOutcome]]:
    """Run ``cfg``'s passes here, holding the output folder's lock. Returns the report (also written to
    report.json) and one outcome per pass; ``detach`` (batch mode): stop where the run would only wait for
    batches, the report saying so."""
    out_dir = Path(cfg.output.dir)
    writable_dir(out_dir, "output.dir")
    with output_folder_lock(out_dir, "run"):
        return await _run(cfg, out_dir, fresh=fresh, progress=progress, notice=notice, stdin=stdin, detach=detach)


async def _run(cfg: Config, out_dir: Path, *, fresh: bool, progress: Progress | None, notice: Callable[[str], None],
               stdin: Any, detach: bool) -> tuple[dict[str, Any], list[PassOutcome]]:
    tokenizer = Tokenizer(cfg.llm.model)
    inputs = read_inputs(cfg.input, tokenizer, stdin=stdin)
    chunks = inputs.all_chunks(tokenizer, cfg.chunking.size, cfg.chunking.overlap)
    passes = plan_passes(cfg, notice)
    check_inputs(cfg, inputs, chunks, passes, notice)
    needs_llm = asks_the_llm(cfg, passes)
    if cfg.llm.cache.mode != "off" and needs_llm:
        writable_dir(Path(cfg.llm.cache.path).parent, "llm.cache.path")
    store = RunStore(out_dir, fresh=fresh)
    for stale in out_dir.glob(".*.tmp"):  # half-written by a run that was killed: never an output
        stale.unlink(missing_ok=True)
    ctx = RunContext(cfg, inputs, chunks, tokenizer, out_dir, store, notice=notice, fresh=fresh, progress=progress)
    started, since = now_iso(), time.monotonic()
    book = store.invocations()
    book.begin(started)
    outcomes: list[PassOutcome] = []
    waves = None
    if needs_llm and cfg.llm.batch.enabled:
        note = getattr(progress, "note", None) or (lambda key, line: notice(line) if line else None)
        waves = Waves(cfg.llm, ledger=store.batch_ledger(), report=note, detach=detach)
    detached: list[BaseException] = []

    def accounts() -> dict[str, dict[str, Any]]:
        return account_rows(ctx.scheduler.accounts if ctx.scheduler else {}, cfg)

    stopped: BaseException | None = None
    try:
        try:
            if needs_llm:
                async with ChatClient.from_config(cfg.llm, count_tokens=tokenizer.count, journal=store.journal(),
                                                  waves=waves) as client:
                    ctx.scheduler = Scheduler(client, fail_fast=cfg.fail_fast, progress=progress)
                    tell = getattr(progress, "note", None)  # the concurrency held back: said once, by the passes
                    client.on_held((lambda line: tell("llm", line)) if tell else notice)
                    async with accounts_kept(book, accounts):
                        outcomes = await run_passes(ctx, passes)
                    if waves is not None and not any(o.failed for o in outcomes):
                        await waves.abandon()
            else:
                outcomes = await run_passes(ctx, passes)
            if not any(o.failed for o in outcomes):  # nothing left to resume: the journal (and batches) have served
                store.clear_journal()
                if waves is not None:
                    store.batch_ledger().clear()
        except* Detached as group:
            detached = leaves(group)
    except BaseException as error:  # interrupted, cancelled, or an error the run could not get past
        stopped = error
        raise
    finally:
        wall_s = time.monotonic() - since
        book.record_now(accounts(), wall_s)  # stopped or not, this invocation's calls count in the run's totals
        whole = whole_run(book.all(), book.id, accounts(), started, wall_s)
        store.close()
        if stopped is not None:  # what the run did and paid so far, as a run's end says
            report_stopped(out_dir, stopped, whole)
    if detached:  # the batches in flight are in the run store: the same command continues
        report = {"version": __version__, "detached": str(detached[0]), **whole, "passes": []}
    else:
        report = run_report(ctx, outcomes, wall_s, whole)
    if waves is not None:
        report["batches"] = dict(waves.made)  # batches created by this process, and the requests they carried
        if detach and (said := waves.nothing_submitted()):
            notice(said)
    elif detach:
        notice("--detach: the run went to the end without submitting a batch: it asks no LLM (the offline graph)")
    write_report(out_dir, report)
    return report, outcomes
