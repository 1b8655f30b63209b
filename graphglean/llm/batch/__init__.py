"""Batch mode: chat requests sent in waves through an endpoint's Files and Batches API, resumable across processes."""
