"""Echoed examples: ungrounded nodes named after the prompt's own examples or a stock placeholder.

A model that finds little in a passage may copy the prompt's example entities ("Port Ellis", "Noah Carter's
Record-Breaking 100m Sprint") or write a stock placeholder ("John Doe", "Apple Inc.", "New York City"). Such a
node is ungrounded: its name occurs in none of its chunks. An ungrounded node whose every name holds an example
name (as whole words) and is otherwise made of the words of the examples is dropped, with its relationships,
and counted (``echoed_examples``). The examples are those of the configured examples text (records and
capitalized names in it) and of ``stock_examples.txt`` (other tools' prompt examples, stock placeholders). A
grounded node stays whatever its name: the text holds it.
"""

from __future__ import annotations

import functools
import re
from importlib import resources
from typing import Any, Iterable

import attrs
import networkx as nx

from ...core.config import GraphConfig
from ..extraction.parser import RecordParser
from ..extraction.prompts import examples_text
from ..resolution.profiles import aliases_of

_WORD = re.compile(r"[^\W_]+")
_POSSESSIVE = re.compile(r"['\u2019]s\b", re.I)
# names an examples text writes capitalized: several words, or one inside a sentence ("hired Orla Venn in
# Quillmarsh"); a capital that starts a line or sentence names nothing by itself
_CAPITALIZED = re.compile(r"\b[A-Z][\w'-]*(?:[ \t]+(?:of[ \t]+|the[ \t]+|&[ \t]+)?[A-Z][\w'-]*)+"
                          r"|(?<=[a-z,;] )[A-Z][\w'-]+")
_FILLERS = frozenset("a an and at by for from in of on the to with".split())
# placeholders of a pattern: "Company X", "Person A", "Organization 2"
_PATTERN = re.compile(r"(?:person|people|company|organi[sz]ation|org|country|city|place|location|entity|individual|"
                      r"user|customer|product|project|team|event|group|agency|firm|vendor|supplier)"
                      r" (?:[a-z]|\d{1,2})", re.I)


def words_of(text: str) -> tuple[str, ...]:
    """The lower-cased words of a name or text, possessives off."""
    return tuple(w.casefold() for w in _WORD.findall(_POSSESSIVE.sub("", text)))


@attrs.frozen
class Group:
    """Example names (each as its words) and the words that may come with them (one prompt's examples)."""

    names: frozenset[tuple[str, ...]]
    vocabulary: frozenset[str]

    def echoed_by(self, words: tuple[str, ...]) -> bool:
        if any(w not in self.vocabulary and w not in _FILLERS for w in words):
            return False
        return any(words[i:i + len(n)] == n for n in self.names for i in range(len(words) - len(n) + 1))

    @classmethod
    def of(cls, names: Iterable[str], text: str) -> "Group":
        found = {w for w in map(words_of, names) if w and not set(w) <= _FILLERS}
        return cls(frozenset(found), frozenset(w for n in found for w in n) | frozenset(words_of(text)))


@attrs.frozen
class Examples:
    """The groups of examples a node's name may echo: the configured prompt's and the stock ones."""

    groups: tuple[Group, ...]

    def echoes(self, name: str) -> bool:
        """Whether ``name`` holds a name of one group's examples and is otherwise made of that group's words."""
        if _PATTERN.fullmatch(" ".join(name.split())):
            return True
        words = words_of(name)
        return bool(words) and any(g.echoed_by(words) for g in self.groups)

    @classmethod
    def of(cls, cfg: GraphConfig) -> "Examples":
        """The examples of the configured prompt (``graph.examples``) and the stock ones."""
        return _examples(examples_text(cfg), cfg.tuple_delimiter, cfg.record_delimiter, cfg.completion_delimiter)


@functools.lru_cache(maxsize=8)
def _examples(text: str, *delimiters: str) -> Examples:
    if not text:
        return Examples(_stock())
    parsed = RecordParser(*delimiters).parse_any(text)
    names = [e.name for e in parsed.entities] + [n for r in parsed.relationships for n in (r.source_name,
                                                                                          r.target_name)]
    names += [m.group() for m in _CAPITALIZED.finditer(text)]
    return Examples((Group.of(names, text), *_stock()))


@functools.cache
def _stock() -> tuple[Group, ...]:
    """``stock_examples.txt``: groups ("## ") of names ("- ") and the words that may come with them ("words:")."""
    groups: list[tuple[list[str], list[str]]] = []
    for line in (resources.files(__package__) / "stock_examples.txt").read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            groups.append(([], []))
        elif line.startswith("- ") and groups:
            groups[-1][0].append(line[2:])
        elif line.startswith("words:") and groups:
            groups[-1][1].append(line[6:])
    return tuple(Group.of(names, " ".join(words)) for names, words in groups)


def drop_echoes(graph: nx.Graph, examples: Examples) -> int:
    """Drop the ungrounded nodes (`ground` ran) whose every name echoes ``examples``; how many went."""
    echoed = [node for node, data in graph.nodes(data=True)
              if data.get("grounded") is False and all(map(examples.echoes, _names(node, data)))]
    graph.remove_nodes_from(echoed)
    return len(echoed)


def _names(node: Any, data: dict[str, Any]) -> Iterable[str]:
    return dict.fromkeys([str(data.get("name") or node), *aliases_of(data)])
