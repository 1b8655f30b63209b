"""What a name read in another script's Latin letters (`lexicon.latin`) may decide. Letters alone say little
about a single word ("Звезда", a TV channel, and "Zvezda", a shipyard, are the Russian word for a star) and
may misread a name ("Путин В. В." as "Putin V. V.", a Roman numeral): a match of a person's full name stands,
subject to every check of two people (callings, years of birth); of another name of several words only where
both are placed in one country; of one word only for a company its legal form names ("ПАО «Магнит»",
"Magnit") in one country. Anything else is a question for the LLM tier, and a Latin reading's DIFFERENT is no
evidence."""

from __future__ import annotations

from .lexicon.latin import latin_spellings, transliterations
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
    words = len(x.key.split())  # a person's name's words as read; another name's as written ("광주", "Gwang Ju")
    if a.personal and b.personal and words >= 2:
        return v
    read = transliterations(p)
    words = min((len(f.key.split()) for f in p.forms if f.surface not in read), default=words)
    if words >= 2 and one_country(a, b):
        return v
    if words == 1 and one_country(a, b) and any(x.surface in latin_spellings(f.trade) for f in p.forms if f.trade):
        return v
    return doubtful(v.score * 0.6, v.rule + ", one name read in two scripts (a word of that language?)")
