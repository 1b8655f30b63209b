"""How much answer a chunk is likely to draw, so the scheduler starts the heaviest chunks first: records grow
with the things a passage names, and in scripts with capitals a name is a capitalized word that does not
open a sentence. A model writes one record per entity, however often the passage names it, and describes it
from every mention, so distinct names count most (on recorded real answers, distinct names follow answer
length twice as closely as mentions do). Without capitals this is the chunk's length alone. The scheduler
corrects the estimate as chunks finish, by how a document's finished chunks compared with theirs."""

from __future__ import annotations

from ...text.chunking import Chunk

_SENTENCE_END = (".", "!", "?", ":", ";", "\u3002")


_PUNCTUATION = ".,;:!?\"'()[]\u201c\u201d\u2019"


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


def names(text: str) -> tuple[int, int]:
    """(name-like words, distinct ones)."""
    found = _name_like(text)
    return len(found), len({w.strip(_PUNCTUATION) for w in found})


def chunk_weight(chunk: Chunk) -> float:
    """About a tenth of a token of answer per token of passage, plus one per name-like word and two more per
    distinct one."""
    mentions, distinct = names(chunk.text)
    return chunk.tokens / 10 + mentions + 2 * distinct
