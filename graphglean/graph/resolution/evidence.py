"""Pairwise evidence for entity resolution: do two nodes name one entity?

`Evidence.verdict(a, b)` weighs names (`names.read_name`), declared types, descriptions and graph neighbours,
and answers SAME (the rules may merge), DIFFERENT (never merge, and never let a cluster join the two), UNSURE
(a question for the LLM tier) or NONE (no evidence either way). Scores order the merges; they are not
probabilities.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from typing import Any, Iterable

import attrs
import networkx as nx

from .names import ARTICLES, NameForm, read_name, singular

SAME, DIFFERENT, UNSURE, NONE = "same", "different", "unsure", "none"
PERSON_TYPES = frozenset("person people persons character characters individual human persona personne figure".split())
PLACE_TYPES = frozenset("geo location place city country region gpe loc".split())
UNTYPED = frozenset({"", "unknown", "other", "entity", "none"})
_HE = frozenset("he him his himself".split())
_SHE = frozenset("she her hers herself".split())
_TOKEN = re.compile(r"[^\W\d_]+", re.UNICODE)
_STOP = frozenset("""a an the and or of in on at to for with by from as is are was were be been being that this
these those
it its their them they who which whose what when where while into during through about over under than then also
not no but so such very more most one two three his her he she him""".split())


@attrs.frozen
class Verdict:
    kind: str
    score: float = 0.0
    rule: str = ""


NO_EVIDENCE = Verdict(NONE)


@attrs.define
class Profile:
    """What the rules know of one node."""

    key: str
    forms: list[NameForm]
    types: frozenset[str]
    description: str
    words: Counter[str]
    neighbours: frozenset[str]
    pronoun_gender: str

    @property
    def name(self) -> str:
        return self.forms[0].surface

    @property
    def personal(self) -> bool:
        return bool(self.types & PERSON_TYPES)

    @property
    def person_compatible(self) -> bool:
        return self.personal or self.types <= UNTYPED


def _pronoun_gender(text: str) -> str:
    ws = [w.lower() for w in _TOKEN.findall(text)]
    he, she = sum(w in _HE for w in ws), sum(w in _SHE for w in ws)
    if he and not she:
        return "m"
    if she and not he:
        return "f"
    return ""


def aliases_of(data: dict[str, Any], key: str = "aliases") -> list[str]:
    """A node's aliases (or other list): a list, or the JSON list GraphML keeps (a graph read from graph.graphml)."""
    value = data.get(key) or []
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            value = [value]
    return [str(a) for a in value if a] if isinstance(value, list) else []


def profile_of(graph: nx.Graph, node: Any) -> Profile:
    return profile_from(node, graph.nodes[node], graph.neighbors(node))


def profile_from(node: Any, data: dict[str, Any], neighbours: Iterable[Any]) -> Profile:
    """The profile of a node given its attributes and its neighbours (the graph's ``neighbors``)."""
    names = [str(data.get("name") or node)] + aliases_of(data)
    forms = [read_name(n) for n in dict.fromkeys(names)]
    types = frozenset(t.lower() for t in (aliases_of(data, "types") or [str(data.get("type") or "")]))
    description = data.get("description") or ""
    own = {w for f in forms for w in f.key.split()}
    counted = Counter(w for w in (t.lower() for t in _TOKEN.findall(description)) if w not in _STOP and w not in own)
    return Profile(str(node), forms, types, description, counted, frozenset(map(str, neighbours)),
                   _pronoun_gender(description))


@attrs.define
class Corpus:
    """Graph-wide statistics the rules read: word rarity, which words are written in lower case (common words,
    not names), and the words used in personal names."""

    documents: int = 0
    df: Counter[str] = attrs.field(factory=Counter)
    lowercase: set[str] = attrs.field(factory=set)
    person_words: set[str] = attrs.field(factory=set)
    degree: dict[str, int] = attrs.field(factory=dict)

    @classmethod
    def of(cls, graph: nx.Graph, profiles: Iterable[Profile]) -> "Corpus":
        corpus = cls()
        for p in profiles:
            corpus.documents += 1
            corpus.df.update(p.words.keys())
            corpus.lowercase.update(w for w in _TOKEN.findall(p.description) if w.islower())
            for f in p.forms:
                corpus.person_words.update(f.person)
            corpus.degree[p.key] = len(p.neighbours)
        return corpus

    def idf(self, word: str) -> float:
        return math.log(1 + (1 + self.documents) / (1 + self.df.get(word, 0)))  # > 0: a word in every text counts

    def proper(self, form: NameForm) -> bool:
        """Every word of the personal name is a name, not a common word (one letter: an initial)."""
        return bool(form.person) and all(len(w) == 1 or w not in self.lowercase for w in form.person)


