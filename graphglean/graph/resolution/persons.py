"""The rules for two personal names: titles and their gender, given names, middle names and initials,
patronymics, surnames alone, royal names, and descriptions that make one a relative of the other.

A merge needs the names to agree: a middle name on one side only ("John Adams", "John Quincy Adams"), a woman's
title with a surname against a full name ("Mrs. Smith", "John Smith"), or a royal named by the given name
against a full name ("King Charles", "Charles Darwin") is doubt, left to the LLM tier; different given names,
middle initials or genders are different people.
"""

from __future__ import annotations

from typing import Protocol

import attrs
import regex

from ...text.words import LETTERS, unspaced
from .lexicon import FEMALE_GIVEN, GENERATIONS, KIN, KIN_ANY, MALE_GIVEN, NEUTRAL, PARTICLES
from .descriptions.dates import years_of
from .descriptions.name_order import FEW_FAMILY_NAMES, family_first, family_first_on_one_side
from .descriptions.spouses import married_name
from .lexicon.nicknames import short_form_of
from .lexicon.spellings import romanized, sounded, transliterated
from .names import NameForm
from .profiles import SHORT_DESCRIPTION, Corpus, Profile, defined_apart
from .variants.countries import described_in
from .verdicts import DIFFERENT, NO_EVIDENCE, SAME, UNSURE, Verdict, doubtful

_PATRONYMIC = ("ovich", "evich", "ovna", "evna", "ichna", "yich")  # Russian, Ukrainian, Serbian middle names
_TOKEN = regex.compile(rf"[{LETTERS}]+")
_KIN_WINDOW = 3  # words between a given name and a kinship word ("Ron's father", "mother of Elizabeth")


class Judge(Protocol):
    """What the personal-name rules read of `evidence.Evidence`."""

    corpus: Corpus
    agree_above: float

    def context(self, a: Profile, b: Profile) -> float: ...

    def disagree(self, a: Profile, b: Profile, short: int = 0, across: bool = False) -> bool: ...

    def overlap(self, fa: NameForm, fb: NameForm) -> Verdict: ...


def person_verdict(ev: Judge, a: Profile, b: Profile, fa: NameForm, fb: NameForm) -> Verdict | None:
    """The verdict on two personal names; None when the two are not both personal names."""
    titled = bool(fa.honorifics or fb.honorifics)  # "Mr." says person where no type does
    if not (a.person_compatible and b.person_compatible and (a.personal or b.personal or titled)):
        return None
    if not (ev.corpus.proper(fa) and ev.corpus.proper(fb)):
        return None
    ga = fa.gender or given_gender(fa.person) or a.pronoun_gender
    gb = fb.gender or given_gender(fb.person) or b.pronoun_gender
    if ga and gb and ga != gb:
        return Verdict(DIFFERENT, 0.0, "different genders")
    if _group(ev.corpus, fa) != _group(ev.corpus, fb):
        return Verdict(DIFFERENT, 0.0, "one person and a group")
    wa, wb = fa.person, fb.person
    if wa == wb:
        return _same_words(ev, a, b, fa, fb)
    if len(wa) == 1 or len(wb) == 1:
        return _one_word(ev, a, b, fa, fb)
    return _full_names(ev, a, b, fa, fb)


def given_gender(words: tuple[str, ...]) -> str:
    """The gender a full name's given name says ("m", "f"), or "" (one word: maybe a surname; a name borne by
    both): "Mr. Curie" is not "Marie Curie"."""
    if len(words) < 2:
        return ""
    return "m" if words[0] in MALE_GIVEN else "f" if words[0] in FEMALE_GIVEN else ""


