"""Building the graph: records merged into NetworkX, grounded in their chunks, descriptions summarized (streaming
while extraction runs)."""
