"""What entity resolution knows of a node (`Profile`: its names read, types, description words, neighbours)
and of the whole graph (`Corpus`: word rarity, words written in lower case, words of personal names)."""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from functools import lru_cache
from typing import Any, Iterable, Mapping

import attrs
import networkx as nx
import regex

from ...text.words import LETTERS
from .lexicon import (COUNTRIES, COUNTRY_OF, CREDENTIALS, FEMALE_NOUNS, KIN, MALE_NOUNS, PARTICLES, REGIONS, THINGS,
                      WORLD_REGIONS)
from .descriptions.clauses import APPOSITION, DEFINITION, opening_of, said_to_be
from .lexicon.latin import latin_names
from .names import NameForm, key_of, read_name, strip_accents, words_of
from .variants.placing import PLACED, UNIONS, countries_placing, names_place
from .variants.types import english_type

PERSON_TYPES = frozenset(
    "person per people persons character characters individual human persona personne figure".split())
PLACE_TYPES = frozenset("geo location place city country region gpe loc town village state province continent "
                        "geography geographic_location geographical_location island river lake mountain district "
                        "municipality county commune borough neighbourhood neighborhood suburb headland cape "
                        "peninsula bay valley desert forest glacier waterfall canyon plateau strait sea ocean "
                        "street road square airport neighbourhood district quarter estuary park"
                        .split()) | frozenset({"geographic location", "geographical location", "national park"})
UNTYPED = frozenset({"", "unknown", "other", "entity", "none", "misc"})
# the types a model gives an organization, one kind for the rules ("company" and "organization" agree)
ORG_TYPES = frozenset("""organization organisation org company corporation business firm enterprise conglomerate
website site platform service brand publisher publication newspaper magazine media broadcaster
network bank institution agency band group team club party university school college ngo nonprofit charity
government""".split()) | frozenset({
    "web site", "online service", "sports team", "sports club", "football club", "musical group", "political party",
    "news organization", "media outlet", "news outlet", "government agency", "financial institution"})
SHORT_DESCRIPTION = 8  # description words (besides the name's own) below which two descriptions cannot disagree
_DEFINED_THING = re.compile(r"\b(?:is|was|are|were)\s+(?:\w+\s+){0,5}?(?:" + "|".join(sorted(THINGS)) + r")s?\b",
                            re.I)
# what a description says its node is: "is a nervous woman", "was a businessman and the husband of"
_CALLED = re.compile(r"\b(?:is|was|are|were)\s+(?:(?:a|an|the|also|once|later)\s+)?(?:[\w'-]+\s+){0,2}?("
                     + "|".join(sorted(MALE_NOUNS | FEMALE_NOUNS)) + r")\b", re.I)
_HE, _SHE = frozenset("he him himself".split()), frozenset("she herself".split())
_HIS, _HER = frozenset({"his"}), frozenset({"her", "hers"})
_TOKEN = regex.compile(rf"[{LETTERS}]+")
# the lower-case parts of a hyphenated name ("ho" of "Joon-ho"): no common words (left out before reading)
_NAME_TAIL = regex.compile(rf"(\p{{Lu}}[{LETTERS}]*)(?:-[{LETTERS}]+)+")
_STOP = frozenset("""a an the and or of in on at to for with by from as is are was were be been being that this
these those it its their them they who which whose what when where while into during through about over under than
then also not no but so such very more most one two three his her he she him""".split())


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
    thing: bool = False  # its description says what thing it is ("a cathedral city", "the carmaker that")
    written_types: frozenset[str] = frozenset()  # as the model wrote them ("Komponist", read as "person")

    @property
    def name(self) -> str:
        return self.forms[0].surface

    @property
    def personal(self) -> bool:
        return bool(self.types & PERSON_TYPES)

    @property
    def person_compatible(self) -> bool:
        return self.personal or (self.types <= UNTYPED and not self.thing)


def _one_sided(ws: list[str], male: frozenset[str], female: frozenset[str]) -> str:
    m, f = sum(w in male for w in ws), sum(w in female for w in ws)
    return "m" if m and not f else "f" if f and not m else ""


def description_gender(text: str) -> str:
    """The gender a description gives its subject ("m", "f" or ""): by its pronouns, else by gendered nouns
    ("the husband of", "first lady"), else by possessives (a "her husband" says nothing of the node's own)."""
    ws = [w.lower() for w in _TOKEN.findall(text)]
    called = [m.group(1).lower() for m in _CALLED.finditer(text)]
    # "her husband": a kinship noun someone else's, which says nothing of the node's own gender (a possessive
    # that ends the text owns nothing and counts)
    possessives = [w for w, after in zip(ws, ws[1:] + [""]) if after not in KIN]
    return (_one_sided(ws, _HE, _SHE) or _one_sided(called, MALE_NOUNS, FEMALE_NOUNS)
            or _one_sided(possessives, _HIS, _HER))


