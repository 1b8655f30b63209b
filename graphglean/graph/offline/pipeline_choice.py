"""Which spaCy pipeline reads a run's text: the configured one (``graph.nlp_model``), else one installed for the
language most of the text is in, else the default English one; and the one line that says so when the pipeline
does not cover the language of some of the text (a Chinese text read by the English model finds nothing)."""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Iterable

import attrs

from ...core.spacy_pipeline import installed_pipelines
from ...text.chunking import Chunk
from ...text.language import NAMES, SAMPLE_CHARS, detect, name_of

# spaCy's multi-language pipeline splits words at spaces: no help for scripts written without them
_UNSPACED = frozenset({"zh", "ja", "th", "km", "lo", "my"})
# languages with an official spaCy pipeline: "<code>_core_news_sm" ("_web_" for these two)
_OFFICIAL = frozenset("ca zh hr da nl en fi fr de el it ja ko lt mk nb pl pt ro ru sl es sv uk".split())


@attrs.frozen
class Languages:
    """The detected language of each document of a run, and how much text each language has."""

    by_document: dict[str, str]  # document id -> language code ("" = too little text to tell)
    chars: Counter[str]  # language code -> characters of text

    @property
    def main(self) -> str:
        """The language most of the text is in ("" when none could be told)."""
        known = [(n, code) for code, n in self.chars.items() if code]
        return max(known)[1] if known else ""

    def documents(self) -> dict[str, int]:
        """Documents per language, for the report ("" is ``unknown``)."""
        return dict(sorted(Counter(code or "unknown" for code in self.by_document.values()).items()))


def detect_languages(chunks: Iterable[Chunk]) -> Languages:
    """Each document's language from its first `SAMPLE_CHARS` characters (chunks in order)."""
    samples: dict[str, list[str]] = defaultdict(list)
    sampled: Counter[str] = Counter()
    sizes: Counter[str] = Counter()
    for c in chunks:
        sizes[c.doc_id] += len(c.text)
        if sampled[c.doc_id] < SAMPLE_CHARS:
            samples[c.doc_id].append(c.text)
            sampled[c.doc_id] += len(c.text)
    by_document = {doc: detect("\n".join(texts)).language for doc, texts in samples.items()}
    chars: Counter[str] = Counter()
    for doc, code in by_document.items():
        chars[code] += sizes[doc]
    return Languages(by_document, chars)


def covers(model_language: str, language: str) -> bool:
    """Whether a pipeline of ``model_language`` (``xx``: many) reads text in ``language`` ("": unknown)."""
    return not language or language == model_language or (model_language == "xx" and language not in _UNSPACED)


def choose(configured: str, languages: Languages) -> str:
    """The pipeline to load: the configured one, else the cheapest one installed for the main language (or
    the multi-language one), else "" (the default English models)."""
    main = languages.main
    if configured or main in ("", "en"):
        return configured
    installed = installed_pipelines()
    for lang in (main, "xx"):
        if lang in installed and covers(lang, main):
            return installed[lang][0]
    return ""


def coverage_notice(languages: Languages, reader: str, backend_language: str) -> str:
    """One line on the text that ``reader`` (a pipeline of ``backend_language``, or the rules: "en") does not
    cover, and how to read it; "" when it covers all of it."""
    missed = Counter({code: n for code, n in languages.chars.items() if not covers(backend_language, code)})
    if not missed:
        return ""
    code = missed.most_common(1)[0][0]
    names = " and ".join(name_of(c) for c, _ in missed.most_common(2))
    whole = sum(n for c, n in languages.chars.items() if c)
    share = sum(missed.values()) / max(whole, 1)
    if share > 0.5:
        what = f"the text is {names}"
    else:
        docs = sum(not covers(backend_language, c) for c in languages.by_document.values())
        what = f"{docs} of {len(languages.by_document)} documents ({share:.0%} of the text) are in {names}"
    return (f"graph.nlp_model: {what}, which {reader} does not read: it finds few or no entities there; "
            f"{_remedy(code, whole=share > 0.5)}")


def reader_of(model: str, language: str) -> str:
    """How `coverage_notice` names a pipeline ("the English pipeline en_core_web_sm 3.8.0")."""
    return f"the {NAMES.get(language, language)} pipeline {model}"


def _remedy(code: str, whole: bool) -> str:
    installed = installed_pipelines().get(code)
    if installed:
        return (f"set graph.nlp_model to {installed[0]} (installed)" if whole else
                f"run those documents on their own with graph.nlp_model: {installed[0]} (installed)")
    if code in _OFFICIAL:
        package = f"{code}_core_{'web' if code in ('en', 'zh') else 'news'}_sm"
        how = f"install spaCy's {package} (python -m spacy download {package}, or its wheel)"
    elif code in _UNSPACED:
        return f"spaCy has no pipeline for {name_of(code)}: set graph.method: llm (with an endpoint) to read it"
    else:
        how = f"spaCy has no pipeline of its own for {name_of(code)}: install xx_ent_wiki_sm (many languages)"
    return (f"{how}, then leave graph.nlp_model empty to have it chosen by language, or set it to the "
            "pipeline's name or folder")
