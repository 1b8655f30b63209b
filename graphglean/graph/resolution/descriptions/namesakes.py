"""One name, two things. The graph keys nodes by their case-folded name (as GraphRAG and LightRAG do), so the
records of "Georgia" the country and "Georgia" the US state meet in one node before resolution runs. The rules
that keep two nodes of one name apart read each pair of such a node's descriptions (`one_name_apart`: those of
them that no one thing's life changes), and a node whose descriptions they tell apart gets a ``one_name`` line
in resolution.jsonl:

    {"decision": "one_name", "name": "Georgia", "rule": "places of different levels",
     "descriptions": ["Country in the Caucasus; capital Tbilisi.", "A US state whose capital is Atlanta."]}

The node is not split: the peer formats (GraphRAG, LightRAG) key entities by name too, and which of its
relationships belong to which namesake is not known. The line lets a reader find the nodes to check.
"""

from __future__ import annotations

import re
from itertools import combinations
from typing import Any, Iterable, Mapping

import attrs

from ..names import key_of
from ..profiles import (ORG_TYPES, PERSON_TYPES, PLACE_TYPES, THING_TYPES, Profile, aliases_of, kinds_apart,
                        opening, openings, profile_from, spelled_out)
from ..variants.countries import countries_of
from ..variants.placing import UNIONS
from ..variants.rulers import realms_apart
from ..variants.types import english_type
from .clauses import DEFINING

# a node with many descriptions is read by its first ones (in the order the graph lists them): a namesake
# that appears only later goes unnoticed, and the reading stays a few dozen pairs per node
READ_DESCRIPTIONS = 8
_KNOWN = PERSON_TYPES | PLACE_TYPES | ORG_TYPES | THING_TYPES
# what ends a noun phrase's head: "state" of "a US state whose capital is Atlanta", "venture" of "a joint venture
# with Germany's Siemens" (which says nothing of where the venture is)
# (no Latin letter alone: those are initials, "U.S. state")
_AFTER_HEAD = frozenset("""in of on at from for to with near by across along between beside behind within outside over under into
through around among about after before since against toward towards below above beyond off per via like
than de del des du di da do von vom zu en con avec mit och med og nach bei aus für über unter vor
zwischen gegen durch ohne um seit an auf dans sur pour par chez entre sans sous vers por para sin sobre
hacia desde em na no nas nos pelo pela com sem nel nella per tra fra su sul op bij met voor naar uit van
på för från av till vid hos we ze od przy pod ve в во на из у под при до для с со к от
who whom whose which that where""".split())  # a relative word ends the phrase too ("a US state whose capital")
_ARTICLES = frozenset("a an the".split())
# what a thing was, not what it is ("a former British colony"): no kind, no country
_PAST = frozenset("""former formerly ex onetime erstwhile previous late defunct ehemalige ehemaliger ehemaliges
ancien ancienne antiguo antigua antigo antiga ex- egykori dawny dawna dawne byvaly byvala бывшии бывшая бывшее
eski voormalig voormalige tidigare forhenvaerende entinen mantan bekas""".split())  # as `key_of` writes them
_LONGEST = 6  # words of a noun phrase: a longer opening is a sentence ("Die Bahn kündigte ... an")
# nouns said of a company as often as of a person ("chemicals producer", "software developer"): no kind
_AGENTS = frozenset("""producer supplier distributor publisher developer operator provider broadcaster carrier builder
designer exporter importer dealer trader seller vendor contractor printer brewer grower owner investor insurer
lender employer sponsor partner founder member client customer manager leader""".split())
# a colony's or a protectorate's country adjective names who ruled it ("a French West African colony")
_RULED = frozenset("colony protectorate dominion mandate territory possession kolonie colonie colonia".split())
# a state, in any language, is a country unless the phrase names another ("a US state", "ein Bundesstaat")
_STATES = ("state", "staat", "stato", "estado", "etat", "stat", "panstwo", "государство")


# where a place follows the head: "city in ...", "ciudad de ...", "город в ..."
_LOCATIVE = frozenset("in of de del da do di du des en im we ve nel na no em på в во на".split())
_KIND_WORDS = dict.fromkeys("kingdom republic emirate sultanate principality monarchy nation".split(), "country") | {
    "capital": "city"}  # "Capital of the Seychelles"
_POSSESSIVES = frozenset("its his her their our my your sein seine son sa ses su sus".split())
_DASHED = re.compile(r"^[^—–.;:\n]{1,60}\s[—–]\s+([^.;:,()\n]{1,80})")  # "Пушкин — русский поэт"
_PARTICIPLE = re.compile(r"[a-z]{3,}(?:ed|ing)")  # "headquartered", "fronted", "serving": the phrase has ended


