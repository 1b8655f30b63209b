"""What the rules conclude of two organizations' names: a web domain and a name, a club with and without its
abbreviation, a company with and without its legal form (`evidence.Evidence` asks these before the general
rules; each answers None where it has nothing to say)."""

from __future__ import annotations

import re
from typing import Protocol

from ..blocking import web_spellings
from ..lexicon import CLUB_CERTAIN, TLD_COUNTRIES
from ..names import NameForm
from ..profiles import PLACE_TYPES, SHORT_DESCRIPTION, UNTYPED, Profile, countries_named, types_conflict
from ..verdicts import SAME, UNSURE, Verdict, doubtful
from .written import says_sport


class Judge(Protocol):
    """What the organization rules read of `evidence.Evidence`."""

    def context(self, a: Profile, b: Profile) -> float: ...

    def spelled_alike(self, a: Profile, b: Profile, letters: str) -> bool | None: ...

    def short_form(self, a: Profile, b: Profile, same: Verdict, short: int = 0) -> Verdict: ...


def domain_verdict(ev: Judge, a: Profile, b: Profile, fa: NameForm, fb: NameForm, clash: bool) -> Verdict | None:
    """ "zillow.com" and "Zillow", "theguardian.com" and "The Guardian"; not "booking.com" and "Booking
    Holdings", nor "zalando.de" and "zalando.fr" (one name, other sites: doubt). Only one site is certain: a
    name is a common word as often as a brand ("Match", "Monster", "Shell"), so a domain and a name of another
    type, or of another country than the domain's, are doubt, and descriptions of some length that disagree
    make the pair a question; a short name ("GE", "BBC") must be described alike (`Evidence.spelled_alike`) or
    named in the other's description."""
    if fa.site and fb.site:
        if fa.site == fb.site:
            return Verdict(SAME, 0.95, "same web domain", certain=True)
        return doubtful(0.5, "one name, other web domains") if fa.stem and fa.stem == fb.stem else None
    x, y, px, py = (fa, fb, a, b) if fa.site else (fb, fa, b, a)
    if not x.stem or x.stem not in web_spellings(y):
        return None
    if py.personal or py.types & PLACE_TYPES:
        return doubtful(0.4, "a web domain and a person or place of its name")
    if types_conflict(a, b):
        return doubtful(0.4, "a web domain and a namesake of another type")
    country = TLD_COUNTRIES.get(x.site.rsplit(".", 1)[-1], "")
    named = countries_named(py.description) if country else set()
    if named and country not in named:
        return doubtful(0.4, "a country's web domain, and a namesake of another country")
    if len(x.stem) <= 3 and not (ev.spelled_alike(a, b, x.stem) or names_other(px, y) or names_other(py, x)):
        return doubtful(0.4, "a short name and its web domain, not described alike")
    # certain: a site is described by its owner ("the website of Linear"), which is no relative
    return ev.short_form(a, b, Verdict(SAME, 0.9, "a name and its web domain", certain=True), SHORT_DESCRIPTION)


def names_other(p: Profile, other: NameForm) -> bool:
    """``p``'s description names ``other`` (its surface or its web site), as a word of its own."""
    text = p.description.casefold()
    return any(re.search(rf"(?<![\w.]){re.escape(n.casefold())}(?![\w]|\.\w)", text)
               for n in {other.surface.strip(), other.site} if n)


def club_verdict(ev: Judge, a: Profile, b: Profile, fa: NameForm, fb: NameForm, clash: bool) -> Verdict | None:
    """ "AFC Ajax" and "Ajax", "1. FC Köln" and "FC Köln"; not "FC Barcelona" and "Barcelona SC", nor "FC
    Porto" and the city of Porto."""
    if fa.club and fb.club:
        if fa.team == fb.team and fa.club != fb.club:
            return doubtful(0.5, "different club abbreviations (another club, another sport?)")
        return None
    x, y = (fa, fb) if fa.club else (fb, fa)
    if not x.club or x.team != y.key:
        return None
    if not (_club_like(a) and _club_like(b)):
        return doubtful(0.4, "a club and a namesake of another kind")
    if not (set(x.club.split()) & CLUB_CERTAIN or _sporting(a) or _sporting(b)):  # "SC Johnson", "Johnson"
        return Verdict(UNSURE, 0.5, "with and without a club's abbreviation, but neither is said to be a club")
    return Verdict(SAME, 0.9, "with and without its club's abbreviation")


def legal_verdict(ev: Judge, a: Profile, b: Profile, fa: NameForm, fb: NameForm, clash: bool) -> Verdict | None:
    """ "Siemens AG" and "Siemens"; "Microsoft Corp." and "Microsoft Corporation"; not "Siemens AG" and
    "Siemens Ltd." (a subsidiary), nor a company and a person or place of its name."""
    if not (fa.legal or fb.legal) or (fa.trade or fa.key) != (fb.trade or fb.key):
        return None
    if fa.legal and fb.legal:
        return Verdict(SAME, 0.95, "same legal form written another way") if fa.legal == fb.legal else \
            doubtful(0.5, "different legal forms (a subsidiary?)")
    if types_conflict(a, b):
        return doubtful(0.4, "a company and a namesake of another type")
    return Verdict(SAME, 0.9, "with and without its legal form")


_PLACE_DEFINED = re.compile(r"\b(?:is|was)\s+(?:\w+\s+){0,5}?(?:city|town|village|capital|region|province|state|"
                            r"country|municipality|district|port|county)\b", re.I)
_CLUB_TYPES = frozenset("organization organisation org company team club sports football soccer".split())


def _sporting(p: Profile) -> bool:
    """Its type or description says it is a sports club or team."""
    return says_sport(w for t in p.types for w in t.replace("_", " ").split()) or says_sport(p.words)


def _club_like(p: Profile) -> bool:
    """A node that may be a club: typed an organization, team or club (or untyped), not described as a place."""
    typed = {w for t in p.types for w in t.replace("_", " ").split()}
    return (p.types <= UNTYPED or bool(typed & _CLUB_TYPES)) and not _PLACE_DEFINED.search(p.description)
