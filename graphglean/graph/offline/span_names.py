"""Names from named-entity spans: what a small NER model glues to a name cut off (articles of the text's
language, possessives, greetings, chat speaker labels), and common words that a sentence or quotation
capitalized told from names by how the whole input writes them and what the model's language knows of them."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any, Sequence

import attrs

from ...text.chunking import Chunk
from ...text.nfc import nfc
from .lexicon import Lexicon

COMMON_RATIO = 4  # a word written in lower case more than this many times as often as freely capitalized is common
RECURS = 2  # a word capitalized this often where nothing forces a capital is a name, whatever else it is
# articles by language: the English ones are taken off names in any text, the others in a text of their language
ARTICLES = {lang: frozenset(words.split()) for lang, words in {
    "en": "the a an", "de": "der die das den dem des ein eine einen einem einer eines", "nl": "de het een",
    "fr": "le la les l' l’ un une", "es": "el la los las un una unos unas",
    "it": "il lo la i gli le l' l’ un uno una",
    "pt": "o a os as um uma uns umas", "ca": "el la els les l' l’ un una", "ro": "un o", "sv": "en ett den det",
    "da": "en et den det", "nb": "en ei et den det", "hu": "a az egy",
}.items()}
_ENGLISH = ARTICLES["en"]
_GLUE = frozenset("@./\\_-")
_POSSESSIVE = frozenset({"'s", "’s", "'", "’"})
_HYPHENS = frozenset("-‐–")
# greetings and interjections that open a chat line before a name ("Hey Sam", "Congrats Sam", "Yo Tim")
_INTERJECTIONS = frozenset("""hey hi hello yo oh ah aw wow woah whoa omg lol thanks thank congrats congratulations bye
dear sure yes yeah yep nah no ok okay alright hmm mm um uh so well haha good great nice cool glad sorry yay woohoo
oof gotcha lemme btw fyi welcome awesome ya""".split())
_WORD = re.compile(r"[^\W\d_]+")
_OPENERS = frozenset(".!?:;\"'“”‘’([{—-*#>")
# wiki reference markers ("[12]", "[a]", "[citation needed]"): blanked before parsing, so offsets stay true
_MARKERS = re.compile(r"\[(?:\d+[a-z]?|[a-z]{1,2}|citation needed|clarification needed)\]")


def blank_markers(text: str) -> str:
    return _MARKERS.sub(lambda m: " " * len(m.group(0)), text)


def _forced_capital(text: str, start: int) -> bool:
    """Whether a capital at ``start`` could be the sentence's, a quotation's or a list item's, not the word's."""
    j = start - 1
    while j >= 0 and text[j].isspace():
        j -= 1
    return j < 0 or text[j] in _OPENERS


def _glued(text: str, start: int, end: int) -> bool:
    """Whether the word at ``start:end`` is part of an address, a file name or a hyphenated word ("vinay.chamola@",
    "nvidia.com", "Hart-\nmann"): no evidence of how prose writes it."""
    before = text[start - 1:start]
    if before in _GLUE or (before == "\n" and text[max(0, start - 2):start - 1] == "-"):
        return True
    return text[end:end + 1] in ("@", "/") or (text[end:end + 1] == "." and text[end + 1:end + 2].isalpha())


def _interjection(word: str) -> bool:
    word = word.lower()
    return bool({word, re.sub(r"(.)\1+", r"\1", word)} & _INTERJECTIONS)  # "Awww" is "aw"


@attrs.define
class CaseEvidence:
    """How often a text writes each word in lower case, and how often it capitalizes it where nothing forces a
    capital. A word mostly written in lower case is a common word ("Humbug!" opening a quotation), not a name."""

    lower: Counter[str] = attrs.field(factory=Counter)
    capitalized: Counter[str] = attrs.field(factory=Counter)
    exclaimed: Counter[str] = attrs.field(factory=Counter)  # a whole exclamation of one word ("'Thankee!'")
    cased: bool = False  # whether the text uses capitals at all; in text that does not, case tells nothing

    def add(self, text: str) -> "CaseEvidence":
        for m in _WORD.finditer(text):
            word = m.group(0)
            if word.islower():
                if not _glued(text, m.start(), m.end()):
                    self.lower[word] += 1
            elif word[0].isupper():
                self.cased = True
                if word.isupper():
                    continue
                if not _forced_capital(text, m.start()):
                    self.capitalized[word.casefold()] += 1
                elif text[m.end():m.end() + 1] == "!":
                    self.exclaimed[word.casefold()] += 1
        return self

    def common(self, word: str) -> bool:
        """A capitalized ``word`` that is not a name; acronyms of up to three letters always are ("US")."""
        if _interjection(word):
            return True
        if not self.cased:
            return False
        if word.isupper() and len(word) <= 3:
            return False
        key = word.casefold()
        return self.lower[key] > COMMON_RATIO * self.capitalized[key]

    def names_nothing(self, name: str) -> bool:
        """Every capitalized word of ``name`` is a common word ("Humbug", "Merry Christmas" in Dickens)."""
        words = [w for w in _WORD.findall(name) if w[0].isupper()]
        return bool(words) and all(self.common(w) for w in words)

    def ordinary(self, word: str, lexicon: Lexicon | None) -> bool:
        """A one-word name that is an ordinary word a sentence, quotation or allegory capitalized ("Dine",
        "Nay", "Abundance"): a `common` word or, unless it recurs capitalized where nothing forces a capital or
        the model's language (``lexicon``) knows it for a proper noun, a word the text also writes in lower
        case, an ordinary word of that language, or a one-word exclamation the model has never seen
        capitalized ("'Thankee!'")."""
        if self.common(word):
            return True
        if not self.cased or not (word[:1].isupper() and word[1:].islower()):
            return False
        key = word.casefold()
        free = self.capitalized[key]
        if free >= RECURS or (lexicon is not None and lexicon.proper(word)):
            return False
        if self.lower[key]:
            return True
        if lexicon is None:
            return False
        if free:  # capitalized once where nothing forced it: only a plain noun is taken for a common word
            return lexicon.common_noun(word)
        return lexicon.ordinary(word) or (self.exclaimed[key] > 0 and not lexicon.knows_capitalized(word))


def case_evidence(chunks: list[Chunk]) -> CaseEvidence:
    """Evidence from every chunk of a run: more text tells more than one document does. Read in NFC, as the
    pipeline reads it (a decomposed "Martínez" is no "Marti" and a lower-case "nez")."""
    evidence = CaseEvidence()
    for c in chunks:
        evidence.add(blank_markers(nfc(c.text)))
    return evidence


def _speaker_split(tokens: list[Any], text: str) -> list[list[Any]]:
    """A span that runs over a chat line's speaker label ("James: Congrats") is the speaker and the rest."""
    line_start = tokens[0].idx == 0 or text[tokens[0].idx - 1] == "\n"
    for i, t in enumerate(tokens[1:], 1):
        if t.text == ":" and line_start:
            return [tokens[:i], tokens[i + 1:]]
    return [tokens]


