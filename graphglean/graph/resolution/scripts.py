"""What a name read in another script's Latin letters (`lexicon.latin`) may decide. Letters alone say little
about a single word ("Звезда", a TV channel, and "Zvezda", a shipyard, are the Russian word for a star) and
may misread a name ("Путин В. В." as "Putin V. V.", a Roman numeral): a match of a person's full name stands,
subject to every check of two people (callings, years of birth); of another name of several words only where
both are placed in one country; of one word only for a company its legal form names ("ПАО «Магнит»",
"Magnit") in one country (a name in an alphabet of one country, Georgian, Armenian, Hangul, Greek, is placed
in it). Anything else is a question for the LLM tier: one word names many places of one country ("Троицк",
"Πύργος", "고성") and many bodies ("ЦСКА", football and basketball). A Latin reading's DIFFERENT is no
evidence."""

from __future__ import annotations

import regex

from .lexicon.latin import latin_spellings, pinyin_readings, transliterations
from .names import NameForm
from .profiles import Profile
from .variants.countries import one_country
from .verdicts import DIFFERENT, NO_EVIDENCE, SAME, Verdict, doubtful


def across_scripts(a: Profile, b: Profile, fa: NameForm, fb: NameForm, v: Verdict) -> Verdict:
    """``v``, the verdict on ``fa`` and ``fb``, as far as a form read in Latin letters may decide it."""
    if v.kind not in (SAME, DIFFERENT):
        return v
    if fa.surface in transliterations(a):
        x, p = fa, a
    elif fb.surface in transliterations(b):
        x, p = fb, b
    else:
        return v
    if v.kind == DIFFERENT:
        return NO_EVIDENCE
    if any(x.surface in pinyin_readings(f.surface) for f in p.forms):  # "习近平", "Xi Jinping"
        return doubtful(v.score * 0.6, v.rule + ", one name read in pinyin (a reading, never a spelling)")
    words = len(x.key.split())  # a person's name's words as read; another name's as written ("광주", "Gwang Ju")
    if a.personal and b.personal and words >= 2:
        return v
    read = transliterations(p)
    words = min((len(f.key.split()) for f in p.forms if f.surface not in read), default=words)
    other = b if p is a else a
    placed = one_country(a, b) or _in_its_country(p, other)
    if words >= 2 and placed:
        return v
    if words == 1 and placed and any(x.surface in latin_spellings(f.trade) for f in p.forms if f.trade):
        return v
    return doubtful(v.score * 0.6, v.rule + ", one name read in two scripts (a word of that language?)")


# alphabets that one country (or two) writes: a place named in one is of that country
_NATIONAL_ALPHABETS = {regex.compile(r"\p{Georgian}"): ("georgia",), regex.compile(r"\p{Armenian}"): ("armenia",),
                       regex.compile(r"\p{Hangul}"): ("south korea", "republic of korea"),
                       regex.compile(r"\p{Greek}"): ("greece", "cyprus")}


def _in_its_country(p: Profile, other: Profile) -> bool:
    """``p`` is named in an alphabet of one country, which ``other``'s description names ("თბილისი";
    "Tbilisi, capital of Georgia")."""
    said = other.description.casefold()
    return any(regex.search(rf"\b{country}\b", said) for alphabet, countries in _NATIONAL_ALPHABETS.items()
               if any(alphabet.search(f.surface) for f in p.forms) for country in countries)
