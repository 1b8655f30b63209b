"""A typed schema for the graph (``graph.schema``): the types and relationship patterns the prompts ask for, JSON-schema
structured output where the server takes it, the graph held to the schema (open, flag, strict), and a schema
proposed from the corpus (``graphglean tune``). See docs/schema.md."""
