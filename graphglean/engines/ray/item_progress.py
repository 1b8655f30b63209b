"""The items of every shard of a Ray run, as their tasks' ``progress.json`` files say, shown through the run's
`Progress`."""

from __future__ import annotations

from pathlib import Path

from ...llm.accounting import CallAccount
from ...scheduling.scheduler import Progress
from . import shard_task


class ItemProgress:
    """The items of every shard, as their tasks' ``progress.json`` files say, shown through the run's
    `Progress` next to the shards: totals grow as shards start their passes, counts as their items finish."""

    def __init__(self, progress: Progress) -> None:
        self.progress = progress
        self.seen: dict[str, dict[str, dict[str, int]]] = {}  # shard folder -> pass -> counts

    def read(self, folder: Path, finished: bool = False) -> None:
        """What is new in the shard's file. ``finished``: every item it started is done (a retried task that
        resumed from its store counts only what was left, so the counts are made whole)."""
        now = shard_task.read_progress(folder)
        before = self.seen.setdefault(str(folder), {})
        for name, row in now.items():
            old = before.setdefault(name, {})
            if finished:
                row = dict(row, done=max(row["total"], old.get("total", 0)))
            grew = {k: max(0, v - old.get(k, 0)) for k, v in row.items()}
            old.update({k: max(v, old.get(k, 0)) for k, v in row.items()})
            if grew.get("total"):
                self.progress.start(name, grew["total"])
            account = self._account(name)
            failed = grew.get("failed", 0)
            for k in range(grew.get("done", 0)):
                self.progress.advance(name, account, k < failed)

    def _account(self, name: str) -> CallAccount:
        acc = CallAccount()
        for passes in self.seen.values():
            for k in shard_task.ACCOUNT_FIELDS:
                setattr(acc, k, getattr(acc, k) + passes.get(name, {}).get(k, 0))
        return acc

    def finish(self) -> None:
        for name in {n for passes in self.seen.values() for n in passes}:
            self.progress.finish(name)
