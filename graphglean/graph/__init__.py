"""Graph extraction: prompts, the gleaning loop, the record parser, merging into NetworkX, export."""
