"""The other names a description gives its node: "Société Générale (SocGen) is a French bank", "Volkswagen AG,
also known as VW", "München, englisch Munich", "中国石油天然气集团（简称中石油）". A model writes what the text
said of the name, and a node named so elsewhere in the graph is the same thing, unless its type or what its
description says tell them apart (`evidence`).

In parentheses right after the node's own name, the other name must be one its letters abbreviate ("SocGen",
"MLK" of "Martin Luther King Jr.") or written in another script (a gloss: "東京 (Tokyo)"): what else stands
there is a qualifier or a place ("Springfield (Illinois)", "Tim Cook (Apple)"). After a word that says
"also called" the name is read to the next punctuation, at most six words.
"""

from __future__ import annotations

import re
from functools import lru_cache

import regex

from ....text.language import script_of
from ....text.words import LETTERS
from ..lexicon import (ARTICLES, COUNTRY_NAMES, COUNTRY_OF, ENDONYMS, GENERATIONS, HONORIFICS, JOINING, LEGAL_FORMS, REGIONS,
                       WORLD_REGIONS)
from ..names import key_of, strip_accents
from ..profiles import ORG_TYPES, PERSON_TYPES, PLACE_TYPES, THING_TYPES, Profile, types_conflict
from ..variants.types import english_type
from ..variants.definitions import told_apart
from ..verdicts import SAME, Verdict

# what says the next words are another name of the node: right after its name ("Volkswagen AG, also known as
# VW", "中国石油天然气集团（简称中石油）", "München, englisch Munich"), never elsewhere ("acquired a lab called
# DeepMind", "a rival faction called Fatah")
_MARKER_WORDS = (r"(?:known\s+as|referred\s+to\s+as|called|nicknamed|dubbed|abbreviated(?:\s+as|\s+to)?|"
                 r"short(?:ened)?\s+(?:for|to)|a\.k\.a\.?|\baka|in\s+English|englisch|bekannt\s+als|genannt|"
                 r"conocid[oa]\s+como|llamad[oa]|connue?\s+sous\s+le\s+nom\s+d[e']|\bdite?|dett[oa]|not[oa]\s+come|"
                 r"conhecid[oa]\s+como|chamad[oa]|известн\w*\s+как|сокращённо|сокращенно|简称|又称|也称|略称|通称|通稱|簡稱|"
                 r"약칭|일명)")
_MARKER = (r"(?:(?:is|was|are|were|es|est|ist|è|é)\s+)?(?:(?:also|commonly|better|widely|often|sometimes|popularly|"
           r"simply|informally)\s+)?" + _MARKER_WORDS)
_ALIAS = r"[\s:,]*[\"'“”‘’«»「」『』]?\s*(?P<alias>[^,.;:()（）\[\]\n\"“”«»「」『』]{1,60})"
_WORDS_AT_MOST = 6
_LEADING = frozenset("the a an le la les el los las der die das il lo".split())
_JOINERS = frozenset("of de da do di du des del della von van der den la le y e i of the".split())  # "Queen of Scots"
_AND = regex.compile(r"\s+(?:and|or|und|oder|et|ou|y|e|и)\s+", regex.I)
_KINDS = PERSON_TYPES | PLACE_TYPES | ORG_TYPES | THING_TYPES


# compiled once: a pattern per name would be compiled per node (the regex module's cache holds few)
_AT_START = regex.compile(rf"^\s*(?:[^,.;:()\n]{{1,60}},\s*)?{_MARKER}(?![a-z]){_ALIAS}", regex.I)
# the marker's words alone, found by a plain scan (`re` is faster there) before the markers are matched
_MARKED = re.compile(_MARKER_WORDS, re.I)
_ANY_MARKER = regex.compile(rf"{_MARKER}(?![a-z]){_ALIAS}", regex.I)
_BEFORE_MARKER = regex.compile(r"\s*[,(（—–]?\s*$")
_PARENS = regex.compile(r"\s*[(（]([^()（）]{1,40})[)）]")
_LETTER = regex.compile(rf"[{LETTERS}]")


@lru_cache(maxsize=16384)
def declared_aliases(description: str, names: tuple[str, ...]) -> frozenset[str]:
    """The keys (`names.key_of`) of the other names ``description`` gives a node named ``names`` (its surface
    forms): after one of its names and a word that says "also called" (or at its start), or in parentheses
    after one of its names. Not a kind, a title or an office ("known as Prime Minister")."""
    text = description[:400]
    marked, parens = _MARKED.search(text), "(" in text or "（" in text
    if not (marked or parens):  # most descriptions: read once, cheaply
        return frozenset()
    # at its start, or after what it opens by saying the node is ("German carmaker, also known as VW")
    found = {_cut(m.group("alias")) for m in _AT_START.finditer(text)} if marked else set()
    named = [n for n in names if len(n) >= 2]
    for m in _ANY_MARKER.finditer(text) if marked else ():
        before = text[:m.start()]
        before = before[:_BEFORE_MARKER.search(before).start()]
        if any(_ends_with_name(before, n) for n in named):
            found.add(_cut(m.group("alias")))
    for m in _PARENS.finditer(text) if parens else ():
        inside = m.group(1).strip()
        for name in (n for n in named if _ends_with_name(text[:m.start()], n)):
            if _abbreviates(inside, name) or _glosses(inside, name):
                found.add(inside)
    own = {key_of(n) for n in names}
    return frozenset(k for k in map(key_of, filter(None, found)) if k and k not in own and not _kind_or_title(k))


