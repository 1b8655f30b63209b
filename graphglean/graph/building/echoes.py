"""Echoed examples: nodes a model copied from the prompt's own examples, or true placeholders, not from the text.

A model that finds little in a passage may copy the prompt's example entities ("Port Ellis", "Mara Quint") or
write a placeholder ("John Doe", "Acme Corp", "Company X"). A model can echo only what it was shown, so only
the examples this run's prompt sends (``graph.examples``: its records and capitalized names) and the short list
of true placeholders (``stock_examples.txt`` and the "Company X" pattern) can be echoes. A node is one when

- it is ungrounded (`ground` ran: its name occurs in none of its chunks) and every name of it holds an example
  name (as whole words) and is otherwise made of that example group's words, and
- in each of its chunks, the chunk is written in the name's script and holds none of the name's distinctive
  words (its words less fillers and generic type words such as "company" or "city").

A real entity the model expanded, normalised or translated ("Apple" → "Apple Inc.", 東京 → "Tokyo", "the
spring storm" → "Spring Storms") keeps a word in its chunk or stands in a chunk of another script: it stays,
with its relationships. An echo is dropped with its relationships and counted (``echoed_examples``).
"""

from __future__ import annotations

import bisect
import functools
import re
import unicodedata
from importlib import resources
from typing import Any, Iterable, Mapping

import attrs
import networkx as nx
import regex

from ...core.config import GraphConfig
from ...text.language import script_of
from ...text.nfc import nfc
from ...text.words import words
from ..extraction.parser import RecordParser
from ..extraction.prompts import examples_text
from ..records import ParseResult
from ..resolution.profiles import aliases_of

_POSSESSIVE = re.compile(r"['\u2019]s\b", re.I)
# names an examples text writes capitalized: several words, or one inside a sentence ("hired Orla Venn in
# Quillmarsh"); a capital that starts a line or sentence names nothing by itself
_CAPITALIZED = re.compile(r"\b[A-Z][\w'-]*(?:[ \t]+(?:of[ \t]+|the[ \t]+|&[ \t]+)?[A-Z][\w'-]*)+"
                          r"|(?<=[a-z,;] )[A-Z][\w'-]+")
_FILLERS = frozenset("a an and at by for from in of on the to with".split())
# words that say what a name is, not which one: a chunk holding one of them holds nothing of the name
_GENERIC = frozenset("""
company companies corp corporation inc incorporated ltd limited llc plc co group holdings organization organisation
org agency firm business enterprise institution association city town village county state province region
country nation place location person people individual man woman event entity team product project
mr mrs ms dr jr sr
""".split())
# placeholders of a pattern: "Company X", "Person A", "Organization 2"
_PATTERN = re.compile(r"(?:person|people|company|organi[sz]ation|org|country|city|place|location|entity|individual|"
                      r"user|customer|product|project|team|event|group|agency|firm|vendor|supplier)"
                      r" (?:[a-z]|\d{1,2})", re.I)
_UNSPACED = regex.compile(r"[\p{Han}\p{Hiragana}\p{Katakana}\p{Thai}\p{Lao}\p{Khmer}\p{Myanmar}]")
# scripts of one writing system: a Japanese chunk mixes Han and kana
_SCRIPT_FAMILY = {"Hiragana": "Han", "Katakana": "Han"}


def words_of(text: str) -> tuple[str, ...]:
    """The lower-cased words of a name or text (NFC), possessives off."""
    return tuple(w.casefold() for w in words(_POSSESSIVE.sub("", nfc(text))))


def distinctive_words(name: str) -> frozenset[str]:
    """The words of ``name`` that tell which one it is: less fillers and generic type words."""
    return frozenset(w for w in words_of(name) if w not in _FILLERS and w not in _GENERIC)


@attrs.frozen
class Group:
    """Example names (each as its words) and the words that may come with them (one prompt's examples)."""

    names: frozenset[tuple[str, ...]]
    vocabulary: frozenset[str]

    def echoed_by(self, words: tuple[str, ...]) -> bool:
        if any(w not in _FILLERS and not self.vocabulary & _singulars(w) for w in words):  # "Bluewake Ferries"
            return False
        return any(words[i:i + len(n)] == n for n in self.names for i in range(len(words) - len(n) + 1))

    @classmethod
    def of(cls, names: Iterable[str], text: str) -> "Group":
        found = {w for w in map(words_of, names) if w and not set(w) <= _FILLERS}
        return cls(frozenset(found), frozenset(w for n in found for w in n) | frozenset(words_of(text)))


def _singulars(word: str) -> set[str]:
    """A word and the singulars it may be the plural of ("ferries": "ferry"; "storms": "storm")."""
    found = {word}
    if word.endswith("ies") and len(word) > 4:
        found.add(word[:-3] + "y")
    if word.endswith("es") and len(word) > 3:
        found.add(word[:-2])
    if word.endswith("s") and len(word) > 3:
        found.add(word[:-1])
    return found


