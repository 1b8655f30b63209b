"""``--dry-run``: what a run would ask, estimated from its inputs and what the output folder holds."""

from .dry_run import dry_run, estimate_run

__all__ = ["dry_run", "estimate_run"]