def aliases_of(data: Mapping[str, Any], key: str = "aliases") -> list[str]:
    """A node's aliases (or other list): a list, or the JSON list GraphML keeps (a graph read from graph.graphml)."""
    value = data.get(key) or []
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except (ValueError, RecursionError):  # nested deeper than JSON is read: text, not a list
            value = [value]
    return [str(a) for a in value if a] if isinstance(value, list) else []


def uninverted(form: NameForm) -> str:
    """A person's name written surname first as catalogues write it ("Smith, John A.", "SMITH John"), in the order
    it is spoken ("John A. Smith"); "" for any other name (a degree, a region or a country after a comma: "MD")."""
    words = form.surface.split()  # "KUBICA Robert", as sport and official lists write it (not "V.S. Naipaul")
    if 2 <= len(words) <= 4 and words[0].isupper() and len(words[0]) > 2 and "." not in words[0] and not any(
            w.isupper() for w in words[1:]):
        return " ".join([*words[1:], words[0].capitalize()])
    head, _, tail = form.surface.rpartition(",")
    given = tail.split()
    if not (form.qualifier and not form.paren and head and 1 <= len(given) <= 3) or "," in head:
        return ""
    if form.qualifier in CREDENTIALS or form.qualifier in REGIONS or form.qualifier in COUNTRIES:
        return ""
    return " ".join([*given, *head.split()])


def profile_of(graph: nx.Graph, node: Any) -> Profile:
    return profile_from(node, graph.nodes[node], graph.neighbors(node))


def profile_from(node: Any, data: dict[str, Any], neighbours: Iterable[Any]) -> Profile:
    """The profile of a node given its attributes and its neighbours (the graph's ``neighbors``)."""
    names = [str(data.get("name") or node)] + aliases_of(data)
    written = frozenset(t.strip().lower() for t in (aliases_of(data, "types") or [str(data.get("type") or "")]))
    types = frozenset(map(english_type, written))
    forms = [read_name(n) for n in dict.fromkeys(names)]
    forms += [read_name(n) for n in latin_names(forms) if n not in names]  # "Достоевский" as "Dostoevskiy" too
    if types & PERSON_TYPES:
        forms += [read_name(n) for n in dict.fromkeys(uninverted(f) for f in forms) if n and n not in names]
    description = data.get("description") or ""
    own = {w for f in forms for w in f.key.split()}
    counted = Counter(w for w in (t.lower() for t in _TOKEN.findall(description)) if w not in _STOP and w not in own)
    return Profile(str(node), forms, types, description, counted, frozenset(map(str, neighbours)),
                   description_gender(description), bool(_DEFINED_THING.search(description)), written)


@lru_cache(maxsize=4096)
def kinds(types: frozenset[str]) -> frozenset[str]:
    """A node's types, those of a person, a place or an organization each as one kind."""
    return frozenset("person" if t in PERSON_TYPES else "geo" if t in PLACE_TYPES else
                     "organization" if t.replace("_", " ") in ORG_TYPES else t for t in types)


def types_conflict(a: Profile, b: Profile) -> bool:
    """Both nodes are typed, with no kind in common (`kinds`)."""
    return not (a.types <= UNTYPED or b.types <= UNTYPED or kinds(a.types) & kinds(b.types))


_ORGANIZATION = frozenset({"organization", "organisation", "org"})
_CAPITALIZED = re.compile(r"[^\W\d_][^\W_]*(?:'[^\W_]+)?")
_JOINING = frozenset("of and for the de du des del la le di da do von van und y et & für pour para per zur".split())


def spelled_out(text: str, letters: str) -> set[str]:
    """The names in ``text`` whose capitalized words' initials are ``letters`` (words such as "of" and "the"
    inside skipped), folded: "University of North Carolina" for "unc"."""
    ws = _CAPITALIZED.findall(text)
    found = set()
    for i, first in enumerate(ws):
        if not first[0].isupper():
            continue
        initials, j = "", i
        while j < len(ws) and len(initials) < len(letters):
            w = ws[j]
            if w.casefold() in _JOINING and initials:  # its letter only where the acronym has it ("BfS", "BoA")
                initials += w[0].casefold() if letters[len(initials):len(initials) + 1] == w[0].casefold() else ""
                j += 1
                continue
            if not w[0].isupper() or len(w) == 1:  # "F.B.I." itself is no name it spells out
                break
            initials += strip_accents(w[0]).casefold()
            j += 1
        if initials == letters and j - i > 1:
            found.add(" ".join(w.casefold() for w in ws[i:j]))
    return found