def _same_words(ev: Judge, a: Profile, b: Profile, fa: NameForm, fb: NameForm) -> Verdict:
    """The same personal name, titles aside: a woman's title (not a queen's) before a surname alone, or before a
    full name whose given name is a man's, is a wife's or a relative's as often as hers ("Lady Macbeth",
    "Macbeth"; "Mrs. John Smith") unless the other is a woman too."""
    for x, y, py in ((fa, fb, b), (fb, fa, a)):
        if x.gender == "f" and not x.royal and not y.gender and py.pronoun_gender != "f" and (len(x.person) == 1 or
                given_gender(x.person) == "m"):
            return doubtful(0.5, "same name, a woman's title on one side only")
    if len(fa.person) == 1 and fa.royal != fb.royal and not fa.numbers:  # "King Charles", "Charles"
        return _partial(ev, a, b, "a royal's given name")
    oa, ob = _offices(fa), _offices(fb)
    if len(fa.person) == 1 and oa and ob and not oa & ob and \
            ev.context(a, b) < ev.agree_above:  # "Senator Clinton", "President Clinton"; not "Dr." and "Doctor"
        return doubtful(0.5, "a surname with two different titles (two people of one family?)")
    titled = " with a title" if fa.honorifics or fb.honorifics else ""
    if fa.honorifics != fb.honorifics and defined_apart(a, b):  # "Sir Paul Smith", a designer; a singer
        return doubtful(0.5, "same personal name, a title on one side only, defined as two different people")
    if fa.honorifics and fb.honorifics and fa.honorifics != fb.honorifics and a.key in b.neighbours and \
            ev.context(a, b) < ev.agree_above:  # "Mr. Smith met Dr. Smith"; not "Scrooge", "Mr. Scrooge"
        return doubtful(0.5, "same personal name, other titles, related to each other")
    return Verdict(SAME, 0.9, "same personal name" + titled)


def _one_word(ev: Judge, a: Profile, b: Profile, fa: NameForm, fb: NameForm) -> Verdict:
    """A one-word personal name against a longer one: a first name or a surname."""
    (sf, _), (lf, lp) = sorted(((fa, a), (fb, b)), key=lambda t: len(t[0].person))
    short, long = sf.person, lf.person
    if len(long) == 1:  # "安倍" and "安倍晋三": a CJK name is written unspaced, the surname first
        joined = long[0].startswith(short[0]) and len(short[0]) >= 2 and unspaced(long[0])
        return _partial(ev, a, b, "surname", alone=True) if joined else NO_EVIDENCE
    if sf.royal and not lf.royal:
        return doubtful(0.4, "a royal named by the given name, and a full name")
    if short[0] == long[0]:
        return _partial(ev, a, b, "first name", alone=True)
    if short[0] == long[-1]:
        if sf.gender == "f" and (lf.gender or lp.pronoun_gender) != "f":
            return attrs.evolve(doubtful(0.5, "a woman's title with a surname: a relative may bear it"), reading=True)
        if sf.generation and sf.generation == lf.generation:  # "Dumas fils": the family's son, not any Dumas
            return _partial(ev, a, b, "surname with the same generation")
        return _given_last(_partial(ev, a, b, "surname", alone=True), ev, a, b, lp)
    return ev.overlap(fa, fb)


def initials_first(form: NameForm) -> tuple[str, ...]:
    """A name's personal words, a surname before its initials as Russian writes a name ("Путин В. В.", "Chekhov
    A. P.") put in the order of the other name's words: the initials first. Initials are letters with a dot
    ("Jay Z" and "Malcolm X" are names as they stand)."""
    ws = form.person
    initials = len(ws) >= 2 and len(ws[0]) > 1 and all(len(w) == 1 for w in ws[1:])
    return ws[1:] + ws[:1] if initials and _DOTTED_INITIALS.search(form.surface) else ws


_DOTTED_INITIALS = regex.compile(r"\S\s+(?:\p{L}\.\s*)+$")


def _given_last(v: Verdict, ev: Judge, a: Profile, b: Profile, longer: Profile) -> Verdict:
    """``v`` on a name that ends the other's, unless the longer is a Korean's, Chinese or Vietnamese name, whose
    last word is the given name ("Jae-in" of "Moon Jae-in"): a first name's question then. Read only for a merge:
    where a description places its node is costly to read."""
    if v.kind != SAME or not family_first(longer) & FEW_FAMILY_NAMES:
        return v
    return _partial(ev, a, b, "first name", alone=True)


_ROMANIZED = "one name romanized two ways"


