"""Names written in letters: one abbreviation with and without dots ("I.B.M.", "IBM"), an acronym and the name
it spells out ("NTU", "National Taiwan University"), an acronym with its number ("WWII", "World War II")."""

from __future__ import annotations

import regex

from ..blocking import numbered_acronym
from ..lexicon import ARTICLES, JOINING
from ..names import NameForm, key_of
from ..profiles import PERSON_TYPES, SHORT_DESCRIPTION, UNTYPED, Profile, defined_apart, definition_words, spelled_out
from ..profiles import opening, types_conflict
from ..variants.accents import accented_acronym
from ..variants.countries import described_in, named_apart, one_country, regions_described
from ..variants.placing import unplaced_words
from ..variants.types import TYPE_WORDS
from ..verdicts import SAME, Verdict, doubtful
from .rules import Judge

NUMBERED_ACRONYM = "acronym with its number"
# types too broad to say that two of one abbreviation are one thing ("organization": ANC, a party and a Catalan
# association; "event": the tennis and the golf U.S. Open; a party: every country has its PPP)
BROAD_TYPES = UNTYPED | PERSON_TYPES | frozenset("""geo location place organization organisation org company
corporation business firm enterprise event concept product category thing object group brand technology service
institution agency party""".split()) | {"political party"}


def abbreviation_verdict(ev: Judge, a: Profile, b: Profile, fa: NameForm, fb: NameForm, clash: bool) -> Verdict | None:
    if fa.acronym and fa.acronym == fb.acronym:  # "I.B.M." and "IBM"
        if types_conflict(a, b):
            return doubtful(0.6, "same abbreviation, types differ")
        alike = ev.spelled_alike(a, b, fa.acronym)
        if alike is False:
            return doubtful(0.6, "same abbreviation, spelled out as two names")
        spaced = "".join(fa.surface.split()) == "".join(fb.surface.split())  # "AT & T", "AT&T"
        # a few letters name many things ("N.B.A.", a league; "NBA", a bar association): one where a single
        # description says what its node is ("The F.B.I. opened an inquiry", "The FBI is the ... service"); one
        # country is no one body ("N.R.A.", the rifle association; "NRA", the New Deal's recovery administration)
        if (a.types & b.types) - BROAD_TYPES and not defined_apart(a, b):  # "band", "university"
            return Verdict(SAME, 0.85, "same abbreviation, with or without dots, of one kind")
        if spaced and not defined_apart(a, b):  # one name written with its spaces or without
            return Verdict(SAME, 0.9, "same abbreviation, spaced otherwise")
        if len(fa.acronym) <= 3 and not alike and not spaced and not _one_kind(a, b) and \
                (bool(definition_words(a)) == bool(definition_words(b)) or defined_apart(a, b)):
            return doubtful(0.5, "a short abbreviation, not described as one thing")
        # two namesakes share letters as often as one name drops its dots: descriptions of some length decide
        return ev.short_form(a, b, Verdict(SAME, 0.9, "same abbreviation, with or without dots"),
                             SHORT_DESCRIPTION)
    if (fa.key in fb.spelled) or (fb.key in fa.spelled):
        if "(" not in fa.surface + fb.surface and not described_in(a) & described_in(b):  # "TAP Transportes..."
            return doubtful(0.5, "a name led by its acronym, and the acronym, not placed in one country")
        return ev.short_form(a, b, Verdict(SAME, 0.9, "acronym spelled out"), SHORT_DESCRIPTION)
    for x, y in ((fa, fb), (fb, fa)):
        if numbered_acronym(x, y):  # "WWII", "WW2" and "World War II": the number written whole
            if types_conflict(a, b):
                return doubtful(0.6, "acronym, types differ")
            return ev.short_form(a, b, Verdict(SAME, 0.8, NUMBERED_ACRONYM), SHORT_DESCRIPTION)
        if x.acronym and x.acronym in (y.initials, y.short_initials):
            if types_conflict(a, b):  # "university" and "organization" are one kind
                return doubtful(0.6, "acronym, types differ")
            spelled = {key_of(n) for n in spelled_out((a if x is fa else b).description, x.acronym)}
            if spelled and not spelled & {y.key, y.core}:  # "NTU, National Taiwan University, is ..."
                return doubtful(0.6, "acronym, but spelled out as another name")
            if len(x.acronym) >= 4 and x.acronym == y.initials or accented_acronym(x, y) or \
                    len(x.acronym) >= 3 and x.legal and x.legal == y.legal:
                return doubtful(0.5, "acronym of every word, but the name names another country") if named_apart(
                    a if x is fa else b, y) else Verdict(SAME, 0.8, "acronym of every word")  # "PKO BP", "BMW AG"
            if len(x.acronym) <= 3 and _PARTIES & a.types & b.types and described_in(a) and described_in(b) and \
                    not one_country(a, b):  # "PSD", Portugal's and Romania's; not "WHO", "in Nigeria", "Geneva"
                return doubtful(0.5, "a party's short acronym, placed in different countries")
            same = ev.short_form(a, b, Verdict(SAME, 0.8, "acronym"), across=True)  # letters of any language
            # "NHS", "National Hedgehog Society": both "in the United Kingdom"; "S&W", a steakhouse chain, and
            # "Smith & Wesson", both American
            if same.kind == SAME and not _alike_beside_where(a, b):
                return doubtful(0.5, "acronym, described alike only by where")
            if same.kind == SAME and named_apart(a if x is fa else b, y):  # "WSU", Detroit's; "Washington State ..."
                return doubtful(0.5, "acronym, but the name names another country or region")
            return same
    return None


