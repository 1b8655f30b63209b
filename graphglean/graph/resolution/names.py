"""Reading an entity name: its normalized key, and the parts entity resolution reasons about.

``read_name("The Ghost of Jacob Marley")`` gives the key ``ghost of jacob marley``, the head ``ghost`` and the
owner ``Jacob Marley``; ``read_name("Mrs. Fezziwig")`` the honorific ``mrs`` (female) and the core ``fezziwig``.
Word lists cover the common articles and honorifics of English and the main Western European languages; a
name in a language they miss is still read by its key, only with less evidence.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

import attrs

ARTICLES = frozenset("the a an le la les l der die das el los las il lo gli un une una uno ein eine het".split())
MALE = frozenset(
    "mr mister master sir lord uncle nephew brother father grandpa grandfather king prince herr monsieur señor "
    "senor sr don signor signore sig senhor tio tío onkel oncle messrs".split())
FEMALE = frozenset(
    "mrs missus ms miss misses dame lady aunt auntie niece sister mother grandma grandmother queen princess frau "
    "fräulein fraulein mme madame mlle mademoiselle señora senora sra señorita senorita srta doña dona signora "
    "signorina senhora tia tía tante".split())
NEUTRAL = frozenset("old young dr doctor prof professor rev reverend capt captain col colonel gen general lt sgt "
                    "saint st cousin dott".split())
HONORIFICS = MALE | FEMALE | NEUTRAL
PLURAL_HONORIFICS = frozenset({"misses", "messrs"})
CONJUNCTIONS = frozenset("and & + or und oder et ou y och og és vs v versus".split())
_MARKS = dict.fromkeys(map(ord, "™®©℠"), None)
_QUOTES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'", "`": "'", "\u00b4": "'"})
_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)*'?|&|\+", re.UNICODE)
_OF = re.compile(r"\s+of\s+", re.I)
_POSSESSIVE = re.compile(r"^(.*\S)(?:'s|s')\s+(\S.*)$", re.I)
_TRAILING_POSSESSIVE = re.compile(r"(?:'s|s')$", re.I)
_PAREN = re.compile(r"^(.*\S)\s*\(([^()]+)\)$")
_IRREGULAR = {"men": "man", "women": "woman", "children": "child", "people": "person", "geese": "goose",
              "mice": "mouse", "feet": "foot", "teeth": "tooth", "wives": "wife", "lives": "life",
              "knives": "knife", "leaves": "leaf", "wolves": "wolf", "halves": "half"}


def fold(text: str) -> str:
    """Compatibility form, trademark-like marks dropped, typographic quotes made plain, case folded."""
    return unicodedata.normalize("NFKC", text.translate(_MARKS)).translate(_QUOTES).casefold()


def strip_accents(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", text.translate(_MARKS)) if not unicodedata.combining(c))


def words(text: str) -> list[str]:
    """Folded words of ``text``: hyphens, dots and other punctuation separate words; apostrophes inside stay."""
    return [w.strip("'") or w for w in _WORD.findall(fold(text).replace("-", " ").replace(".", " "))]


@lru_cache(maxsize=65536)
def singular(word: str) -> str:
    """English singular of a plural-looking word (only the common regular and irregular forms)."""
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if len(word) < 4 or not word.isalpha() or word.endswith(("ss", "us", "is", "ous")):
        return word
    if word.endswith("men") and len(word) > 5:  # gentlemen, businessmen
        return word[:-3] + "man"
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "sses", "xes", "zes")):
        return word[:-2]
    if word.endswith("s"):
        return word[:-1]
    return word


def _without_articles(ws: list[str]) -> list[str]:
    i = 0
    while i < len(ws) - 1 and (ws[i] in ARTICLES or ws[i] in ("l'", "d'")):
        i += 1
    out = ws[i:]
    if out and out[0].startswith(("l'", "d'")) and len(out[0]) > 2:  # l'Oréal, d'Artagnan: elided article
        out = [out[0][2:]] + out[1:]
    return out


def key_of(text: str) -> str:
    """The comparison key: folded, accents and punctuation dropped, leading articles removed."""
    return " ".join(_without_articles(words(strip_accents(text))))


@attrs.frozen
class NameForm:
    """One surface name read into the parts resolution compares."""

    surface: str
    key: str  # articles, punctuation, marks, accents and case removed
    compact: str  # the key without spaces (counting-house = counting house = countinghouse)
    singular: str  # the key with its last word made singular
    core: str  # the key without a trailing qualifier (", Utah", "(IRS)")
    qualifier: str  # that qualifier's key, or ""
    paren: bool  # the qualifier was in parentheses: it may be another name of the whole ("(IRS)")
    parts: tuple[str, ...]  # the keys of a combination ("Scrooge and Marley"), else ()
    head: str  # an owned thing ("Scrooge's Clerk", "Ghost of Marley"): the singular key of the thing ...
    owner: str  # ... and the owner's surface name; both "" otherwise
    elliptic: bool  # "The Poulterer's": a possessive with its noun left out
    honorifics: tuple[str, ...]  # leading titles (mr, old, uncle...), for personal names
    person: tuple[str, ...]  # the personal-name words after the titles; () for combinations and owned things
    plural: bool  # the last word looks plural ("The Miss Fezziwigs", "Portly Gentlemen"; also "Dickens")
    initials: str  # first letters of the content words of a name of 2 or more words
    acronym: str  # the name itself when it looks like an acronym ("IRS", "U.S."), folded, else ""
    spelled: tuple[str, ...] = ()  # "Electronic Health Record (EHR) Systems": keys of "ehr systems" and the long form

    @property
    def gender(self) -> str:
        male = any(h in MALE for h in self.honorifics)
        female = any(h in FEMALE for h in self.honorifics)
        return "m" if male and not female else "f" if female and not male else ""


_CONTENT_SKIP = ARTICLES | frozenset("of and for in on at to de du des del di von van".split())


def _split_owner(text: str) -> tuple[str, str] | None:
    """(owner, thing) of "Owner's Thing" or "Thing of Owner"; None when the name is neither."""
    m = _POSSESSIVE.match(text)
    if m:
        return m.group(1), m.group(2)
    parts = _OF.split(text, maxsplit=1)
    if len(parts) == 2 and parts[0].strip() and parts[1].strip():
        return parts[1], parts[0]
    return None


@lru_cache(maxsize=262144)
def read_name(surface: str) -> NameForm:
    """Read one name (pure; cached)."""
    text = " ".join(fold(surface).translate(_QUOTES).split()).strip("\"'*<>")
    qualifier, paren = "", False
    m = _PAREN.match(text)
    if m:
        text, qualifier, paren = m.group(1), key_of(m.group(2)), True
    elif ", " in text:
        head, _, tail = text.rpartition(", ")
        if head and 0 < len(words(tail)) <= 3 and not (set(words(tail)) & CONJUNCTIONS):
            text, qualifier = head, key_of(tail)
    key = key_of(surface)
    core = key_of(text)
    ws = core.split()
    parts: tuple[str, ...] = ()
    if any(w in CONJUNCTIONS for w in ws[1:-1]):
        chunks, cur = [], []
        for w in ws:
            if w in CONJUNCTIONS:
                chunks.append(" ".join(cur))
                cur = []
            else:
                cur.append(w)
        chunks.append(" ".join(cur))
        parts = tuple(c for c in chunks if c)
    head = owner = ""
    elliptic = False
    if not parts:
        split = _split_owner(text)
        if split is not None and key_of(split[0]) and key_of(split[1]):
            owner, thing = split
            head = " ".join(key_of(thing).split()[:-1] + [singular(key_of(thing).split()[-1])])
        elif _TRAILING_POSSESSIVE.search(text) and len(ws) >= 1:
            elliptic = True
    if elliptic:
        core = key_of(_TRAILING_POSSESSIVE.sub("", text))
        ws = core.split()
    honorifics: list[str] = []
    if parts or head:  # titles and personal names belong to the owner or the parts, not to the whole
        ws = []
    while len(ws) > 1 and ws[0] in HONORIFICS:
        honorifics.append(ws.pop(0))
    plural = bool(ws) and (singular(ws[-1]) != ws[-1] or bool(set(honorifics) & PLURAL_HONORIFICS))
    person = tuple(ws)
    kws = key.split()
    content = [w for w in kws if w not in _CONTENT_SKIP]
    initials = "".join(w[0] for w in content) if len(content) >= 2 else ""
    letters = re.sub(r"[^\w]", "", surface)
    acronym = ""
    if 2 <= len(letters) <= 8 and letters.isalpha() and (letters.isupper() or re.fullmatch(r"(\w\.)+\w?\.?", surface)):
        acronym = letters.casefold()
    sing = " ".join(kws[:-1] + [singular(kws[-1])]) if kws else ""
    return NameForm(surface, key, key.replace(" ", ""), sing, core, qualifier, paren, parts, head, owner, elliptic,
                    tuple(honorifics), person, plural, initials, acronym, _spelled(surface))


_INNER_PAREN = re.compile(r"^(.*\S)\s*\(([^()]+)\)\s+(\S.*)$")


def _spelled(surface: str) -> tuple[str, ...]:
    """The two forms of a name that spells out an acronym before its end: "Electronic Health Record (EHR)
    Systems" is "EHR Systems" and "Electronic Health Record Systems" when EHR are the initials before it."""
    m = _INNER_PAREN.match(surface)
    if not m:
        return ()
    long, short, rest = m.groups()
    letters = "".join(w[0] for w in key_of(long).split() if w not in _CONTENT_SKIP)
    if key_of(short).replace(" ", "") != letters:
        return ()
    return (key_of(f"{short} {rest}"), key_of(f"{long} {rest}"))
