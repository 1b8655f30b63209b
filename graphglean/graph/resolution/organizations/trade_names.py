"""A company's legal name that extends its trade name by words of what it makes ("Vestas Wind Systems A/S" and
"Vestas", "a maker of wind turbines"): one company where the trade name's description says it makes that, and
nothing says the trade name is a group of many companies or the other one ("Siemens Energy AG" and "Siemens", "a
conglomerate whose businesses span energy ...": a parent and its unit)."""

from __future__ import annotations

import re

from ....text.words import strip_accents
from ..lexicon import COUNTRY_OF, GROUP_WORDS
from ..names import NameForm
from ..profiles import PLACE_TYPES, Profile, opening, types_conflict
from ..variants.countries import described_in
from ..verdicts import SAME, Verdict
from .rules import Judge

# words of a legal name that say nothing of what the company makes ("Yara International ASA", "Vestas Wind
# Systems A/S")
_GENERIC = frozenset("""international global worldwide systems system industries industry technologies technology
solutions services enterprises enterprise partners company corporation limited group holding holdings products
trading""".split())
# what says a description is of many companies ("a conglomerate", "the group's parent")
_MANY = GROUP_WORDS | frozenset("""conglomerate conglomerates parent chaebol keiretsu zaibatsu subsidiaries units
divisions businesses brands grupo gruppe groupe konzern""".split())
_WORD = re.compile(r"\w+")


def trade_name_verdict(ev: Judge, a: Profile, b: Profile, fa: NameForm, fb: NameForm, clash: bool) -> Verdict | None:
    """ "Vestas Wind Systems A/S" and "Vestas" where the latter's opening words say it makes wind turbines; None
    where the rule does not apply or says nothing."""
    if not (fa.legal or fb.legal) or clash or a.personal or b.personal or (a.types | b.types) & PLACE_TYPES or \
            types_conflict(a, b):
        return None
    for x, y, py in ((fa, fb, b), (fb, fa, a)):
        ws, short = x.trade.split(), y.key.split()
        if not x.legal or y.legal or not 1 <= len(short) <= 2 or ws[:len(short)] != short or len(ws) <= len(short):
            continue
        extra = [w for w in ws[len(short):] if w not in _GENERIC]
        if not extra or any(w in COUNTRY_OF or len(w) < 3 for w in extra):  # "Orange Polska S.A.": a national unit
            return None
        text = " ".join(_words(py.description))
        if _MANY.intersection(text.split()) or f" {' '.join(ws)} " in f" {text} ":
            return None  # a group of companies, or the other named apart ("Henry Ford founded Ford Motor Company")
        said = _words(opening(py))
        if not all(any(_echoes(w, e) for w in said) for e in extra):
            return None
        pa, pb = described_in(a), described_in(b)
        if pa and pb and not pa & pb:
            return None
        return Verdict(SAME, 0.85, "a legal name and its trade name, which is said to make what the rest names")
    return None


def _words(text: str) -> list[str]:
    return [strip_accents(w.casefold()) for w in _WORD.findall(text)]


def _echoes(word: str, extra: str) -> bool:
    """``word`` is ``extra``, its plural, or a compound opening with it ("windkraftanlagenhersteller" of "wind")."""
    return word in (extra, extra + "s", extra + "es") or len(extra) >= 4 and word.startswith(extra) and \
        len(word) - len(extra) >= 5
