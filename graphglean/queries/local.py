"""The local search's context: the entities the question is about (`matching`), their relationships (those
between two of them first, then by weight), and the sentences of the source text their names were found in
(sentences naming more of them first), each numbered for citing, within the token budget."""

from __future__ import annotations

import functools
import re
from typing import Any, Callable, Mapping

import networkx as nx

from ..text.sentences import Sentences
from ..view import ChunkText
from .context import ENTITY, RELATIONSHIP, SENTENCE, Budget, Context
from .matching import Match, words

ENTITY_SHARE, RELATIONSHIP_SHARE = 0.4, 0.5  # of the budget left when each section starts; sentences get the rest
SENTENCES_PER_ENTITY = 6
DESCRIPTION_WORDS = 200  # an entity's description is cut here: more entities fit, and sentences say the rest
SENTENCE_CHARS = 600  # a "sentence" longer than this (no punctuation) is cut around the name
_SPACE = re.compile(r"\s+")


def _name(graph: nx.Graph, node: Any) -> str:
    return str(graph.nodes[node].get("name") or node)


def _cut(text: str, words: int) -> str:
    parts = text.split()
    return " ".join(parts) if len(parts) <= words else " ".join(parts[:words]) + " ..."


def _entity_line(graph: nx.Graph, node: Any, label: str) -> str:
    data = graph.nodes[node]
    name = _name(graph, node)
    aliases = [a for a in dict.fromkeys(str(a) for a in data.get("aliases") or []) if a != name]
    kind = str(data.get("type") or "unknown") + (f"; also: {', '.join(aliases[:6])}" if aliases else "")
    return f"[{label}] {name} ({kind}): {_cut(str(data.get('description') or ''), DESCRIPTION_WORDS)}"


def _hits(text: str, focus: frozenset[str]) -> int:
    return len(focus.intersection(words(text))) if focus else 0


def _edges(graph: nx.Graph, nodes: list[Any], focus: frozenset[str]) -> list[tuple[Any, Any, dict[str, Any]]]:
    """The relationships of ``nodes``: between two of them first, then those whose descriptions hold more of
    the question's ``focus`` words, then by the rank of the entity, weight and name."""
    rank = {n: i for i, n in enumerate(nodes)}
    directed = graph.is_directed()
    seen, edges = set(), []
    for n in nodes:
        incident = list(graph.edges(n, data=True))
        if directed:
            incident += list(graph.in_edges(n, data=True))
        for a, b, d in incident:
            key = (a, b) if directed else frozenset((a, b))
            if key not in seen:
                seen.add(key)
                if not directed and rank.get(b, len(rank)) < rank.get(a, len(rank)):
                    a, b = b, a  # the better-ranked entity first, as an undirected edge has no order
                edges.append((a, b, d))

    def key(edge: tuple[Any, Any, dict[str, Any]]) -> tuple[Any, ...]:
        a, b, d = edge
        both = a in rank and b in rank
        weight = d.get("weight")
        first = min(rank.get(a, len(rank)), rank.get(b, len(rank)))
        return (not both, -_hits(str(d.get("description") or ""), focus), first,
                -(float(weight) if isinstance(weight, (int, float)) else 0.0), _name(graph, a), _name(graph, b))

    return sorted(edges, key=key)


