"""Writing graphs: GraphML, node-link JSON, JSONL tables, Neo4j CSV, Parquet; and reading the tables back."""
