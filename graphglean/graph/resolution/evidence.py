"""Pairwise evidence for entity resolution: do two nodes name one entity?

`Evidence.verdict(a, b)` weighs names (`names.read_name`), declared types, descriptions and graph neighbours,
and answers a `verdicts.Verdict`. A merge needs positive evidence: the same name written another way, a title,
legal form, country or qualifier more or less, an acronym, a partial personal name (`persons`), a name one's
description gives (`descriptions.aliases`). Differing numbers, generations, qualifiers, countries or legal
forms are evidence against it, and so is a number, a generation or a qualifier on one side only: the rules
then keep the two apart (DIFFERENT, or UNSURE with doubt for the LLM tier)."""

from __future__ import annotations

import math
import re
from typing import Iterable

import attrs
import networkx as nx

from .lexicon import COUNTRY_NAMES, COUNTRY_OF, CREDENTIALS, SMALL_REGIONS
from ...text.words import unspaced
from .blocking import numbers_differ
from .descriptions.aliases import gives_other_name
from .names import NameForm, read_name, saints_written, words_of
from .organizations.abbreviations import BROAD_TYPES, NUMBERED_ACRONYM, abbreviation_verdict
from .organizations.trade_names import trade_name_verdict
from .organizations.translated import translation_verdict
from .organizations.rules import FOUNDED, club_verdict, domain_verdict, group_verdict, headed_verdict, legal_verdict
from .descriptions.dates import centuries_apart
from .persons import generation_left_out, numbered_generation, person_verdict
from .scripts import across_scripts
from .profiles import (PLACE_TYPES, SHORT_DESCRIPTION, UNTYPED, Corpus, Profile, both_places, conflict,
                       spelled_out, types_conflict)
from .variants.accents import accent_namesake, written_out
from .variants.acronyms import acronym_verdict
from .variants.articles import article_verdict, definite, definite_article, elided_verdict
from .variants.callings import callings_apart, offices_apart, sports_apart
from .variants.definitions import told_apart, two_languages
from .variants.countries import countries_apart, described_in, qualifiers_verdict, regions_apart, regions_named
from .variants.countries import regions_described, river_named, unnamed
from .variants.makers import maker_verdict
from .variants.types import english_type
from .variants.places import (COUNTRIES_DESCRIBED, PLACES_NAMED, names_qualifier, region_country, region_of,
                              region_readings, written_in)
from .variants.placing import countries_named, country_led
from .variants.rulers import realms_apart, regnal_verdict
from .variants.vessels import vessel_verdict
from .verdicts import DIFFERENT, NO_EVIDENCE, NONE, SAME, UNSURE, Verdict, doubtful, rank


_VERB_BEFORE = re.compile(r"\b(?:is|are|was|were)\b[^.;:,]{0,40}\Z", re.I)  # "... is Fezziwig's partner"
_OF_BEFORE = re.compile(r"\b(?:is|are|was|were)\s+(?:the|a|an|one)\b[^.;:,]{0,40}?\bof\s+(?:the\s+)?\Z", re.I)
_POSSESSIVE_AFTER = re.compile(r"(?:'s|’s|')(?=\s)")


def _defines_relative(description: str, other: NameForm) -> bool:
    """``description`` defines its node through ``other`` ("X is Fezziwig's partner", "the wife of Fezziwig"): at
    each place it names ``other``, the words around (fixed patterns, not one compiled a name)."""
    name, text = " ".join(other.surface.split()), " ".join(description.split())
    if not name or name.casefold() not in text.casefold():
        return False
    for m in re.finditer(re.escape(name), text, re.I):
        start, end = m.span()
        word_before = start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_")
        word_after = end < len(text) and (text[end].isalnum() or text[end] == "_")
        if not word_before and _POSSESSIVE_AFTER.match(text, end) and \
                _VERB_BEFORE.search(text, max(0, start - 60), start):
            return True
        if not word_after and _OF_BEFORE.search(text, max(0, start - 80), start):
            return True
    return False


