"""A product with and without its maker's name before it: "Apple iPhone 15 Pro" and "iPhone 15 Pro", "an Apple
smartphone". One word more at the front of a thing's name is its maker when the shorter name's description
names it; otherwise a question, as model numbers and names repeat across makers ("Audi A7" and "A7", a Sony
camera; "Mitsubishi Lancer" and "Lancer", a Dodge). A model named without a number is one product also where
both are placed in one country or described alike, and the shorter's description names no other maker ("made
by Dodge", "Apple's"). Words more at the end make another model ("iPhone 15 Pro Max"); a word such as "Grand"
or "New" is no maker ("Grand Cherokee", "Cherokee"); and a person, a place or an organization is no product. An
event is named so by its organizer ("UEFA Euro 2020", "Euro 2020"): one where the shorter's description names it."""

from __future__ import annotations

import regex

from ..names import NameForm, key_of
from ..organizations.written import rare_word
from ..profiles import ORG_TYPES, PLACE_TYPES, THING_TYPES, UNTYPED, Profile, types_conflict
from ..verdicts import SAME, Verdict, doubtful
from .countries import one_country
from .placing import countries_placing

_PRODUCTS = THING_TYPES - PLACE_TYPES
_NOT_MADE = frozenset("""animal species breed plant character event tournament concept idea person people award title
film movie book novel song album work""".split())


def maker_verdict(ev: object, a: Profile, b: Profile, fa: NameForm, fb: NameForm, clash: bool) -> Verdict | None:
    """Same for a product named with and without its maker; None when the names are not so."""
    for x, y, py in ((fa, fb, b), (fb, fa, a)):
        lead = _maker(x, y)
        if lead and _events(a, b) and x.surface[:len(lead)].isupper() and lead in _words(py.description) and \
                any(c.isalpha() for c in y.surface):  # not a bare "2020"
            return Verdict(SAME, 0.85, "an event with and without its organizer's name")  # "UEFA Euro 2020"
        if not lead or not _products(a, b):
            continue
        if lead in _words(py.description):
            return Verdict(SAME, 0.85, "a product with and without its maker's name")
        described = a.description.strip() and b.description.strip() and not _other_maker(py.description, lead)
        named = described and not any(c.isdigit() for c in y.surface)  # a model named, not numbered
        if named and (one_country(a, b) or ev.context(a, b) >= ev.agree_above):
            return Verdict(SAME, 0.8, "a product with and without its maker's name, described alike")
        if described and _designation(y, _one_kind(a, b) and not _brand_named(py.description, lead, y)) and \
                not types_conflict(a, b):
            return Verdict(SAME, 0.8, "a model's designation with and without its maker's name")
        if named and rare_word(y.surface.strip()) and _one_kind(a, b):  # written rarely: not "Maps", "Notes"
            return Verdict(SAME, 0.8, "a product with and without its maker's name, of one narrow kind")
        return doubtful(0.5, "a model with a maker's name on one side only (another maker's model?)")
    return None


# words before a model's name that are part of it, not a maker ("Grand Cherokee", "New Beetle")
_NOT_MAKERS = frozenset("""grand new super mini old big little great royal first second third last high low north
south east west upper lower saint san santa st the""".split())
# a maker named in a description: after "by" and its kin, or before "'s" ("made by Dodge", "Apple's service")
_MAKER_NAMED = regex.compile(r"(?:\b(?:by|von|par|por|da|di|od|door|from)\s+(\p{Lu}[\p{L}\p{M}-]+))|"
                             r"(?:\b(\p{Lu}[\p{L}\p{M}-]+)['’]s\b)")


def _designation(y: NameForm, one_kind: bool) -> bool:
    """A model's name with a number, long enough that makers do not share it ("E195-E2", "Mate 60 Pro",
    "Superjet 100"; not "A7", a Sony camera and an Audi): five characters, or four where both are typed one
    narrow kind of thing ("A380", an aircraft and an "avion")."""
    return any(c.isdigit() for c in y.surface) and len(y.compact) >= (4 if one_kind else 5) and not y.key.isdigit()


def _brand_named(description: str, lead: str, y: NameForm) -> bool:
    """``description`` names a capitalized word, not its first, that is no place and neither ``lead`` nor a word of
    ``y``: another maker, perhaps ("T120": "Small Suzuki two-stroke"; "A380": "assemblé à Toulouse" names none)."""
    own = set(y.key.split()) | {lead}
    return any(w[:1].isupper() and key_of(w) not in own and not countries_placing(w)
               for w in regex.findall(r"[\p{L}\p{M}][\p{L}\p{M}'-]*", description)[1:])


def _words(text: str) -> set[str]:
    """The words of ``text`` as keys read them, each also without what an apostrophe joins to it ("Nintendo's",
    "d'Airbus", "Togg'un")."""
    return {part for w in key_of(text).split() for part in (w, *regex.split(r"['’]", w)) if part}


def _other_maker(description: str, lead: str) -> bool:
    """``description`` names a maker that is not ``lead``."""
    return any(key_of(m.group(1) or m.group(2)) != lead for m in _MAKER_NAMED.finditer(description))


def _maker(x: NameForm, y: NameForm) -> str:
    """The one word ``x`` has before all of ``y``'s, if it is a name (capitalized, no digits), else ""."""
    xs, ys = x.surface.split(), y.surface.split()
    if len(xs) != len(ys) + 1 or key_of(" ".join(xs[1:])) != key_of(y.surface) or not xs[0][:1].isupper():
        return ""
    lead = key_of(xs[0])
    return lead if lead.isalpha() and " " not in lead and lead not in _NOT_MAKERS else ""


# kinds that hold the products of many makers under one name ("Galaxy", a Samsung phone and a Ford van)
_BROAD_KINDS = frozenset("""product products brand device thing item object model technology tool equipment
vehicle machine goods hardware service system platform line series concept other""".split()) | {"product line"}


def _one_kind(a: Profile, b: Profile) -> bool:
    """Both typed one narrow kind of thing, as the model wrote it or as the rules read it ("console", "console";
    "aircraft", "avion"; not "product")."""
    written = {t.casefold() for t in a.written_types} & {t.casefold() for t in b.written_types}
    return bool((written | (a.types & b.types)) - _BROAD_KINDS - UNTYPED)


_EVENTS = frozenset({"event", "tournament"})


def _events(a: Profile, b: Profile) -> bool:
    """Both typed events (a contest, "événement"), or one so and the other untyped."""
    return bool(a.types & _EVENTS or b.types & _EVENTS) and all(p.types & _EVENTS or p.types <= UNTYPED for p in (a, b))


def made(p: Profile) -> bool:
    """``p`` is typed a thing made ("product", "car", "Produkt"), none of the kinds `_products` excludes."""
    return bool(p.types & _PRODUCTS) and not (p.types & (PLACE_TYPES | ORG_TYPES | _NOT_MADE))


def _products(a: Profile, b: Profile) -> bool:
    """One typed a thing made ("product", "software", "aircraft"), the other too or of a type the rules do not
    know, and neither a person, a place, an organization, or another kind of thing ("Mustang", a horse)."""
    if any(p.personal or p.types & (PLACE_TYPES | ORG_TYPES | _NOT_MADE) for p in (a, b)):
        return False
    return bool(a.types & _PRODUCTS or b.types & _PRODUCTS)
