"""Entity resolution on the Ray engine's partitions: node and word tables, candidate pairs, decisions in batches, the
merged rows."""
