"""Provenance spans: where each node's name occurs in the source text of its chunks.

Names and texts are compared in NFC (a decomposed "é" in a PDF's text is the model's "é"); spans are offsets into
the text as it was. A name is found as whole words ("Lin" is not in "Berlin"), except on a side where its edge
or the text's character next to it is of a script written without spaces between words (`text.words.UNSPACED`:
"张伟" in "张伟是医生", "iPhone" in "iPhone手机")."""

from __future__ import annotations

import re
from typing import Any, Callable, Iterable, Mapping, NamedTuple

import networkx as nx

from ...text.chunking import Chunk
from ...text.nfc import Composed, nfc
from ...text.words import joins_words
from ..resolution.profiles import aliases_of

BLOCK_SOURCES = 5_000  # a block's nodes cite about this many chunks, whose searched texts are kept for the block


class Placed(NamedTuple):
    """All grounding reads of a chunk: its text and where it starts in its document."""

    text: str
    start: int


def ground(graph: nx.Graph, chunks: Mapping[str, Chunk], drop_ungrounded: bool = False) -> int:
    """Set ``spans`` ([chunk id, start, end] in document offsets) and ``grounded`` on every node.
    Returns how many nodes are ungrounded (and were dropped, when asked). ``chunks``: the chunks by id, or chunks
    kept on disk in many stores, with a ``by_store(ids)`` that gives the `Placed` texts of those it knows one
    store at a time (`_ground_by_store`)."""
    by_store = getattr(chunks, "by_store", None)
    if by_store is None:
        _ground_in_blocks(graph, chunks)
    else:
        _ground_by_store(graph, by_store)
    ungrounded = []
    for node, data in graph.nodes(data=True):
        data["grounded"] = bool(data["spans"])
        if not data["spans"]:
            ungrounded.append(node)
    if drop_ungrounded:
        graph.remove_nodes_from(ungrounded)
    return len(ungrounded)


def _ground_in_blocks(graph: nx.Graph, chunks: Mapping[str, Chunk]) -> None:
    """Each node's spans, a block of nodes at a time: a chunk's searched text is kept for its block only."""
    lowered: dict[str, Searched] = {}
    cited = 0
    for node, data in graph.nodes(data=True):
        names = _names(node, data)
        spans = []
        for cid in data.get("source_ids", []):
            chunk = chunks.get(cid)
            if chunk is None:
                continue
            if cid not in lowered:
                lowered[cid] = Searched.of(chunk.text)
            spans += _chunk_spans(names, cid, chunk.start, lowered[cid])
        data["spans"] = spans
        cited += len(data.get("source_ids", []))
        if cited >= BLOCK_SOURCES:
            lowered, cited = {}, 0


def _ground_by_store(graph: nx.Graph, by_store: Callable[[Iterable[str]], Iterable[Mapping[str, Placed]]]) -> None:
    """Each node's spans, its chunks read one store at a time. Asking the stores a block of nodes at a time
    would ask every store once a block: blocks times stores, both growing with the corpus (a 10M-chunk Ray
    run's 1,000 shards answered 250 blocks per partition). A node's spans are its chunks' in its source order,
    so each chunk is searched once, for the nodes that cite it, wherever its store comes in the order."""
    names: dict[Any, list[Name]] = {}
    citing: dict[str, list[Any]] = {}
    for node, data in graph.nodes(data=True):
        names[node] = _names(node, data)
        for cid in data.get("source_ids", []):
            citing.setdefault(cid, []).append(node)
    found: dict[Any, dict[str, list[list[Any]]]] = {}
    for texts in by_store(citing):
        for cid, chunk in texts.items():
            searched = Searched.of(chunk.text)
            for node in citing[cid]:
                spans = _chunk_spans(names[node], cid, chunk.start, searched)
                if spans:
                    found.setdefault(node, {})[cid] = spans
    del citing
    for node, data in graph.nodes(data=True):
        mine = found.pop(node, {})
        data["spans"] = [span for cid in data.get("source_ids", []) for span in mine.get(cid, ())]


def _names(node: Any, data: dict[str, Any]) -> list["Name"]:
    """The node's names (display name, then aliases) that have words, in NFC."""
    names = [Name(nfc(n)) for n in dict.fromkeys([str(data.get("name") or node), *aliases_of(data)])]
    return [n for n in names if n.words]


def _chunk_spans(names: list["Name"], cid: str, at: int, searched: "Searched") -> list[list[Any]]:
    """Where ``names`` occur in one chunk (``at``: where it starts in its document)."""
    text, low, composed = searched
    if len(names) == 1:  # one name's matches neither overlap nor repeat, and come in order
        found = names[0].find_all(text, low)
    else:
        found = _outermost({span for n in names for span in n.find_all(text, low)})
    if composed is not None:
        found = [composed.span(a, b) for a, b in found]
    return [[cid, at + a, at + b] for a, b in found]