@attrs.frozen
class Said:
    """What a description opens by saying its node is: a kind (an English type) and the countries it names."""

    kind: str
    countries: frozenset[str]


def said(p: Profile) -> Said:
    """What ``p``'s description opens by saying its node is (`profiles.openings`), each phrase read to its head
    and the place after a place's or an organization's: "a US state whose capital is Atlanta" is a state of the
    US; "ciudad de Argentina" a city of Argentina (a drug "in Germany sold as ..." is of no country);
    "Partido Popular, a Spanish conservative party" a party of Spain."""
    kind, countries, own = "", set(), {w for f in p.forms for w in f.key.split()}
    # what a sentence says after its verb is read by its place only ("REM were the Athens, Georgia rock band")
    for phrase, modified in [*((x, True) for x in _to_comma(p)), *((x, False) for x in said_after_name(p))]:
        words, place = _head_phrase([w for w in phrase.split() if w not in _ARTICLES])
        if not words or len(words) > _LONGEST or words[-1] in own or words[-1] in _AGENTS or _PAST & set(words):
            continue
        modifiers = words if modified else []  # a union is no country ("an EU member state": a country)
        named, there = countries_of(" ".join(modifiers)) - UNIONS, countries_of(" ".join(place)) - UNIONS
        if words[-1] in _RULED:
            named = set()
        found, head = _KIND_WORDS.get(words[-1]) or english_type(" ".join(words)), words[-1]
        found = found if found in _KNOWN else english_type(words[-1])
        if found not in _KNOWN and len(words) > 1 and english_type(words[0]) in (PLACE_TYPES | ORG_TYPES) - {words[0]}:
            found, head = english_type(words[0]), words[0]  # a place's or a body's head first in another language
            # ("ciudad colonial"; not "mayor", nor English "country rocker")
        if (found == "state" or head.endswith(_STATES)) and not named | there:  # "a Central African state"
            found = ""
        countries |= named | (there if found in PLACE_TYPES | ORG_TYPES else set())
        kind = kind or (found if found in _KNOWN else "")
    return Said(kind, frozenset(countries) - countries_of(" ; ".join(f.surface for f in p.forms)) - UNIONS)


def _to_comma(p: Profile) -> tuple[str, ...]:
    """`openings`, the first cut at a comma after a kind ("Brazilian football club, three-time champions"; not
    "port city in Andalusia, Spain", whose comma names the place's country, nor "Partido dos Trabalhadores,
    partido brasileiro", a name before what it is)."""
    found = openings(p)
    first = key_of(p.description.split(",", 1)[0])
    if found and found[0].startswith(first + " ") and not _LOCATIVE & set(first.split()) and \
            _kind_word(first.split()[-1]):
        return (first, *found[1:])
    return found


def said_after_name(p: Profile) -> tuple[str, ...]:
    """Where ``p``'s description opens with its name, what follows its first verb of being or a dash ("Пушкин —
    город ...", "Paraná es la capital de ..."); lower-cased."""
    if opening(p):
        return ()
    head = p.description[:80]
    return tuple(key_of(m.group(1)) for m in (DEFINING.search(head), _DASHED.match(head)) if m)


def _head_phrase(words: list[str]) -> tuple[list[str], list[str]]:
    """``words`` to their noun phrase's head, and the place a locative preposition after it names (at most
    four words): cut before a preposition or a participle that a preposition follows ("producer
    headquartered in"); an attributive participle goes with the words before it ("Menlo Park-based parent",
    "Swiss-registered outdoor group": "parent", "outdoor group"). Nothing for words that open with a verb or a
    possessive: a sentence about the node ("Opened its first store in Shanghai")."""
    if not words or _PARTICIPLE.fullmatch(words[0]) or words[0] in _POSSESSIVES:
        return [], []
    start = 0
    for i, w in enumerate(words):
        if w in _AFTER_HEAD:
            rest = words[i + 1:i + 5] if w in _LOCATIVE else []
            return words[start:i], rest[:next((k for k, x in enumerate(rest) if x in _AFTER_HEAD), len(rest))]
        if _PARTICIPLE.fullmatch(w) and w.endswith("ed"):
            if i + 1 < len(words) and words[i + 1] not in _AFTER_HEAD:
                start = i + 1
                continue
            return words[start:i], []
        if _PARTICIPLE.fullmatch(w) and i > start and _kind_word(words[i - 1]):  # not "a shopping website"
            return words[start:i], []
    return words[start:], []


