"""The offline method's fallback when spaCy or its model is not installed: entities are proper-noun and
multi-word phrases found by rules; relationships are co-occurrence within a chunk, weighted by count. Words are
read in every cased script ("Łódź", "Αθήνα", "Москва") in the text's NFC form; names are NFC, offsets the
text's own."""

from __future__ import annotations

import re
from collections import Counter

import regex

from ...text.chunking import Chunk
from ...text.nfc import Composed
from ...text.words import LETTERS
from ..records import EntityRecord, ParseResult, Provenance, RelationshipRecord

# Capitalized words that start sentences or are function words: never an entity on their own.
_STOP = frozenset("""a an and as at but by for from he her him his how i if in is it its me my no not of on or our
she so that the their them then there these they this those to up was we what when where which who why with you
your yes oh ah well now here said mr mrs ms dr st""".split())
_TITLES = frozenset("mr mrs ms dr st sir lady lord miss".split())
_CAPITALIZED = rf"[\p{{Lu}}\p{{Lt}}][{LETTERS}'’\-]+"  # a capital letter (or title-case digraph), then letters
_PHRASE = regex.compile(rf"\b{_CAPITALIZED}(?:\s+(?:of\s+the\s+|of\s+|the\s+|de\s+|van\s+)?{_CAPITALIZED})*")
_POSSESSIVE = re.compile(r"['’]s$")
MAX_NEIGHBOURS = 12  # co-occurrence only between phrases this close in the chunk, or the graph is a clique


def _opens_sentence(text: str, i: int) -> bool:
    j = i - 1
    while j >= 0 and text[j] in " \t":
        j -= 1
    return j < 0 or text[j] in ".!?\n\"'“‘("


def noun_phrases(text: str) -> list[tuple[str, int, int]]:
    """(phrase, start, end) of proper-noun phrases: the phrase in NFC, its offsets in ``text``. Possessives are
    cut ("Scrooge's" is Scrooge); a lone word that is a contraction, a function word, a bracketed note or a
    common sentence opener is skipped."""
    composed = Composed.of(text)
    if composed is None:
        return _phrases(text)
    return [(phrase, *composed.span(start, end)) for phrase, start, end in _phrases(composed.text)]


def _phrases(text: str) -> list[tuple[str, int, int]]:
    found = []
    for m in _PHRASE.finditer(text):
        if m.start() > 0 and text[m.start() - 1] == "[":  # [Illustration], [Footnote]
            continue
        words = _POSSESSIVE.sub("", m.group(0).rstrip("'’-")).split()
        while words and words[0].lower().strip("'’") in _STOP - _TITLES:
            words = words[1:]
        if not words:
            continue
        phrase = " ".join(words)
        if len(words) == 1:
            if phrase.lower() in _STOP or len(phrase) < 3 or "'" in phrase or "’" in phrase:
                continue
            if phrase.isupper() and len(phrase) > 4:
                continue
            if _opens_sentence(text, m.start()) and phrase.lower() in _COMMON_OPENERS:
                continue
        start = text.find(phrase, m.start(), m.end())
        found.append((phrase, start, start + len(phrase)))
    return found


_COMMON_OPENERS = frozenset("""after again all also another any because before being both come could did do
does down each even ever every first go good had has have having into just let like little many may might more
most much must never nothing once one only other out over perhaps quite really shall should some still such
than though through thus too under upon very was were what whatever while why will would yet""".split())


def extract_chunk(chunk: Chunk) -> ParseResult:
    result = ParseResult()
    phrases = noun_phrases(chunk.text)
    counts = Counter(p for p, _, _ in phrases)
    for position, name in enumerate(counts):  # a Counter keeps first-seen order
        src = Provenance(chunk.doc_id, chunk.index, chunk.id, position)
        result.entities.append(EntityRecord(name, "noun_phrase", f"{name} is mentioned {counts[name]} time(s).", src))
    pairs: Counter[tuple[str, str]] = Counter()
    for i, (a, _, _) in enumerate(phrases):
        for b, _, _ in phrases[i + 1: i + 1 + MAX_NEIGHBOURS]:
            if a.casefold() != b.casefold():
                pairs[tuple(sorted((a, b)))] += 1  # type: ignore[index]
    offset = len(result.entities)
    for position, ((a, b), n) in enumerate(sorted(pairs.items())):
        src = Provenance(chunk.doc_id, chunk.index, chunk.id, offset + position)
        result.relationships.append(RelationshipRecord(a, b, f"{a} and {b} occur together.", float(n), (), src))
    return result
