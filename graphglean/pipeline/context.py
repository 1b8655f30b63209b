"""What every pass of a run shares: its context (settings, inputs, chunks, run store, scheduler), its outcome,
and how a failed item is reported."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any, Awaitable, Callable

import attrs

from ..core.config import Config
from ..core.tokens import Tokenizer
from ..llm.credentials import endpoint_key
from ..scheduling.scheduler import Progress, Scheduler
from ..text.chunking import Chunk
from ..text.inputs import Inputs
from .runstore import RunStore


@attrs.define
class PassOutcome:
    name: str
    wall_s: float = 0.0
    failed: list[dict[str, Any]] = attrs.field(factory=list)  # failure_row: {"item", "status", "error"}
    extra: dict[str, Any] = attrs.field(factory=dict)
    files: list[str] = attrs.field(factory=list)
    warnings: list[str] = attrs.field(factory=list)  # one line each: said on stderr, kept in report.json
    empty: bool = False  # it produced nothing for a reason to fix (every answer cut or unreadable): exit 1


@attrs.define
class RunContext:
    cfg: Config
    inputs: Inputs
    chunks: list[Chunk]
    tokenizer: Tokenizer
    out_dir: Path
    store: RunStore | None = None
    scheduler: Scheduler | None = None
    notice: Callable[[str], None] = print
    progress: Progress | None = None  # for passes that do not go through the scheduler (the offline graph)

    fresh: bool = False  # the run starts over: stores of earlier runs are emptied

    def fingerprint(self, *parts: Any, endpoint: bool = True) -> str:
        """What shapes a pass's answers: the endpoint (one model name on two servers is two models), the
        sampling settings, and the pass's own ``parts`` (prompt texts, not the paths they were read from).
        ``endpoint`` False: the ``parts`` only (a pass that asks no LLM)."""
        llm = self.cfg.llm
        basis = list(parts)
        if endpoint:
            server = [llm.provider, endpoint_key(llm.base_url)]
            if llm.provider == "azure":
                server += [llm.azure.deployment, llm.azure.api_version]
            basis = [server, llm.model, llm.temperature, llm.seed, llm.max_tokens, llm.extra_body, *parts]
        return hashlib.sha256(json.dumps(basis, sort_keys=True, default=str).encode()).hexdigest()[:16]

    def resume(self, name: str, *fingerprint_parts: Any, endpoint: bool = True) -> dict[str, Any]:
        """Stored results of pass ``name`` (none when the settings that shape its answers changed)."""
        self.open_pass(name, *fingerprint_parts, endpoint=endpoint)
        assert self.store is not None
        return self.store.load(name)

    def open_pass(self, name: str, *fingerprint_parts: Any, endpoint: bool = True) -> None:
        """Start pass ``name`` in the store without loading its results (read a part at a time instead): those
        made under other settings are discarded, and the run says so."""
        assert self.store is not None
        if self.store.open_pass(name, self.fingerprint(*fingerprint_parts, endpoint=endpoint)):
            self.notice(f"{name}: settings changed since the stored results; that pass starts over")


PassFn = Callable[[RunContext], Awaitable[PassOutcome]]


_HTTP_STATUS = re.compile(r"\bHTTP (\d{3})\b")


def failure_row(item: str, error: BaseException | str) -> dict[str, Any]:
    """One failed item as report.json lists it: its id, the HTTP status when there was one, one line why."""
    text = (str(error) or type(error).__name__) if isinstance(error, BaseException) else error
    status = getattr(error, "status", None)
    if status is None and (found := _HTTP_STATUS.search(text)):
        status = int(found.group(1))
    return {"item": item, "status": status, "error": " ".join(text.split())[:500]}


def failures_of(outcomes: list[Any], item_id: Any) -> list[dict[str, Any]]:
    return [failure_row(item_id(o.item), o.error) for o in outcomes]
