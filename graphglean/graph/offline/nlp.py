"""The offline graph method (``graph.method: nlp``): spaCy named entities where spaCy and a pipeline are
installed (the configured one, else one for the text's language, else English), else the rule-based fallback
with a notice saying how to get the better method; a notice too for text in a language the pipeline does not
read. Its records go through the same merge and grounding as the LLM method's."""

from __future__ import annotations

import functools
from typing import Any, Awaitable, Callable, Mapping

import attrs
import networkx as nx
import trio

from ...core.config import GraphConfig
from ...core.errors import ConfigError
from ...core.spacy_pipeline import INSTALL_HINT, load_pipeline, model_name
from ...core.tokens import Tokenizer
from ...text.chunking import Chunk
from ...text.language import name_of
from ..records import ParseResult
from .nlp_heuristic import extract_chunk
from .nlp_spacy import SpacyGraphExtractor
from .pipeline_choice import Languages, choose, covers, coverage_notice, detect_languages, reader_of
from .span_names import case_evidence

FALLBACK_NOTICE = ("graph.method nlp: spaCy or its English model is not installed, so entities are capitalized "
                   f"phrases found by rules; for typed named entities: {INSTALL_HINT}")
CHUNKS_PER_THREAD_CALL = 32  # ~3 CPU s: a cancelled run stops, and a killed one has stored, between these; 16
# cost ~9% more CPU (nlp.pipe batches of 32 texts half full), 64 made Ctrl-C wait ~7 s

SaveAnalyses = Callable[[dict[str, str]], Awaitable[None]]
# given the backend ("spacy <model> <version>"): the stored analyses by chunk id, and how to store new ones
OfflineResume = Callable[[str], tuple[Mapping[str, str], SaveAnalyses]]


@attrs.frozen
class OfflineExtraction:
    results: list[ParseResult]  # one per chunk, in order
    backend: str  # "spacy <model> <version>" or "rules"
    resumed: int = 0  # chunks whose stored spaCy analysis was used
    languages: dict[str, int] = attrs.field(factory=dict)  # documents per detected language
    uncovered_documents: int = 0  # documents in a language the backend does not read
    language_notice: str = ""  # the line that said so

    def report_fields(self) -> dict[str, Any]:
        """What the graph pass's row of report.json says of the languages."""
        return {"languages": self.languages, "uncovered_documents": self.uncovered_documents,
                "language_notice": self.language_notice}


def _rules(chunks: list[Chunk], stored: Mapping[str, str], keep: bool) -> tuple[list[ParseResult], dict[str, str]]:
    return [extract_chunk(c) for c in chunks], {}


async def extract_offline(chunks: list[Chunk], cfg: GraphConfig, notice: Callable[[str], None], *,
                          resume: OfflineResume | None = None,
                          advance: Callable[[int], None] | None = None) -> OfflineExtraction:
    """Records of every chunk without an LLM; the parsing runs in worker threads, in batches of chunks.
    With ``resume``, spaCy's analysis of each chunk is stored as its batch finishes and read back instead of
    parsed again; ``advance`` is told how many chunks each batch finished."""
    languages = await trio.to_thread.run_sync(detect_languages, chunks)
    nlp = await trio.to_thread.run_sync(_load, cfg.nlp_model, languages, notice)
    stored: Mapping[str, str] = {}
    save: SaveAnalyses | None = None
    if nlp is None:
        notice(FALLBACK_NOTICE)
        extract, backend = _rules, "rules"
    else:
        evidence = await trio.to_thread.run_sync(case_evidence, chunks)
        extractor = await trio.to_thread.run_sync(SpacyGraphExtractor, nlp, cfg, evidence, languages.by_document)
        extract, backend = extractor.extract_stored, f"spacy {model_name(nlp)}"
        if resume is not None:
            stored, save = resume(backend)
    reads, said = _coverage(nlp, languages, notice)
    results: list[ParseResult] = []
    resumed = 0
    for i in range(0, len(chunks), CHUNKS_PER_THREAD_CALL):
        batch = chunks[i:i + CHUNKS_PER_THREAD_CALL]
        found, analyses = await trio.to_thread.run_sync(extract, batch, stored, save is not None)
        results += found
        resumed += sum(c.id in stored and c.id not in analyses for c in batch)  # a damaged one was parsed
        if save is not None and analyses:
            await save(analyses)
        if advance is not None:
            advance(len(batch))
    uncovered = sum(not covers(reads, code) for code in languages.by_document.values())
    return OfflineExtraction(results, backend, resumed, languages.documents(), uncovered, said)


def _load(configured: str, languages: Languages, notice: Callable[[str], None]) -> Any:
    """The pipeline `pipeline_choice.choose` picks, loaded (blocking); the default one when the pipeline chosen
    by language cannot be loaded."""
    chosen = choose(configured, languages)
    if chosen == configured:
        return load_pipeline(configured, "graph.nlp_model", sentences=True)
    try:
        nlp = load_pipeline(chosen, "graph.nlp_model", sentences=True)
    except ConfigError as e:
        notice(f"graph.nlp_model: {chosen}, installed for {name_of(languages.main)}, cannot be loaded "
               f"({str(e).removeprefix('graph.nlp_model: ')}); reading with the default English pipeline")
        return load_pipeline("", "graph.nlp_model", sentences=True)
    notice(f"graph.nlp_model: the text is {name_of(languages.main)}: reading it with the installed "
           f"{model_name(nlp)} (set graph.nlp_model to choose another)")
    return nlp


def _coverage(nlp: Any, languages: Languages, notice: Callable[[str], None]) -> tuple[str, str]:
    """The language the backend reads ("en" for the rules), and the line that says what text it does not read
    (told to ``notice``; "" when it reads all)."""
    reads = "en" if nlp is None else nlp.lang
    reader = "the rule-based fallback (English only)" if nlp is None else reader_of(model_name(nlp), nlp.lang)
    said = coverage_notice(languages, reader, reads)
    if said:
        notice(said)
    return reads, said


def fit_quotes(graph: nx.Graph, tokenizer: Tokenizer, budget: int) -> None:
    """Cut each node's and edge's descriptions (quotes, in order of appearance) to the first ones that fit in
    ``budget`` tokens together; a first quote longer than the budget is cut short with an ellipsis."""
    for _, data in graph.nodes(data=True):
        _fit(data, tokenizer, budget)
    for _, _, data in graph.edges(data=True):
        _fit(data, tokenizer, budget)


def _fit(data: dict, tokenizer: Tokenizer, budget: int) -> None:
    kept: list[str] = []
    used = 0
    for text in data.get("descriptions", []):
        n = tokenizer.count(text) + 1  # + the line break that joins them
        if used + n > budget:
            if not kept:
                kept.append(tokenizer.truncate(text, max(budget - 1, 1)).rstrip() + "…")
            break
        kept.append(text)
        used += n
    data["descriptions"] = kept
    data["description"] = "\n".join(kept)
