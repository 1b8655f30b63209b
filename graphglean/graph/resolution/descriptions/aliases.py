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

import unicodedata
from functools import lru_cache

import regex

from ....text.words import LETTERS
from ..names import key_of, strip_accents
from ..profiles import Profile, types_conflict
from ..variants.definitions import told_apart
from ..verdicts import SAME, Verdict

_MARKER = regex.compile(
    r"(?:\b(?:also|commonly|better|widely|often|sometimes|popularly|simply|informally)\s+)?"
    r"(?:\bknown\s+as|\breferred\s+to\s+as|\bcalled|\bnicknamed|\bdubbed|\babbreviated(?:\s+as|\s+to)?"
    r"|\bshort(?:ened)?\s+(?:for|to)|\ba\.k\.a\.?|\baka\b|\bin\s+English|\benglisch|\bbekannt\s+als|\bgenannt"
    r"|\bconocid[oa]\s+como|\bllamad[oa]|\bconnue?\s+sous\s+le\s+nom\s+d[e']|\bdit[e]?\b|\bdett[oa]|\bnot[oa]\s+come"
    r"|\bconhecid[oa]\s+como|\bchamad[oa]|известн\w*\s+как|\bтакже|\bсокращённо|\bсокращенно"
    r"|简称|又称|也称|略称|通称|通稱|簡稱|약칭|일명)[\s:,]*[\"'“”‘’«»「」『』]?\s*"
    r"(?P<alias>[^,.;:()（）\[\]\n\"“”«»「」『』]{1,60})", regex.I)
_WORDS_AT_MOST = 6
_LEADING = frozenset("the a an le la les el los las der die das il lo".split())
_JOINERS = frozenset("of de da do di du des del della von van der den la le y e i of the".split())  # "Queen of Scots"
_AND = regex.compile(r"\s+(?:and|or|und|oder|et|ou|y|e|и)\s+", regex.I)


@lru_cache(maxsize=16384)
def declared_aliases(description: str, names: tuple[str, ...]) -> frozenset[str]:
    """The keys (`names.key_of`) of the other names ``description`` gives a node named ``names`` (its surface
    forms): after a word that says "also called", or in parentheses after one of its names."""
    text = description[:400]
    found = {_cut(m.group("alias")) for m in _MARKER.finditer(text)}
    for name in names:
        if len(name) < 2:
            continue
        for m in regex.finditer(rf"(?<![{LETTERS}]){regex.escape(name)}\s*[(（]([^()（）]{{1,40}})[)）]", text, regex.I):
            inside = m.group(1).strip()
            if _abbreviates(inside, name) or _other_script(inside, name):
                found.add(inside)
    own = {key_of(n) for n in names}
    return frozenset(k for k in map(key_of, filter(None, found)) if k and k not in own)


def aliases_of_profile(p: Profile) -> frozenset[str]:
    """`declared_aliases` of a node's profile."""
    return declared_aliases(p.description, tuple(f.surface for f in p.forms))


def gives_other_name(a: Profile, b: Profile) -> Verdict | None:
    """SAME where one node's description gives a name of the other as its own, their types do not conflict and
    their descriptions do not say they are two things ("Deutsche Bank (DB)" and "DB", a railway company);
    None otherwise."""
    for x, y in ((a, b), (b, a)):
        given = aliases_of_profile(x)
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
    """``short`` is written with letters of ``name``, in order, from its first ("SocGen" of "Société
    Générale", "MLK" of "Martin Luther King Jr."), and is shorter."""
    s, n = _letters(short), _letters(name)
    if not (2 <= len(s) < len(n)) or s[0] != n[0]:
        return False
    rest = iter(n)
    return all(c in rest for c in s)


def _script(text: str) -> str:
    """The script of ``text``'s first letter: "latin", or the first word of its Unicode name."""
    letter = next((c for c in text if c.isalpha()), "")
    return unicodedata.name(letter, "").split(" ")[0].lower() if letter else ""


def _other_script(inside: str, name: str) -> bool:
    """A gloss: ``inside`` is written in another script than ``name`` ("東京 (Tokyo)", "Москва (Moscow)")."""
    a, b = _script(inside), _script(name)
    return bool(a and b and a != b)