def _alike_beside_where(a: Profile, b: Profile) -> bool:
    """The two descriptions share a word besides those that place their nodes (an acronym's letters often name
    its country: "Qatar National Bank", "Qatar National Bakery", both "in Doha")."""
    return bool(_beside_where(a) & _beside_where(b))


def _beside_where(p: Profile) -> set[str]:
    return (p.words.keys() & set(unplaced_words(p.description))) - _SAYING_WHERE


# the words that say where more than what ("based in Hanoi", "mit Sitz in Wien")
_SAYING_WHERE = frozenset("based headquartered located situated seated sitz sede siege".split())


def _one_kind(a: Profile, b: Profile) -> bool:
    """Both descriptions open by calling their node one same kind of thing, by its word among their first
    ("American technology company", "Computer company that sold its PC business"), in one country or none
    named: not a kind ("agency" and "association" are both organizations, and two: "N.R.A."). A place no table
    holds places too ("St. Louis-based brewing company" and "Swedish truck company" are two)."""
    kinds = [_kinds_named(p) for p in (a, b)]
    placed = [described_in(p) or _somewhere(p) for p in (a, b)]
    regions = [regions_described(p) for p in (a, b)]  # "in Minnesota", "in Tennessee"
    return bool(kinds[0] & kinds[1]) and not any(all(x) and not x[0] & x[1] for x in (placed, regions))


def _kinds_named(p: Profile) -> set[str]:
    """The kind words among the first words of ``p``'s opening, "and" and "of" aside."""
    return {w for w in [w for w in opening(p).split() if w not in _PLAIN][:_KIND_AT_MOST] if w in _KIND_WORDS}


def _somewhere(p: Profile) -> set[str]:
    """A place ``p``'s description names that no table holds, as a place of its own: it meets no other's."""
    return {f"somewhere {p.key}"} if _SOMEWHERE.search(p.description) else set()


_KIND_WORDS = frozenset(TYPE_WORDS) | frozenset(TYPE_WORDS.values())
# the words of an opening that name its kind, "and", "of" aside: "American multinational finance and insurance
# company"; not "Operator of the largest chain of movie theaters ... and an entertainment company"
_KIND_AT_MOST = 5
# a place named, whether or not a table holds it: "St. Louis-based", "based in Redditch", "in Macau"
_SOMEWHERE = regex.compile(r"\w-based\b|\b(?:in|near)\s+\p{Lu}")
_PLAIN = JOINING | ARTICLES | {"of"}
_PARTIES = frozenset({"political party", "party"})
