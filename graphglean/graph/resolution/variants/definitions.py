"""Two English descriptions that say their nodes are two different things: what each says its node is (its
opening noun phrase, the words after "is a"; not what befell it: "was sold to") shares no word with the other's description,
countries aside ("Monster.com", "American online job search website"; "Monster", "an American energy drink
maker"). Only English descriptions are read so: two languages share no words whatever they say ("Munich beer
brand", "Münchner Brauerei"). One thing is often said two ways ("writer", "author"): this is evidence against
a weak reading of the names only (a web domain and a common word), never against the same name."""

from __future__ import annotations

from functools import lru_cache

import regex

from ....text.language import detect
from ....text.words import LETTERS
from ..names import read_name
from ..organizations.written import without_group_words
from ..descriptions.clauses import FINITE_VERBS, phrase_end
from ..profiles import Profile, opening
from ..descriptions.dates import years_of
from .placing import unplaced_words

FEW = 3  # words at least that each description says its node is in
_ENGLISH = frozenset("the of and is was with for from by which who its his her an at to on".split())
# function words of the other languages written in Latin letters: those English names also hold, one at most
# ("Los Angeles", "Des Moines", "Robert De Niro"), and those it never writes (one is enough: Swahili "ya",
# Indonesian "di", German "und")
_PARTICLES = frozenset("de la le les el los las der die das del della di da do du des van von het en et y".split())
_FOREIGN = frozenset("""und ist sind nicht wird mit auf dans pour sont une est zijn niet een och ett är för og
ikke yang dan dengan untuk dari ke ya wa ni kwa katika lenye ng mga ang sa ay bij""".split())
# more such words, two of them counted where written in lower case (names hold them capitalized: "Il Divo"; an
# English text quotes a title: "Rondo alla turca", "Partij voor de Vrijheid")
_FOREIGN_LOWER = frozenset("""il nel nella che gli alla dal sono que por una fue uma foi avec sur aux ein eine
zum zur vom het voor jest dla bir ile geboren gestorben nacido nacida nato nata nascido nascida urodzony
urodzona""".split())
_WORD = regex.compile(rf"[{LETTERS}]+")
_STOP = _ENGLISH | frozenset("a in as or one two three four five six seven eight nine ten".split())


def said_apart(a: Profile, b: Profile) -> bool:
    """Both descriptions are English and each says what its node is in `FEW` words or more, none of which (nor
    its stem) the other's description uses, its countries aside."""
    if not (english(a.description) and english(b.description)):
        return False
    said = [_said(opening(p)) | _said(" ".join(_what_it_is(p))) for p in (a, b)]
    if not all(len(s) >= FEW for s in said):
        return False
    return not ({w[:5] for w in said[0]} & _stems(b.description) or {w[:5] for w in said[1]} & _stems(a.description))


def told_apart(a: Profile, b: Profile) -> bool:
    """Said to be two things (`said_apart`), or two events each dated years away from any the other's gives
    ("COP16", Cali 2024; "COP 16", Cancún 2010; not "Expo 2020", held in 2021, "postponed from 2020")."""
    if said_apart(a, b) or named_longer(a, b) or named_longer(b, a):
        return True
    ya, yb = years_of(a.description), years_of(b.description)
    return all(p.types & _EVENTS for p in (a, b)) and bool(ya and yb) and min(abs(x - y) for x in ya for y in yb) > 2


_EVENTS = frozenset("event tournament conference summit festival election competition championship".split())


def named_longer(x: Profile, y: Profile) -> bool:
    """``x``'s description opens with a longer name of its own than any of ``y``'s, before a comma or a verb of
    being ("EON Productions, the London company ..." of "Eon"; "E.ON" is not it): two namesakes. Legal forms
    and group words left out ("Eon AG", "Rio Tinto Group" name Eon and Rio Tinto)."""
    m = _OPENING_NAME.match(x.description)
    if not m:
        return False
    core = read_name(m[1]).core
    said = (without_group_words(core) or core).replace(" ", "")
    own = {f.compact for f in x.forms} | {f.core.replace(" ", "") for f in x.forms}
    others = {f.compact for f in y.forms} | {f.core.replace(" ", "") for f in y.forms}
    return said not in own | others and any(said.startswith(c) for c in own if c)


# a name in capitals opening a description, before a comma or a verb of being ("EON Productions, the ...")
_OPENING_NAME = regex.compile(r"^\s*(\p{Lu}[\p{L}\p{N}&.'-]*(?:\s+\p{Lu}[\p{L}\p{N}&.'-]*){1,4}),?\s+"
                              r"(?:is\b|was\b|the\b|a\b|an\b)")


def _what_it_is(p: Profile) -> list[str]:
    """The words after "is a ..." in ``p``'s description, to the first relative word or "-ed" participle ("the
    tennis tournament" of "is the tennis tournament held annually in New York"): what it is, not what it does."""
    words: list[str] = []
    for m in _IS_A.finditer(p.description):
        said = _WORD.findall(m.group(1))
        words += said[:phrase_end(said, _RELATIVE, 0)]
    return words


_IS_A = regex.compile(r"\b(?:is|was|are|were)\s+(?:a|an|the|one of)\s+([^.;:()\n]{1,160})", regex.I)
# where what a node is ends: a relative word, or a participle ("held annually", "built in 1931")
_RELATIVE = frozenset("who whom whose which that where by known called named held built made run born won sold "
                      "led".split()) | FINITE_VERBS


@lru_cache(maxsize=16384)
def english(text: str) -> bool:
    """Written in English, as far as its letters and function words tell: ASCII letters, no function word only
    another language writes, and one at most of those English names hold too."""
    found = _WORD.findall(text)
    words = [w.lower() for w in found]
    return bool(words) and all(w.isascii() for w in words) and sum(w in _PARTICLES for w in words) < 2 and \
        not _FOREIGN.intersection(words) and len(_FOREIGN_LOWER.intersection(found)) < 2


def two_languages(x: str, y: str) -> bool:
    """Two descriptions written in two languages (two scripts, or English and another): they share few words
    whatever they say, so sharing none is no sign that they describe two things."""
    (sx, ex), (sy, ey) = _language(x), _language(y)
    return bool(sx and sy) and sx != sy or ex != ey


@lru_cache(maxsize=65536)
def _language(text: str) -> tuple[str, bool]:
    """A description's script and whether it is English, read once for every pair it is in."""
    return detect(text).script, _english(text)


def _english(text: str) -> bool:
    """English, as `english` reads it, a capitalized name of other letters in it aside ("Māori", "Café"; not
    "mené", a French word)."""
    kept = [w for w in text.split() if w.isascii() or not w[:1].isupper()]
    return english(" ".join(kept)) if len(kept) >= 3 else english(text)


@lru_cache(maxsize=16384)
def _said(clauses: str) -> frozenset[str]:
    """The words of what a description says its node is, less function words and the words that place it."""
    return frozenset(w for w in unplaced_words(clauses) if w not in _STOP and len(w) > 1)


@lru_cache(maxsize=16384)
def _stems(text: str) -> frozenset[str]:
    return frozenset(w[:5] for w in unplaced_words(text))
