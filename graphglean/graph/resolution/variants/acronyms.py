"""Acronyms made of more than the first letters of a name's words: a compound word gives two letters ("ÖBB",
"Österreichische Bundes|bahnen"; "KNVB", "Koninklijke Nederlandse Voetbal|bond"), a last word its first two
("ZESCO", "Zambia Electricity Supply COrporation"), a joining word or a legal form one ("PDVSA", "Petróleos
De Venezuela, S.A."; "INSEE", "Institut National de la Statistique et des Études Économiques"). Letters that
may come from inside words spell out many names: such an acronym is one with the name only where it has four
letters or more (or an accented first one, as "ÖBB") and the two are placed in one country or described
alike; otherwise a question. An acronym may stand for some of a name's words only, before or after the rest
written out (`headed`: "PKN Orlen", "Polski Koncern Naftowy Orlen"; "VW Golf", of one compound word
"Volks|wagen"; "Sporting CP"); `organizations.rules.headed_verdict` reads what sets two such names apart."""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations

from ..lexicon import ARTICLES, JOINING, LEGAL_FORMS
from ..names import NameForm
from ..profiles import Profile, types_conflict
from ..verdicts import SAME, Verdict, doubtful
from .countries import one_country

MAX_INSIDE = 2  # letters of an acronym taken from inside words, at most
COMPOUND_PART = 4  # where a compound's later part may begin in a word, at the earliest ("bundes|bahnen")
MAX_WORDS = 12  # of a name an acronym is read against: longer ones are sentences
_VOWELS = frozenset("aeiouy")
_COMPASS = frozenset({"north", "south"})  # "Southeast" gives "SE" ("ASEAN"), as its two words would
LONGEST = 6  # letters of an acronym whose `initials_within` blocking reads (2**5 - 1 runs)
_OPTIONAL = JOINING | ARTICLES | frozenset(w for form in LEGAL_FORMS for w in form.split()) | frozenset(
    "of for and the des du della delle dei degli dos das von van zu y und für fur pour para per in im zur zum "
    "sur por voor".split())
RULE = "an acronym of the name's words and their parts"


def content_initials(form: NameForm) -> str:
    """The first letters of a name's words that an acronym must spell (not "de", "la", "S.A.")."""
    return "".join(w[0] for w in form.key.split() if w not in _OPTIONAL and len(w) > 1)


def initials_within(acronym: str) -> set[str]:
    """The letter runs `content_initials` of a name spelled by ``acronym`` can be: its first letter and some
    of the others, in order ("ob" and "obb" of "obb"), so that blocking brings the two names together."""
    rest = acronym[1:LONGEST]
    return {acronym[0] + "".join(c) for n in range(1, len(rest) + 1) for c in combinations(rest, n)}


@lru_cache(maxsize=16384)
def spells(acronym: str, key: str) -> bool:
    """``acronym`` is the first letter of each word of ``key`` (joining words and legal forms may give theirs
    or none), with up to `MAX_INSIDE` more letters from inside words, in order."""
    words = key.split()

    @lru_cache(maxsize=None)
    def rest_of(i: int, j: int, inside: int) -> bool:
        if j == len(words):
            return i == len(acronym)
        w = words[j]
        if (w in _OPTIONAL or len(w) == 1) and rest_of(i, j + 1, inside):
            return True
        if i == len(acronym) or acronym[i] != w[0]:
            return False
        last = j == len(words) - 1
        return any(rest_of(k, j + 1, used) for k, used in _inside(acronym, i + 1, w, 1, inside, last))

    return 2 <= len(words) <= MAX_WORDS and rest_of(0, 0, 0)


def _inside(acronym: str, i: int, word: str, at: int, inside: int, last: bool):
    """(next letter of ``acronym``, letters taken inside so far) for each way ``word`` from ``at`` on gives
    none or more of ``acronym``'s letters from ``i`` on: a compound's later part, a consonant from its fifth
    letter on ("Bundes|bahnen", "Voetbal|bond", "South|east"), or the second letter of the last word
    ("COrporation"); not a vowel inside a word ("Nation(a)l" spells no "NASA" of "National Security Agency")."""
    yield i, inside
    if inside < MAX_INSIDE and i < len(acronym):
        p = word.find(acronym[i], at)
        while p != -1:
            if p >= COMPOUND_PART and (acronym[i] not in _VOWELS or word[:p] in _COMPASS) or (last and p == 1 == at):
                yield from _inside(acronym, i + 1, word, p + 1, inside + 1, last)
            p = word.find(acronym[i], p + 1)


def acronym_verdict(ev, a: Profile, b: Profile, fa: NameForm, fb: NameForm, clash: bool) -> Verdict | None:
    """Same for an acronym of a name's words and their parts placed or described as one; a question where it
    is not; None where the names are not so."""
    for x, y in ((fa, fb), (fb, fa)):
        if len(x.acronym) < 3 or not y.initials or not spells(x.acronym, y.key):
            continue
        if clash or a.personal or b.personal or types_conflict(a, b):
            return None
        strong = len(x.acronym) >= 4 or not x.surface[:1].isascii()
        described = a.description.strip() and b.description.strip()
        if strong and described and (one_country(a, b) or ev.context(a, b) >= ev.agree_above):
            return Verdict(SAME, 0.8, RULE)
        return doubtful(0.5, RULE + ", not placed or described alike")
    return None


def headed(x: NameForm, y: NameForm) -> tuple[str, ...]:
    """``x`` is an acronym in capitals and ``y``'s other words, after it ("PKN Orlen") or before it ("Sporting
    CP", "Paris SG"), the words of ``y`` it stands for spelled by it (or the parts of one compound word: "VW" of
    "Volkswagen"): the words it stands for, () where it is not so."""
    words, xs, ys = x.surface.split(), x.key.split(), y.key.split()
    if len(words) < 2 or len(xs) != len(words):
        return ()
    for at in (0, -1):
        letters, rest = xs[at], xs[1:] if at == 0 else xs[:-1]
        if not (2 <= len(letters) <= LONGEST and words[at].replace(".", "").isupper() and letters.isalpha()) or \
                letters in LEGAL_FORMS:  # "Saab AB", "Saab Automobile AB": a legal form, not an acronym
            continue
        n = len(rest)
        same, spelled = (ys[-n:], ys[:-n]) if at == 0 else (ys[:n], ys[n:])
        if len(ys) > n and same == rest and _spelled(letters, spelled):
            return tuple(spelled)
    return ()


def _spelled(letters: str, lead: list[str]) -> bool:
    """``letters`` stand for the words ``lead`` (or the parts of its one compound word)."""
    if sum(len(w) == 1 for w in lead) > 1:  # "U.S. Open" spells out nothing ("Sport Lisboa e Benfica" does)
        return False
    if len(lead) == 1:
        return len(lead[0]) > len(letters) and any(
            i == len(letters) for i, _ in _inside(letters, 1, lead[0], 1, 0, False)) and letters[0] == lead[0][0]
    return spells(letters, " ".join(lead))
