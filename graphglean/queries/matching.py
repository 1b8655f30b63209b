"""The entities a question is about: those it names (a node's name or one of its aliases, as a phrase of the
question, in any case, a possessive or a typo aside), those whose names share its rarer words, and, where the
run wrote entity vectors, those whose vectors are nearest the question's; descriptions sharing its words fill
the rest. Every ranking ends in a tie-break on the node key, so one question finds one list."""

from __future__ import annotations

import difflib
import heapq
import math
import re
import unicodedata
from collections import Counter
from typing import Any, Iterable, Mapping

import attrs
import networkx as nx
import numpy as np

# words a question is made of that never pick an entity by themselves (English: questions are often English
# even over other texts; a name made only of these, "Can", "Will", is matched only by vectors or descriptions)
STOPWORDS = frozenset("""a about above after again against all also am an and any are as at be because been before
being below between both but by can could did do does doing down during each few for from further had has have
having he her here hers herself him himself his how i if in into is it its itself just me more most my myself no
nor not now of off on once only or other our ours out over own same she should so some such than that the their
theirs them then there these they this those through to too under until up very was we were what when where
which while who whom why will with would you your yours tell know describe explain give list show find does
did is was role happened happen""".split())
_WORD = re.compile(r"\w+")
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'", "\uff07": "'"})
_POSSESSIVE = re.compile(r"(?<=\w)'s?\b")
# scripts written without spaces between words: a name is found anywhere in the question's text
_UNSPACED = re.compile(r"[\u0e00-\u0eff\u1000-\u109f\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]")
NAME, WORDS, DESCRIPTION, VECTOR = "name", "words", "description", "vector"
FUZZY = 0.85  # a word this close (difflib's ratio) to a name's word is that word misspelt
FUZZY_LENGTH = 5  # ... when both are at least this long
RELATIVE_FLOOR = 0.5  # an entity found by description or vector scores at least this share of the best one


def folded(text: str) -> str:
    """``text`` for matching: NFKC, case-folded, apostrophes made one, possessives dropped."""
    if text.isascii():  # NFKC and the apostrophes change nothing; casefold is lower
        text = text.lower()
    else:
        text = unicodedata.normalize("NFKC", text).translate(_APOSTROPHES).casefold()
    return _POSSESSIVE.sub("", text) if "'" in text else text


def words(text: str) -> list[str]:
    return _WORD.findall(folded(text))


@attrs.frozen
class Match:
    node: Any
    score: float
    how: str  # NAME, WORDS, DESCRIPTION or VECTOR: what found it first
    matched: str  # the name or words it was found by


def _forms(node: Any, data: Mapping[str, Any]) -> list[str]:
    names = [data.get("name") or node, *(data.get("aliases") or [])]
    return [n for n in dict.fromkeys(str(n).strip() for n in names) if n]


class EntityIndex:
    """A graph's names, aliases and descriptions, indexed once for any number of questions."""

    def __init__(self, graph: nx.Graph) -> None:
        self.graph = graph
        self.degree = dict(graph.degree())
        self.forms = {n: [_form(f) for f in _forms(n, d)] for n, d in graph.nodes(data=True)}
        name_df: dict[str, int] = {}
        for forms in self.forms.values():
            for w in {w for _, ws, _, _ in forms for w in ws}:
                name_df[w] = name_df.get(w, 0) + 1
        total = max(1, len(self.forms))
        self.name_idf = {w: math.log(1 + total / df) for w, df in name_df.items()}
        self.long_words = sorted(w for w in name_df if len(w) >= FUZZY_LENGTH)  # what a typo may stand for
        self.postings: dict[str, list[tuple[Any, int]]] | None = None  # made when a question needs them
        self.lengths: dict[Any, int] = {}
        self.mean_length = 1.0

    def _index_descriptions(self) -> dict[str, list[tuple[Any, int]]]:
        """The descriptions as postings (word -> [(node, count)]): a question reads only its own words' lists."""
        if self.postings is None:
            self.postings = {}
            for n, d in self.graph.nodes(data=True):
                ws = words(str(d.get("description") or ""))
                self.lengths[n] = len(ws)
                for w, c in Counter(ws).items():
                    self.postings.setdefault(w, []).append((n, c))
            self.mean_length = (sum(self.lengths.values()) / max(1, len(self.lengths))) or 1.0
        return self.postings

    def close_words(self, asked: Iterable[str]) -> set[str]:
        """Name words a question's words may be misspellings of (difflib's ratio of at least `FUZZY`)."""
        found = set()
        for w in asked:
            if len(w) >= FUZZY_LENGTH and w not in self.name_idf:
                found.update(difflib.get_close_matches(w, self.long_words, n=5, cutoff=FUZZY))
        return found

    def named(self, question: str) -> dict[Any, Match]:
        """Nodes whose name or alias the question holds as a phrase (score above 1, longer names higher; a name
        only found inside a longer one's place in the question is not), else whose names share its content
        words, misspelt or not (score up to 0.6, by the shared words' rarity)."""
        asked = words(question)
        phrase = " " + " ".join(asked) + " "
        compact = "".join(asked)
        starts = [0]
        for w in asked:
            starts.append(starts[-1] + len(w))
        content = {w for w in asked if w not in STOPWORDS}
        content |= self.close_words(content)
        found: dict[Any, Match] = {}
        places: dict[Any, set[tuple[int, int]]] = {}  # a named node -> where its names are in `compact`
        for node, forms in self.forms.items():
            best: Match | None = None
            for form, ws, needle, unspaced in forms:
                if not ws or all(w in STOPWORDS for w in ws):
                    continue
                at = _places(ws, needle, unspaced, asked, starts, compact) \
                    if needle in (compact if unspaced else phrase) else None
                if at:
                    places.setdefault(node, set()).update(at)
                    match = Match(node, 1.0 + 0.1 * min(_length(ws), 5), NAME, form)
                else:
                    shared = [w for w in ws if w not in STOPWORDS and w in content]
                    if not shared:
                        continue
                    weight = sum(self.name_idf.get(w, 1.0) for w in ws)
                    match = Match(node, 0.6 * sum(self.name_idf.get(w, 1.0) for w in shared) / weight, WORDS,
                                  " ".join(shared))
                if best is None or match.score > best.score:
                    best = match
            if best is not None:
                found[node] = best
        for node in _inside_longer(places):
            del found[node]
        return found

    def described(self, question: str, skip: set[str] = frozenset()) -> dict[Any, float]:  # type: ignore[assignment]
        """Nodes whose descriptions share the question's content words but ``skip`` (those a name took): BM25
        over the descriptions."""
        content = sorted(w for w in set(words(question)) if w not in STOPWORDS and w not in skip)
        if not content:
            return {}
        index = self._index_descriptions()
        total = max(1, len(self.lengths))
        scores: dict[Any, float] = {}
        for w in content:
            postings = index.get(w, [])
            idf = math.log(1 + total / len(postings)) if postings else 0.0
            for node, tf in postings:
                norm = 1.2 * (0.25 + 0.75 * self.lengths[node] / self.mean_length)
                scores[node] = scores.get(node, 0.0) + idf * tf * 2.2 / (tf + norm)
        return scores


