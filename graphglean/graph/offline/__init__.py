"""The offline method: a graph from spaCy's named entities and their co-occurrence (or capitalized phrases without
spaCy), no LLM."""
