"""The countries a description names in any of its languages: by name, people, city or region (`profiles`,
longest first), by a country's own name as the description's language inflects it ("w Polsce",
"Magyarország", "Türkiye'nin"), and with a possessive or a suffix after an apostrophe ("Hungary's"); places of
one name that descriptions place in different countries, and in one (a river written into one's name)."""

from __future__ import annotations

import re
from functools import lru_cache

from ....text.words import unspaced
from ..lexicon import (ARABIC_ARTICLES, COUNTRY_NAMES, COUNTRY_OF, ENDONYMS, FEMALE_GIVEN, MALE_GIVEN,
                       REGION_EXONYMS, REGIONS, SCRIPT_FORMS, SMALL_REGIONS, WORLD_REGION_EXONYMS, WORLD_REGIONS)
from ..names import NameForm
from ..profiles import PLACE_TYPES, Profile, both_places, defining_clauses
from ..verdicts import DIFFERENT, SAME, Verdict, doubtful
from .places import PLACES_NAMED, capitalized, inflected, region_country, region_of, region_readings, river_key
from .placing import EUROPE, UNIONS, countries_placing, text_words

_ENDONYMS_BY_START: dict[str, list[tuple[str, str]]] = {}  # an inflected name keeps its first letters
for _own, _country in ENDONYMS.items():
    _ENDONYMS_BY_START.setdefault(_own[:2], []).append((_own, _country))


@lru_cache(maxsize=16384)
def countries_of(text: str) -> frozenset[str]:
    """The countries ``text`` names: by English name, people, city or region, longest first (`profiles`), by an
    own name as its language inflects it, and before an apostrophe ("Hungary's")."""
    found = countries_placing(text)  # its table holds every English name and adjective `countries_named` reads
    for word in text_words(text):
        if "'" in word:
            word = word.split("'")[0]
            found |= countries_placing(word)
        # an own name inflected, never shortened ("Polska", "Polsce"; not "Romano" of "Romania"); a Russian or
        # an Arabic name as its grammar writes it, after the article or without ("المانيا" holds none)
        found.update(c for own, c in _ENDONYMS_BY_START.get(word[:2], ()) if len(word) >= len(own) - 1 and
                     inflected(own, word))
        bare = next((word[len(a):] for a in ARABIC_ARTICLES if word.startswith(a) and len(word) > len(a) + 2), word)
        found.update(c for w in (word, bare) if (c := SCRIPT_FORMS.get(w)))  # "Германии", "الفلسطينية"
        if (compass := _COMPASS.match(word)) and word[compass.end():] in _COMPASS_ADJECTIVES:  # "nordnorsk"
            found |= countries_placing(word[compass.end():])
        if based := _BASED.fullmatch(word):  # "Stockholmsbaserat", "Oslo-basert" written as one word
            found |= countries_placing(based[1]) or countries_placing(based[1] + "s")
        if len(word) > 6 and word.endswith(("kreis", "kreisstadt")):  # a German district: "Ostalbkreis",
            found.add("germany")  # "Landkreis", "Kreisstadt" (Zürich's "Kreis 4" is one word alone)
        elif word.startswith(_POLISH_DIVISIONS):  # "województwa małopolskiego", "powiat", "gmina"
            found.add("poland")
    for adjective in _GERMAN_ADJECTIVE.finditer(text):  # "Ungarischer Premier", "eine ungarische Firma"
        found |= countries_placing(adjective[1].lower())
    return frozenset(found)


# a German adjective of a country as its subject's, inflected: first, or after an article ("ungarischer Premier",
# "eine ungarische Firma"); not a preposition's object ("an der polnischen Grenze", a German town on the Polish
# border) nor a genitive ("Schachspieler russischer Herkunft")
_GERMAN_ADJECTIVE = re.compile(r"(?:^\s*|\b(?:ein|eine|der|die|das)\s+)(\w+isch)(?:e|er|es)\b", re.I)


# a country's adjective after a point of the compass, as one word ("nordnorsk", "süddeutsche", "västsvensk")
_COMPASS = re.compile(r"(?:nord|sor|syd|sud|vest|vast|west|ost|ust|midt|mittel|mellom)(?=\w{4})")
_POLISH_DIVISIONS = ("wojewodztw", "powiat", "gmina", "gminy", "gminie")
# a Nordic compound of a place and "based" ("stockholmsbaserat", "oslobaserte", "københavnbaseret")
_BASED = re.compile(r"(\w{3,}?)s?(?:baserat|baserad|baserade|basert|baserte|baseret|baserede)")
_COMPASS_ADJECTIVES = frozenset("""norsk norske svensk svenska svenske dansk danske finsk finske islandsk islandske
deutsch deutsche deutscher deutschen deutsches""".split())
_GIVEN = MALE_GIVEN | FEMALE_GIVEN
_REGION_NAMES = {r: r for r in [*REGIONS.values(), *WORLD_REGIONS]} | REGION_EXONYMS | \
    WORLD_REGION_EXONYMS  # by name: canonical
