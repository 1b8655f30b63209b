"""The nlp method with spaCy: entities are named-entity spans typed through ``graph.nlp_labels``;
relationships are entities that co-occur within ``graph.nlp_window`` sentences, weighted by count; each
record's description quotes the sentence it comes from. The pipeline reads each chunk's NFC form (spaCy cuts a
decomposed "Martínez" at its accent), so names and quotes are NFC; offsets are mapped back to the chunk's text
as it was (`text.nfc.Composed`)."""

from __future__ import annotations

import base64
import bisect
from collections import Counter
from typing import Any, Mapping

import attrs

from ...core.config import GraphConfig
from ...core.spacy_pipeline import exclusive, pieces
from ...text.chunking import Chunk
from ...text.nfc import Composed, nfc
from ..building.merge import normalize_name
from ..records import EntityRecord, ParseResult, Provenance, RelationshipRecord
from .lexicon import lexicon_of
from .span_names import CaseEvidence, articles_of, blank_markers, case_evidence, entity_names, speaker_labels

QUOTES_PER_CHUNK = 3  # sentences quoted per entity per chunk; the description budget trims the rest later
BATCH_SIZE = 32  # texts per nlp.pipe batch
# what the run store keeps of a parse: tokens with their spacing, sentence starts and entities (~12 bytes a token)
ANALYSIS = ("ORTH", "SPACY", "SENT_START", "ENT_IOB", "ENT_TYPE")


def pack(docs: list[Any]) -> str:
    """The spaCy analysis of one chunk (its pieces' docs) as text for the run store."""
    from spacy.tokens import DocBin

    box = DocBin(attrs=list(ANALYSIS), store_user_data=False)
    for doc in docs:
        box.add(doc)
    return base64.b64encode(box.to_bytes()).decode("ascii")


def unpack(text: str, vocab: Any, expected: list[str]) -> list[Any] | None:
    """The docs `pack` stored (with ``vocab``, the pipeline's), or None when their texts are not the
    ``expected`` pieces (another version cut or cleaned the text otherwise) or cannot be read: that chunk is
    parsed again."""
    from spacy.tokens import DocBin

    try:
        docs = list(DocBin().from_bytes(base64.b64decode(text)).get_docs(vocab))
    except Exception:  # noqa: BLE001 - any damage to a stored analysis means: parse again
        return None
    return docs if [d.text for d in docs] == expected else None


@attrs.frozen
class Mention:
    name: str
    type: str
    sentence: int  # index into the chunk's sentences
    start: int  # in the chunk's text


@attrs.define
class _Parsed:
    """One chunk's sentences (start, end in the chunk's text) and entity mentions, in order."""

    sentences: list[tuple[int, int]] = attrs.field(factory=list)
    mentions: list[Mention] = attrs.field(factory=list)

    def in_original(self, composed: Composed | None) -> _Parsed:
        """These offsets, read in ``composed``'s NFC text, in the text as it was (None: the text is NFC)."""
        if composed is None:
            return self
        return _Parsed([composed.span(a, b) for a, b in self.sentences],
                       [attrs.evolve(m, start=composed.at(m.start)) for m in self.mentions])


def quote(text: str, start: int, end: int) -> str:
    """``text[start:end]`` in NFC, its whitespace runs one space each."""
    return " ".join(nfc(text[start:end]).split())