def _length(ws: list[str]) -> float:
    """A name's length for ranking: its words, a word of a script without spaces counting as half its
    characters (李明华 is longer than 李明, 東京大学 than 東京)."""
    return sum(max(1.0, len(w) / 2) if _UNSPACED.search(w) else 1.0 for w in ws)


def _form(form: str) -> tuple[str, list[str], str, bool]:
    """A name as matched: its words, what a question holds where it names it (the words joined, in a script
    without spaces; else the words as a phrase, spaces around), and whether it is in such a script."""
    ws = words(form)
    joined = "".join(ws)
    unspaced = bool(_UNSPACED.search(joined))
    return form, ws, joined if unspaced else f" {' '.join(ws)} ", unspaced


def _places(ws: list[str], needle: str, unspaced: bool, asked: list[str], starts: list[int],
            compact: str) -> list[tuple[int, int]]:
    """Where the name (``_form``'s parts) is in the question: character spans of ``compact``, the question's
    words joined; as a phrase of whole words, or, in a script without spaces, anywhere in its text."""
    if unspaced:
        spans, at = [], compact.find(needle)
        while at >= 0:
            spans.append((at, at + len(needle)))
            at = compact.find(needle, at + 1)
        return spans
    n = len(ws)
    return [(starts[i], starts[i + n]) for i in range(len(asked) - n + 1) if asked[i:i + n] == ws]


def _inside_longer(places: Mapping[Any, set[tuple[int, int]]]) -> list[Any]:
    """The nodes each of whose places lies inside a longer place of another node's name ("東京" in
    "東京大学について", "York" in "New York")."""
    spans = sorted({span for at in places.values() for span in at})
    return [node for node, at in places.items()
            if all(any(a <= s and e <= b and b - a > e - s for a, b in spans) for s, e in at)]


def find_entities(index: EntityIndex, question: str, limit: int, vectors: Mapping[Any, np.ndarray] | None = None,
                  question_vector: np.ndarray | None = None) -> list[Match]:
    """Up to ``limit`` entities for ``question``: every named one first (best first), then those nearest by
    vector and description."""
    named = index.named(question)
    order = sorted(named.values(), key=lambda m: (-m.score, -index.degree.get(m.node, 0), str(m.node)))
    chosen = order[:limit]
    # with entities named, the others only add what the rest of the question asks about, and fewer of them
    room = limit - len(chosen) if not chosen else min(limit - len(chosen), limit // 3)
    if room <= 0:
        return chosen
    taken = {w for m in chosen for w in words(m.matched)}
    described = index.described(question, taken)
    top_description = max(described.values(), default=0.0) or 1.0
    near: dict[Any, float] = {}
    if vectors and question_vector is not None:
        keys = [k for k in vectors if k not in named]
        if keys:
            sims = np.stack([vectors[k] for k in keys]) @ question_vector
            near = {k: float(s) for k, s in zip(keys, sims)}
    best_near = max(near.values(), default=0.0)
    scores = {}
    for node in set(described) | {k for k, s in near.items() if s > 0 and s >= 0.8 * best_near}:
        if node not in named:
            scores[node] = (0.3 * described.get(node, 0.0) / top_description, 0.4 * max(near.get(node, 0.0), 0.0))
    best = heapq.nsmallest(room, scores, key=lambda n: (-sum(scores[n]), -index.degree.get(n, 0), str(n)))
    rest = [Match(n, sum(scores[n]), VECTOR if scores[n][1] and scores[n][1] >= scores[n][0] else DESCRIPTION, "")
            for n in best]
    floor = RELATIVE_FLOOR * rest[0].score if rest else 0.0
    return chosen + [m for m in rest if m.score >= floor]


def focus_words(question: str, matches: list[Match]) -> frozenset[str]:
    """What the question asks about besides the entities it names ("partner" in "Who was Marley's partner?"):
    its content words that no matched name took."""
    taken = {w for m in matches if m.how in (NAME, WORDS) for w in words(m.matched)}
    return frozenset(w for w in words(question) if w not in STOPWORDS and w not in taken)