@attrs.frozen
class Examples:
    """The groups of examples a node's name may echo: the configured prompt's and the true placeholders."""

    groups: tuple[Group, ...]

    def echoes(self, name: str) -> bool:
        """Whether ``name`` holds a name of one group's examples and is otherwise made of that group's words."""
        if _PATTERN.fullmatch(" ".join(nfc(name).split())):
            return True
        words = words_of(name)
        return bool(words) and any(g.echoed_by(words) for g in self.groups)

    @classmethod
    def of(cls, cfg: GraphConfig) -> "Examples":
        """The examples of the configured prompt (``graph.examples``) and the true placeholders."""
        return _examples(examples_text(cfg), cfg.tuple_delimiter, cfg.record_delimiter, cfg.completion_delimiter)


@functools.lru_cache(maxsize=8)
def _examples(text: str, *delimiters: str) -> Examples:
    if not text:
        return Examples(_placeholders())
    parsed = RecordParser(*delimiters).parse_any(text)
    names = [e.name for e in parsed.entities] + [n for r in parsed.relationships for n in (r.source_name,
                                                                                          r.target_name)]
    names += [m.group() for m in _CAPITALIZED.finditer(text)]
    return Examples((Group.of(names, text), *_placeholders()))


@functools.cache
def _placeholders() -> tuple[Group, ...]:
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


def drop_echoed_records(result: ParseResult, text: str, examples: Examples) -> int:
    """Leave out of one chunk's records the names that echo ``examples`` and that the chunk does not hold
    (`_absent`), with the relationships they are an end of: an example name real in another chunk ("Port
    Ellis", a real harbour there) gathers nothing from this one. How many names went."""
    echoed = {n for n in result.names() if examples.echoes(n) and not _written(n, text) and _absent([n], text)}
    if echoed:
        result.entities = [e for e in result.entities if e.name not in echoed]
        result.relationships = [r for r in result.relationships
                                if r.source_name not in echoed and r.target_name not in echoed]
        result.echoed += len(echoed)
    return len(echoed)


def drop_echoes(graph: nx.Graph, examples: Examples, chunks: Mapping[str, Any]) -> int:
    """Drop the echoes among the ungrounded nodes (`ground` ran); how many went. ``chunks``: the chunks by id, as
    `ground` takes them (a mapping of chunks, or one with ``get_many(ids)`` giving their texts)."""
    candidates = [(node, names) for node, data in graph.nodes(data=True) if data.get("grounded") is False
                  and all(map(examples.echoes, names := list(_names(node, data))))]
    if not candidates:
        return 0
    ids = {cid for node, _ in candidates for cid in graph.nodes[node].get("source_ids", [])}
    texts = _texts(chunks, ids)
    echoed = [node for node, names in candidates if (cids := graph.nodes[node].get("source_ids", []))
              and all(_absent(names, texts.get(cid)) for cid in cids)]
    graph.remove_nodes_from(echoed)
    return len(echoed)


def _written(name: str, text: str) -> bool:
    """``name`` as the chunk writes it, any case ("Person A" in a tribunal's report is the person so called), a
    labelled one also in a list ("Groups A and B", "persons A and B")."""
    found = words_of(name)
    folded = nfc(text).casefold()
    if found and regex.search(r"(?<!\w)" + r"\W+".join(map(regex.escape, found)) + r"(?!\w)", folded):
        return True
    if len(found) != 2 or len(found[1]) > 2:
        return False
    word, label = found
    forms = {word, word + "s", word + "es", word[:-1] + "ies"}
    ws = words_of(folded)
    return any(w in forms and label in ws[i + 1:i + 4] for i, w in enumerate(ws))


def _absent(names: list[str], text: str | None) -> bool:
    """Whether a chunk's ``text`` is in the script of each of ``names`` and holds none of their distinctive
    words (a chunk without its text cannot say so)."""
    if text is None:
        return False
    script = _family(script_of(text))
    if any(_family(script_of(n)) != script for n in names):
        return False
    held = _ChunkWords(text)
    return not any(held.holds(w) for n in names for w in distinctive_words(n))


def _family(script: str) -> str:
    return _SCRIPT_FAMILY.get(script, script)


class _ChunkWords:
    """A chunk's words (as written and without accents, sorted) and its text, to look a name's words up in."""

    def __init__(self, text: str) -> None:
        found = set(words_of(text))
        self.words = sorted(found | {_plain(w) for w in found})
        self.text = nfc(text).casefold()

    def holds(self, word: str) -> bool:
        """Whether the chunk has ``word`` as a word or the start of one (storm: storms; மதுரை: மதுரையைச், the
        name with a case ending), or its singular, accents or not; in a script written without spaces between
        words, anywhere in the text."""
        if _UNSPACED.search(word):
            return word in self.text
        forms = {word, _plain(word)} | ({word[:-1]} if word.endswith("s") and len(word) > 3 else set())
        for form in forms:
            i = bisect.bisect_left(self.words, form)
            if i < len(self.words) and (self.words[i] == form or len(form) >= 3 and self.words[i].startswith(form)):
                return True
        return False


def _plain(word: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c))


def _texts(chunks: Mapping[str, Any], ids: set[str]) -> dict[str, str]:
    get_many = getattr(chunks, "get_many", None)
    found = get_many(ids) if get_many else {cid: chunks[cid] for cid in ids if cid in chunks}
    return {cid: chunk.text for cid, chunk in found.items()}


def _names(node: Any, data: dict[str, Any]) -> Iterable[str]:
    return dict.fromkeys([str(data.get("name") or node), *aliases_of(data)])
