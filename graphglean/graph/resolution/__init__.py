"""Entity resolution: one node per real-world entity, by name rules and evidence, with an optional LLM tier for the
pairs the rules cannot decide."""
