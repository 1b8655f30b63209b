"""Communities: hierarchical Leiden clusters of the resolved graph (`clustering`), kept stable across runs
(`matching`), and an LLM report for each (`context`, `reading`, `reporting`), reused while its content is unchanged."""
