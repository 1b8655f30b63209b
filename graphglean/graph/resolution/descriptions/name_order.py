"""Where a description places a person among the countries whose family names come first ("Orbán Viktor",
"Kishida Fumio"), by the countries it names, the script or language it is written in, or the type a model wrote:
the rules for two personal names read it to tell a name in another order from two people."""

from __future__ import annotations

from functools import lru_cache

from ....text.language import detect, script_of
from ..profiles import Profile
from ..variants.countries import countries_of, described_in, unnamed

# where the family name comes first, and the scripts and languages written there
_FAMILY_FIRST = frozenset({"china", "japan", "south korea", "north korea", "taiwan", "hungary", "vietnam"})
# where a few family names are borne by most people ("Wang Wei", a Tang poet, and "Wei Wang", a professor): a
# name in another order tells one person only where both descriptions place it there; and where they are many
FEW_FAMILY_NAMES = frozenset({"china", "taiwan", "south korea", "north korea", "vietnam"})
_MANY_FAMILY_NAMES = frozenset({"japan"})
_WRITTEN_IN = {"Han": {"china", "taiwan", "japan"}, "Hiragana": {"japan"}, "Katakana": {"japan"},
               "Hangul": {"south korea", "north korea"}, "zh": {"china", "taiwan"}, "ja": {"japan"},
               "ko": {"south korea", "north korea"}, "hu": {"hungary"}, "vi": {"vietnam"}}


# the letters of a family-name-first language, which tell it in a text too short for `detect`: Vietnamese
# by its horn and its tone marks ("Thủ tướng"), Hungarian by its double acute among its other accents ("Az ajtó
# című regény írója"; not "Győr" or "Erdős" named in another language)
_VIETNAMESE = frozenset("ơưƠƯảạẩậắằẳẵặẻẽẹếềểễệỉịỏọốồổỗộớờởỡợủụứừửữựỳỷỹỵ")
_HUNGARIAN, _ACCENTS = frozenset("őűŐŰ"), frozenset("áéíóöúüÁÉÍÓÖÚÜ")


def _lettered(text: str) -> set[str]:
    found = {"vietnam"} if _VIETNAMESE.intersection(text) else set()
    if _HUNGARIAN.intersection(text) and sum(c in _ACCENTS or c in _HUNGARIAN for c in text) >= 4:
        found.add("hungary")
    return found


@lru_cache(maxsize=16384)
def _family_first_of(description: str, without_names: str) -> frozenset[str]:
    return frozenset(countries_of(without_names) & _FAMILY_FIRST | _WRITTEN_IN.get(script_of(description), set())
                     | _WRITTEN_IN.get(detect(description).language, set()) | _lettered(description))


def family_first(p: Profile) -> frozenset[str]:
    """The countries where the family name comes first that ``p``'s description places it in ("a South Korean
    film director") or whose script or language it is written in; two people whose names are the same in
    another order are one only where both descriptions point to one of them ("Lin Dan", a Chinese player, and
    "Dan Lin", a Hollywood producer, are two; so are "Rand Paul" and "Paul Rand", both American)."""
    return _family_first_of(p.description, unnamed(p)) | frozenset(
        c for t in p.written_types for c in _WRITTEN_IN.get(script_of(t), _TYPED_IN.get(t, ())))


# the type a model wrote in a family-name-first language written in Latin letters ("személy": a Hungarian text)
_TYPED_IN = {"személy": ("hungary",), "szemely": ("hungary",), "người": ("vietnam",), "nhân vật": ("vietnam",)}


def family_first_on_one_side(a: Profile, b: Profile) -> bool:
    """One description places its node in Japan by name (not by the language it is written in: "中国のバドミント
    ン選手" is Japanese about a Chinese player), where family names are many and come first, and the other, not
    empty, places it in no other country. Where a few family names are borne by most, or a name is common
    ("Nagy László" in Hungary), one description is not enough; callings, read after every rule, keep people of
    different fields apart."""
    pa, pb = _named_many(a), _named_many(b)
    if bool(pa) == bool(pb):
        return False
    places, other = (pa, b) if pa else (pb, a)
    return bool(other.description.strip()) and not described_in(other) - places


def _named_many(p: Profile) -> frozenset[str]:
    """Japan, where ``p``'s description places it by name and names no country of few family names."""
    placed = described_in(p)
    return frozenset() if placed & FEW_FAMILY_NAMES else placed & _MANY_FAMILY_NAMES
