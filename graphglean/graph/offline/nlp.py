"""The offline graph method (``graph.method: nlp``): spaCy named entities where spaCy and a pipeline are
installed (the configured one, else one for the text's language, else English), else the rule-based fallback
with a notice saying how to get the better method; a notice too for text in a language the pipeline does not
read. Its records go through the same merge and grounding as the LLM method's."""

from __future__ import annotations

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
from .pipeline_choice import Languages, assign, coverage_notice, covers, detect_languages, reader_of
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
    backend: str  # "spacy <model> <version>" or "rules"; several joined by "; " (documents in several languages)
    resumed: int = 0  # chunks whose stored spaCy analysis was used
    languages: dict[str, int] = attrs.field(factory=dict)  # documents per detected language
    uncovered_documents: int = 0  # documents in a language the backend does not read
    language_notice: str = ""  # the line that said so

    def report_fields(self) -> dict[str, Any]:
        """What the graph pass's row of report.json says of the languages."""
        return {"languages": self.languages, "uncovered_documents": self.uncovered_documents,
                "language_notice": self.language_notice}


Extract = Callable[[list[Chunk], Mapping[str, str], bool], tuple[list[ParseResult], dict[str, str]]]


def _rules(chunks: list[Chunk], stored: Mapping[str, str], keep: bool) -> tuple[list[ParseResult], dict[str, str]]:
    return [extract_chunk(c) for c in chunks], {}


async def extract_offline(chunks: list[Chunk], cfg: GraphConfig, notice: Callable[[str], None], *,
                          resume: OfflineResume | None = None,
                          advance: Callable[[int], None] | None = None) -> OfflineExtraction:
    """Records of every chunk without an LLM, each document read by the pipeline for its language; the parsing
    runs in worker threads, in batches of chunks. With ``resume``, spaCy's analysis of each chunk is stored as
    its batch finishes and read back instead of parsed again; ``advance`` is told how many chunks each batch
    finished."""
    languages = await trio.to_thread.run_sync(detect_languages, chunks)
    readers = await trio.to_thread.run_sync(_load_readers, cfg.nlp_model, languages, notice)
    groups: dict[int, list[int]] = {}  # id of a language's pipeline (or of None: the rules) -> its chunks
    for i, c in enumerate(chunks):
        groups.setdefault(id(readers[languages.by_document[c.doc_id]]), []).append(i)
    pipelines = {id(nlp): nlp for nlp in readers.values() if id(nlp) in groups}
    if None in pipelines.values():
        notice(FALLBACK_NOTICE)
    evidence = await trio.to_thread.run_sync(case_evidence, chunks) if any(pipelines.values()) else None
    extract: dict[int, Extract] = {}
    for key, nlp in pipelines.items():
        if nlp is None:
            extract[key] = _rules
        else:
            extractor = await trio.to_thread.run_sync(SpacyGraphExtractor, nlp, cfg, evidence, languages.by_document)
            extract[key] = extractor.extract_stored
    backend = "; ".join(sorted({"rules" if nlp is None else f"spacy {model_name(nlp)}" for nlp in pipelines.values()}))
    stored: Mapping[str, str] = {}
    save: SaveAnalyses | None = None
    if resume is not None and any(pipelines.values()):
        stored, save = resume(backend)
    said = _coverage(readers, languages, bool(cfg.nlp_model), notice)
    results: list[ParseResult | None] = [None] * len(chunks)
    resumed = 0
    for key, indexes in groups.items():
        for i in range(0, len(indexes), CHUNKS_PER_THREAD_CALL):
            batch = [chunks[j] for j in indexes[i:i + CHUNKS_PER_THREAD_CALL]]
            found, analyses = await trio.to_thread.run_sync(extract[key], batch, stored, save is not None)
            for j, result in zip(indexes[i:i + CHUNKS_PER_THREAD_CALL], found):
                results[j] = result
            resumed += sum(c.id in stored and c.id not in analyses for c in batch)  # a damaged one was parsed
            if save is not None and analyses:
                await save(analyses)
            if advance is not None:
                advance(len(batch))
    uncovered = sum(not covers(_language_of(readers[code]), code) for code in languages.by_document.values())
    return OfflineExtraction(results, backend, resumed, languages.documents(), uncovered, said)  # type: ignore[arg-type]


def _load_readers(configured: str, languages: Languages, notice: Callable[[str], None]) -> dict[str, Any]:
    """The pipeline (None: the rules) that reads each language of the text, as `pipeline_choice.assign` plans
    them, loaded once each (blocking); the default one for a language whose pipeline cannot be loaded."""
    loaded: dict[str, Any] = {}
    readers = {}
    for code, name in sorted(assign(configured, languages).items()):
        if name not in loaded:
            loaded[name] = _load(name, name == configured, code, notice)
        readers[code] = loaded[name]
    return readers


def _load(name: str, configured: bool, code: str, notice: Callable[[str], None]) -> Any:
    if configured:
        return load_pipeline(name, "graph.nlp_model", sentences=True)
    try:
        nlp = load_pipeline(name, "graph.nlp_model", sentences=True)
    except ConfigError as e:
        notice(f"graph.nlp_model: {name}, installed for {name_of(code)}, cannot be loaded "
               f"({str(e).removeprefix('graph.nlp_model: ')}); reading it with the default English pipeline")
        return load_pipeline("", "graph.nlp_model", sentences=True)
    notice(f"graph.nlp_model: reading {name_of(code)} with the installed {model_name(nlp)} (set graph.nlp_model "
           "to choose one for all)")
    return nlp


def _language_of(nlp: Any) -> str:
    return "en" if nlp is None else nlp.lang  # the rules read English


def _coverage(readers: dict[str, Any], languages: Languages, configured: bool, notice: Callable[[str], None]) -> str:
    """The line that says what text its pipeline does not read (told to ``notice``; "" when it reads all)."""
    reads = {code: ("the rule-based fallback (English only)" if nlp is None else
                    reader_of(model_name(nlp), nlp.lang), _language_of(nlp)) for code, nlp in readers.items()}
    said = coverage_notice(languages, reads, configured)
    if said:
        notice(said)
    return said


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
