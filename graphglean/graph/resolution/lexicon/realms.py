"""A ruler's realm after "of": "King Mohammed VI of Morocco", "Margrethe II of Denmark", "Queen Sofía of Spain"
name a ruler and the country ruled, which reads as a qualifier (", Morocco"), not as a thing owned ("Bank of
America", "Duke of Wellington": a title named by its place stays as it is)."""

from __future__ import annotations

import re
from typing import Callable

from . import COUNTRY_OF, COUNTRY_WORDS, REALM_PARTICLES, ROYAL

_REALM = re.compile(rf"^(?P<ruler>.*\S)\s+(?P<of>{'|'.join(REALM_PARTICLES)})\s+(?:the\s+)?(?P<realm>[^,()]+)$", re.I)
_REGNAL = re.compile(r"\s(?:[ivxl]{1,6}|\d{1,2})\.?(?:\s|$)", re.I)  # "Carl XVI Gustaf"; names arrive folded


def realm_of(text: str, key_of: Callable[[str], str]) -> tuple[str, str] | None:
    """(the ruler, the realm's key) of a ruler named with a regnal number or a royal title and a country after
    "of"; None for any other name. ``key_of`` is the name reader's key (given, as `names` reads with this)."""
    m = _REALM.match(text)
    if not m:
        return None
    key = key_of(m.group("realm"))  # "of" a capital or a region too, as English names a realm ("of Castile")
    realm = COUNTRY_OF.get(key) or (key if m.group("of").lower() == "of" and key in COUNTRY_WORDS else None)
    if realm is None:
        return None
    ruler = m.group("ruler")
    titled = ruler.split()[0].lower().strip(".") in ROYAL and len(ruler.split()) >= 2
    return (ruler, realm) if _REGNAL.search(ruler) or titled else None
