"""Which spaCy pipeline reads each document of a run: the configured one (``graph.nlp_model``), else one installed
for the document's language, else the default English one; and the one line that says so when a document's
pipeline does not cover its language (a Chinese text read by the English model finds nothing)."""

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


def assign(configured: str, languages: Languages) -> dict[str, str]:
    """The pipeline that reads each language of the text: the configured one for all; else the cheapest one
    installed for the language (or the multi-language one), else "" (the default English models)."""
    if configured:
        return {code: configured for code in languages.chars}
    installed = installed_pipelines()
    plan = {}
    for code in languages.chars:
        found = [installed[lang][0] for lang in (code, "xx") if code not in ("", "en") and lang in installed
                 and covers(lang, code)]
        plan[code] = found[0] if found else ""
    return plan


def coverage_notice(languages: Languages, reads: dict[str, tuple[str, str]], configured: bool) -> str:
    """One line on the text whose reader (``reads``: language -> (how it is named, its language; "en" for the
    rules)) does not cover its language, and how to read it; "" when every language is read."""
    missed = Counter({code: n for code, n in languages.chars.items() if not covers(reads[code][1], code)})
    if not missed:
        return ""
    code = missed.most_common(1)[0][0]
    names = " and ".join(name_of(c) for c, _ in missed.most_common(2))
    share = sum(missed.values()) / max(sum(n for c, n in languages.chars.items() if c), 1)
    if share > 0.5:
        what = f"the text is {names}"
    else:
        docs = sum(not covers(reads[c][1], c) for c in languages.by_document.values())
        what = f"{docs} of {len(languages.by_document)} documents ({share:.0%} of the text) are in {names}"
    return (f"graph.nlp_model: {what}, which {reads[code][0]} does not read: it finds few or no entities there; "
            f"{_remedy(code, configured)}")


def reader_of(model: str, language: str) -> str:
    """How `coverage_notice` names a pipeline ("the English pipeline en_core_web_sm 3.8.0")."""
    return f"the {NAMES.get(language, language)} pipeline {model}"


def _remedy(code: str, configured: bool) -> str:
    installed = installed_pipelines().get(code)
    if installed and configured:
        return (f"leave graph.nlp_model empty to read each language with its installed pipeline ({installed[0]} "
                f"for {name_of(code)}), or set it to {installed[0]}")
    if code in _OFFICIAL:
        package = f"{code}_core_{'web' if code in ('en', 'zh') else 'news'}_sm"
        how = f"install spaCy's {package} (python -m spacy download {package}, or its wheel)"
    elif code in _UNSPACED:
        return f"spaCy has no pipeline for {name_of(code)}: set graph.method: llm (with an endpoint) to read it"
    else:
        how = f"spaCy has no pipeline of its own for {name_of(code)}: install xx_ent_wiki_sm (many languages)"
    return f"{how}, then leave graph.nlp_model empty to read each language with its own pipeline"
