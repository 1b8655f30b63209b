"""The ordinary words of a spaCy pipeline's language, from what the pipeline itself ships: its lemmatizer's
word lists (English: WordNet's nouns, verbs, adjectives and adverbs), the strings of its vocabulary in the cases
its training text wrote them, and (English) its tagger's reading of the word written in lower case inside a
plain sentence. Names are in the word lists too ("london", "japan": a verb), but the tagger reads "japan" in
"They talked about japan ." as a proper noun, and "star" as a common one."""

from __future__ import annotations

import functools
import threading
from typing import Any, Callable

import attrs

from ...core.spacy_pipeline import shipped_strings

_NOUNS = frozenset({"noun", "propn"})
_PROBES = ("I saw {} yesterday .", "They talked about {} .")  # a word in lower case where a noun or name fits
_PROPER = frozenset({"NNP", "NNPS"})
_COMMON = frozenset({"NN", "NNS"})
_made: dict[int, "Lexicon"] = {}
_making = threading.Lock()


@attrs.frozen
class Lexicon:
    language: str  # the pipeline's language code
    nouns: frozenset[str]  # lower-case forms its word lists give as nouns
    others: frozenset[str]  # ... as another part of speech (verb, adjective, adverb; any, for a lookup table)
    strings: frozenset[str]  # the vocabulary's strings as shipped
    tags: Callable[[str], tuple[str, ...]] | None = None  # the tagger's tags of a lower-case word in `_PROBES`

    def ordinary(self, word: str) -> bool:
        """Whether a capitalized ``word`` ("Dine", "Nay") is an ordinary word of the language: listed as a verb,
        adjective or adverb, or as a noun the training text wrote in lower case only (a name there, "Turing",
        is in neither case). Names are listed too ("japan" is a verb): ask `proper` first."""
        key = word.lower()
        return key in self.others or self._lower_only(word, key)

    def proper(self, word: str) -> bool:
        """Whether the tagger reads ``word``, in lower case inside plain sentences, as a proper noun every time
        ("japan", "nvidia", "london"; not "star", nor a name it does not know: "merkel")."""
        return self.tags is not None and set(self.tags(word.lower())) <= _PROPER

    def common_noun(self, word: str) -> bool:
        """Whether ``word`` is a plain common noun ("Abundance", "Star"), a stricter test than `ordinary` for a
        word a text capitalized where nothing forced it: a listed noun the training text never wrote
        capitalized, or one listed as another part of speech too that the tagger reads as a common noun
        wherever it stands in lower case (a noun that is only a noun may be a name: "Taylor", "Bangladesh")."""
        key = word.lower()
        if key not in self.nouns:
            return False
        if self._lower_only(word, key):
            return True
        return key in self.others and self.tags is not None and set(self.tags(key)) <= _COMMON

    def knows_capitalized(self, word: str) -> bool:
        """Whether the training text wrote ``word`` capitalized (a name, or a word opening sentences)."""
        return word.capitalize() in self.strings

    def _lower_only(self, word: str, key: str) -> bool:
        listed = key in self.nouns or not (self.nouns or self.others)  # no word lists: any string
        return listed and key in self.strings and word.capitalize() not in self.strings


def lexicon_of(nlp: Any) -> Lexicon:
    """The `Lexicon` of a pipeline from `load_pipeline`, made once per pipeline (~0.1 s). Use it inside
    `exclusive` (its tagger is the pipeline's)."""
    with _making:
        if id(nlp) not in _made:
            nouns, others = _word_lists(nlp)
            _made[id(nlp)] = Lexicon(nlp.lang, nouns, others, shipped_strings(nlp), _tagger(nlp))
        return _made[id(nlp)]


def _tagger(nlp: Any) -> Callable[[str], tuple[str, ...]] | None:
    """The tags an English pipeline's tagger gives a word in each of `_PROBES` (cached per word); None for a
    pipeline of another language or without a Penn Treebank tagger."""
    names = [n for n in ("tok2vec", "tagger") if n in nlp.component_names]
    if nlp.lang != "en" or "tagger" not in names or "NNP" not in nlp.get_pipe("tagger").labels:
        return None
    components = [nlp.get_pipe(n) for n in names]  # called directly: enabled or not, the shared pipeline's

    @functools.lru_cache(maxsize=100_000)
    def tags(word: str) -> tuple[str, ...]:
        found = []
        for probe in _PROBES:
            doc = nlp.make_doc(probe.format(word))
            for component in components:
                doc = component(doc)
            found.append(next((t.tag_ for t in doc if t.text == word), ""))
        return tuple(found)

    return tags


def _word_lists(nlp: Any) -> tuple[frozenset[str], frozenset[str]]:
    """The lemmatizer's nouns and other words (lower-case, alphabetic): rule lemmatizers list words by part of
    speech (``lemma_index``), lookup ones map forms to lemmas (there, German nouns' lemmas are capitalized)."""
    lookups = next((getattr(nlp.get_pipe(n), "lookups", None) for n in nlp.component_names
                    if getattr(nlp.get_pipe(n), "lookups", None) is not None), None)
    nouns: set[str] = set()
    others: set[str] = set()
    if lookups is not None and lookups.has_table("lemma_index"):
        index = lookups.get_table("lemma_index")
        for pos in ("noun", "propn", "verb", "adj", "adv"):
            listed = {w for w in index.get(pos, ()) if w.isalpha() and w.islower()}
            (nouns if pos in _NOUNS else others).update(listed)
    if lookups is not None and lookups.has_table("lemma_lookup"):
        others |= {w for w in lookups.get_table("lemma_lookup").values()
                   if isinstance(w, str) and w.isalpha() and w.islower()}
    return frozenset(nouns), frozenset(others)
