"""How much answer a chunk is likely to draw, so the scheduler starts the longest chains first.

A model writes a record for each thing a sentence names and one for each pair it relates, and describes each
from the sentence it stands in: so a sentence naming n things draws about 2n - 1 records, each about as long
as the sentence. The estimate adds that up over the chunk's sentences, in answer tokens: it is what tells a
chunk of long sentences listing many people from one of the same length naming a few, or of filler. In
scripts with capitals a name is a run of capitalized words (a sentence's first word only when the next one is
capitalized too: "The" opens sentences, "Ada Ames" is a name). The passage's own length is added: text
without capitals gives no names, and a passage of concepts rather than names still draws an answer. The
scheduler corrects the estimate as chunks finish, by how a document's finished chunks compared with theirs."""

from __future__ import annotations

import re

from ...text.chunking import Chunk

_SENTENCE_END = (".", "!", "?", ":", ";", "\u3002")
_NAME_END = (",", ")", '"', "\u201d", *_SENTENCE_END)  # a name ends with its word
_PUNCTUATION = ".,;:!?\"'()[]\u201c\u201d\u2019"
_RECORD_TOKENS = 8  # a record's own tokens besides its description: kind, name, type, delimiters
_CHARS_PER_TOKEN = 4
_LIST_SEPARATORS = 2
_CITATION = re.compile(r"\((?:1[5-9]|20)\d\d[a-z]?\)|\bpp?\. ?\d|\bVol\. ?\d|\(Eds?\.\)|\bet al\b|^\s*\[\d+\]")
_LIST_LINE_WORDS = 4  # a shorter line (a heading, a line of dialogue) does not tell a list from prose


def _name_like(text: str) -> list[str]:
    """Capitalized words that do not open a sentence (or the text)."""
    words = text.split()  # read for every chunk before any call: a third of a regex scan's time on long chunks
    return [word for previous, word in zip(words, words[1:])
            if word[:1].isupper() and not previous.endswith(_SENTENCE_END)]


def named_words(text: str) -> int:
    return len(_name_like(text))


def lower_words(text: str) -> list[str]:
    """The words of ``text`` that start in lower case, punctuation stripped: what tells a name from a word
    that a sentence or quotation capitalized."""
    return [w.strip(_PUNCTUATION) for w in text.split() if w[:1].islower()]


def distinct_names(text: str) -> set[str]:
    """The name-like words of ``text``, lower case, punctuation stripped, each once."""
    return {w.strip(_PUNCTUATION).lower() for w in _name_like(text)} - {""}


def listed_names(text: str) -> tuple[int, int]:
    """(name-like words standing in lists, name-like words judged). A line of four words or more is a list when
    at least half its words are capitalized and it separates names by commas ("Okafor, L. Brandt, and") or cites
    ("(2019)", "pp. 17", "et al.", "[14]"): an author or reference list, credits. A sentence dense with names
    separates them by words ("met French President Emmanuel Macron in Berlin"); shorter lines ("said
    Scrooge.") are not judged. A model lists such names and relates few of them (recorded qwen3-8b answers
    over papers: 401 of the 418 entities found on such lines related to nothing, 302 of the 439 found in
    prose)."""
    listed = judged = 0
    for line in text.split("\n"):
        words = [w for w in line.split() if w[:1].isalpha()]
        if len(words) < _LIST_LINE_WORDS:
            continue
        found = named_words(line)
        judged += found
        if 2 * sum(w[0].isupper() for w in words) >= len(words) and (
                _names_in_a_row(words) >= _LIST_SEPARATORS or _CITATION.search(line)):
            listed += found
    return listed, judged


def _names_in_a_row(words: list[str]) -> int:
    """How often a capitalized word and a comma or semicolon are followed by another capitalized word ("Okafor,
    L."; "Demir, Hanna"): a list's separators, which a sentence's commas ("on Monday, and") seldom are."""
    return sum(1 for word, after in zip(words, words[1:])
               if word[0].isupper() and word.endswith((",", ";")) and after[0].isupper())


def names(text: str) -> tuple[int, int]:
    """(name-like words, distinct ones)."""
    found = _name_like(text)
    return len(found), len({w.strip(_PUNCTUATION) for w in found})


def answer_estimate(text: str) -> float:
    """The answer tokens a passage draws by the reckoning of the module docstring (0 without names)."""
    total = 0.0
    names: set[str] = set()
    run: list[str] = []  # the name being read
    opens = False  # whether it opens its sentence
    chars = 0  # the sentence's so far
    for word in text.split():  # once per chunk before any call: one plain loop, no regex
        capital = word[0].isupper()
        if capital:
            if not run:
                opens = not chars
            run.append(word)
        chars += len(word) + 1
        if run and (not capital or word.endswith(_NAME_END)):
            if not opens or len(run) > 1:  # a lone capitalized word opening the sentence ("The") is no name
                names.add(" ".join(run).strip(_PUNCTUATION))
            run = []
        if word.endswith(_SENTENCE_END):
            if names:
                total += (2 * len(names) - 1) * (chars / _CHARS_PER_TOKEN + _RECORD_TOKENS)
                names = set()
            chars = 0
    if run and (not opens or len(run) > 1):
        names.add(" ".join(run).strip(_PUNCTUATION))
    if names:
        total += (2 * len(names) - 1) * (chars / _CHARS_PER_TOKEN + _RECORD_TOKENS)
    return total


def chunk_weight(chunk: Chunk) -> float:
    """The chunk's expected answer tokens: its length (the floor of an answer, and all there is to go by in text
    without capitals) plus `answer_estimate`."""
    return chunk.tokens + answer_estimate(chunk.text)