_LEVELS = {"country": "country", "nation": "country", "state": "state", "province": "state", "city": "city",
           "town": "city", "village": "city", "municipality": "city", "commune": "city", "river": "river",
           "lake": "lake", "mountain": "mountain", "island": "island", "region": "state", "district": "district",
           "borough": "district"}  # a river is no town, nor a district ("Zell am See") the town of its name
# kinds of organization no model types one thing as two of ("company" and "organization" are any kind)
_ORG_KINDS = {t: kind for kind, types in {
    "media": "newspaper, magazine, broadcaster, publisher, news organization, media outlet, news outlet",
    "sport": "club, team, sports team, sports club, football club", "party": "party, political party",
    "school": "university, school, college", "music": "band, musical group, orchestra"}.items()
    for t in types.split(", ")}
CATCH_ALL = frozenset({"category"})  # the type a common extraction prompt gives what fits no other: no kind
# things a person is never (a model types a ghost or a family as an event or an organization as often)
THING_TYPES = PLACE_TYPES | frozenset("""product vehicle ship vessel boat car motorcycle aircraft airplane brand software
technology device website artifact artefact currency food drink""".split())
# what is made or sold, and who makes or sells it: never a place (an organization may be: "the Kremlin")
MADE_TYPES = (THING_TYPES - PLACE_TYPES) | frozenset("company corporation business firm manufacturer band".split())
# what carries people or arms, which no club, band, party, school or paper is typed as ("U2", a band; "U-2", a plane)
CRAFT_TYPES = frozenset("""aircraft airplane aeroplane plane vehicle ship vessel boat car motorcycle rocket missile
spacecraft locomotive train tank submarine warship""".split())
_SETTLEMENTS = frozenset("city town village commune municipality".split())
_STRUCTURES = frozenset("fort fortress castle bridge tower lighthouse palace church cathedral station airport".split())


def defining_clauses(p: Profile) -> tuple[str, ...]:
    """What ``p``'s description says it is: its opening noun phrase and the words after each verb of being."""
    return said_to_be(p.description, tuple(f.key for f in p.forms if f.key))


def openings(p: Profile) -> tuple[str, ...]:
    """What ``p``'s description opens by saying its node is: its opening noun phrase (`opening`), and what
    follows a comma after its name ("Verve Records, an American jazz record label"); lower-cased."""
    return (opening(p), *(key_of(m.group(1)) for m in APPOSITION.finditer(p.description[:120])))


def opening(p: Profile) -> str:
    """What a description's opening words say its node is: its noun phrase, at most 8 words, to a relative word
    or an "-ed" participle ("London daily" of "London daily founded in 1785"; "Composer" of "Composer who
    directed ... in New York"), or "" when it opens with the node's name, a sentence about it ("Carrefour agreed
    to sell its Italian stores")."""
    return opening_of(p.description, tuple(f.key for f in p.forms if f.key))


def placed_in(p: Profile, names: set[str]) -> set[str]:
    """The countries ``p``'s description says it is of (in what follows "is", "was", "es", "ist"...: by name,
    people, capital or region, in several languages), less those ``names`` name (a country's own name places
    nothing; "Carrefour agreed to sell its Italian stores" places Carrefour nowhere; "an English-language daily"
    is a language)."""
    found = countries_placing(" ".join(defining_clauses(p))) - UNIONS
    return found - {PLACED.get(n, n) for n in names}


def _stem(word: str) -> str:
    return word[:5]  # "stream", "streaming": a crude stem, enough to see two definitions share a word


def definition_words(p: Profile) -> set[str]:
    """The words in which ``p``'s description says what it is ("is a ...", "es una ...", "ist ein ...")."""
    said = (w.lower() for m in DEFINITION.finditer(p.description) for w in _TOKEN.findall(m.group(1)))
    return p.words.keys() & set(said)


def defined_apart(a: Profile, b: Profile, few: int = 4) -> bool:
    """Each description defines its node ("is a ...", "es una ...", "ist ein ...", to the sentence's end, an
    apposition included) in ``few`` words or more, none of which (nor its stem) the other's description uses,
    and they place the two in no one country: a fashion designer and a band's singer, an airline's site and a
    maker of faucets. ("was confirmed as secretary" says what befell a node, not what it is.)"""
    said = [definition_words(p) for p in (a, b)]
    if not all(len(s) >= few for s in said):
        return False
    names = {f.key for p in (a, b) for f in p.forms}
    if placed_in(a, names) & placed_in(b, names):
        return False
    return not ({_stem(w) for w in said[0]} & {_stem(w) for w in b.words} or
                {_stem(w) for w in said[1]} & {_stem(w) for w in a.words})