def corpus_words(profiles: Iterable[Profile]) -> set[str]:
    """The words whose `Corpus` statistics `Evidence` may read for pairs among ``profiles``: their description
    words, their names' words and personal-name words (with the last one's plural ``s`` taken off)."""
    found: set[str] = set()
    for p in profiles:
        found.update(p.words)
        for f in p.forms:
            found.update(words_of(f))
            found.update(f.person)
            if f.person:
                found.add(f.person[-1][:-1])
    return found


def _defines_relative(description: str, other: NameForm) -> bool:
    """``description`` defines its node through ``other`` ("X is Fezziwig's partner", "the wife of Fezziwig")."""
    name = r"\s+".join(map(re.escape, other.surface.split()))
    if not name or " ".join(other.surface.split()).casefold() not in " ".join(description.split()).casefold():
        return False
    pattern = (rf"\b(?:is|are|was|were)\b[^.;:,]{{0,40}}?(?<!\w){name}(?:'s|’s|')(?=\s)"
               rf"|\b(?:is|are|was|were)\s+(?:the|a|an|one)\b[^.;:,]{{0,40}}?\bof\s+(?:the\s+)?{name}(?!\w)")
    return re.search(pattern, description, re.I) is not None


@attrs.define
class Evidence:
    graph: nx.Graph
    profiles: dict[str, Profile]
    corpus: Corpus
    owner_cluster: dict[str, str] = attrs.field(factory=dict)  # name key -> cluster id, after a first round
    disagree_below: float = 0.04

    def context(self, a: Profile, b: Profile) -> float:
        """How much two nodes' descriptions and neighbours share: overlap in [0, 1] weighted by squared idf, so
        words every description uses ("organization", "character") count for next to nothing."""
        weight = lambda w: self.corpus.idf(w) ** 2  # noqa: E731
        shared = sum(weight(w) for w in a.words.keys() & b.words.keys())
        for n in a.neighbours & b.neighbours:
            shared += 2.0 / math.log(2 + self.corpus.degree.get(n, 0))
        if a.key in b.neighbours:
            shared -= 1.0  # related to each other: the model saw two things
        total_a = sum(weight(w) for w in a.words) + len(a.neighbours)
        total_b = sum(weight(w) for w in b.words) + len(b.neighbours)
        small = min(total_a, total_b)
        return max(0.0, shared / small) if small > 0 else 0.0

    def verdict(self, a: Profile, b: Profile) -> Verdict:
        best = NO_EVIDENCE
        for fa in a.forms:
            for fb in b.forms:
                v = self._forms(a, b, fa, fb)
                if v.kind == DIFFERENT:
                    return v
                if _rank(v) > _rank(best):
                    best = v
        if best.kind in (SAME, UNSURE):
            for x, y in ((a, b), (b, a)):
                if any(_defines_relative(x.description, f) for f in y.forms):
                    return Verdict(DIFFERENT, 0.0, f"described as related to {y.name!r}")
        return best

    def _forms(self, a: Profile, b: Profile, fa: NameForm, fb: NameForm) -> Verdict:
        acronym = self._acronym(a, b, fa, fb)
        if acronym is not None:
            return acronym
        if fa.parts or fb.parts:
            if fa.parts and fb.parts and fa.core == fb.core:
                return Verdict(SAME, 0.95, "same combination")
            return Verdict(DIFFERENT, 0.0, "a combination is not one of its parts")
        if fa.head or fb.head:
            return self._owned(fa, fb)
        if fa.elliptic != fb.elliptic:
            if fa.core == fb.core and not (a.personal or b.personal):
                return Verdict(SAME, 0.8, "possessive place name")
            return Verdict(DIFFERENT, 0.0, "a possessive is not its owner") if fa.core == fb.core else NO_EVIDENCE
        clash = (a.personal and b.types & PLACE_TYPES) or (b.personal and a.types & PLACE_TYPES)
        if fa.key == fb.key:
            return Verdict(UNSURE, 0.6, "same name, person and place") if clash else Verdict(SAME, 1.0, "same name")
        if fa.compact == fb.compact:
            return Verdict(UNSURE, 0.6, "same letters, person and place") if clash else \
                Verdict(SAME, 0.95, "same name but spacing or hyphens")
        person = self._person(a, b, fa, fb)
        if person is not None:
            return person
        if _plural_pair(fa, fb):
            if a.personal or b.personal:
                return Verdict(DIFFERENT, 0.0, "one and a group")
            if fa.key != fa.core or _definite(fa) or _definite(fb):
                return Verdict(UNSURE, 0.5, "a particular one and the plural")
            return Verdict(SAME, 0.85, "singular and plural")
        return self._qualified(a, b, fa, fb, bool(clash)) or self._overlap(fa, fb)

    def _acronym(self, a: Profile, b: Profile, fa: NameForm, fb: NameForm) -> Verdict | None:
        if (fa.key in fb.spelled) or (fb.key in fa.spelled):
            return Verdict(SAME, 0.9, "acronym spelled out")
        for x, y in ((fa, fb), (fb, fa)):
            if x.acronym and x.acronym == y.initials:
                if a.types != b.types and not (a.types <= UNTYPED or b.types <= UNTYPED):
                    return Verdict(UNSURE, 0.6, "acronym, types differ")
                return self._short_form(a, b, Verdict(SAME, 0.8, "acronym"))
        return None

    def _qualified(self, a: Profile, b: Profile, fa: NameForm, fb: NameForm, clash: bool) -> Verdict | None:
        """ "Salt Lake City, Utah" and "Salt Lake City"; "Internal Revenue Service (IRS)" and "IRS"."""
        if fa.core == fb.core and (fa.qualifier or fb.qualifier):
            if fa.qualifier and fb.qualifier:
                return Verdict(DIFFERENT, 0.0, "different qualifiers")
            if clash:
                return Verdict(UNSURE, 0.5, "trailing qualifier, person and place")
            return self._short_form(a, b, Verdict(SAME, 0.85, "trailing qualifier"))
        for x, y in ((fa, fb), (fb, fa)):
            if x.paren and x.qualifier == y.key:
                if clash:
                    return Verdict(UNSURE, 0.5, "parenthesized alias, person and place")
                same = Verdict(SAME, 0.85, "parenthesized alias")
                return self._short_form(a, b, same) if y.acronym else same
        return None

    def _owned(self, fa: NameForm, fb: NameForm) -> Verdict:
        if fa.head and fb.head:
            owners = self._owners(fa.owner, fb.owner)
            if fa.head == fb.head:
                if owners == SAME:
                    return Verdict(SAME, 0.9, "same thing of the same owner")
                return Verdict(DIFFERENT, 0.0, "same thing of different owners") if owners == DIFFERENT else \
                    Verdict(UNSURE, 0.5, "same thing, owners may differ")
            if owners == SAME:
                return Verdict(UNSURE, 0.5, "same owner, different words for the thing")
            return NO_EVIDENCE
        owned, other = (fa, fb) if fa.head else (fb, fa)
        if self._owners(owned.owner, other.surface) == SAME:
            return Verdict(DIFFERENT, 0.0, "a thing owned is not its owner")
        if other.key in (owned.head, read_name(owned.owner).key):
            return Verdict(DIFFERENT, 0.0, "a particular one is not the general")
        return self._overlap(fa, fb)

    def _owners(self, x: str, y: str) -> str:
        fx, fy = read_name(x), read_name(y)
        if fx.key == fy.key:
            return SAME
        cx, cy = self.owner_cluster.get(fx.key), self.owner_cluster.get(fy.key)
        if cx is not None and cx == cy:
            return SAME
        if fx.person and fx.person == fy.person and not (fx.gender and fy.gender and fx.gender != fy.gender):
            return SAME
        if len(fx.person) > 1 and len(fy.person) > 1 and fx.person != fy.person:
            return DIFFERENT
        if fx.head or fy.head or fx.parts or fy.parts:
            return DIFFERENT if (fx.head or fx.parts) != (fy.head or fy.parts) else NONE
        return NONE

    def _person(self, a: Profile, b: Profile, fa: NameForm, fb: NameForm) -> Verdict | None:
        """Personal-name rules; None when the two are not both personal names."""
        titled = bool(fa.honorifics or fb.honorifics)  # "Mr." says person where no type does
        if not (a.person_compatible and b.person_compatible and (a.personal or b.personal or titled)):
            return None
        if not (self.corpus.proper(fa) and self.corpus.proper(fb)):
            return None
        ga, gb = fa.gender or a.pronoun_gender, fb.gender or b.pronoun_gender
        if ga and gb and ga != gb:
            return Verdict(DIFFERENT, 0.0, "different genders")
        if self._group(fa) != self._group(fb):
            return Verdict(DIFFERENT, 0.0, "one person and a group")
        wa, wb = fa.person, fb.person
        if wa == wb:
            titled = " with a title" if fa.honorifics or fb.honorifics else ""
            return Verdict(SAME, 0.9, "same personal name" + titled)
        if len(wa) == 1 or len(wb) == 1:
            short, long = (wa, wb) if len(wa) == 1 else (wb, wa)
            if len(long) == 1:
                return NO_EVIDENCE
            if short[0] == long[0]:
                return self._partial(a, b, "first name")
            if short[0] == long[-1]:
                return self._partial(a, b, "surname")
            return self._overlap(fa, fb)
        if wa[-1] == wb[-1] and _given_match(wa[:-1], wb[:-1]):
            return self._partial(a, b, "same name, middle names or initials differ")
        if wa[-1] == wb[-1] or wa[0] == wb[0]:
            return Verdict(DIFFERENT, 0.0, "different full names")
        return self._overlap(fa, fb)  # "Tiny Tim" and "Tim Cratchit": a nickname is for the LLM to judge

    def _group(self, form: NameForm) -> bool:
        last = form.person[-1]
        return form.plural and (bool({"misses", "messrs"} & set(form.honorifics))
                                or (last.endswith("s") and last[:-1] in self.corpus.person_words))

    def _partial(self, a: Profile, b: Profile, rule: str) -> Verdict:
        for x, y in ((a, b), (b, a)):  # "Ebenezer is another name for Scrooge": the rest of the name is mentioned
            rest = {w for f in y.forms for w in f.person} - {w for f in x.forms for w in f.person}
            if rest & x.words.keys() and a.key not in b.neighbours:
                return Verdict(SAME, 0.8, rule + ", the rest of the name in the description")
        if a.key in b.neighbours and self.context(a, b) < 0.5:
            return Verdict(UNSURE, 0.5, f"{rule}, but related to each other")
        if a.words and b.words and self.context(a, b) < self.disagree_below:
            return Verdict(UNSURE, 0.5, f"{rule}, but the descriptions disagree")
        return Verdict(SAME, 0.8, rule)

    def _short_form(self, a: Profile, b: Profile, same: Verdict) -> Verdict:
        """An acronym or a name without its qualifier names many things: kept only when the descriptions do
        not disagree ("Paris" is not "Paris, Texas" when one is about France)."""
        if a.words and b.words and self.context(a, b) < self.disagree_below:
            return Verdict(UNSURE, 0.5, same.rule + ", but the descriptions disagree")
        return same

    def _overlap(self, fa: NameForm, fb: NameForm) -> Verdict:
        wa, wb = words_of(fa), words_of(fb)
        shared = wa & wb
        if not shared:
            return NO_EVIDENCE
        weight = sum(self.corpus.idf(w) for w in shared) / max(1e-9, min(
            sum(self.corpus.idf(w) for w in wa), sum(self.corpus.idf(w) for w in wb)))
        if wa <= wb or wb <= wa:
            return Verdict(UNSURE, 0.3 + 0.2 * weight, "one name extends the other")
        return Verdict(UNSURE, 0.2 * weight, "shared words") if weight >= 0.34 else NO_EVIDENCE


