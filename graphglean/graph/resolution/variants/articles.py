"""Articles. The ones key_of leaves out: a name with one and the same word without are one ("The Beatles",
"Beatles"), unless the bare word is a thing of another kind ("The Sun", a newspaper; "Sun", the star), in
capitals ("The Who", "WHO"), or a place whose own name holds an article of its language ("Le Havre", a French
port; "Havre", a town in Montana), unless the two are placed in one country. And the ones key_of keeps
because they also begin names ("De Gaulle", "Den Haag", "Al Gore"): Dutch "De", Danish and Norwegian "Den",
"Det", Arabic "al-". A newspaper or company with one and the same name without ("De Telegraaf", "Telegraaf";
"Al-Ahram", "Ahram") is one, where neither is a person or a place and both are typed; a one-word name of
another kind is doubt."""

from __future__ import annotations

from functools import lru_cache

from ....text.words import strip_accents
from ..lexicon import ARTICLES
from ..names import NameForm, words
from ..profiles import CATCH_ALL, PLACE_TYPES, UNTYPED, Profile, both_places, kinds
from ..verdicts import SAME, Verdict, doubtful
from .countries import one_country, regions_named

LEADING = frozenset({"de", "den", "det", "al"})


def article_verdict(ev: object, a: Profile, b: Profile, fa: NameForm, fb: NameForm, clash: bool) -> Verdict | None:
    if a.personal or b.personal or a.types <= UNTYPED or b.types <= UNTYPED or (a.types | b.types) & PLACE_TYPES:
        return None  # a place keeps its article: "Den Haag" is not a town "Haag"
    for x, y in ((fa, fb), (fb, fa)):
        ws = x.key.split()
        if len(ws) >= 2 and ws[0] in LEADING and " ".join(ws[1:]) == y.key and x.surface[:1].isupper():
            if len(ws) == 2 and not kinds(a.types - CATCH_ALL) & kinds(b.types - CATCH_ALL):
                return doubtful(0.5, "an article on one side only, and the types differ")
            return Verdict(SAME, 0.9, "same name, an article more or less")
    return None


def definite(form: NameForm) -> bool:
    """The name begins with an article: "The Goose" is a particular one, not "Geese"."""
    return form.surface.split()[0].casefold() in ARTICLES if form.surface.split() else False


def definite_article(a: Profile, b: Profile, fa: NameForm, fb: NameForm) -> Verdict | None:
    """Doubt for a name with an article and the same word without (one key) that may be two things; None
    when there is none."""
    x, y = (fa, fb) if definite(fa) else (fb, fa)
    ta, tb = a.types - CATCH_ALL, b.types - CATCH_ALL
    if len(y.key.split()) == 1 and ta and tb and not (ta <= UNTYPED or tb <= UNTYPED or kinds(ta) & kinds(tb)) or \
            {"media", "website"} <= ta | tb and not ta & tb:  # "The Medium", a student paper; "Medium", a platform
        return doubtful(0.5, "an article on one side only, and the types differ")
    if _capitals(y.surface) and not _capitals(x.surface):
        return doubtful(0.5, "a title with an article, and the word in capitals (an acronym?)")
    if (ta | tb) & PLACE_TYPES and x.surface.split()[0].casefold() != "the" and not one_country(a, b):
        return doubtful(0.5, "a place whose name holds an article, and the word without (another place?)")
    return None


def _capitals(surface: str) -> bool:
    """Written in capitals: two cased letters or more, none lowercase."""
    letters = [c for c in surface if c.isalpha() and c.lower() != c.upper()]
    return len(letters) >= 2 and all(c.isupper() for c in letters)


def glued(form: NameForm) -> str:
    """Every letter of the name in a row, an elided article kept and apostrophes dropped ("loreal" of "L'Oréal",
    whose key leaves "l'" out): how a name loses its apostrophe in ASCII text ("LOreal")."""
    return _glued(form.surface)


@lru_cache(maxsize=65536)
def _glued(surface: str) -> str:  # (read for every pair of names whose keys differ)
    return "".join(words(strip_accents(surface))).replace("'", "")


def elided_verdict(ev, a: Profile, b: Profile, fa: NameForm, fb: NameForm) -> Verdict | None:
    """Same for a name whose elided article lost its apostrophe ("LOreal" / "L'Oréal") where the descriptions do
    not disagree, and two places only where both are placed in one country ("L'Anse", Michigan, is no "Lanse",
    Pennsylvania); None where the names are not so."""
    if fa.compact.replace("'", "") == fb.compact.replace("'", "") or glued(fa) != glued(fb):
        return None
    if both_places(a, b) and (not one_country(a, b) or _placed_apart(a, b)):  # "L'Anse", Michigan; "Lanse"
        return doubtful(0.5, "an elided article without its apostrophe, places not placed in one country or region")
    return ev.short_form(a, b, Verdict(SAME, 0.9, "same name, an elided article without its apostrophe"))


def _placed_apart(a: Profile, b: Profile) -> bool:
    """Each description names a region the other's does not ("Michigan", "Pennsylvania")."""
    ra, rb = regions_named(a.description), regions_named(b.description)
    return bool(ra - rb and rb - ra)
