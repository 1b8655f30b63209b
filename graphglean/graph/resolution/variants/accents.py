"""Accents left out or written out. One word written with and without its accents: "Zürich" and "Zurich" are
one city, but "Ağrı" (a Turkish province) and "Agri" (an Italian river), "Tábor" (a Czech town) and "Tabor" (a
mountain in Galilee) are two. A one-word name is a word of other languages as often; without its accents it is a
question unless the two are described alike or placed in one country. Names of more words are rarely such
namesakes ("Antonín Dvořák"). German umlauts left out are a German name of its own ("Fürth", "Furth"): one
German-speaking country in common says nothing. Umlauts written out ("Muenchen") make one place or club, but
only a question for people and companies."""

from __future__ import annotations

from typing import Protocol

from ....text.words import strip_accents
from ..names import NameForm, fold
from ..descriptions.dates import years_of
from ..organizations.rules import sporting
from ..profiles import Profile, both_places, conflict
from ..verdicts import SAME, Verdict, doubtful
from .countries import described_in, one_country


class Judge(Protocol):
    """What these rules read of `evidence.Evidence`."""

    agree_above: float

    def context(self, a: Profile, b: Profile) -> float: ...


def accents_only(fa: NameForm, fb: NameForm) -> bool:
    """One word, the same but for its accents."""
    x, y = fold(fa.surface).strip(), fold(fb.surface).strip()
    return x != y and " " not in x and strip_accents(x) == strip_accents(y)


def accent_namesake(ev: Judge, a: Profile, b: Profile, fa: NameForm, fb: NameForm) -> Verdict | None:
    """Doubt for one word with and without its accents not described as one thing; None otherwise."""
    if not accents_only(fa, fb) or conflict(a, b):  # a conflict says why already ("places of different levels")
        return None
    if ev.context(a, b) >= ev.agree_above or _one_country_writing_it(a, b, fa, fb) or \
            both_places(a, b) and written_where_placed(a, b, fa, fb):  # a surname's namesakes: "Peña", "Pena"
        return None
    return doubtful(0.6, "one word with and without its accents, not described alike (a word of another language?)")


_GERMAN_SPEAKING = frozenset({"germany", "austria", "switzerland"})


def _one_country_writing_it(a: Profile, b: Profile, fa: NameForm, fb: NameForm) -> bool:
    """Both described in one country, unless German umlauts were left out of a German-speaking country's name:
    German writes them out ("Fuerth"), and "Furth" is another town ("Malmo", "Gallivare" are Swedish names)."""
    shared = described_in(a) & described_in(b)
    if set(fold(fa.surface + fb.surface)) & set("äöü"):
        shared -= _GERMAN_SPEAKING
    return bool(shared)


def written_out(a: Profile, b: Profile, fa: NameForm, fb: NameForm) -> Verdict | None:
    """A name with its umlauts written out ("Muenchen", "Soeren", "Aalborg"): one place or one club; people and
    companies, whose namesakes write their names so ("Gerhard Schroeder", a CDU foreign minister; "Gerhard
    Schröder", an SPD chancellor), only where both are dated by two same years, or are people placed in one
    country and dated within a generation (the vetoes of `Evidence.verdict` then read callings and sports); a
    like description or one country alone is a question (two referees, two German dairies of one name); None
    when the names differ otherwise."""
    if (fa.umlauts or fa.compact) != (fb.umlauts or fb.compact):
        return None
    nordic = bool(set(fold(fa.surface + fb.surface)) & set("åøæ"))  # "aa", "oe": native Dutch and German ("Aalen")
    if nordic and not (one_country(a, b) or (described_in(a) | described_in(b)) & _NORDIC):
        return doubtful(0.6, "same name with its umlauts written out (å, ø, æ), not placed in the North")
    if both_places(a, b) or (sporting(a) and sporting(b) and not (a.person_compatible or b.person_compatible)):
        return Verdict(SAME, 0.9, "same place or club with its umlauts written out")
    ya, yb = years_of(a.description), years_of(b.description)
    dated = bool(ya and yb) and min(abs(x - y) for x in ya for y in yb) <= _GENERATION
    if len(ya & yb) > 1 or a.personal and b.personal and one_country(a, b) and dated:
        return Verdict(SAME, 0.85, "same name with its umlauts written out, placed in one country or dated alike")
    return doubtful(0.6, "same name with its umlauts written out (a namesake who writes it so?)")


_GENERATION = 25  # years: one person's descriptions date different moments of a life, a namesake's another time
_NORDIC = frozenset({"denmark", "norway", "sweden", "finland", "iceland"})
_SPANISH = "spain|mexico|argentina|chile|colombia|peru|venezuela|ecuador|bolivia|uruguay|paraguay|cuba"
_SLAVIC_CARONS = "czech republic|slovakia|slovenia|croatia|serbia|bosnia|lithuania|latvia"
# the countries whose languages write a letter, and whose names are written without it in other languages
# ("Vasteras", "Sanliurfa"); not the umlauts, which German writes out ("Fuerth"): "Furth" is another town
_LETTER_COUNTRIES = {letters: frozenset(countries.split("|")) for letters, countries in {
    "å": "sweden|norway|denmark|finland", "øæ": "denmark|norway", "ðþ": "iceland",
    "ñ": _SPANISH, "şğı\u0307": "turkey|azerbaijan", "ç": "turkey|france|portugal|brazil|albania",
    "łąęśźżń": "poland", "řěůňťď": "czech republic|slovakia", "őű": "hungary", "țșăî": "romania|moldova",
    "đ": "croatia|serbia|bosnia|vietnam", "čšž": _SLAVIC_CARONS, "āēīūņļķģ": "latvia", "ėįų": "lithuania",
    "õ": "estonia|portugal|brazil", "ã": "portugal|brazil",
}.items()}


def written_where_placed(a: Profile, b: Profile, fa: NameForm, fb: NameForm) -> bool:
    """The name without its accents is described in a country whose language writes the letters the other
    spelling has ("Västerås" and "Vasteras", a Swedish city; not "Ağrı" and "Agri", an Italian river)."""
    for x, py in ((fa, b), (fb, a)):
        letters = set(fold(x.surface))
        countries = {c for group, cs in _LETTER_COUNTRIES.items() if letters & set(group) for c in cs}
        if countries & described_in(py):
            return True
    return False


def accented_acronym(x: NameForm, y: NameForm) -> bool:
    """An acronym of every word whose first letter is accented as the name's first letter is ("ČEZ", "České
    energetické závody"; "ŁKS", "Łódzki Klub Sportowy"): a language's own letter leaves few namesakes."""
    return bool(x.acronym) and x.acronym == y.initials and not x.surface[:1].isascii() and \
        x.surface[:1] == y.surface[:1]
