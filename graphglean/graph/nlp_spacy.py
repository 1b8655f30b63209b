"""The nlp method with spaCy: entities are named-entity spans typed through ``graph.nlp_labels``;
relationships are entities that co-occur within ``graph.nlp_window`` sentences, weighted by count; each
record's description quotes the sentence it comes from."""

from __future__ import annotations

import bisect
import re
from collections import Counter
from typing import Any

import attrs

from ..chunking import Chunk
from ..config import GraphConfig
from ..spacy_pipeline import pieces
from .merge import normalize_name
from .records import EntityRecord, ParseResult, Provenance, RelationshipRecord

QUOTES_PER_CHUNK = 3  # sentences quoted per entity per chunk; the description budget trims the rest later
BATCH_SIZE = 32  # texts per nlp.pipe batch
COMMON_RATIO = 4  # a word written in lower case more than this many times as often as freely capitalized is common
_ARTICLES = frozenset({"the", "a", "an"})
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


def _interjection(word: str) -> bool:
    word = word.lower()
    return bool({word, re.sub(r"(.)\1+", r"\1", word)} & _INTERJECTIONS)  # "Awww" is "aw"


@attrs.define
class CaseEvidence:
    """How often a text writes each word in lower case, and how often it capitalizes it where nothing forces a
    capital. A word mostly written in lower case is a common word ("Humbug!" opening a quotation), not a name."""

    lower: Counter[str] = attrs.field(factory=Counter)
    capitalized: Counter[str] = attrs.field(factory=Counter)
    cased: bool = False  # whether the text uses capitals at all; in text that does not, case tells nothing

    def add(self, text: str) -> "CaseEvidence":
        for m in _WORD.finditer(text):
            word = m.group(0)
            if word.islower():
                self.lower[word] += 1
            elif word[0].isupper():
                self.cased = True
                if not word.isupper() and not _forced_capital(text, m.start()):
                    self.capitalized[word.casefold()] += 1
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


def case_evidence(chunks: list[Chunk]) -> CaseEvidence:
    """Evidence from every chunk of a run: more text tells more than one document does."""
    evidence = CaseEvidence()
    for c in chunks:
        evidence.add(blank_markers(c.text))
    return evidence


@attrs.frozen
class Mention:
    name: str
    type: str
    sentence: int  # index into the chunk's sentences


@attrs.define
class _Parsed:
    """One chunk's sentences (start, end in the chunk's text) and entity mentions, in order."""

    sentences: list[tuple[int, int]] = attrs.field(factory=list)
    mentions: list[Mention] = attrs.field(factory=list)


def _speaker_split(tokens: list[Any], text: str) -> list[list[Any]]:
    """A span that runs over a chat line's speaker label ("James: Congrats") is the speaker and the rest."""
    line_start = tokens[0].idx == 0 or text[tokens[0].idx - 1] == "\n"
    for i, t in enumerate(tokens[1:], 1):
        if t.text == ":" and line_start:
            return [tokens[:i], tokens[i + 1:]]
    return [tokens]


def _capitalized(token: Any, evidence: CaseEvidence) -> bool:
    return token.text[:1].isupper() or token.text[:1].isdigit() or not evidence.cased