def _full_names(ev: Judge, a: Profile, b: Profile, fa: NameForm, fb: NameForm) -> Verdict:
    """Two names of two or more words: given names, middle names and initials, the order of the words."""
    wa, wb = initials_first(fa), initials_first(fb)
    if wa != wb and list(map(romanized, wa)) == list(map(romanized, wb)):  # "Mahmoud Abbas", "Mahmud Abbas"
        if list(map(transliterated, wa)) == list(map(transliterated, wb)) and (
                described_in(a) & described_in(b) or ev.context(a, b) >= ev.agree_above):  # or described alike
            return Verdict(SAME, 0.8, _ROMANIZED)  # "Aleksei Navalnyy", "Alexei Navalny"
        return doubtful(0.5, _ROMANIZED + " (or two names of another language?)")
    if len(wa) == len(wb) and all(len(sounded(w)) >= 2 for w in wa) and \
            list(map(sounded, wa)) == list(map(sounded, wb)):
        return doubtful(0.4, "names that sound alike (one name romanized two ways?)")  # "Muammar Gaddafi", "Moammar
        # Qadhafi": the LLM tier's to tell
    short, long = (wa, wb) if len(wa) <= len(wb) else (wb, wa)
    if long[-len(short):] == short:  # "García Márquez" of "Gabriel García Márquez"
        if short[0] in _GIVEN and set(long[:-len(short)]) & _GIVEN:  # "Sarah Jessica Parker", "Jessica Parker"
            return doubtful(0.5, "a given name more on one side (another person of the family?)")
        sf, lp = (fa, b) if len(wa) <= len(wb) else (fb, a)
        surname = _partial(ev, a, b, "surname")
        return _given_last(surname, ev, a, b, lp) if len(sf.surface.split()) == 1 else surname  # "Jae-in"
    if wa[-1] == wb[-1]:
        given = _given(wa[:-1], wb[:-1])
        if given == SAME:
            return _partial(ev, a, b, "same name, initials or patronymic written out")
        if given == UNSURE and _middle_initial_of_one_generation(fa, fb):  # "Ferdinand R. Marcos Jr."
            return _partial(ev, a, b, "a middle initial on one side only, the same generation")
        if given == UNSURE:  # "John Adams", "John Quincy Adams", "George Bush" and "George Walker Bush": a son is
            # named after his father, and a dynasty's country and field are one (a reviewer's 177 namesakes)
            return doubtful(0.5, "a middle name on one side only")
        if len(wa) == len(wb) and short_form_of(wa[0], wb[0]) and wa[1:] == wb[1:]:  # "Jim Webb", "James Webb":
            # a namesake's as often, in one country too (a reviewer's "Jim" and "James Jones"): described alike
            return _partial(ev, a, b, "a given name and its short form", alone=True)
        return Verdict(DIFFERENT, 0.0, "different given names")
    if wa[0] == wb[0]:
        if long[:len(short)] == short and 1 <= len(long) - len(short) <= 2 and short[-1] not in _GIVEN and \
                described_in(a) & described_in(b) & _TWO_SURNAMES:  # "Mario Vargas Llosa", "Mario Vargas"; and
            # "Carlos Slim", "Carlos Slim Domit", his son: one of many who bear the first surname
            return doubtful(0.5, "the mother's surname left out, as Spanish names are written (or a namesake?)")
        if long[:len(short)] == short:
            return ev.overlap(fa, fb)
        if family_first(a) & family_first(b) & FEW_FAMILY_NAMES:  # "Mao Zedong", "Mao Tse-tung": a given name
            return doubtful(0.4, "one family name, the given name in two romanizations?")  # in pinyin, Wade-Giles
        if married := married_name(a, b, wa, wb):
            return married
        if len(short) < len(long) and _in_order(short, long):  # "Gustavo Petro", "Gustavo Francisco Petro Urrego"
            return doubtful(0.5, "middle names and the mother's surname on one side only")
        return Verdict(DIFFERENT, 0.0, "different full names")
    if sorted(wa) == sorted(wb) and len(wa) <= 3:  # "Abe Shinzo", "Shinzo Abe": family name first
        if wa[0] in _GIVEN and wb[0] in _GIVEN:  # "Paul Thomas", "Thomas Paul": two given names, two people?
            return doubtful(0.5, "the same names in another order, each first a given name")
        if family_first(a) & family_first(b):  # "Orbán Viktor" ("Magyarország ..."), "Viktor Orbán" ("Hungary's")
            return Verdict(SAME, 0.8, "the same names in another order, where the family name comes first")
        if family_first_on_one_side(a, b):  # "Kishida Fumio" ("Prime Minister of Japan"), "Fumio Kishida"
            return Verdict(SAME, 0.8, "the same names in another order, one side where the family name comes first")
        return _partial(ev, a, b, "the same names in another order", alone=True)  # "Lin Dan", "Dan Lin": two people
    return ev.overlap(fa, fb)  # "Tiny Tim" and "Tim Cratchit": a nickname is for the LLM to judge


_GIVEN = MALE_GIVEN | FEMALE_GIVEN
# where a person bears the father's surname and then the mother's, and often goes by the first alone
_TWO_SURNAMES = frozenset("""spain mexico colombia peru chile venezuela ecuador bolivia uruguay paraguay cuba
guatemala honduras nicaragua panama""".split()) | {"el salvador", "costa rica", "dominican republic", "puerto rico"}


