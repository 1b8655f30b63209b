"""One run's plan and bookkeeping, shared by every engine: the passes, each pass as a step, the run store, outputs,
report and progress."""
