"""A body's name in two languages, word for word ("Banco Central do Brasil", "Central Bank of Brazil";
"Technische Universität München", "Technical University of Munich"; "Copa do Mundo FIFA de 2014", "2014 FIFA
World Cup"; "Provincia di Bergamo", "Province of Bergamo"): one, where the words read alike
(`lexicon.translations`) and name a place, or a division's level and its name both placed in one country. A name
without one ("Muzeum Narodowe", National Museum; "Technische Universität"; "Jeux olympiques de 1992"; "Partido
Colorado", of Paraguay and of Uruguay) names many, in one country too: a question."""

from __future__ import annotations

from ..lexicon.translations import LEVELS, translated
from ..names import NameForm
from ..profiles import Profile, types_conflict
from ..variants.countries import countries_of, described_in
from ..verdicts import SAME, Verdict, doubtful

RULE = "one name in two languages, word for word"


def translation_verdict(ev: object, a: Profile, b: Profile, fa: NameForm, fb: NameForm, clash: bool) -> Verdict | None:
    """SAME for two names that read alike word for word and are not written alike; None otherwise."""
    if a.personal or b.personal or fa.key == fb.key:
        return None
    (words, placed, foreign), (other, _, other_foreign) = translated(fa.key), translated(fb.key)
    if words != other or len(words) < 2 or not (foreign or other_foreign):
        return None  # "U.S. Open", "US Open": no word of another language read
    if types_conflict(a, b):
        return doubtful(0.5, RULE + ", but the types differ")
    if not placed and not (LEVELS.intersection(words) and _one_country(a, b)):  # one country has many: TU Berlin
        return doubtful(0.5, RULE + ", but a name many bodies bear")  # and TU Munich; Muzeum Narodowe in Kraków
    return Verdict(SAME, 0.85, RULE)


def _one_country(a: Profile, b: Profile) -> bool:
    """Both placed in one country, by their descriptions or their names ("Comunidad de Madrid")."""
    return bool((described_in(a) | countries_of(a.name)) & (described_in(b) | countries_of(b.name)))


def translation_key(form: NameForm) -> str:
    """The words that `translation_verdict` compares, as a blocking key ("" for a name of one word)."""
    words, _, _ = translated(form.key)
    return " ".join(words) if len(words) >= 2 else ""