def _middle_initial_of_one_generation(fa: NameForm, fb: NameForm) -> bool:
    """One name has one middle initial more, and both carry one same generational marker or regnal number
    ("Manuel Roxas II", "Manuel A. Roxas II"): a father and son differ there ("George Bush", "George W. Bush")."""
    short, long = sorted((fa.person, fb.person), key=len)
    same_generation = (fa.generation and fa.generation == fb.generation) or (fa.numbers and fa.numbers == fb.numbers)
    return bool(same_generation) and len(long) == len(short) + 1 and long[0] == short[0] and len(long[1]) == 1


_TITLE_WRITTEN = {"dr": "doctor", "prof": "professor", "rev": "reverend", "capt": "captain", "col": "colonel",
                  "gen": "general", "lt": "lieutenant", "sgt": "sergeant", "sen": "senator", "pres": "president",
                  "gov": "governor", "cmdr": "commander", "adm": "admiral", "maj": "major", "rep": "representative",
                  "hon": "honourable", "honorable": "honourable", "councilor": "councillor", "st": "saint"}


def _offices(form: NameForm) -> set[str]:
    """A name's titles of office or rank, each written one way; empty when any title is a form of address
    ("Mr.", "Herr", "Father"), which says nothing of an office."""
    if not form.honorifics or not set(form.honorifics) <= NEUTRAL:
        return set()
    return {_TITLE_WRITTEN.get(t, t) for t in form.honorifics}


def _matches(x: str, y: str) -> bool:
    """One given name and another, or its initial, or the name romanized another way ("Sergey", "Sergei")."""
    return x == y or (len(x) == 1 and y.startswith(x)) or (len(y) == 1 and x.startswith(y)) or \
        len(x) > 1 < len(y) and transliterated(x) == transliterated(y)


def _given(x: tuple[str, ...], y: tuple[str, ...]) -> str:
    """Given names (and middle names) compared: SAME when they agree word for word (an initial agrees with
    its name; a patronymic may be left out), UNSURE when one has a middle name the other lacks, else
    DIFFERENT."""
    x = x[:1] + tuple(w for w in x[1:] if not w.endswith(_PATRONYMIC))
    y = y[:1] + tuple(w for w in y[1:] if not w.endswith(_PATRONYMIC))
    if not x or not y:
        return DIFFERENT
    if not _matches(x[0], y[0]):  # "Jorge Mario Pedro Vargas Llosa", "Mario Vargas Llosa": goes by a middle name
        short, long = sorted((x, y), key=len)
        return UNSURE if len(short) < len(long) and _in_order(short, long[1:]) else DIFFERENT
    if len(x) == len(y):
        return SAME if all(_matches(p, q) for p, q in zip(x, y)) else DIFFERENT
    return UNSURE


def _in_order(short: tuple[str, ...], long: tuple[str, ...]) -> bool:
    """Each of ``short``'s names matches one of ``long``'s, in order."""
    rest = iter(long)
    return all(any(_matches(w, v) for v in rest) for w in short)


def _group(corpus: Corpus, form: NameForm) -> bool:
    last = form.person[-1]
    return form.plural and (bool({"misses", "messrs"} & set(form.honorifics))
                            or (last.endswith("s") and last[:-1] in corpus.person_words))


def _kin(description: str, names: set[str]) -> bool:
    """``description`` names one of ``names`` next to a kinship word ("Ron's father", "mother of Elizabeth")."""
    ws = [w.lower() for w in _TOKEN.findall(description)]
    return any(ws[j] in KIN for i, w in enumerate(ws) if w in names
               for j in range(max(0, i - _KIN_WINDOW), min(len(ws), i + _KIN_WINDOW + 1)))


def _relative_of(description: str) -> bool:
    """``description`` says its node is somebody's relative: a kinship word before "of" ("younger brother of",
    "filho mais velho do", "Bruder des"), not somebody else's ("Scrooge's nephew", "his nephew", "her husband")."""
    ws = [w.lower() for w in _TOKEN.findall(description)]
    return any(w in KIN_ANY and not (i and ws[i - 1] in _POSSESSIVES) and (
        _GENITIVE.intersection(ws[i + 1:i + 4]) or not w.isascii())  # Russian says "of" by a case ending
               for i, w in enumerate(ws))


_GENITIVE = frozenset("of des del de do da di della dello du van von dos das".split())
_POSSESSIVES = frozenset("s his her their its my your our sein seine seines ihr ihre ihres son sa ses leur leurs su sus "
                         "suo sua jego jej ich zijn haar hun его её ее их".split())  # "s" of "Scrooge's"


