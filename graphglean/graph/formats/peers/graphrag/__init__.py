"""The GraphRAG 3.3 project: Parquet tables, LanceDB vector tables and settings.yaml."""
