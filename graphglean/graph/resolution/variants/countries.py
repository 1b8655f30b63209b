"""The countries a description names in any of its languages: by English name or adjective (`profiles.
countries_named`), by a country's own name as the description's language inflects it ("w Polsce",
"Magyarország", "Türkiye'nin"), and with a possessive or a suffix after an apostrophe ("Hungary's")."""

from __future__ import annotations

import re
from functools import lru_cache

from ..lexicon import COUNTRIES, COUNTRY_EXTRA, ENDONYMS, REGIONS
from ..profiles import PLACE_TYPES, Profile, countries_named, countries_placing, text_words
from .places import inflected


@lru_cache(maxsize=16384)
def countries_of(text: str) -> frozenset[str]:
    found = countries_named(text) | countries_placing(text)
    for word in text_words(text):
        word = word.split("'")[0]
        if word in COUNTRIES or word in COUNTRY_EXTRA:
            found.add(COUNTRIES.get(word) or COUNTRY_EXTRA[word])
        # an own name inflected, never shortened ("Polska", "Polsce"; not "Romano" of "Romania")
        found.update(c for own, c in ENDONYMS.items() if len(word) >= len(own) - 1 and inflected(own, word))
    return frozenset(found)


_REGION_NAMES = frozenset(REGIONS.values())
_STATES = _REGION_NAMES - {"georgia", "victoria", "washington", "quebec", "district of columbia"}
_REGION_COUNTRY = {r: "canada" for r in ("alberta", "british columbia", "manitoba", "new brunswick", "nova scotia",
                                         "newfoundland and labrador", "ontario", "saskatchewan")} | {
    r: "australia" for r in ("new south wales", "queensland", "south australia", "tasmania", "western australia")}


@lru_cache(maxsize=16384)
def regions_named(description: str) -> frozenset[str]:
    """The regions and countries ``description`` names, canonical: a region by its full name (an "or" in a text
    is no Oregon), a country as `countries_of` reads it, in any of several languages."""
    text = f" {' '.join(text_words(description))} "
    return frozenset(countries_of(description) | {r for r in _REGION_NAMES if f" {r} " in text})


def _placed(p: Profile) -> frozenset[str]:
    """The countries a place's description names, a state or province named standing for its country (not the
    regions that are also countries or common words: Georgia, Victoria, Washington, Quebec)."""
    states = {_REGION_COUNTRY.get(r, "us") for r in regions_named(p.description) if r in _STATES}
    return countries_of(p.description) | states


def places_apart(a: Profile, b: Profile) -> str:
    """Why two places of one name are two: each description places its own in countries the other's does not
    name ("St. Petersburg", a Florida city; "Saint Petersburg", "город России")."""
    if not (a.types & PLACE_TYPES and b.types & PLACE_TYPES):
        return ""
    pa, pb = _placed(a), _placed(b)
    return "places described in different countries" if pa and pb and not pa & pb else ""


def one_country(a: Profile, b: Profile) -> bool:
    """Both descriptions place their node in one same country, not by repeating its name ("Quebec is where...")."""
    return bool(described_in(a) & described_in(b))


def described_in(p: Profile) -> frozenset[str]:
    """The countries ``p``'s description names, not by repeating ``p``'s own names."""
    return countries_of(_unnamed(p))


def _unnamed(p: Profile) -> str:
    """``p``'s description without its own names."""
    text = p.description
    for f in p.forms:
        text = re.sub(re.escape(f.surface), " ; ", text, flags=re.I) if f.surface.strip() else text
    return text
