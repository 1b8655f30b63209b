"""What the rules conclude of two organizations' names: a web domain and a name, a club with and without its
abbreviation, a company with and without its legal form (`evidence.Evidence` asks these before the general
rules; each answers None where it has nothing to say)."""

from __future__ import annotations

import re
from typing import Protocol

from ..blocking import web_spellings
from ..lexicon import CLUB_CERTAIN
from ..names import NameForm
from ..profiles import PLACE_TYPES, UNTYPED, Profile, types_conflict
from ..verdicts import SAME, UNSURE, Verdict, doubtful
from .written import says_sport


class Judge(Protocol):
    """What the organization rules read of `evidence.Evidence`."""

    def short_form(self, a: Profile, b: Profile, same: Verdict, short: int = 0) -> Verdict: ...


def domain_verdict(ev: Judge, a: Profile, b: Profile, fa: NameForm, fb: NameForm, clash: bool) -> Verdict | None:
    """ "zillow.com" and "Zillow", "theguardian.com" and "The Guardian"; not "booking.com" and "Booking
    Holdings", nor "zalando.de" and "zalando.fr" (one name, other sites: doubt)."""
    if fa.site and fb.site:
        if fa.site == fb.site:
            return Verdict(SAME, 0.95, "same web domain", certain=True)
        return doubtful(0.5, "one name, other web domains") if fa.stem and fa.stem == fb.stem else None
    x, y, py = (fa, fb, b) if fa.site else (fb, fa, a)
    if not x.stem or x.stem not in web_spellings(y):
        return None
    if py.personal or py.types & PLACE_TYPES:
        return doubtful(0.4, "a web domain and a person or place of its name")
    return Verdict(SAME, 0.9, "a name and its web domain", certain=True)


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