def _sentence(chunk: ChunkText, sentences: Sentences, start: int, end: int) -> tuple[int, int, str]:
    """The sentence around a span (document offsets) of ``chunk``: its document start and end, and its text (a
    window around the name, marked with ellipses, when the sentence is longer than `SENTENCE_CHARS`)."""
    a, b = sentences.around(start - chunk.start, end - chunk.start)
    text = chunk.text[a:b]
    if b - a > SENTENCE_CHARS:  # no sentence ends near: a window around the name
        middle = (start - chunk.start + end - chunk.start) // 2
        x, y = max(a, middle - SENTENCE_CHARS // 2), min(b, middle + SENTENCE_CHARS // 2)
        text = ("... " if x > a else "") + chunk.text[x:y] + (" ..." if y < b else "")
    return chunk.start + a, chunk.start + b, _SPACE.sub(" ", text).strip()


def _mentions(graph: nx.Graph, nodes: list[Any], chunks: Mapping[str, ChunkText], focus: frozenset[str]
              ) -> list[tuple[tuple[Any, ...], ChunkText, int, str]]:
    """Each distinct sentence that names one of ``nodes``, with its sort key: the sentences naming more of them
    first, then those holding more of the question's ``focus`` words, then round-robin by entity rank (each
    entity's own first), then place in the text."""
    split: dict[str, Sentences] = {}
    found: dict[tuple[str, int], dict[str, Any]] = {}
    for rank, node in enumerate(nodes):
        for span in graph.nodes[node].get("spans") or []:
            if not isinstance(span, (list, tuple)) or len(span) != 3:
                continue
            chunk = chunks.get(str(span[0]))
            start, end = span[1], span[2]
            if chunk is None or not isinstance(start, int) or not isinstance(end, int):
                continue
            if not 0 <= start - chunk.start < end - chunk.start <= len(chunk.text):
                continue
            sentences = split.setdefault(chunk.id, Sentences(chunk.text))
            offset, stop, text = _sentence(chunk, sentences, start, end)
            # a sentence is known by where it ends: two overlapping chunks, or two names in it, make it once (the
            # longer reading: a chunk may start inside it)
            entry = found.setdefault((chunk.doc_id, stop), {"chunk": chunk, "offset": offset, "text": text,
                                                            "ranks": set()})
            if offset < entry["offset"]:
                entry.update(chunk=chunk, offset=offset, text=text)
            entry["ranks"].add(rank)
    per_rank: dict[int, int] = {}
    ordered = []
    for (doc, _), e in sorted(found.items(), key=lambda item: (min(item[1]["ranks"]), item[0])):
        first = min(e["ranks"])
        per_rank[first] = per_rank.get(first, 0) + 1
        key = (-len(e["ranks"]), -_hits(e["text"], focus), per_rank[first], first, doc, e["offset"])
        ordered.append((key, e["chunk"], e["offset"], e["text"]))
    return sorted(ordered, key=lambda m: m[0])


def _sentence_line(chunk: ChunkText, offset: int, text: str, label: str) -> str:
    return f"[{label}] ({chunk.doc_id}, {chunk.id}, offset {offset}) \"{text}\""


def local_context(graph: nx.Graph, matches: list[Match], chunks: Mapping[str, ChunkText], limit: int,
                  count: Callable[[str], int], focus: frozenset[str] = frozenset()) -> Context:
    """The numbered context for ``matches`` (best first) within ``limit`` tokens; relationships and sentences
    holding the question's ``focus`` words (`matching.focus_words`) come first."""
    context = Context()
    budget = Budget(context, limit, count)
    entities = budget.section("Entities", ENTITY_SHARE)
    nodes = []
    for m in matches:
        if entities.add(ENTITY, lambda label, n=m.node: _entity_line(graph, n, label), name=_name(graph, m.node),
                        text=str(graph.nodes[m.node].get("description") or "")) is not None:
            nodes.append(m.node)
    relationships = budget.section("Relationships", RELATIONSHIP_SHARE)
    arrow = " -> " if graph.is_directed() else " — "
    for a, b, d in _edges(graph, nodes, focus):
        pair = f"{_name(graph, a)}{arrow}{_name(graph, b)}"
        description = _cut(str(d.get("description") or ""), DESCRIPTION_WORDS)
        relationships.add(RELATIONSHIP, lambda label, p=pair, t=description: f"[{label}] {p}: {t}", name=pair,
                          text=description)
    sentences = budget.section("Source sentences", 1.0)
    taken: dict[int, int] = {}
    for key, chunk, offset, text in _mentions(graph, nodes, chunks, focus):
        if taken.get(key[3], 0) >= SENTENCES_PER_ENTITY:
            continue
        line = functools.partial(_sentence_line, chunk, offset, text)
        if sentences.add(SENTENCE, line, name=_name(graph, nodes[key[3]]), text=text, chunk=chunk.id,
                         document=chunk.doc_id, offset=offset) is not None:
            taken[key[3]] = taken.get(key[3], 0) + 1
    return context
