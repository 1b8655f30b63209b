"""A woman named by her birth name and by her married name ("Hillary Rodham", "who married Bill Clinton";
"Hillary Clinton", "wife of Bill Clinton"): one where both descriptions name one husband, whose surname the
married name bears, and the given names agree. A man's description naming his wife says nothing of his own
name: the husband is known as a man (a word for a wife or widow, or his given name) or the woman by hers. A
birth name given alone ("née Davies") is no evidence: "Ann Davies" is a Welsh MP too."""

from __future__ import annotations

from functools import lru_cache

import regex

from ....text.words import strip_accents
from ..lexicon import FEMALE_GIVEN, MALE_GIVEN
from ..profiles import Profile
from ..verdicts import SAME, Verdict

_NAME = r"((?:\p{Lu}[\p{L}.'-]*\s+){1,4}\p{Lu}[\p{L}'-]+)"
_WIFE = (r"wife of|widow of|[ée]pouse de|veuve de|(?:Ehe)?frau von|Witwe von|esposa de|viuda de|moglie di|"
         r"vedova di|mulher de|viúva de|żona|wdowa po|жена|вдова|vrouw van|weduwe van")
_SPOUSE = regex.compile(rf"\b(?:(?P<wife>{_WIFE})|married(?: to)?|spouse of|mari[ée]e? (?:à|avec)|"
                        rf"heiratete|verheiratet mit|casad[ao] con|sposò|sposata con|casou com)\s+(?:\S+\s+){{0,5}}?"
                        rf"{_NAME}")  # the first full name in the next words ("former UK prime minister Tony Blair")
_SPOUSE_WORD = regex.compile(r"wife|widow|pouse|veuve|frau|witwe|esposa|viuda|moglie|vedova|mulher|viúva|żona|"
                             r"wdowa|жена|вдова|vrouw|weduwe|marri|spouse|mari[ée]|heirat|casad|spos|casou", regex.I)
_TITLES = frozenset("senator president prime minister king prince duke sir dr mr lord general chancellor".split())


def married_name(a: Profile, b: Profile, wa: list[str], wb: list[str]) -> Verdict | None:
    """SAME for one woman by her birth name and her married name (``wa``, ``wb``: the names' words, folded),
    where both descriptions name one husband, by the married name's surname; None otherwise (a granddaughter
    or a daughter-in-law bears the name too: "Barbara Bush", "daughter of George W. Bush")."""
    if not (a.personal and b.personal) or len(wa) < 2 or len(wb) < 2 or wa[0] != wb[0] or \
            not (_SPOUSE_WORD.search(a.description) and _SPOUSE_WORD.search(b.description)):
        return None
    named = [{(surname, given): wife for surname, wife, given in _spouses(p.description)} for p in (a, b)]
    husbands = [(surname, named[0][surname, given] or named[1][surname, given], given)
                for surname, given in named[0].keys() & named[1].keys()]
    for x, y in ((wa, wb), (wb, wa)):
        woman = x[0] in FEMALE_GIVEN
        for surname, wife, husband in husbands:
            if surname in y[1:] and surname not in x[1:] and (woman or wife or husband in MALE_GIVEN):
                return Verdict(SAME, 0.85, "a woman by her birth name and by her husband's")
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
    """The surnames of the spouses a description names, folded."""
    return tuple(surname for surname, _, _ in _spouses(description)) if _SPOUSE_WORD.search(description) else ()


def _fold(text: str) -> str:
    return strip_accents(text).casefold()
