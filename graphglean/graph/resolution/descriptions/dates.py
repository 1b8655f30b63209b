"""The years a description gives: two people of one name dated more than a lifetime apart are two."""

from __future__ import annotations

import re
from functools import lru_cache

from ..profiles import Profile

_YEAR = re.compile(r"(?<!\d)(1[0-9]{3}|20[0-9]{2})(?!\d)")


@lru_cache(maxsize=16384)
def years_of(description: str) -> frozenset[int]:
    """The years (1000-2099) a description gives, read once for every pair it is in."""
    return frozenset(map(int, _YEAR.findall(description)))


LIFETIME = 110  # years between the dates two descriptions of one person give, at most


def centuries_apart(a: Profile, b: Profile) -> str:
    """Why two people of one name are two: every year one description gives is more than a lifetime from every
    year the other gives ("Charles III of Spain", "reigned from 1759 to 1788"; "King Charles III", "in July
    2024"); "" when they meet or either gives none."""
    if not (a.personal and b.personal):
        return ""
    ya, yb = years_of(a.description), years_of(b.description)
    if ya and yb and (min(yb) - max(ya) > LIFETIME or min(ya) - max(yb) > LIFETIME):
        return "people dated more than a lifetime apart"
    return ""
