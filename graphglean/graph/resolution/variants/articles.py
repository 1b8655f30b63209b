"""Articles that key_of keeps because they also begin names ("De Gaulle", "Den Haag", "Al Gore"): Dutch "De",
Danish and Norwegian "Den", "Det", Arabic "al-". A newspaper or company with one and the same name without ("De
Telegraaf", "Telegraaf"; "Al-Ahram", "Ahram") is one, where neither is a person or a place and both are typed; a
one-word name of another kind is doubt."""

from __future__ import annotations

from ..names import NameForm
from ..profiles import CATCH_ALL, PLACE_TYPES, UNTYPED, Profile, kinds
from ..verdicts import SAME, Verdict, doubtful

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
