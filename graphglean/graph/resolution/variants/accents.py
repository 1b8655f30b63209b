"""One word written with and without its accents: "Zürich" and "Zurich" are one city, but "Ağrı" (a Turkish
province) and "Agri" (an Italian river), "Tábor" (a Czech town) and "Tabor" (a mountain in Galilee) are two.
A one-word name is a word of other languages as often; without its accents it is a question unless the two are
described alike or placed in one country. Names of more words are rarely such namesakes ("Antonín Dvořák")."""

from __future__ import annotations

from ....text.words import strip_accents
from ..names import NameForm, fold
from ..profiles import Profile, conflict
from ..verdicts import Verdict, doubtful
from .countries import one_country


def accents_only(fa: NameForm, fb: NameForm) -> bool:
    """One word, the same but for its accents."""
    x, y = fold(fa.surface).strip(), fold(fb.surface).strip()
    return x != y and " " not in x and strip_accents(x) == strip_accents(y)


def accent_namesake(ev: object, a: Profile, b: Profile, fa: NameForm, fb: NameForm) -> Verdict | None:
    """Doubt for one word with and without its accents not described as one thing; None otherwise."""
    if not accents_only(fa, fb) or conflict(a, b):  # a conflict says why already ("places of different levels")
        return None
    if ev.context(a, b) >= ev.agree_above or one_country(a, b):
        return None
    return doubtful(0.6, "one word with and without its accents, not described alike (a word of another language?)")

