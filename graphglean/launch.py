"""The library's `run`: one run of everything a configuration enables, on the engine it names (local, or Ray),
with its report printed as a table; `run_sync` for callers that are not trio."""

from __future__ import annotations

import sys
import warnings
from typing import Any, Callable, TextIO

import attrs

from .core.config import Config
from .core.sync import entry_point
from .core.sync import run_sync as _run_sync
from .llm.credentials import endpoint_secrets, redact, remember
from .pipeline.context import PassOutcome
from .pipeline.estimate import estimate_run
from .pipeline.plan import check_runnable, state_beside_output, with_peer_needs
from .pipeline.progress import plural
from .pipeline.report import format_table, usd
from .pipeline.settings_file import write_run_settings
from .scheduling.scheduler import Progress


@attrs.define
class RunResult:
    report: dict[str, Any]
    passes: list[PassOutcome]

    @property
    def failed(self) -> int:
        return sum(len(p.failed) for p in self.passes)

    @property
    def detached(self) -> str:
        """Batch mode's ``detach``: where the run stopped and when to come back (empty: it ran to the end)."""
        return str(self.report.get("detached") or "")

    @property
    def empty(self) -> list[str]:
        """The warnings of passes that produced nothing for a reason to fix (every answer cut or unreadable)."""
        return [w for p in self.passes if p.empty for w in p.warnings]


def _stderr(message: str) -> None:
    print(f"graphglean: {redact(message)}", file=sys.stderr, flush=True)


@entry_point
async def run(cfg: Config, *, fresh: bool = False, dry: bool = False, progress: Progress | None = None,
              notice: Callable[[str], None] = _stderr, out: TextIO | None = None, stdin: Any = None,
              detach: bool = False) -> RunResult:
    """Run every pass ``cfg`` enables. Writes outputs and ``report.json`` to ``cfg.output.dir``; ``dry``
    estimates calls, tokens and cost instead, without any LLM call. ``detach`` (batch mode): submit the next
    wave and return once the run would only wait for batches (`RunResult.detached` says when to come back);
    the same call continues the run."""
    out = out or sys.stdout
    remember(endpoint_secrets(cfg.llm.api_key, cfg.llm.base_url))  # never written, wherever a message goes
    check_runnable(cfg, detach)  # a dry run refuses what the run would
    cfg = state_beside_output(with_peer_needs(cfg, notice))
    if dry:
        return RunResult(estimate_run(cfg, notice, out, stdin, fresh=fresh), [])
    if cfg.runtime.engine == "ray":  # Ray is imported only here: engine local never loads it
        from .engines.ray.driver import run_on_ray

        report, outcomes = await run_on_ray(cfg, fresh=fresh, progress=progress, notice=notice, detach=detach)
    else:
        from .engines.local import run_local

        report, outcomes = await run_local(cfg, fresh=fresh, progress=progress, notice=notice, stdin=stdin,
                                           detach=detach)
    write_run_settings(cfg)  # what `graphglean query OUTPUT` asks with (secrets as environment references)
    if not report.get("detached"):
        print(format_table(report["passes"]), file=out)
    totals = report.get("totals") or {}
    if totals.get("invocations", 0) > 1:  # the whole run, across its resumed (or detached) invocations
        cost = "" if totals.get("cost_usd") is None else f", ${usd(totals['cost_usd'])}"
        print(f"the whole run, {totals['invocations']} invocations since {report['started']}: "
              f"{plural(totals['calls'], 'call')}{cost}", file=out)
    return RunResult(report, outcomes)


def run_sync(cfg: Config, **kw: Any) -> RunResult:
    with warnings.catch_warnings():
        return _run_sync(run, cfg, **kw)
