"""The countries a description names in any of its languages: by English name or adjective (`profiles.
countries_named`), by a country's own name as the description's language inflects it ("w Polsce",
"Magyarország", "Türkiye'nin"), and with a possessive or a suffix after an apostrophe ("Hungary's")."""

from __future__ import annotations

from functools import lru_cache

from ..lexicon import COUNTRIES, COUNTRY_EXTRA, ENDONYMS
from ..names import key_of
from ..profiles import Profile, countries_named
from .places import inflected


@lru_cache(maxsize=16384)
def countries_of(text: str) -> frozenset[str]:
    found = countries_named(text)
    for word in key_of(text).split():
        word = word.split("'")[0]
        if word in COUNTRIES or word in COUNTRY_EXTRA:
            found.add(COUNTRIES.get(word) or COUNTRY_EXTRA[word])
        # an own name inflected, never shortened ("Polska", "Polsce"; not "Romano" of "Romania")
        found.update(c for own, c in ENDONYMS.items() if len(word) >= len(own) - 1 and inflected(own, word))
    return frozenset(found)


def one_country(a: Profile, b: Profile) -> bool:
    """Both descriptions place their node in one same country."""
    return bool(countries_of(a.description) & countries_of(b.description))