def _ends_with_name(text: str, name: str) -> bool:
    """``text`` ends with ``name`` (any case), a whole word there."""
    start = len(text) - len(name)
    return start >= 0 and text[start:].casefold() == name.casefold() and not (
        start and _LETTER.match(text[start - 1]))


def _kind_or_title(key: str) -> bool:
    """A kind or a title, not a name: "prime minister", "general secretary", "the company"."""
    return english_type(key) in _KINDS or all(w in HONORIFICS for w in key.split())


def aliases_of_profile(p: Profile) -> frozenset[str]:
    """`declared_aliases` of a node's profile."""
    return declared_aliases(p.description, tuple(f.surface for f in p.forms))


def gives_other_name(a: Profile, b: Profile) -> Verdict | None:
    """SAME where one node's description gives a name of the other as its own, their types do not conflict and
    their descriptions do not say they are two things ("Deutsche Bank (DB)" and "DB", a railway company);
    None otherwise."""
    for x, y in ((a, b), (b, a)):
        given = aliases_of_profile(x)
        if not x.types & PLACE_TYPES:  # a place after a company's or a person's name is where it is ("华为 (Shenzhen)")
            given = frozenset(k for k in given if not (COUNTRY_OF.get(k) or _country_or_region(k)))
        if given and any(f.key in given for f in y.forms) and not types_conflict(a, b) and not told_apart(a, b):
            return Verdict(SAME, 0.8, "its description gives the other's name")
    return None


def _cut(alias: str) -> str:
    """The name at the start of ``alias``: to " and ", and a name written in capitals to its last capitalized
    word ("Dubya by critics": "Dubya"; "the Queen of Scots"); at most six words."""
    words = _AND.split(alias.strip(), maxsplit=1)[0].split()
    while words and words[0].lower() in _LEADING:
        words = words[1:]
    if words and words[0][:1].isupper():
        capitalized = [i for i, w in enumerate(words) if w[:1].isupper() or not w[:1].isalpha()]
        gaps = [i for i in range(len(words)) if i not in capitalized]
        end = next((i for i in gaps if i + 1 not in capitalized or words[i].lower() not in _JOINERS), len(words))
        words = words[:end]
    return " ".join(words) if 0 < len(words) <= _WORDS_AT_MOST else ""


def _letters(text: str) -> str:
    return "".join(c for c in strip_accents(text).casefold() if c.isalnum())


def _abbreviates(short: str, name: str) -> bool:
    """``short`` is written with the first letters of each of ``name``'s words, two words at least, joining
    words, articles, legal forms and generations aside ("SocGen" of "Société Générale", "MLK" of "Martin
    Luther King Jr.", "JLR"); not "NY" of "New York City", nor a code of one word ("FRA" of "Frankfurt")."""
    letters = _letters(short)
    words = [_letters(w) for w in key_of(name).split()]
    content = [w for w in words if w and w not in _SKIPPED]
    return len(content) >= 2 and 2 <= len(letters) < len("".join(content)) and _prefixes(letters, content)


def _prefixes(letters: str, words: list[str]) -> bool:
    """``letters`` is a prefix (one letter or more) of each of ``words`` in turn."""
    if not words:
        return not letters
    first = words[0]
    return any(letters[:n] == first[:n] and _prefixes(letters[n:], words[1:])
               for n in range(1, min(len(first), len(letters)) + 1))


_SKIPPED = JOINING | ARTICLES | frozenset(f for f in LEGAL_FORMS if " " not in f) | frozenset(GENERATIONS)


def _glosses(inside: str, name: str) -> bool:
    """A gloss: ``inside`` is written in another script than ``name`` ("東京 (Tokyo)", "ПАО «Газпром»
    (Gazprom)"), in no more words, and names no country or region the name itself does not ("Москва (Russia)",
    "深圳 (Guangdong)"; "Deutschland (Germany)" is a gloss)."""
    a, b = script_of(inside), script_of(name)
    if not (a and b and a != b) or len(inside.split()) > max(1, len(name.split())):
        return False
    place = _country_or_region(key_of(inside))
    return not place or place == _country_or_region(key_of(name))


def _country_or_region(key: str) -> str:
    return COUNTRY_NAMES.get(key) or ENDONYMS.get(key) or REGIONS.get(key) or WORLD_REGIONS.get(key) or ""
