"""The LightRAG 1.5 working directory: GraphML, key-value stores and NanoVectorDB files."""