@attrs.define
class Evidence:
    graph: nx.Graph
    profiles: dict[str, Profile]
    corpus: Corpus
    owner_cluster: dict[str, str] = attrs.field(factory=dict)  # name key -> cluster id, after a first round
    disagree_below: float = 0.04
    agree_above: float = 0.5  # descriptions and neighbours that share this much describe one thing

    def context(self, a: Profile, b: Profile) -> float:
        """How much two nodes' descriptions and neighbours share: overlap in [0, 1] weighted by squared idf, so
        words every description uses ("organization", "character") count for next to nothing."""
        weight = lambda w: self.corpus.idf(w) ** 2  # noqa: E731
        # fsum: exact, so the same whatever order the sets (hash order) give the words in
        shared = math.fsum([*(weight(w) for w in a.words.keys() & b.words.keys()),
                            *(2.0 / math.log(2 + self.corpus.degree.get(n, 0)) for n in a.neighbours & b.neighbours)])
        if a.key in b.neighbours:
            shared -= 1.0  # related to each other: the model saw two things
        total_a = math.fsum(weight(w) for w in a.words) + len(a.neighbours)
        total_b = math.fsum(weight(w) for w in b.words) + len(b.neighbours)
        small = min(total_a, total_b)
        return max(0.0, shared / small) if small > 0 else 0.0

    def verdict(self, a: Profile, b: Profile) -> Verdict:
        best = NO_EVIDENCE
        for fa in a.forms:
            for fb in b.forms:
                v = across_scripts(a, b, fa, fb, self._forms(a, b, fa, fb))
                if v.kind == DIFFERENT:
                    return v
                if rank(v) > rank(best):
                    best = v
        if best.kind in (NONE, UNSURE) and not best.doubt and (given := gives_other_name(a, b)):  # "X (Y)"
            best = given
        # the names agree, the things do not
        if best.kind == SAME and (why := conflict(a, b) or countries_apart(a, b) or regions_apart(a, b) or
                                  callings_apart(a, b) or centuries_apart(a, b) or realms_apart(a, b) or
                                  sports_apart(a, b) or offices_apart(a, b)):
            return doubtful(best.score * 0.6, f"{best.rule}, but {why}")
        if best.kind in (SAME, UNSURE) and not best.certain:
            for x, y in ((a, b), (b, a)):  # a name of its own is no relative ("... of the Kingdom of the Netherlands")
                own = {f.key for f in x.forms}
                if any(f.key not in own and _defines_relative(x.description, f) for f in y.forms):
                    return Verdict(DIFFERENT, 0.0, f"described as related to {y.name!r}")
        return best

    def _forms(self, a: Profile, b: Profile, fa: NameForm, fb: NameForm) -> Verdict:
        v = self._designated(a, b, fa, fb) or self._named(a, b, fa, fb)
        if v.kind == SAME and v.rule not in (NUMBERED_ACRONYM, FOUNDED) and (fa.numbers != fb.numbers or
                fa.generation != fb.generation) and not numbered_generation(fa, fb):
            if fa.numbers == fb.numbers and generation_left_out(a, b, fa, fb):
                return v
            return doubtful(v.score * 0.6, v.rule + ", but a number or generation on one side only")
        return v

    def _designated(self, a: Profile, b: Profile, fa: NameForm, fb: NameForm) -> Verdict | None:
        """What the parts that set namesakes apart say: numbers, generations, qualifiers, legal forms,
        countries (and acronyms); None when they say nothing."""
        if numbers_differ(fa.numbers, fb.numbers):
            return Verdict(DIFFERENT, 0.0, "different numbers")
        if fa.generation and fb.generation and fa.generation != fb.generation:
            return Verdict(DIFFERENT, 0.0, "different generations")
        clash = bool((a.personal and b.types & PLACE_TYPES) or (b.personal and a.types & PLACE_TYPES))
        for rule in (domain_verdict, vessel_verdict, Evidence._qualified, written_in, Evidence._one_country,
                     abbreviation_verdict, acronym_verdict, legal_verdict, group_verdict, club_verdict,
                     trade_name_verdict, headed_verdict, Evidence._country, article_verdict, maker_verdict,
                     regnal_verdict, river_named, translation_verdict):
            v = rule(self, a, b, fa, fb, clash)
            if v is not None:
                return v
        if fa.numbered == fb.numbered and fa.key != fb.key:
            return Verdict(SAME, 0.95, "same name, its number written another way")
        return None

    def _named(self, a: Profile, b: Profile, fa: NameForm, fb: NameForm) -> Verdict:
        clash = (a.personal and b.types & PLACE_TYPES) or (b.personal and a.types & PLACE_TYPES)
        if fa.key == fb.key and definite(fa) != definite(fb) and (article := definite_article(a, b, fa, fb)):
            return article
        if fa.key == fb.key:
            if clash:
                return doubtful(0.6, "same name, person and place")
            return accent_namesake(self, a, b, fa, fb) or Verdict(SAME, 1.0, "same name")
        if fa.compact == fb.compact:  # whatever its parts: "U.S. Department of State", "US Department of State"
            place = bool(a.types & PLACE_TYPES or b.types & PLACE_TYPES)  # "Casa Blanca", a building: no city
            if clash or not (a.personal or b.personal) and (told_apart(a, b) or place != both_places(a, b)):
                return doubtful(0.6, "same letters, but a person and a place or said to be two things")  # "U.S. Open"
            return Verdict(SAME, 0.95, "same name but spacing or hyphens")
        if not (a.personal or b.personal or fa.head or fb.head) and \
                saints_written(fa.key) == saints_written(fb.key):  # "Sault Ste. Marie"; not "Church of St. Mary"
            same = Verdict(SAME, 0.95, "same name, a saint's abbreviation written out")  # a fort or a church of
            if (ra := regions_described(a)) and (rb := regions_described(b)) and not ra & rb:  # one saint: many
                return doubtful(0.5, same.rule + ", but described in different regions")  # "Fort St. John", B.C.
            return same if both_places(a, b) else self.short_form(a, b, same, SHORT_DESCRIPTION)
        if written := written_out(a, b, fa, fb) or elided_verdict(self, a, b, fa, fb):  # "Mueller", "LOreal"
            return written
        if fa.compact.replace("'", "") == fb.compact.replace("'", "") and \
                not (fa.elliptic != fb.elliptic and (a.personal or b.personal)):
            # "McDonald's", "Lloyds of London"; not "Lloyd's" (the insurer) and "Lloyds" (the bank)
            return self.short_form(a, b, Verdict(SAME, 0.9, "same name, an apostrophe more or less"),
                                    SHORT_DESCRIPTION)
        if fa.parts and fb.parts:
            return Verdict(SAME, 0.95, "same combination") if fa.core == fb.core else \
                Verdict(DIFFERENT, 0.0, "a combination is not one of its parts")
        if fa.parts or fb.parts:  # an acronym of it is no part: "CONICET", "Consejo Nacional ... y Técnicas"
            whole, other = (fa, fb) if fa.parts else (fb, fa)
            if not other.acronym or {other.key, other.core} & set(whole.parts):
                return Verdict(DIFFERENT, 0.0, "a combination is not one of its parts")
        if fa.head or fb.head:
            return self._owned(fa, fb)
        if fa.elliptic != fb.elliptic:
            if fa.core == fb.core and not (a.personal or b.personal):
                ra, rb = (regions_named(p.description) - described_in(p) for p in (a, b))  # regions, not countries
                if ra and rb and not ra & rb:
                    return doubtful(0.4, "possessive place name, placed in different regions")  # "St. John's"
                return self.short_form(a, b, Verdict(SAME, 0.8, "possessive place name"))
            return Verdict(DIFFERENT, 0.0, "a possessive is not its owner") if fa.core == fb.core else NO_EVIDENCE
        person = person_verdict(self, a, b, fa, fb)
        if person is not None:
            return person
        if _plural_pair(fa, fb):
            return self._plural(a, b, fa, fb)
        return self.overlap(fa, fb)

    def _plural(self, a: Profile, b: Profile, fa: NameForm, fb: NameForm) -> Verdict:
        if a.personal or b.personal:
            return Verdict(DIFFERENT, 0.0, "one and a group")
        if fa.key != fa.core or definite(fa) or definite(fb):
            return Verdict(UNSURE, 0.5, "a particular one and the plural")
        last = min(fa.key, fb.key, key=len)
        if " " not in last and last not in self.corpus.lowercase:  # "Heart", "Hearts": a band and a club
            return doubtful(0.5, "a one-word name and its plural")
        return self.short_form(a, b, Verdict(SAME, 0.85, "singular and plural"))

    def _qualified(self, a: Profile, b: Profile, fa: NameForm, fb: NameForm, clash: bool) -> Verdict | None:
        """ "Salt Lake City, Utah" and "Salt Lake City"; "Internal Revenue Service (IRS)" and "IRS"; not
        "University of California" and "University of California, Berkeley" (a campus, a branch, a namesake)."""
        if a.personal and fa.qualifier in CREDENTIALS or b.personal and fb.qualifier in CREDENTIALS:
            return None  # "John Smith, MD": a degree, not a place
        if (joined := _qualifier_joined(fa, fb)) and both_places(a, b):  # "Santiago de Chile", "Santiago, Chile"
            same = Verdict(SAME, 0.85, f"a place and its {joined}, after a comma and after 'de'")
            if joined == "region" and self.context(a, b) < self.agree_above:  # "Vila Boa de Goiás", an old name of
                return doubtful(0.5, same.rule + ", not described alike")  # another town, and "Vila Boa, Goiás"
            return self.short_form(a, b, same, SHORT_DESCRIPTION)
        if fa.core == fb.core and fa.qualifier != fb.qualifier:
            if fa.qualifier and fb.qualifier:
                return qualifiers_verdict(a, b, fa.qualifier, fb.qualifier)  # "Paris, TX", "Paris, Texas"
            if clash:
                return doubtful(0.5, "trailing qualifier, person and place")
            x, py = (fa, b) if fa.qualifier else (fb, a)
            spelled = {read_name(x.core).initials, read_name(f"{x.core} {x.legal}").initials}
            if x.paren and x.qualifier.replace(" ", "") in spelled:
                return Verdict(SAME, 0.9, "its acronym in parentheses")
            if x.paren and (kind := english_type(x.qualifier)) in py.types - UNTYPED - BROAD_TYPES:
                if kind in PLACE_TYPES:
                    same = Verdict(SAME, 0.85, "its kind of place in parentheses")  # "Vltava (river)", a "řeka"
                    return self.short_form(a, b, same, SHORT_DESCRIPTION)
                if " " not in x.qualifier and kind not in _WORKS and (self.context(a, b) >= self.agree_above or
                                                                      two_languages(a.description, b.description)):
                    return Verdict(SAME, 0.85, "its kind in parentheses")  # described alike, or not comparable
            untyped = a.types <= UNTYPED and b.types <= UNTYPED
            if both_places(a, b) or (untyped and not x.paren and region_of(x.qualifier) in PLACES_NAMED):
                # "Paris, Texas" is not "Paris": the same place only where the other's description names the region
                named = regions_named(unnamed(py))  # not its own name: "Salt Lake City is where ..."
                readings = region_readings(x.qualifier)  # "PR": Puerto Rico, or Paraná in Brazil
                countries = {c for r in readings if (c := region_country(r))}
                country = region_country(x.qualifier)
                if countries and (placed := described_in(py)) and not countries & placed:  # "Paris, Maine"
                    return doubtful(0.5, "a place qualified on one side only, the other placed in another country")
                if readings & named or ((len(x.qualifier) > 3 or unspaced(x.qualifier)) and  # no "OR" (Oregon)
                                        names_qualifier(py.description, x.qualifier, x.core)):
                    return Verdict(SAME, 0.85, "a place and its region, which the other's description names")
                if not named and self.context(a, b) >= self.agree_above:
                    return Verdict(SAME, 0.8, "a place and its region, described alike")
                small = region_of(x.qualifier) in SMALL_REGIONS  # "Nes, Akershus" is no other Norwegian "Nes"
                if country and named == {country} == described_in(py) and not small:
                    return Verdict(SAME, 0.8, "a place and its region, the other placed in its country alone")
                return doubtful(0.5, "a place qualified on one side only (another place of its name?)")
            if x.qualifier in COUNTRY_OF and (placed := described_in(py)) and COUNTRY_OF[x.qualifier] not in placed:
                return doubtful(0.5, "a country after the name, another in the other's description")  # "of Spain"
            if x.qualifier in COUNTRY_OF or (x.paren and not types_conflict(a, b)):
                return self.short_form(a, b, Verdict(SAME, 0.85, "trailing qualifier"))
            return doubtful(0.5, "qualified on one side only (a branch, a campus, a namesake?)")
        for x, y in ((fa, fb), (fb, fa)):
            if x.paren and x.qualifier == y.key:
                if clash:
                    return doubtful(0.5, "parenthesized alias, person and place")
                same = Verdict(SAME, 0.85, "parenthesized alias")
                return self.short_form(a, b, same) if y.acronym else same
        return None

    def _one_country(self, a: Profile, b: Profile, fa: NameForm, fb: NameForm, clash: bool) -> Verdict | None:
        """Two places that are one country named two ways ("U.S.A.", "United States of America")."""
        ca, cb = COUNTRY_NAMES.get(fa.key), COUNTRY_NAMES.get(fb.key)
        if not (ca and cb and fa.key != fb.key and both_places(a, b)):
            return None
        return Verdict(SAME, 0.9, "one country, named another way") if ca == cb else \
            Verdict(DIFFERENT, 0.0, "different countries")

    def _country(self, a: Profile, b: Profile, fa: NameForm, fb: NameForm, clash: bool) -> Verdict | None:
        """ "U.K. Ministry of Defence" and "Ministry of Defence", "U.S. Steel" and "United States Steel"; not "US
        Army" and "British Army"."""
        if fa.compact != fb.compact and (led := country_led(fa.core)) and led == country_led(fb.core):
            return Verdict(SAME, 0.85, "one country's name written two ways")
        if fa.country and fb.country and fa.unprefixed == fb.unprefixed:
            return None if fa.country == fb.country else Verdict(DIFFERENT, 0.0, "different countries")
        for (x, px), (y, py) in (((fa, a), (fb, b)), ((fb, b), (fa, a))):
            if x.country and x.unprefixed in (y.key, y.core) and not y.country:
                named = countries_named(py.description)
                if named and x.country not in named:
                    return doubtful(0.5, "a country before a public body, another country in the description")
                return Verdict(SAME, 0.85, "a country before a public body")
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
        return self.overlap(fa, fb)

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

    def spelled_alike(self, a: Profile, b: Profile, letters: str) -> bool | None:
        """Whether two nodes named by the abbreviation ``letters`` are described as one: False when their
        descriptions spell it out as two names ("Alcoholics Anonymous", "American Airlines"); True when they spell
        it out alike, when one spells it out and the other shares a word of it, or when the two are described
        alike; None when nothing says."""
        spelled = [spelled_out(p.description, letters) for p in (a, b)]
        if spelled[0] and spelled[1]:
            return bool(spelled[0] & spelled[1])
        for names, other in zip(spelled, (b, a)):  # "British Broadcasting Corporation", "public broadcaster"
            if any(_stems(other.words.keys()) & _stems(n.split()) for n in names):
                return True
        return True if self.context(a, b) >= self.agree_above else None

    def disagree(self, a: Profile, b: Profile, short: int = 0, across: bool = False) -> bool:
        """The two descriptions share (next to) nothing; descriptions of fewer than ``short`` words (besides the
        names' own) say too little to disagree, and two languages (unless ``across``) share nothing anyway."""
        return bool(a.words and b.words) and min(len(a.words), len(b.words)) >= short and \
            self.context(a, b) < self.disagree_below and (across or not two_languages(a.description, b.description))

    def short_form(self, a: Profile, b: Profile, same: Verdict, short: int = 0, across: bool = False) -> Verdict:
        """An acronym or a name without its qualifier names many things: kept only when the descriptions do not
        disagree ("Paris" is not "Paris, Texas" when one is about France); ``across`` as `disagree` reads it."""
        if self.disagree(a, b, short, across):
            return Verdict(UNSURE, 0.5, same.rule + ", but the descriptions disagree")
        return same

    def overlap(self, fa: NameForm, fb: NameForm) -> Verdict:
        wa, wb = words_of(fa), words_of(fb)
        shared = wa & wb
        if not shared:
            return NO_EVIDENCE
        weight = math.fsum(self.corpus.idf(w) for w in shared) / max(1e-9, min(
            math.fsum(self.corpus.idf(w) for w in wa), math.fsum(self.corpus.idf(w) for w in wb)))
        if wa <= wb or wb <= wa:
            return Verdict(UNSURE, 0.3 + 0.2 * weight, "one name extends the other")
        return Verdict(UNSURE, 0.2 * weight, "shared words") if weight >= 0.34 else NO_EVIDENCE


