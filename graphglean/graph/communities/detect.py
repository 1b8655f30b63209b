"""`find_communities`: a graph's hierarchical communities, with ids kept from a previous run's.

    communities = find_communities(graph, config)                 # no LLM call
    communities = find_communities(graph, config, previous=last)  # ids, splits and change runs carried over
"""

from __future__ import annotations

from typing import Any

import networkx as nx

from ...core.config import Config
from .clustering import hierarchical_leiden, weighted_edges
from .matching import assign_ids, previous_of
from .records import Communities

ATTRIBUTE = "community"  # a node's community id at each level, coarsest first


def find_communities(graph: nx.Graph, config: Config | None = None, *,
                     previous: Communities | None = None) -> Communities:
    """Hierarchical Leiden communities of ``graph`` by ``config.graph.communities`` (edge weights count; nodes
    without edges belong to none). With ``previous`` (the last run's), clustering starts from it and a
    community keeps the id of the one it overlaps most. Synchronous and CPU-bound: seconds per 100k edges."""
    cc = (config or Config()).graph.communities
    edges, nodes = weighted_edges(graph)
    clusters, digest, adjacency = hierarchical_leiden(edges, cc.max_cluster_size, cc.seed, cc.levels,
                                                      previous_of(previous))
    found = assign_ids(graph, clusters, nodes, digest, previous)
    found.adjacency = adjacency
    return found


def annotate(graph: nx.Graph, communities: Communities) -> None:
    """Set each clustered node's ``community`` attribute: its community id at each level, coarsest first."""
    for node, ids in communities.of_node().items():
        if node in graph:
            graph.nodes[node][ATTRIBUTE] = ids


def community_names(graph: nx.Graph) -> dict[Any, str]:
    """Each node's display name, for the output lines."""
    return {n: str(d.get("name") or n) for n, d in graph.nodes(data=True)}