def conflict(a: Profile, b: Profile) -> str:
    """Why two nodes whose names agree are two things by what else is known of them ("" when nothing says so):
    their kinds (`kinds_apart`); descriptions that place them in different countries ("The Sun", a British
    newspaper, and "Sun", an American computer maker)."""
    if why := kinds_apart(a, b):
        return why
    if a.personal and b.personal:  # people move: a Chinese player in Houston, a South African living in Australia
        return ""
    names = {k for p in (a, b) for f in p.forms for k in (f.key, f.core)}  # "Police in London, ON": no U.K.
    ca, cb = placed_in(a, names), placed_in(b, names)
    if ca and cb and not ca & cb:
        return "described in different countries"
    return ""


def kinds_apart(a: Profile, b: Profile) -> str:
    """Why two nodes are two things by their types ("" when they do not say): a person and a thing of another
    type ("Queen Elizabeth II", a monarch, and "Queen Elizabeth 2", a liner); places of different levels
    ("México", a country, and "Mexico", a town); organizations of different kinds."""
    for x, y in ((a, b), (b, a)):
        if x.personal and not y.personal and y.types & THING_TYPES:
            return "a person and a thing of another type"
        if x.personal and not y.personal and "tournament" in y.types:
            return "a person and a contest"  # "Roland Garros", an aviator; "Roland-Garros", the tournament
        if x.personal and not y.personal and y.types & (MADE_TYPES | _ORGANIZATION - x.types):  # "J. P. Morgan", a
            return "a person and a company or a thing made"  # financier, and the bank; a family typed both is one
        if x.types & PLACE_TYPES and y.types & MADE_TYPES and not y.types & PLACE_TYPES:
            return "a place and a thing made or sold"  # "Côte-d'Or", a département; "Côte d'Or", chocolate
        if x.types & _ORG_KINDS.keys() and y.types & CRAFT_TYPES and not x.types & CRAFT_TYPES:
            return "an organization and a craft or vehicle"
        if x.types & _SETTLEMENTS and y.types & _STRUCTURES and not x.types & _STRUCTURES:
            return "a town and a structure"  # "Pont-St-Esprit", a commune; "Pont Saint Esprit", a bridge
    la, lb = ({_LEVELS[t] for t in p.types if t in _LEVELS} for p in (a, b))
    if la and lb and not la & lb and not _in_its_city(a, b, la, lb):
        return "places of different levels"
    oa, ob = ({_ORG_KINDS[t] for t in p.types if t in _ORG_KINDS} for p in (a, b))
    if oa and ob and not oa & ob:
        return "organizations of different kinds"  # "Der Standard", a newspaper; "Standard", a football club
    return ""


def _in_its_city(a: Profile, b: Profile, la: set[str], lb: set[str]) -> bool:
    """A neighbourhood described in the city that qualifies the other's name, typed a town ("Nowa Huta, Kraków"
    and "Nowa Huta", "district of Kraków"): the model typed the neighbourhood by its city (not "Hollywood,
    Florida", a town; nor "Ipanema, Rio de Janeiro" and a bairro of Porto Alegre)."""
    if (la, lb) == ({"city"}, {"district"}):
        town, quarter = a, b
    elif (la, lb) == ({"district"}, {"city"}):
        town, quarter = b, a
    else:
        return False
    return any(f.qualifier in PLACED and f.qualifier not in _NO_CITIES and names_place(quarter.description, f.qualifier)
               for f in town.forms)


_NO_CITIES = frozenset(COUNTRY_OF) | frozenset(REGIONS) | frozenset(WORLD_REGIONS)  # qualifiers no neighbourhood has


def both_places(a: Profile, b: Profile) -> bool:
    """Both nodes are places, or one is and the other has no type."""
    return bool(a.types & PLACE_TYPES or b.types & PLACE_TYPES) and all(
        p.types & PLACE_TYPES or p.types <= UNTYPED for p in (a, b))


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
            corpus.lowercase.update(w for w in _TOKEN.findall(_NAME_TAIL.sub(r"\1", p.description)) if w.islower())
            for f in p.forms:
                corpus.person_words.update(f.person)
            corpus.degree[p.key] = len(p.neighbours)
        return corpus

    def idf(self, word: str) -> float:
        return math.log(1 + (1 + self.documents) / (1 + self.df.get(word, 0)))  # > 0: a word in every text counts

    def proper(self, form: NameForm) -> bool:
        """Every word of the personal name is a name, not a common word (one letter: an initial; a particle
        such as "van" or "de" is written in lower case inside names; a syllable joined by a hyphen is part of a
        word: "in" of "Jae-in")."""
        joined = {w for token in form.surface.split() if "-" in token for w in key_of(token).split()[1:]}
        return bool(form.person) and all(len(w) == 1 or w in PARTICLES or w in joined or w not in self.lowercase
                                         for w in form.person)


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