class SpacyGraphExtractor:
    """Records of chunks from a shared spaCy pipeline (`graphglean.core.spacy_pipeline.load_pipeline`)."""

    def __init__(self, nlp: Any, cfg: GraphConfig, evidence: CaseEvidence | None = None,
                 languages: Mapping[str, str] | None = None) -> None:
        self.nlp = nlp
        self.evidence = evidence  # None: from each batch of chunks
        self.languages = languages or {}  # document id -> its language ("" or absent: unknown)
        self.lexicon = lexicon_of(nlp)
        self.types = {label.upper(): kind for label, kind in cfg.nlp_labels.items()}
        self.dropped = {label.upper() for label in cfg.nlp_drop_labels}
        self.window = cfg.nlp_window

    def extract(self, chunks: list[Chunk]) -> list[ParseResult]:
        """One result per chunk. Blocking: call it in a worker thread."""
        return self.extract_stored(chunks, {}, keep=False)[0]

    def extract_stored(self, chunks: list[Chunk], stored: Mapping[str, str], keep: bool = True
                       ) -> tuple[list[ParseResult], dict[str, str]]:
        """One result per chunk, and (when ``keep``) the spaCy analysis (`pack`) of each chunk that was not in
        ``stored`` (by chunk id), parsed now. Records come from the analysis and the input's case evidence, so
        a stored analysis gives the records a fresh parse would. Blocking: call it in a worker thread."""
        evidence = self.evidence or case_evidence(chunks)
        originals = [blank_markers(c.text) for c in chunks]
        composed = [Composed.of(text) for text in originals]  # None: NFC already
        texts = [text if nfc_view is None else nfc_view.text for text, nfc_view in zip(originals, composed)]
        parts = [pieces(text) for text in texts]
        labels = [speaker_labels(text, evidence) for text in texts]
        docs: list[list[Any] | None] = [None] * len(chunks)
        packed: dict[str, str] = {}
        with exclusive(self.nlp):  # docs share the pipeline's vocabulary: read them under the lock too
            for i, c in enumerate(chunks):
                if c.id in stored:
                    docs[i] = unpack(stored[c.id], self.nlp.vocab, [piece for _, piece in parts[i]])
            jobs = [(i, piece) for i, part in enumerate(parts) if docs[i] is None for _, piece in part]
            for i, _ in jobs:
                docs[i] = []
            for (i, _), doc in zip(jobs, self.nlp.pipe((piece for _, piece in jobs), batch_size=BATCH_SIZE)):
                docs[i].append(doc)  # type: ignore[union-attr]
            for i in {i for i, _ in jobs} if keep else ():
                packed[chunks[i].id] = pack(docs[i])  # type: ignore[arg-type]
            read = [self._chunk(part, chunk_docs, evidence, chunk_labels, self.cleaning(c.doc_id))  # type: ignore
                    for c, part, chunk_docs, chunk_labels in zip(chunks, parts, docs, labels)]
        # records are made of plain data: without holding the pipeline other threads wait for
        read = [parsed.in_original(nfc_view) for parsed, nfc_view in zip(read, composed)]
        results = [self.records(c, text, parsed.sentences, parsed.mentions)
                   for c, text, parsed in zip(chunks, originals, read)]
        return results, packed

    def cleaning(self, doc_id: str) -> dict[str, Any]:
        """How names of document ``doc_id`` are cleaned: the articles of its language, and the model's lexicon
        where the document is in the model's language (or its language is unknown)."""
        language = self.languages.get(doc_id, "")
        own = language in ("", self.lexicon.language)
        return {"articles": articles_of(language), "lexicon": self.lexicon if own else None}

    def _chunk(self, part: list[tuple[int, str]], docs: list[Any], evidence: CaseEvidence,
               labels: list[tuple[int, int, str]], cleaning: dict[str, Any]) -> _Parsed:
        """Sentences and mentions of a chunk's parsed pieces (read under the pipeline's lock)."""
        parsed = _Parsed()
        for (offset, _), doc in zip(part, docs):
            self._read(doc, offset, evidence, labels, parsed, cleaning)
        return parsed

    def _read(self, doc: Any, offset: int, evidence: CaseEvidence, labels: list[tuple[int, int, str]],
              into: _Parsed, cleaning: dict[str, Any]) -> None:
        """Sentences and mentions of one parsed piece of a chunk (at ``offset``); ``labels`` are the chunk's
        speaker labels, each a mention of its speaker, whatever the model made of it."""
        first = len(into.sentences)
        starts, char_starts = [], []  # of each sentence (Span.sent walks the whole doc on every call)
        for sent in doc.sents:
            starts.append(sent.start)
            char_starts.append(sent.start_char)
            into.sentences.append((offset + sent.start_char, offset + sent.end_char))
        text = doc.text
        here = [(a - offset, b - offset, name) for a, b, name in labels if offset <= a and b <= offset + len(text)]
        speaker = self.types.get("PERSON", "person")
        for a, _, name in here:
            into.mentions.append(Mention(name, speaker, first + bisect.bisect_right(char_starts, a) - 1, offset + a))
        for ent in doc.ents:
            if ent.label_ in self.dropped:
                continue
            tokens = list(ent)
            for a, b, _ in here:  # a label is its speaker's mention; keep what follows it ("James: Congrats Sam")
                if ent.start_char < b and ent.end_char > a:
                    tokens = [t for t in tokens if t.idx > b]
            kind = self.types.get(ent.label_, ent.label_.lower())
            sentence = first + bisect.bisect_right(starts, ent.start) - 1
            for name in entity_names(tokens, evidence, text, **cleaning):
                into.mentions.append(Mention(name, kind, sentence, offset + ent.start_char))

    def records(self, chunk: Chunk, text: str, sentences: list[tuple[int, int]],
                mentions: list[Mention]) -> ParseResult:
        """Entity records (one per mention; the first few sentences of each entity quoted, in NFC, from ``text``,
        the chunk's text with its markers blanked) and co-occurrence relationship records of one chunk."""
        result = ParseResult()
        quoted: Counter[str] = Counter()
        seen: set[tuple[str, int]] = set()
        names: dict[str, str] = {}
        in_sentence: dict[int, set[str]] = {}
        for position, m in enumerate(sorted(mentions, key=lambda m: m.start)):
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
