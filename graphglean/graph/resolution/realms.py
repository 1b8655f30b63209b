"""A ruler's realm after "of": "King Mohammed VI of Morocco", "Margrethe II of Denmark", "Queen Sofía of Spain"
name a ruler and the country ruled, which reads as a qualifier (", Morocco"), not as a thing owned ("Bank of
America", "Duke of Wellington": a title named by its place stays as it is)."""

from __future__ import annotations

import re
from typing import Callable

from .lexicon import COUNTRIES, COUNTRY_EXTRA, COUNTRY_NAMES, COUNTRY_WORDS, ROYAL

_REALM = re.compile(r"^(?P<ruler>.*\S)\s+of\s+(?:the\s+)?(?P<realm>[^,()]+)$", re.I)
_REGNAL = re.compile(r"\s(?:[ivxl]{1,6}|\d{1,2})\.?(?:\s|$)", re.I)  # "Carl XVI Gustaf"; names arrive folded
_COUNTRY_KEYS = frozenset(COUNTRIES) | frozenset(COUNTRY_NAMES) | frozenset(COUNTRY_EXTRA) | frozenset(COUNTRY_WORDS)


def realm_of(text: str, key_of: Callable[[str], str]) -> tuple[str, str] | None:
    """(the ruler, the realm's key) of a ruler named with a regnal number or a royal title and a country after
    "of"; None for any other name. ``key_of`` is the name reader's key (given, as `names` reads with this)."""
    m = _REALM.match(text)
    if not m:
        return None
    realm = key_of(m.group("realm"))
    if realm not in _COUNTRY_KEYS:
        return None
    ruler = m.group("ruler")
    titled = ruler.split()[0].lower().strip(".") in ROYAL and len(ruler.split()) >= 2
    return (ruler, realm) if _REGNAL.search(ruler) or titled else None
