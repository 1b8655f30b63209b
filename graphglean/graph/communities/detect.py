"""`find_communities`: a graph's hierarchical communities, with ids kept from a previous run's.

    communities = find_communities(graph, config)                 # no LLM call
    communities = find_communities(graph, config, previous=last)  # ids, splits and change runs carried over

A graph whose clustered content (`Network.fingerprint`) is that of the previous run keeps its clustering as
it is: no hashing of edges, no Leiden, no matching; one that changed is clustered again from the previous
communities, and only what changed moves (`clustering`)."""

from __future__ import annotations

from typing import Any

import attrs
import networkx as nx

from ...core.config import CommunitiesConfig, Config
from .clustering import hierarchical_leiden, weighted_edges
from .matching import assign_ids, previous_of
from .network import Network, network_of
from .records import Communities

ATTRIBUTE = "community"  # a node's community id at each level, coarsest first


def find_communities(graph: nx.Graph, config: Config | None = None, *,
                     previous: Communities | None = None) -> Communities:
    """Hierarchical Leiden communities of ``graph`` by ``config.graph.communities`` (edge weights count; nodes
    without edges belong to none). With ``previous`` (the last run's), clustering starts from it and a
    community keeps the id of the one it overlaps most. Synchronous and CPU-bound: seconds per 100k edges."""
    return cluster_network(network_of(graph), (config or Config()).graph.communities, previous)


def cluster_network(network: Network, cc: CommunitiesConfig, previous: Communities | None = None) -> Communities:
    """`find_communities` of a `Network` (the Ray engine's, read from the graph's tables)."""
    fingerprint = network.fingerprint(cc)
    if previous is not None and previous.network == fingerprint:
        return carried_over(previous)
    edges, nodes = weighted_edges(network)
    clusters, digest, adjacency = hierarchical_leiden(edges, cc.max_cluster_size, cc.seed, cc.levels,
                                                      previous_of(previous))
    found = assign_ids(network, clusters, nodes, digest, previous)
    found.adjacency, found.network = adjacency, fingerprint
    return found


def carried_over(previous: Communities) -> Communities:
    """The previous run's communities as this run's: the same ids, members and splits; nothing changed."""
    return attrs.evolve(previous, run=previous.run + 1)


def annotate(graph: nx.Graph, communities: Communities) -> None:
    """Set each clustered node's ``community`` attribute: its community id at each level, coarsest first."""
    for node, ids in communities.of_node().items():
        if node in graph:
            graph.nodes[node][ATTRIBUTE] = ids


def community_names(graph: nx.Graph) -> dict[Any, str]:
    """Each node's display name, for the output lines."""
    return {n: str(d.get("name") or n) for n, d in graph.nodes(data=True)}
