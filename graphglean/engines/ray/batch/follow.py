"""The driver's side of batch mode on Ray: it starts the run's `WaveHub`, shows the batches' progress lines,
stops the run with `Detached` (``--detach``) once every request under way waits for a batch, and closes the
hub at the end (emptying its ledger when nothing failed: no batch is needed any more)."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any, Callable

import trio

from ....core.config import Config
from ....llm.batch.waves import Detached
from ..leases import ray_result
from .hub import WaveHub

FOLDER = "batch"  # in the run's shards folder: the ledger of batches in flight
LOOK_S = 1.0  # how often the driver asks the hub


def open_hub(ray: Any, cfg: Config, shards_root: Path) -> Any:
    """The hub actor, holding the ledger of ``shards_root/batch`` (the batches an earlier run left are taken up)."""
    return ray.remote(WaveHub).options(name=f"graphglean-waves-{uuid.uuid4().hex[:12]}", num_cpus=0).remote(
        cfg.llm, str(shards_root / FOLDER))


async def follow(hub: Any, detach: bool, note: Callable[[str, str], None], quiet_s: float) -> None:
    """Show the batches' lines as they change; with ``detach``, raise `Detached` once the hub has only batches
    to wait for (after ``quiet_s`` of that, as a local run)."""
    shown: dict[str, str] = {}
    while True:
        await trio.sleep(min(LOOK_S, quiet_s / 4))
        notes = (await ray_result(hub.state.remote)).value["notes"]
        for key in set(shown) - set(notes):
            note(key, "")
        for key, line in notes.items():
            if shown.get(key) != line:
                note(key, line)
        shown = notes
        if detach and (come_back := (await ray_result(hub.detachable.remote)).value):
            raise Detached(come_back)


def close_hub(ray: Any, hub: Any, clear: bool) -> dict[str, int]:
    """Stop the hub; the batches it made (``clear``: the ledger is emptied and what is in flight cancelled)."""
    try:
        return ray.get(hub.close.remote(clear))
    finally:
        ray.kill(hub)
