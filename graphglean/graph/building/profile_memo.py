"""Entity resolution's node profiles, made while extraction still runs: reading a long description's words,
pronouns and nouns is most of resolution's own work before its first question, and it is CPU work the build's
tail would otherwise wait for.

The description stream profiles a node once no unfinished chunk can add to it (`stream`). Resolution takes
that profile only where the final graph gives the node the very attributes and neighbours it was made from,
and makes it again otherwise, so the profiles, and the questions asked from them, are those of the final
graph whichever chunks finished first."""

from __future__ import annotations

from typing import Any, Iterable

import networkx as nx

from ..resolution.profiles import Profile, profile_from


class ProfileMemo:
    """Profiles by node key, each with the attributes and neighbours it was made from."""

    def __init__(self) -> None:
        self._kept: dict[Any, tuple[dict[str, Any], frozenset[Any], Profile]] = {}

    def __len__(self) -> int:
        return len(self._kept)

    def keep(self, node: Any, data: dict[str, Any], neighbours: Iterable[Any]) -> None:
        around = frozenset(neighbours)
        self._kept[node] = (data, around, profile_from(node, data, around))

    def profile(self, graph: nx.Graph, node: Any) -> Profile:
        """`profiles.profile_of` the node, made earlier where its inputs are the same."""
        data, around = graph.nodes[node], graph.neighbors(node)
        kept = self._kept.get(node)
        if kept is not None:
            around = frozenset(around)
            if kept[1] == around and kept[0] == data:
                return kept[2]
        return profile_from(node, data, around)