def words_of(form: NameForm) -> set[str]:
    """The name's words, each made singular: "Christmas" reads "christma" wherever it stands."""
    return {singular(w) for w in form.key.split()}


def _plural_pair(fa: NameForm, fb: NameForm) -> bool:
    """The names differ only in the number of their last word (dinner/dinners, virus/viruses, goose/geese)."""
    wa, wb = fa.key.split(), fb.key.split()
    if len(wa) != len(wb) or not wa or wa[:-1] != wb[:-1] or wa[-1] == wb[-1]:
        return False
    x, y = sorted((wa[-1], wb[-1]), key=len)
    return fa.singular == fb.singular or y in (x + "s", x + "es") or (x.endswith("y") and y == x[:-1] + "ies")


def _definite(form: NameForm) -> bool:
    """The name begins with an article: "The Goose" is a particular one, not "Geese"."""
    return form.surface.split()[0].casefold() in ARTICLES if form.surface.split() else False


def _given_match(x: tuple[str, ...], y: tuple[str, ...]) -> bool:
    """Given names agree: the same first (or its initial), and the shorter list's names all in the longer."""
    if not x or not y:
        return False
    if not (x[0] == y[0] or (len(x[0]) == 1 and y[0].startswith(x[0])) or (len(y[0]) == 1 and x[0].startswith(y[0]))):
        return False
    short, long = (x, y) if len(x) <= len(y) else (y, x)
    return all(any(s == l or (len(s) == 1 and l.startswith(s)) for l in long) for s in short[1:])


def _rank(v: Verdict) -> tuple[int, float]:
    return ({SAME: 3, UNSURE: 2, NONE: 0}.get(v.kind, 0), v.score)

