"""What a description's words say its node is: its opening noun phrase ("London daily" of "London daily
founded in 1785"), what follows a comma after its name, and the words after each verb of being, in several
languages."""

from __future__ import annotations

from functools import lru_cache

import regex

from ..names import key_of

# what a description says its node is, in a few languages: the words after the verb, to the clause's end
# (not Czech "je": French "I"; Danish "er" is German "he" too, and what follows it a clause read anyway), past
# the dot of a title or a saint before a name ("an abbey in St. Gallen, Switzerland")
_TITLE_DOT = r"(?<=\b(?:St|Ste|Sta|Mt|Ft|Pt|Dr|Mr|Mrs|Ms|Prof|Gen|Col|Capt|Lt|Sgt|Gov|Sen|Rev|Fr))\.(?=\s*\p{Lu})"
DEFINING = regex.compile(r"\b(?:is|was|are|were|es|era|fue|è|é|foi|ist|war|est|était|jest|był|była|byl|byla|"
                          r"är|var|er|este|adalah|является|был|была)\s+(?!\w+ed\s+by\s+\w+'s\b)"  # "fined by X's"
                          rf"((?:[^.;:,()\n]|{_TITLE_DOT}){{1,80}})", regex.I)
# where a sentence's subject ends: its verb, the frequent ones ("The retailer said ...")
FINITE_VERBS = frozenset("is are was were has have had said says told will would can could did does".split())
# to the first stop, not a dot of initials ("U.S. state", "Washington, D.C.")
_OPENING = regex.compile(rf"^\s*((?:[^.;:()\n]|{_TITLE_DOT}){{1,100}})")
_INITIAL_BEFORE = regex.compile(r"\b\p{Lu}$")
_OPENING_DOTTED = regex.compile(  # read when needed
    rf"^\s*((?:[^.;:()\n]|{_TITLE_DOT}|(?<=\b\p{{Lu}})\.(?=\p{{Lu}}|\s+\p{{Ll}})){{1,100}})")
# a name, then what it is after a comma ("Verve Records, an American jazz record label")
APPOSITION = regex.compile(r"^[^,.;:()\n]{1,60},\s+((?:a|an|the|un|une|una|uno|um|uma|ein|eine|der|die|das|el|la|le|"
                           r"il|lo|o)\s+[^.;:,()\n]{1,80})", regex.I)
# where a description's opening noun phrase ends: a relative word, in several languages
_RELATIVE = frozenset("who whom whose which that where qui que dont où quien cuyo cuya che cui który która które "
                      "welcher welche welches dessen deren by known called named nicknamed formerly also".split()) | \
    FINITE_VERBS
# what follows "is a", "es una", "ist ein"...: a definition, to the sentence's end
DEFINITION = regex.compile(r"\b(?:is|was|es|era|fue|è|é|foi|ist|war|est|était)\s+(?:a|an|the|un|une|una|uno|ein|eine|"
                           r"der|die|das|el|la|le|il|lo|o|um|uma)\s+([^.;:()\n]{1,160})", regex.I)


@lru_cache(maxsize=16384)
def said_to_be(description: str, names: tuple[str, ...]) -> tuple[str, ...]:
    """What ``description`` says its node (named ``names``, as keys) is: its opening noun phrase, what follows
    a comma after its name, and the words after each verb of being."""
    said = tuple(m.group(1) for m in DEFINING.finditer(description))
    return (opening_of(description, names), *(m.group(1) for m in APPOSITION.finditer(description[:120])), *said)


def opening_of(description: str, names: tuple[str, ...]) -> str:
    """The opening noun phrase of ``description`` (see `profiles.opening`), "" where it opens with one of
    ``names``."""
    # as written ("State-controlled"), and a noun phrase's length at most: a verb of another language is not
    # seen ("El organismo rector del fútbol mundial adjudicó el Mundial de 2034 a Arabia Saudí")
    m = _OPENING.match(description)
    if m and description[m.end(1):m.end(1) + 1] == "." and _INITIAL_BEFORE.search(description, 0, m.end(1)):
        m = _OPENING_DOTTED.match(description)  # a dot of initials
    tokens = _phrase_words(m.group(1).split()) if m else []
    if not tokens or any(key_of(" ".join(tokens)).startswith(name) for name in names):
        return ""
    return key_of(" ".join(tokens[:phrase_end(tokens, _RELATIVE)]))


def phrase_end(words: list[str], stops: frozenset[str], start: int = 1) -> int:
    """Where a noun phrase ends in ``words``: at the first of ``stops`` or "-ed" participle from ``start`` on
    ("London daily" of "London daily founded in 1785"; not "a boarding school", nor a name: "United Kingdom"),
    else at their end."""
    for i in range(start, len(words)):
        w = words[i].lower()
        if w in stops or (len(w) > 4 and w.isalpha() and w.endswith("ed") and not words[i][0].isupper()):
            return i
    return len(words)


def _phrase_words(tokens: list[str], most: int = 8) -> list[str]:
    """The first ``most`` words of ``tokens``, English function words not counted ("Royal order of chivalry in
    the United Kingdom"): a verb of another language stays beyond them ("El organismo rector del fútbol mundial
    adjudicó el Mundial de 2034 a Arabia Saudí")."""
    counted = 0
    for i, token in enumerate(tokens):
        counted += token.lower() not in _FUNCTION_WORDS
        if counted > most:
            return tokens[:i]
    return tokens


_FUNCTION_WORDS = frozenset("a an the of in on at and".split())