class Searched(NamedTuple):
    """A chunk text as names are searched in it: its NFC form, that lower-cased (`_comparable_lower`), and the
    way back to the original's offsets (None: the text is NFC, its offsets are the original's)."""

    text: str
    low: str | None
    composed: Composed | None

    @classmethod
    def of(cls, original: str) -> "Searched":
        composed = Composed.of(original)
        text = original if composed is None else composed.text
        return cls(text, _comparable_lower(text), composed)


def _outermost(found: set[tuple[int, int]]) -> list[tuple[int, int]]:
    """The spans not inside another: "Scrooge" within "Ebenezer Scrooge" is one mention, not two."""
    kept: list[tuple[int, int]] = []
    for start, end in sorted(found, key=lambda s: (s[0], -s[1])):
        if not kept or start >= kept[-1][1]:
            kept.append((start, end))
    return kept


def _name_pattern(name: str) -> re.Pattern[str] | None:
    """The pattern of ``name``'s characters, its edges checked apart (`_whole`): any case; any whitespace between
    words (names wrap across lines); between two characters of a script without word spaces, whitespace or none
    (a line wraps anywhere in Chinese; "山田 太郎" is "山田太郎")."""
    joined = " ".join(name.split())
    if not joined:
        return None
    body = []
    for i, c in enumerate(joined):
        if c == " ":
            body.append(r"\s*" if joins_words(joined[i - 1]) and joins_words(joined[i + 1]) else r"\s+")
            continue
        if i and joins_words(c) and joins_words(joined[i - 1]):
            body.append(r"\s*")
        body.append(re.escape(c))
    return re.compile("".join(body), re.I)


def _spaced_word(c: str) -> bool:
    """A letter or digit of a script that writes spaces between words: a name's edge of such a script is no
    edge next to one ("Lin" in "Berlin"); "_" (of _italics_) is not part of a word."""
    return c.isalnum() and not joins_words(c)


def _whole(pattern: re.Pattern[str], text: str, start_edge: bool, end_edge: bool) -> list[tuple[int, int]]:
    """The (start, end) of each match of ``pattern`` in ``text`` not next to a `_spaced_word` where its first
    (``start_edge``) or last (``end_edge``) character is of a script with word spaces, as ``finditer`` would
    give them with those edges in the pattern (compiling a class of the unspaced scripts took ~8 ms a name).
    The pattern matches at most one way at a place: its characters are fixed, and whitespace is taken whole."""
    found, pos, n = [], 0, len(text)
    while (m := pattern.search(text, pos)) is not None:
        start, end = m.span()
        if (start_edge and start and _spaced_word(text[start - 1])) or (
                end_edge and end < n and _spaced_word(text[end])):
            pos = start + 1
        else:
            found.append((start, end))
            pos = end
    return found


# Non-ASCII characters that match an ASCII letter case-insensitively (re.I) or lower-case to ASCII: in a text
# without them, where lower-casing keeps the length, an ASCII name matches where its lower-cased words do.
_FOLDS_TO_ASCII = re.compile("[\u0130\u0131\u017f\u212a]")


def _comparable_lower(text: str) -> str | None:
    """``text`` lower-cased, each character to one at its place, if an ASCII name's case-insensitive matches in
    it are those of its lower-cased words in the result; else None."""
    low = text.lower()
    if text.isascii() or (len(low) == len(text) and not _FOLDS_TO_ASCII.search(text)):
        return low
    return None


class Name:
    """A name's occurrences in texts, as `_name_pattern` and `_whole` find them. An ASCII name in a text
    `_comparable_lower` accepts is found with plain string searches (compiling a pattern per node was a third of
    grounding a large graph); otherwise its pattern is compiled, once, when first needed."""

    def __init__(self, name: str) -> None:
        self.name, self.words = name, name.split()
        self.lowered = [w.lower() for w in self.words] if name.isascii() else None
        self._pattern: re.Pattern[str] | None = None

    def find_all(self, text: str, low: str | None) -> list[tuple[int, int]]:
        """The (start, end) of each match in ``text`` (``low``: its `_comparable_lower`), in order."""
        if self.lowered is not None and low is not None:
            return _found_words(text, low, self.lowered)
        if self._pattern is None:
            self._pattern = _name_pattern(self.name)
        assert self._pattern is not None  # a Name has words
        return _whole(self._pattern, text, not joins_words(self.words[0][0]), not joins_words(self.words[-1][-1]))


def _found_words(text: str, low: str, words: list[str]) -> list[tuple[int, int]]:
    """`_whole`'s matches of ``words`` (lower-cased, ASCII) in ``text``: the pattern matches at most one way at a
    place (a word never starts with whitespace, so the whitespace run before it is all taken), and its matches
    are searched from the end of the one before."""
    first, rest, n = words[0], words[1:], len(text)
    found, pos = [], 0
    while (start := low.find(first, pos)) >= 0:
        end = start + len(first)
        ok = not (start and _spaced_word(text[start - 1]))
        for word in rest if ok else ():
            gap = end
            while gap < n and text[gap].isspace():
                gap += 1
            if gap == end or not low.startswith(word, gap):
                ok = False
                break
            end = gap + len(word)
        if ok and not (end < n and _spaced_word(text[end])):
            found.append((start, end))
            pos = end
        else:
            pos = start + 1
    return found
