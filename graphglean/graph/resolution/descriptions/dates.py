"""The years a description gives: two people of one name dated more than a lifetime apart are two, and so are
two whose descriptions give them other years of birth."""

from __future__ import annotations

import re
from functools import lru_cache

from ..profiles import Profile

_Y = r"(1[0-9]{3}|20[0-9]{2})"  # a year, 1000-2099
_YEAR = re.compile(rf"(?<!\d){_Y}(?!\d)")
# a year of birth: after "born" in several languages (a few words between: "born on 2 March 1931"), or first in
# a life's span in parentheses ("(1907–1998)", "(* 1956)")
_BORN = re.compile(r"\b(?:born|b\.|née?|nacid[oa]|naci[óo]|geboren|geb\.|nat[oa]|nascid[oa]|nasceu|"
                   r"родил(?:ся|ась)|род\.|γεννήθηκε|doğdu|urodził(?:a)? się)(?!\w)[^.;]{0,25}?"
                   rf"(?<!\d){_Y}(?!\d)|\((?:\*\s*)?{_Y}\s*(?:[–-]|\)|\s)", re.I)


@lru_cache(maxsize=16384)
def years_of(description: str) -> frozenset[int]:
    """The years (1000-2099) a description gives, read once for every pair it is in."""
    return frozenset(map(int, _YEAR.findall(description)))


@lru_cache(maxsize=16384)
def born_in(description: str) -> frozenset[int]:
    """The years of birth a description gives ("born in 1956", "(1907–1998)", "родился в 1983")."""
    return frozenset(int(m[1] or m[2]) for m in _BORN.finditer(description))


LIFETIME = 110  # years between the dates two descriptions of one person give, at most


def centuries_apart(a: Profile, b: Profile) -> str:
    """Why two people of one name are two: every year one description gives is more than a lifetime from every
    year the other gives ("Charles III of Spain", "reigned from 1759 to 1788"; "King Charles III", "in July
    2024"), or each gives a year of birth, a year or more apart ("Konstantinos Karamanlis (1907–1998)", "born in
    1956"); "" when they meet or either gives none."""
    if not (a.personal and b.personal):
        return ""
    ya, yb = years_of(a.description), years_of(b.description)
    if ya and yb and (min(yb) - max(ya) > LIFETIME or min(ya) - max(yb) > LIFETIME):
        return "people dated more than a lifetime apart"
    ba, bb = born_in(a.description), born_in(b.description)
    if ba and bb and min(abs(x - y) for x in ba for y in bb) > 1:
        return "people born in different years"
    return ""
