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

from ..lexicon import ARTICLES, INSTITUTIONS, JOINING, LEGAL_FORMS
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


def spelled_out_in(p: Profile, name: NameForm) -> bool:
    """``p``'s description uses every one of ``name``'s own words, two or more (not joining words, nor words any
    body's name or a trade's holds): "ASEAN", a "Southeast Asian bloc", and "Association of Southeast Asian
    Nations"; not "KEPCO", "Kansai's electric power company", and "Kyushu Electric Power Company"."""
    own = {w for w in name.key.split() if len(w) > 3 and w not in _OPTIONAL and w not in _BODIES}
    return len(own) >= 2 and own <= p.words.keys()


# the words of many bodies' names, which say what kind of body, not which
_BODIES = INSTITUTIONS | frozenset("""national international association union organization organisation company
corporation community society institute institution federation foundation council league party front movement
alliance group bank fund centre center university college school academy board united states republic people
peoples world general central public science sciences technology engineering arts research studies development
affairs health education security trade industry commerce cooperation economic nations states countries
electric electricity power energy water iron steel petroleum refining railway railways airlines royal koninklijke
nederlandse""".split())


def content_initials(form: NameForm) -> str:
    """The first letters of a name's words that an acronym must spell (not "de", "la", "S.A."; a first word
    that is a legal form's, as "Société" of "SNCF", gives its own)."""
    return "".join(w[0] for i, w in enumerate(form.key.split())
                   if (w not in _OPTIONAL or i == 0 and w not in ARTICLES) and len(w) > 1)


def initials_within(acronym: str) -> set[str]:
    """The letter runs `content_initials` of a name spelled by ``acronym`` can be: its first letter and some
    of the others, in order ("ob" and "obb" of "obb"), so that blocking brings the two names together."""
    rest = acronym[1:LONGEST]
    return {acronym[0] + "".join(c) for n in range(1, len(rest) + 1) for c in combinations(rest, n)}


def left_out(initials: str) -> set[str]:
    """``initials`` (of `LONGEST` letters or fewer) and, of five letters or more, each with one letter after the
    first left out, as `spells` may leave out a word ("sncf" of "sncff")."""
    runs = {initials} if len(initials) <= LONGEST else set()
    if len(initials) >= 5:
        runs.update(initials[:i] + initials[i + 1:] for i in range(1, len(initials)))
    return runs


@lru_cache(maxsize=16384)
def spells(acronym: str, key: str, loose: bool = False) -> bool:
    """``acronym`` is the first letter of each word of ``key`` (joining words and legal forms may give theirs
    or none), with up to `MAX_INSIDE` more letters from inside words, in order. ``loose``: one of four letters
    or more may leave out one word after the first ("SNCF", "Société Nationale des Chemins de Fer français"), and
    one of five or more take any word's first two ("KEMRI", "KEnya Medical Research Institute"), which also
    spell namesakes ("NCAA" and a "National Christian College Athletic Association"): a question only."""
    words = key.split()
    skips = 1 if loose and len(acronym) >= 4 else 0

    @lru_cache(maxsize=None)
    def rest_of(i: int, j: int, inside: int, skipped: int) -> bool:
        if j == len(words):
            return i == len(acronym)
        w = words[j]
        if (w in _OPTIONAL or len(w) == 1) and rest_of(i, j + 1, inside, skipped):
            return True
        if j and skipped < skips and rest_of(i, j + 1, inside, skipped + 1):
            return True
        if i == len(acronym) or acronym[i] != w[0]:
            return False
        second = j == len(words) - 1 or loose and len(acronym) >= 5
        return any(rest_of(k, j + 1, used, skipped) for k, used in _inside(acronym, i + 1, w, 1, inside, second))

    return 2 <= len(words) <= MAX_WORDS and rest_of(0, 0, 0, 0)


def _inside(acronym: str, i: int, word: str, at: int, inside: int, second: bool):
    """(next letter of ``acronym``, letters taken inside so far) for each way ``word`` from ``at`` on gives
    none or more of ``acronym``'s letters from ``i`` on: a compound's later part, a consonant from its fifth
    letter on ("Bundes|bahnen", "Voetbal|bond", "South|east"), or (``second``) its second letter
    ("COrporation"); not a vowel inside a word ("Nation(a)l" spells no "NASA" of "National Security Agency")."""
    yield i, inside
    if inside < MAX_INSIDE and i < len(acronym):
        p = word.find(acronym[i], at)
        while p != -1:
            if p >= COMPOUND_PART and (acronym[i] not in _VOWELS or word[:p] in _COMPASS) or (second and p == 1 == at):
                yield from _inside(acronym, i + 1, word, p + 1, inside + 1, second)
            p = word.find(acronym[i], p + 1)