def _trim(tokens: list[Any], evidence: CaseEvidence) -> list[Any]:
    """Leading articles, interjections ("Hey Sam"), punctuation and lower-case words; trailing punctuation,
    possessives ("Marley's") and lower-case words. A lower-case word hyphenated to the name ("Middle-earth")
    stays."""
    def junk_head(t: Any, after: Any | None) -> bool:
        hyphenated = after is not None and not t.whitespace_ and after.text in _HYPHENS
        return (t.lower_ in _ARTICLES or t.is_punct or t.is_space or _interjection(t.text)
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


def entity_names(span: Any, evidence: CaseEvidence, text: str | None = None) -> list[str]:
    """The names a named-entity span stands for, cleaned: "the City of London" is City of London, "Marley's"
    is Marley, "Scrooge Scrooge" is Scrooge, "James: Congrats Sam" is James and Sam. Numbers, single letters
    and common words capitalized by position are none."""
    text = span.doc.text if text is None else text  # the doc's text, which spaCy rebuilds on every access
    names = []
    for part in _speaker_split(list(span), text):
        tokens = _trim(part, evidence)
        if not tokens or all(t.like_num for t in tokens):
            continue
        name = text[tokens[0].idx:tokens[-1].idx + len(tokens[-1])].rstrip("-–—\"'’")
        words = name.split()
        if len(words) > 1 and len({w.casefold() for w in words}) == 1:
            name = words[0]
        if sum(c.isalpha() for c in name) >= 2 and not evidence.names_nothing(name):
            names.append(name)
    return names


def quote(text: str, start: int, end: int) -> str:
    return " ".join(text[start:end].split())


class SpacyGraphExtractor:
    """Records of chunks from a loaded spaCy pipeline (`graphglean.spacy_pipeline.load_pipeline`)."""

    def __init__(self, nlp: Any, cfg: GraphConfig, evidence: CaseEvidence | None = None) -> None:
        self.nlp = nlp
        self.evidence = evidence  # None: from each batch of chunks
        self.types = {label.upper(): kind for label, kind in cfg.nlp_labels.items()}
        self.dropped = {label.upper() for label in cfg.nlp_drop_labels}
        self.window = cfg.nlp_window

    def extract(self, chunks: list[Chunk]) -> list[ParseResult]:
        """One result per chunk. Blocking: call it in a worker thread."""
        evidence = self.evidence or case_evidence(chunks)
        texts = [blank_markers(c.text) for c in chunks]
        parsed = [_Parsed() for _ in chunks]
        jobs = [(i, offset, piece) for i, text in enumerate(texts) for offset, piece in pieces(text)]
        docs = self.nlp.pipe((piece for _, _, piece in jobs), batch_size=BATCH_SIZE)
        for (i, offset, _), doc in zip(jobs, docs):
            self._read(doc, offset, evidence, parsed[i])
        return [self.records(c, text, p.sentences, p.mentions) for c, text, p in zip(chunks, texts, parsed)]

    def _read(self, doc: Any, offset: int, evidence: CaseEvidence, into: _Parsed) -> None:
        first = len(into.sentences)
        starts = []  # first token of each sentence (Span.sent walks the whole doc on every call)
        for sent in doc.sents:
            starts.append(sent.start)
            into.sentences.append((offset + sent.start_char, offset + sent.end_char))
        text = doc.text
        for ent in doc.ents:
            if ent.label_ in self.dropped:
                continue
            kind = self.types.get(ent.label_, ent.label_.lower())
            sentence = first + bisect.bisect_right(starts, ent.start) - 1
            for name in entity_names(ent, evidence, text):
                into.mentions.append(Mention(name, kind, sentence))

    def records(self, chunk: Chunk, text: str, sentences: list[tuple[int, int]],
                mentions: list[Mention]) -> ParseResult:
        """Entity records (one per mention; the first few sentences of each entity quoted from ``text``, the
        chunk's text as parsed) and co-occurrence relationship records of one chunk."""
        result = ParseResult()
        quoted: Counter[str] = Counter()
        seen: set[tuple[str, int]] = set()
        names: dict[str, str] = {}
        in_sentence: dict[int, set[str]] = {}
        for position, m in enumerate(mentions):
            key = normalize_name(m.name)
            names.setdefault(key, m.name)
            in_sentence.setdefault(m.sentence, set()).add(key)
            description = ""
            if quoted[key] < QUOTES_PER_CHUNK and (key, m.sentence) not in seen:
                seen.add((key, m.sentence))
                quoted[key] += 1
                description = quote(text, *sentences[m.sentence])
            src = Provenance(chunk.doc_id, chunk.index, chunk.id, position)
            result.entities.append(EntityRecord(m.name, m.type, description, src))
        pairs, first = self._cooccurrences(in_sentence)
        offset = len(result.entities)
        for position, (a, b) in enumerate(sorted(pairs)):
            i, j = first[(a, b)]
            src = Provenance(chunk.doc_id, chunk.index, chunk.id, offset + position)
            description = quote(text, sentences[i][0], sentences[j][1])
            result.relationships.append(RelationshipRecord(names[a], names[b], description, float(pairs[(a, b)]),
                                                           (), src))
        return result

    def _cooccurrences(self, in_sentence: dict[int, set[str]]) -> tuple[Counter[tuple[str, str]],
                                                                        dict[tuple[str, str], tuple[int, int]]]:
        """How many sentence pairs (i, j), i <= j < i + window, hold each pair of entities (one in i, one in
        j), and the first such sentence pair."""
        counts: Counter[tuple[str, str]] = Counter()
        first: dict[tuple[str, str], tuple[int, int]] = {}
        for i in sorted(in_sentence):
            for j in range(i, i + self.window):
                if j not in in_sentence:
                    continue
                together = {(a, b) if a < b else (b, a) for a in in_sentence[i] for b in in_sentence[j] if a != b}
                for pair in together:
                    counts[pair] += 1
                    first.setdefault(pair, (i, j))
        return counts, first