def _given_names(form: NameForm, other: NameForm) -> set[str]:
    """The words of ``form``'s name before its surname that ``other`` lacks (a one-word name: none)."""
    return set(form.person[:-1]) - set(other.person) if len(form.person) > 1 else set()


def _partial(ev: Judge, a: Profile, b: Profile, rule: str, alone: bool = False) -> Verdict:
    """A partial match (first name, surname, initials) is kept when the descriptions neither name the other as a
    relative nor disagree (a first name is shared by many: any two may disagree; otherwise short ones cannot).
    One name ``alone`` (a surname or a given name, titled or not, against a full name) is borne by a family and
    by namesakes ("Roosevelt"): kept when the description gives the rest of the name or the two are alike."""
    for x, y in ((a, b), (b, a)):
        fx, fy = x.forms[0], y.forms[0]
        if _kin(x.description, _given_names(fy, fx)):
            return Verdict(DIFFERENT, 0.0, f"{rule}, but described as a relative")
    for x, y in ((a, b), (b, a)):  # "Ebenezer is another name for Scrooge": the rest of the name is mentioned
        rest = {w for f in y.forms for w in f.person if len(w) > 2} - {w for f in x.forms for w in f.person} - \
            PARTICLES  # not a syllable of "Jong-un": "un" is a word of several languages
        if rest & x.words.keys() and a.key not in b.neighbours:
            return Verdict(SAME, 0.8, rule + ", the rest of the name in the description")
    if a.key in b.neighbours and ev.context(a, b) < 0.5:
        return Verdict(UNSURE, 0.5, f"{rule}, but related to each other", reading=True)
    if rule == "surname" and alone and _relative_of(  # "Schumacher", "younger brother of..."
            min((a, b), key=lambda p: len(p.forms[0].person)).description):
        return Verdict(UNSURE, 0.5, "surname alone, described as somebody's relative", reading=True)
    if alone and not _alike(ev, a, b):
        return Verdict(UNSURE, 0.5, f"{rule} alone, not described alike (a relative or a namesake?)", reading=True)
    # a part of a name names many people, in any language: descriptions in two that share nothing disagree
    if ev.disagree(a, b, 0 if rule in ("first name", "a royal's given name") else SHORT_DESCRIPTION, across=True):
        return Verdict(UNSURE, 0.5, f"{rule}, but the descriptions disagree", reading=True)
    return Verdict(SAME, 0.8, rule)


def _alike(ev: Judge, a: Profile, b: Profile) -> bool:
    """Two nodes described alike, or related to one same node without descriptions that disagree (one story:
    "Bob" and "Bob Cratchit" both beside Scrooge); never when both descriptions give years and none in common
    (a father and a son in one office, each in his own years)."""
    ya, yb = years_of(a.description), years_of(b.description)
    if ya and yb and not ya & yb:
        return False
    context = ev.context(a, b)
    return context >= ev.agree_above or (bool(a.neighbours & b.neighbours) and not ev.disagree(a, b))


def generation_left_out(a: Profile, b: Profile, fa: NameForm, fb: NameForm) -> bool:
    """A generational marker on one side only of a personal name, whose other side is a titled surname or given
    name alone ("Dr. King", "Martin Luther King Jr."): the short name leaves it out, as it leaves out the rest.
    Not a bare surname ("Griffey": the father as often as the son), nor where a description speaks of the
    family ("Griffey, the father", "his son", "Sr.")."""
    x, y = (fa, fb) if fa.generation else (fb, fa)
    if not (x.generation and not y.generation and y.honorifics and len(y.person) == 1 < len(x.person)):
        return False
    return not any(p.words.keys() & _FAMILY for p in (a, b))


_FAMILY = KIN | frozenset(GENERATIONS)


def numbered_generation(fa: NameForm, fb: NameForm) -> bool:
    """A person's number on one side, the generation it counts on the other: "Johann Strauss II" is "Johann
    Strauss Sohn" (the younger), "Pieter Brueghel I" the elder; not a ruler's reign ("Henry II", "Henry the
    Younger", his son)."""
    x, y = (fa, fb) if fa.numbers else (fb, fa)
    if set(y.key.split()) & _PLAIN_GENERATIONS:  # "Joseph P. Kennedy II" is no "Jr.": a nephew bears the name
        return False
    return len(x.person) > 1 and not x.generation and not y.numbers and (x.numbers, y.generation) in (
        (("2",), "jr"), (("1",), "sr"))


_PLAIN_GENERATIONS = frozenset("jr junior jun sr senior sen".split())