@lru_cache(maxsize=16384)
def syllables(word: str, key: str) -> bool:
    """``word`` is the beginnings of ``key``'s words run together, a syllable acronym ("Pemex", "PEtróleos
    MEXicanos"; "TÜBİTAK", "TÜrkiye BİlimseL ve Teknolojik Araştırma Kurumu"; "Gestapo", "GEheime
    STAats|POlizei"): each word gives its first letters (a joining word may give none, one between the first and
    the last none: "UNICAMP", "UNIversidade Estadual de CAMPinas"), a compound's later part its own, and at least two
    words two letters or more each, not the whole word ("ArcelorMittal" is "Arcelor Mittal" written as one)."""
    words = key.split()
    content = [j for j, w in enumerate(words) if w not in _OPTIONAL and len(w) > 1]
    last = content[-1] if content else 0
    if not (len(word) >= 5 and 1 <= len(content) <= 6 and 2 <= len(words) <= MAX_WORDS and word.isalpha()) or \
            word in words:  # "Pemex" and "Pemex Exploración y Producción": a name and one of its words
        return False

    @lru_cache(maxsize=None)
    def rest_of(i: int, j: int, cut: int, skipped: bool) -> bool:
        if j == len(words):
            return i == len(word) and cut >= 2
        w = words[j]
        optional = w in _OPTIONAL or len(w) == 1
        if optional and rest_of(i, j + 1, cut, skipped) or \
                0 < j < last and not optional and not skipped and rest_of(i, j + 1, cut, True):
            return True
        return any(rest_of(k, j + 1, cut + (2 <= n < len(w)), skipped) for k, n in _beginnings(word, i, w))

    return rest_of(0, 0, 0, False)


def _beginnings(word: str, i: int, part: str):
    """(where ``word`` goes on, letters taken) for each beginning of ``part`` that ``word`` holds at ``i``, and
    for each such beginning followed by that of a compound's later part ("sta|po" of "staats|polizei")."""
    n = 0
    while n < len(part) and i + n < len(word) and word[i + n] == part[n]:
        n += 1
        yield i + n, n
        for p in range(max(n, COMPOUND_PART), len(part) - 1):
            m = 0
            while p + m < len(part) and i + n + m < len(word) and word[i + n + m] == part[p + m]:
                m += 1
                yield i + n + m, n + m


def acronym_verdict(ev, a: Profile, b: Profile, fa: NameForm, fb: NameForm, clash: bool) -> Verdict | None:
    """Same for an acronym of a name's words and their parts placed or described as one; a question where it
    is not; None where the names are not so."""
    for x, y, px in ((fa, fb, a), (fb, fa, b)):
        letters = x.acronym or (x.key if " " not in x.key and not px.personal else "")
        strict = bool(x.acronym) and len(letters) >= 3 and bool(y.initials) and spells(letters, y.key)
        if not strict and not (len(letters) >= 3 and y.initials and (
                x.acronym and spells(letters, y.key, loose=True) or syllables(letters, y.key))):
            continue
        if clash or a.personal or b.personal or types_conflict(a, b):
            return None
        strong = len(letters) >= 4 or not x.surface[:1].isascii()
        described = a.description.strip() and b.description.strip()
        if strict and strong and described and (one_country(a, b) or ev.context(a, b) >= ev.agree_above or
                                                 spelled_out_in(px, y)):
            return Verdict(SAME, 0.8, RULE)
        # syllables ("Pemex", "Petroquímica Mexicana"?) and loose letters spell many names of one country
        return doubtful(0.5, RULE + (", not placed or described alike" if strict else ", read loosely"))
    return None


def syllable_keys(form: NameForm) -> set[str]:
    """Block keys that bring a syllable acronym and its name together (`syllables`): "ys:" and the first two
    letters of a one-word name with any two later ones ("ys:peme" of "Pemex"), "ym:" and the first two letters
    of a longer name's first word with those of its second or third ("ym:peme" of "Petróleos Mexicanos")."""
    ws = form.key.split()
    if len(ws) == 1:
        w = ws[0]
        return {f"ys:{w[:2]}{w[k:k + 2]}" for k in range(2, len(w) - 1)} if 4 <= len(w) <= 16 and w.isalpha() else set()
    content = [w for w in ws if w not in _OPTIONAL and len(w) > 1]
    if not 2 <= len(content) <= 6 or len(content[0]) < 2:
        return set()
    return {f"ym:{content[0][:2]}{w[:2]}" for w in content[1:3] if len(w) >= 2}


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