def _kind_word(word: str) -> bool:
    """``word`` names a kind of thing (not a people: "Indian" is read as a person's calling by its ending)."""
    return (word in _KIND_WORDS or english_type(word) in _KNOWN) and not countries_of(word)


def one_name_apart(a: Profile, b: Profile, sa: Said | None = None, sb: Said | None = None) -> str:
    """Why two descriptions of one node describe two things ("" when nothing says so). Only what each opens by
    saying its node is counts (`said`), and what no one thing's life changes: its kind (a country and a US
    state, a person and a company, a newspaper and a club), the countries of a place or of a national body (a
    party, a club, a school, a newspaper), an acronym spelled out as two names, a ruler's realm. Not a calling,
    an office, a sport or a date (one life holds an actor and a governor, basketball and baseball, and a
    painting sold centuries later), nor a company's countries (multinationals), a city against a region of its
    name (Vienna, Hong Kong), nor the places a description names in passing ("opened a store in Shanghai").
    ``sa``, ``sb``: `said` of each, where the caller has read them."""
    sa, sb = sa or said(a), sb or said(b)
    if sa.kind and sb.kind and (why := kinds_apart(*(attrs.evolve(p, types=frozenset({s.kind}))
                                                     for p, s in ((a, sa), (b, sb))))):
        # both say what they are (the node's types are every record's: a model's slips among them); of places'
        # levels only a country against another level (Georgia, the country and the US state), not an island
        kinds = {sa.kind, sb.kind}
        if why != _LEVELS_APART or (kinds & _COUNTRY_KINDS and len(kinds) == 2 and "island" not in kinds):
            return why
    if why := _spelled_apart(a, b):
        return why
    national = all(s.kind in PLACE_TYPES | _NATIONAL or (not s.kind and p.types & PLACE_TYPES)
                   for p, s in ((a, sa), (b, sb)))
    if national and sa.countries and sb.countries and not sa.countries & sb.countries:
        return "described as of different countries"
    return realms_apart(a, b)


_LEVELS_APART = "places of different levels"
_COUNTRY_KINDS = frozenset({"country", "nation"})
# bodies of one country each: parties, clubs and teams, schools, newspapers and broadcasters
_NATIONAL = frozenset("""party political_party club team school university college newspaper magazine broadcaster
publisher""".split()) | frozenset({"political party", "sports team", "sports club", "football club"})


def _spelled_apart(a: Profile, b: Profile) -> str:
    """An acronym whose two descriptions spell it out as two names sharing less than half their words ("ICC":
    the International Criminal Court, the International Cricket Council; not "WWF": the World Wide Fund for
    Nature, once the World Wildlife Fund)."""
    for form in a.forms:
        if form.acronym and 2 <= len(form.acronym) <= 6:
            sa, sb = (spelled_out(p.description, form.acronym) for p in (a, b))
            if sa and sb and all(_few_shared(x, y) for x in sa for y in sb):
                return "an acronym spelled out as two names"
    return ""


def _few_shared(x: str, y: str) -> bool:
    wx, wy = set(x.split()), set(y.split())
    return len(wx & wy) * 2 < min(len(wx), len(wy))


def one_name_line(key: Any, data: Mapping[str, Any]) -> tuple[list[Any], dict[str, Any]] | None:
    """The ``one_name`` line of a node whose descriptions describe two things, with its place in
    resolution.jsonl (after the pairs kept apart, by name then key); None for any other node."""
    descriptions = list(dict.fromkeys(d.strip() for d in aliases_of(data, "descriptions") if d.strip()))
    if len(descriptions) < 2:
        return None
    name = str(data.get("name") or key)
    base = {k: data.get(k) for k in ("name", "type", "types")}
    profiles = [profile_from(key, {**base, "description": d}, ()) for d in descriptions[:READ_DESCRIPTIONS]]
    saids = [said(p) for p in profiles]  # each once, not once a pair
    for i, j in combinations(range(len(profiles)), 2):
        why = one_name_apart(profiles[i], profiles[j], saids[i], saids[j])
        if why:
            line = {"decision": "one_name", "name": name, "rule": why,
                    "descriptions": [descriptions[i], descriptions[j]]}
            return [3, name, str(key)], line
    return None


def one_name_lines(nodes: Iterable[tuple[Any, Mapping[str, Any]]]) -> list[tuple[list[Any], dict[str, Any]]]:
    """`one_name_line` of each of ``nodes`` (``graph.nodes(data=True)``) that has one, in their order."""
    found = (one_name_line(key, data) for key, data in nodes)
    return sorted((line for line in found if line is not None), key=lambda t: t[0])
