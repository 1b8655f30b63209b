"""Extraction: the prompts, the gleaning loop, and the record parser with its pieces (fields, blocks, exact format)."""