_COUNTRY_TYPES = frozenset({"country", "nation"})


@lru_cache(maxsize=16384)
def regions_named(description: str) -> frozenset[str]:
    """The regions and countries ``description`` names, canonical: a region by its full name (an "or" in a text
    is no Oregon), a country as `countries_of` reads it, in any of several languages."""
    return countries_of(description) | _regions_in(description)


@lru_cache(maxsize=16384)
def _regions_in(text: str) -> frozenset[str]:
    """The regions ``text`` names by their full names."""
    words = (w.removesuffix("'s") for w in text_words(text))  # "Oregon's largest city" too
    spaced = f" {' '.join(words)} "
    found = [n for n in _REGION_NAMES if f" {n} " in spaced]  # not "Saxony" inside "Saxony-Anhalt"
    return frozenset(_REGION_NAMES[n] for n in found if not any(n != m and f" {n} " in f" {m} " for m in found))


def countries_apart(a: Profile, b: Profile) -> str:
    """Why two things of one name are two: each description places its own in countries the other's does not
    name. Places by all their description says ("St. Petersburg", a Florida city; "Saint Petersburg", "город
    России"), other things by what it says they are, in any language ("Al-Hilal", "نادٍ سوداني"; "Hilal",
    "Saudi Pro League club"); never a country (placed by its neighbours: "surrounded by Senegal"), nor people
    (people move; callings tell them apart)."""
    if (a.types | b.types) & _COUNTRY_TYPES or a.personal or b.personal:
        return ""
    if a.types & (PLACE_TYPES | _LOCATED) and b.types & (PLACE_TYPES | _LOCATED):  # a fort stays where it was built
        pa, pb = (countries_of(_uncolonial(unnamed(p))) for p in (a, b))  # a state for its country; not
        # its own name ("Police in London, ON": no U.K.); a union only outside it ("European Capital of Culture")
        return "places described in different countries" if placed_apart(pa, pb) else ""
    pa, pb = _said_of(a) - UNIONS, _said_of(b) - UNIONS
    return "described in different countries" if pa and pb and not pa & pb else ""


def placed_apart(pa: frozenset[str], pb: frozenset[str]) -> bool:
    """Countries that place one thing and another have none in common; a union alone places its thing only
    outside its members ("European" is no Brazil, but may be Portugal)."""
    ca, cb = pa - UNIONS, pb - UNIONS
    if ca and cb:
        return not ca & cb
    return any("eu" in p and not c and co and not co & EUROPE for p, c, co in ((pa, ca, cb), (pb, cb, ca)))


# a colonial power's adjective names who built a place, not where it is ("French colonial fort ... in Texas"); a
# country's name before "colonial" is where ("Brasil colonial", Portuguese for colonial Brazil)
_COLONIAL = re.compile(r"\b(\w+)\s+(?=colonial\b|colony\b)", re.I)


def _uncolonial(text: str) -> str:
    return _COLONIAL.sub(lambda m: m[0] if _named_country(m[1]) else " ", text)


def _named_country(word: str) -> bool:
    """``word`` is a country's name, not its people's adjective ("Brasil", not "French")."""
    word = word.casefold()
    return word in ENDONYMS or word in COUNTRY_NAMES or COUNTRY_OF.get(word) == word


def regions_apart(a: Profile, b: Profile) -> str:
    """Why two institutions of one name are two: what each description says it is places it in regions (a
    state, a province) the other's does not name ("University of St. Thomas", Saint Paul, Minnesota, and
    "University of Saint Thomas", Houston, Texas); a thing built in one place does not move, as a company's seat
    or a person does."""
    if not (a.types & _LOCATED and b.types & _LOCATED):
        return ""
    ra, rb = _regions_said(a), _regions_said(b)
    return "institutions described in different regions" if ra and rb and not ra & rb else ""


def _regions_said(p: Profile) -> frozenset[str]:
    """The regions (not countries) what ``p``'s description says it is names: where it is, not its alumni's."""
    said = " ; ".join(defining_clauses(p))
    return _regions_in(said) - countries_of(said)


# the kinds of a thing that stays where it was built
_LOCATED = frozenset("""university college school church cathedral basilica abbey monastery convent seminary
hospital museum stadium arena prison library theatre theater temple mosque synagogue shrine fort fortress castle
palace bridge tower lighthouse""".split())


def _said_of(p: Profile) -> frozenset[str]:
    """The countries what ``p``'s description says it is names, less those its own names name."""
    return countries_of(" ; ".join(defining_clauses(p))) - countries_of(" ; ".join(f.surface for f in p.forms))


def one_country(a: Profile, b: Profile) -> bool:
    """Both descriptions place their node in one same country, not by repeating its name ("Quebec is where...")."""
    return bool(described_in(a) & described_in(b))


def described_in(p: Profile) -> frozenset[str]:
    """The countries ``p``'s description names, not by repeating ``p``'s own names."""
    return countries_of(unnamed(p))