_OF_PLACE = ("de", "di", "do", "da", "du", "del")


def _qualifier_joined(fa: NameForm, fb: NameForm) -> str:
    """ "country" or "region" where one name is the other's place with its comma qualifier, a country or region
    the tables know, joined by "de" ("Santiago, Chile" and "Santiago de Chile"; "Mérida, Yucatán" and "Mérida de
    Yucatán"); "" otherwise."""
    for x, y in ((fa, fb), (fb, fa)):
        if x.qualifier and not x.paren and (where := region_of(x.qualifier)) in PLACES_NAMED and \
                y.key in {f"{x.core} {j} {x.qualifier}" for j in _OF_PLACE}:
            return "country" if where in COUNTRY_OF or where in COUNTRIES_DESCRIBED else "region"
    return ""


def _plural_pair(fa: NameForm, fb: NameForm) -> bool:
    """The names differ only in the number of their last word (dinner/dinners, virus/viruses, goose/geese)."""
    wa, wb = fa.key.split(), fb.key.split()
    if len(wa) != len(wb) or not wa or wa[:-1] != wb[:-1] or wa[-1] == wb[-1]:
        return False
    x, y = sorted((wa[-1], wb[-1]), key=len)
    return fa.singular == fb.singular or y in (x + "s", x + "es") or (x.endswith("y") and y == x[:-1] + "ies")


# works, whose titles repeat ("Thriller (album)", Michael Jackson's; "Thriller", Eddie and the Hot Rods')
_WORKS = frozenset("""album song single film movie book novel poem play painting episode series game work opera ballet
musical sculpture symphony concerto""".split())
def _stems(words: Iterable[str]) -> set[str]:
    """Words as a crude stem reads them: the first seven letters of those that long ("broadcaster",
    "Broadcasting"; not "nationwide", "National"), shorter words whole."""
    return {w[:7] for w in words}
