"""A woman named by her birth name and by her married name ("Hillary Rodham", "who married Bill Clinton";
"Hillary Clinton"): one where a description names her husband by the other name's surname, or her birth name
("née Bouvier"), and the given names agree. A man's description naming his wife says nothing of his own name:
the husband is known as a man (a word for a wife or widow, "née", or a man's given name) or the woman by hers."""

from __future__ import annotations

from functools import lru_cache

import regex

from ....text.words import strip_accents
from ..lexicon import FEMALE_GIVEN, MALE_GIVEN
from ..profiles import Profile
from ..verdicts import SAME, Verdict

_NAME = r"((?:\p{Lu}[\p{L}.'-]*\s+){0,4}\p{Lu}[\p{L}'-]+)"
_WIFE = (r"wife of|widow of|[ée]pouse de|veuve de|(?:Ehe)?frau von|Witwe von|esposa de|viuda de|moglie di|"
         r"vedova di|mulher de|viúva de|żona|wdowa po|жена|вдова|vrouw van|weduwe van")
_SPOUSE = regex.compile(rf"\b(?:(?P<wife>{_WIFE})|married(?: to)?|spouse of|mari[ée]e? (?:à|avec)|"
                        rf"heiratete|verheiratet mit|casad[ao] con|sposò|sposata con|casou com)\s+(?:\p{{Ll}}+\s+)?"
                        rf"{_NAME}")
_BIRTH_NAME = regex.compile(r"\b(?:née|nee|geb\.|geborene|nacida|nata|nascida|урождённая|урожденная)\s+(\p{Lu}[\p{L}'-]+)")
_TITLES = frozenset("senator president prime minister king prince duke sir dr mr lord general chancellor".split())


def married_name(a: Profile, b: Profile, wa: list[str], wb: list[str]) -> Verdict | None:
    """SAME for one woman by her birth name and her married name (``wa``, ``wb``: the names' words, folded);
    None when the descriptions do not say so."""
    if not (a.personal and b.personal) or len(wa) < 2 or len(wb) < 2 or wa[0] != wb[0]:
        return None
    for x, px, y in ((wa, a, wb), (wb, b, wa)):
        woman = x[0] in FEMALE_GIVEN
        for surname, wife, husband in _spouses(px.description):
            if surname in y[1:] and surname not in x[1:] and (woman or wife or husband in MALE_GIVEN):
                return Verdict(SAME, 0.85, "a woman by her birth name and by her husband's")
        if (born := birth_name(px.description)) and born in y[1:] and born not in x[1:]:
            return Verdict(SAME, 0.85, "a woman by her married name and by her birth name")
    return None


@lru_cache(maxsize=16384)
def _spouses(description: str) -> tuple[tuple[str, bool, str], ...]:
    """(the spouse's surname, whether the node is said to be the wife, the spouse's given name) of each spouse
    a description names, folded; titles before the name left out ("Senator John F. Kennedy")."""
    found = []
    for m in _SPOUSE.finditer(description):
        words = [w for w in _fold(m[2]).split() if w.rstrip(".") not in _TITLES and len(w.rstrip(".")) > 1]
        if words:
            found.append((words[-1], bool(m["wife"]), words[0]))
    return tuple(found)


def other_surnames(description: str) -> tuple[str, ...]:
    """The surnames a description gives its node besides its name's: its spouses' and its birth name, folded."""
    return (*(surname for surname, _, _ in _spouses(description)), *filter(None, [birth_name(description)]))


def birth_name(description: str) -> str:
    """The birth name a description gives its node ("née Bouvier"), folded; "" when it gives none."""
    m = _BIRTH_NAME.search(description)
    return _fold(m[1]) if m else ""


def _fold(text: str) -> str:
    return strip_accents(text).casefold()