def regions_described(p: Profile) -> frozenset[str]:
    """The regions (not countries) ``p``'s description names, not by repeating ``p``'s own names."""
    text = unnamed(p)
    return _regions_in(text) - countries_of(text)


def unnamed(p: Profile) -> str:
    """``p``'s description without its own names (as words: "Lin" leaves "Berlin")."""
    return _without(p.description, tuple(f.surface for f in p.forms if f.surface.strip()))


@lru_cache(maxsize=16384)
def _without(text: str, names: tuple[str, ...]) -> str:
    for name in names:
        bounded = re.escape(name) if unspaced(name) else rf"(?<!\w){re.escape(name)}(?!\w)"
        text = re.sub(bounded, " ; ", text, flags=re.I)
    return text


def named_apart(p: Profile, other: NameForm) -> bool:
    """``p`` is described in countries the other's name does not name, where it names one ("UNAM", Namibia's
    university; "Universidad Nacional Autónoma de México"), or in other regions where ``p`` is a thing built in
    one place or the name a state's body ("WSU", "in Detroit, Michigan"; "Washington State University")."""
    named, placed = countries_of(other.surface), described_in(p)
    if named and placed and not named & placed:
        return True
    if not (p.types & _LOCATED or "state" in other.key.split()):  # a brand's region moves: "Kentucky Fried
        return False  # Chicken", in Plano, Texas; a state's body or a university does not
    named, placed = _regions_in(_unpersoned(other.surface)) - named, regions_described(p)
    return bool(named and placed and not named & placed)


def _unpersoned(name: str) -> str:
    """``name`` without the word after each given name ("George Washington University": no state's)."""
    ws = name.split()
    return " ".join(w for i, w in enumerate(ws) if not (i and ws[i - 1].casefold() in _GIVEN))


def _country_and_region(country: str, region: str) -> bool:
    """``country`` is a country's name and ``region`` a region's (not a country's) that places it there."""
    name = COUNTRY_OF.get(country) or (country if countries_of(country) == {country} else "")
    return bool(name) and name != region and not COUNTRY_OF.get(region) and countries_of(region) == {name}


def _known(qualifier: str) -> bool:
    """A country or a region the tables hold, by name or code."""
    return region_of(qualifier) in PLACES_NAMED or bool(countries_of(qualifier))


def river_named(ev: object, a: Profile, b: Profile, fa: NameForm, fb: NameForm, clash: bool) -> Verdict | None:
    """Same for a place alone whose description names, capitalized, the river or region another name of it
    writes in, both placed in one country ("Newcastle", "on the River Tyne", England; "Newcastle upon Tyne"; not
    "Stratford", Ontario, "on the Avon River", and "Stratford-upon-Avon"); None otherwise."""
    for x, y, px in ((fa, fb, a), (fb, fa, b)):
        place, _, river = river_key(y).partition("|")
        if river and not x.qualifier and x.key == place and not y.paren and both_places(a, b) and \
                capitalized(px.description, river) and one_country(a, b):
            return Verdict(SAME, 0.85, "a place and its river or region written in, named by the other's description")
    return None


def qualifiers_verdict(a: Profile, b: Profile, qa: str, qb: str) -> Verdict:
    """One name qualified on both sides, by two qualifier keys: other regions make other places ("Paris, Texas",
    "Paris, Maine"); one written two ways the same ("Paris, TX"). A code of two readings ("WA", "AR") is the other's
    region only where its own description places it in that one ("Perth, WA", "Western Australian capital")."""
    shared = region_readings(qa) & region_readings(qb)
    if not shared:
        for x, px, y in ((qa, a, qb), (qb, b, qa)):  # "Córdoba, Spain", "Córdoba, Andalucía"; not where the
            # country's side names another region ("Paris, USA", a town in Tennessee)
            if _country_and_region(x, y) and region_of(y) not in SMALL_REGIONS and \
                    regions_named(px.description) - {region_of(y)} <= countries_of(x):
                return Verdict(SAME, 0.85, "a region and its country as qualifiers")
        if both_places(a, b) and _known(qa) != _known(qb):  # "Valencia, Venezuela", "Valencia (Carabobo)"
            return doubtful(0.5, "a country or region and a qualifier no table holds (a part of it?)")
        return Verdict(DIFFERENT, 0.0, "different qualifiers")
    if region_of(qa) == region_of(qb):
        return Verdict(SAME, 0.9, "same qualifier written another way")
    placed = described_in(a if region_of(qa) not in shared else b)
    if {region_country(r) or COUNTRY_OF.get(r, r) for r in shared} & placed:
        return Verdict(SAME, 0.85, "same qualifier, as a code of two readings")
    if placed:  # "Paris, AR", "a town in Arkansas"; "Paris, Argentina"
        return Verdict(DIFFERENT, 0.0, "different qualifiers")
    return doubtful(0.5, "a code of two readings, not placed in the other's region")