def _capitalized(token: Any, evidence: CaseEvidence) -> bool:
    return token.text[:1].isupper() or token.text[:1].isdigit() or not evidence.cased


def _trim(tokens: list[Any], evidence: CaseEvidence, articles: frozenset[str], text: str) -> list[Any]:
    """Leading articles, interjections ("Hey Sam"), punctuation and lower-case words; trailing punctuation,
    possessives ("Marley's") and lower-case words. A lower-case word hyphenated to the name ("Middle-earth")
    stays, and so does another language's article capitalized where nothing forces a capital: it is the
    name's ("in El Salvador", "nach Den Haag"; an English one is mostly emphasis: "And A Happy New Year")."""
    def junk_head(t: Any, after: Any | None) -> bool:
        hyphenated = after is not None and not t.whitespace_ and after.text in _HYPHENS
        article = t.lower_ in articles and (t.lower_ in _ENGLISH or t.text.islower()
                                            or _forced_capital(text, t.idx))
        return (article or t.is_punct or t.is_space or _interjection(t.text)
                or (not _capitalized(t, evidence) and not hyphenated))

    def junk_tail(t: Any, before: Any) -> bool:
        hyphenated = not before.whitespace_ and before.text in _HYPHENS
        return (t.lower_ in _POSSESSIVE or t.is_punct or t.is_space
                or (not _capitalized(t, evidence) and not hyphenated))

    while tokens and junk_head(tokens[0], tokens[1] if len(tokens) > 1 else None):
        tokens = tokens[1:]
    while len(tokens) > 1 and junk_tail(tokens[-1], tokens[-2]):
        tokens = tokens[:-1]
    return tokens


def articles_of(language: str) -> frozenset[str]:
    """The articles taken off names in a text of ``language`` (a code; "" = unknown): English's and its own."""
    return ARTICLES["en"] | ARTICLES.get(language, frozenset())


def entity_names(span: Sequence[Any], evidence: CaseEvidence, text: str | None = None, *,
                 lexicon: Lexicon | None = None, articles: frozenset[str] = ARTICLES["en"]) -> list[str]:
    """The names a named-entity span (or its tokens) stands for, cleaned: "the City of London" is City of
    London, "Die Deutsche Bank" opening a German sentence is Deutsche Bank, "Marley's" is Marley, "Scrooge
    Scrooge" is Scrooge, "James: Congrats Sam" is James and Sam. Numbers, single letters and common words
    capitalized by position are none; a one-word name is none when it is an ordinary word
    (`CaseEvidence.ordinary`, with the ``lexicon`` of the model's language when the text is in it). ``text`` is
    the doc's text."""
    tokens = list(span)
    if not tokens:
        return []
    text = tokens[0].doc.text if text is None else text  # spaCy rebuilds a doc's text on every access
    names = []
    for part in _speaker_split(tokens, text):
        tokens = _trim(part, evidence, articles, text)
        if not tokens or all(t.like_num for t in tokens):
            continue
        name = text[tokens[0].idx:tokens[-1].idx + len(tokens[-1])].rstrip("-–—\"'’")
        words = name.split()
        if len(words) > 1 and len({w.casefold() for w in words}) == 1:
            name = words[0]
        if sum(c.isalpha() for c in name) < 2 or evidence.names_nothing(name):
            continue
        if len(name.split()) == 1 and evidence.ordinary(name, lexicon):
            continue
        names.append(name)
    return names


# a line that opens with a capitalized name of up to four words and a colon: a chat transcript's speaker label
_LABEL = re.compile(r"^([A-Z][\w.'’-]*(?: [A-Z][\w.'’-]*){0,3}):[ \t]", re.M)


def speaker_labels(text: str, evidence: CaseEvidence) -> list[tuple[int, int, str]]:
    """(start, end, name) of each speaker label of a chat transcript ("Caroline: ..."): a label that opens at
    least two lines of ``text`` and is a name, not a common word ("Note:", "Date:")."""
    found = [(m.start(1), m.end(1), m.group(1)) for m in _LABEL.finditer(text)]
    counts = Counter(name for _, _, name in found)
    return [f for f in found if counts[f[2]] >= 2 and sum(c.isalpha() for c in f[2]) >= 2
            and not evidence.names_nothing(f[2])]
