"""A dry run: the chunks, and the calls, tokens and cost each planned pass would need, without any LLM call."""

from __future__ import annotations

from typing import Any, Callable, TextIO

from ..core.config import Config
from ..core.prompts import load_template
from ..core.spacy_pipeline import installed
from ..core.tokens import Tokenizer
from ..graph.building.describe import summary_call_bound
from ..graph.communities.reporting import REPORT_MAX_TOKENS, report_call_bound
from ..graph.communities.reporting import TEMPLATE as REPORT_TEMPLATE
from ..graph.schema.ontology import asked_schema
from ..graph.schema.prompts import graph_prompts
from ..graph.extraction.workload import named_words
from ..graph.formats.peers.vectors import BATCH_TOKENS, EMBED_BATCH
from ..graph.formats.peers.vectors import PASS as EMBED
from ..graph.formats.peers.write import peer_formats
from ..graph.resolution.llm_tier import call_bound, question_bound
from ..graph.resolution.resolve import asks_llm
from ..summaries import plan_chunks
from ..text.chunking import Chunk
from ..text.inputs import Inputs, read_inputs
from .context import PassFn
from .plan import plan_passes
from .report import batch_price_of, price_of
from .steps import documents_of_chunks, graph_llm_pass, graph_nlp_pass


def estimate_run(cfg: Config, notice: Callable[[str], None], out: TextIO, stdin: Any = None) -> dict[str, Any]:
    """Read and chunk the inputs as a run would, plan its passes, and print and return `dry_run`'s estimate."""
    tokenizer = Tokenizer(cfg.llm.model)
    inputs = read_inputs(cfg.input, tokenizer, stdin=stdin)
    chunks = inputs.all_chunks(tokenizer, cfg.chunking.size, cfg.chunking.overlap)
    return dry_run(cfg, inputs, chunks, plan_passes(cfg, notice), tokenizer, out)


def dry_run(cfg: Config, inputs: Inputs, chunks: list[Chunk], passes: list[tuple[str, PassFn]],
            tokenizer: Tokenizer, out: TextIO) -> dict[str, Any]:
    """Chunk counts and the calls, tokens and cost a run would need, without calling any LLM."""
    rows = []
    chunk_tokens = sum(c.tokens for c in chunks)
    for name, fn in passes:
        if name == "enrich":
            n = len(inputs.messages)
            per_message = 1 if _spacy_entities(cfg) else 2  # intent (+ entities, unless spaCy finds them)
            calls = per_message * n + -(-n // 64) + n // max(1, cfg.enrich.message_window // 2)
            tokens_in, tokens_out = 400 * per_message * n, 60 * per_message * n
        elif name == "graph" and fn is graph_llm_pass:
            overhead = tokenizer.count(graph_prompts(cfg.graph, asked_schema(cfg.graph)).extraction(""))
            rounds = cfg.graph.max_gleanings
            calls = len(chunks) * (1 + 2 * rounds)
            # each gleaning round resends the conversation so far: prompt and answers grow per round
            tokens_in = (chunk_tokens + overhead * len(chunks)) * (1 + 2 * rounds)
            tokens_out = len(chunks) * 400 * (1 + rounds)
        elif name == "graph":
            calls, tokens_in, tokens_out = 0, 0, 0
        elif name == "summary":  # the summary's own chunking is known without a call: the count is exact
            calls, tokens_in, tokens_out = _summary_estimate(cfg, inputs, chunks)
        else:
            calls = len(chunks) * 2
            tokens_in, tokens_out = chunk_tokens * 2, calls * 300
        rows.append(_estimate_row(cfg, name, len(chunks), calls, tokens_in, tokens_out))
        if name == "graph" and fn is graph_llm_pass:
            rows.append(_describe_estimate(cfg, len(chunks), tokens_out))
        if name == "graph" and asks_llm(cfg, offline=fn is graph_nlp_pass):
            rows.extend(_resolve_estimate(cfg, chunks, fn is graph_nlp_pass, tokens_out))
        if name == "graph" and peer_formats(cfg):
            rows.append(_peers_estimate(cfg, chunks, _entities(chunks, fn is graph_nlp_pass, tokens_out)))
        if name == "graph" and cfg.graph.communities.enabled and cfg.graph.communities.reports:
            rows.append(_communities_estimate(cfg, chunks, fn is graph_nlp_pass, tokens_out, tokenizer))
    print(f"dry run: {len(chunks)} chunks, {chunk_tokens} tokens of input; no LLM is called", file=out)
    for r in rows:
        cost = "unknown price" if r["cost_usd_est"] is None else (
            f"~${r['cost_usd_est']} online, ~${r['cost_usd_est_batch']} in batch mode")
        print(f"  {r['pass']}: up to {r['calls_max']} calls, ~{r['tokens_in_est']} tokens in, "
              f"~{r['tokens_out_est']} out, {cost}", file=out)
    if rows and all(r["cost_usd_est"] is not None for r in rows):
        print(f"  total: ~${round(sum(r['cost_usd_est'] for r in rows), 4)} online, "
              f"~${round(sum(r['cost_usd_est_batch'] for r in rows), 4)} in batch mode (llm.batch)", file=out)
    return {"dry_run": True, "passes": rows}


def _estimate_row(cfg: Config, name: str, chunks: int, calls: int, tokens_in: int, tokens_out: int,
                  model: str | None = None) -> dict[str, Any]:
    def usd(price: tuple[float, float] | None) -> float | None:
        return None if price is None else round((tokens_in * price[0] + tokens_out * price[1]) / 1e6, 4)

    model = model or cfg.llm.model
    return {"pass": name, "chunks": chunks, "calls_max": calls, "tokens_in_est": tokens_in,
            "tokens_out_est": tokens_out, "cost_usd_est": usd(price_of(model, cfg.prices)),
            # embeddings are sent online in batch mode too
            "cost_usd_est_batch": usd((price_of if name.endswith(".embed") else batch_price_of)(model, cfg.prices))}


# what one entity record and its share of relationships took in recorded real answers (gpt-4o-mini: 92
# tokens, llama3.1 8B: 94), so the graph's estimated answer tokens give an estimate of its entities
_TOKENS_PER_ENTITY = 90
_CARD_TOKENS = 130  # one side of a resolution question: name, type, 400 characters of description, neighbours
_EMBED_TOKENS = 80  # an embedded "name: description" text (300 characters of description)


def _entities(chunks: list[Chunk], offline: bool, answer_tokens: int) -> int:
    """The entities the graph is estimated to have: one per capitalized word that opens no sentence (offline:
    spaCy names are such words), else one per ~90 tokens of the extraction's estimated answers."""
    return sum(named_words(c.text) for c in chunks) if offline else answer_tokens // _TOKENS_PER_ENTITY


def _resolve_estimate(cfg: Config, chunks: list[Chunk], offline: bool, answer_tokens: int) -> list[dict[str, Any]]:
    """Entity resolution's LLM calls: the tier's hard bound (`call_bound`) for the entities the graph is
    estimated to have (`_entities`)."""
    rc = cfg.graph.resolve
    entities = _entities(chunks, offline, answer_tokens)
    chat, embed = call_bound(entities, rc)
    asked = question_bound(entities, rc)
    rows = [_estimate_row(cfg, "graph.resolve", len(chunks), chat, chat * 200 + asked * 2 * _CARD_TOKENS,
                          chat * 16 + asked * 8)]
    if embed:
        rows.append(_estimate_row(cfg, "graph.resolve.embed", len(chunks), embed, entities * _EMBED_TOKENS, 0,
                                  cfg.llm.embedding_model))
    return rows


_RELATION_TOKENS = 60  # a LightRAG relationship text: keywords, both names, a description
_REPORT_TOKENS = 600  # a community report's full text
_ENTITIES_PER_COMMUNITY = 4


def _peers_estimate(cfg: Config, chunks: list[Chunk], entities: int) -> dict[str, Any]:
    """The peer indexes' embeddings: every chunk once, each format's entity texts (and LightRAG's relationship
    texts, about one per entity; GraphRAG's community reports), packed as `vectors` packs them. A re-run
    embeds only what changed: this is the bound of a first run."""
    formats = peer_formats(cfg)
    texts, tokens = len(chunks), sum(c.tokens for c in chunks)
    texts += entities * len(formats)
    tokens += entities * _EMBED_TOKENS * len(formats)
    if "lightrag" in formats:
        texts, tokens = texts + entities, tokens + entities * _RELATION_TOKENS
    if "graphrag" in formats:
        reports = -(-entities // _ENTITIES_PER_COMMUNITY)
        texts, tokens = texts + reports, tokens + reports * _REPORT_TOKENS
    calls = max(-(-texts // EMBED_BATCH), -(-tokens // BATCH_TOKENS))
    return _estimate_row(cfg, EMBED, len(chunks), calls, tokens, 0, cfg.llm.embedding_model)


def _communities_estimate(cfg: Config, chunks: list[Chunk], offline: bool, answer_tokens: int,
                          tokenizer: Tokenizer) -> dict[str, Any]:
    """Community reports, bounded (`report_call_bound`) for the entities the graph is estimated to have (as
    for resolution). A level's contexts hold each entity and relationship once, or a sub-community's report."""
    cc = cfg.graph.communities
    entities = sum(named_words(c.text) for c in chunks) if offline else answer_tokens // _TOKENS_PER_ENTITY
    calls, levels = report_call_bound(entities, cc)
    text = sum(c.tokens for c in chunks) * 3 if offline else answer_tokens  # the graph's descriptions, at most
    overhead = tokenizer.count(load_template(REPORT_TEMPLATE))
    tokens_in = calls * overhead + min(calls * cc.report_max_input_tokens, levels * text + calls * REPORT_MAX_TOKENS)
    return _estimate_row(cfg, "graph.communities", len(chunks), calls, tokens_in, calls * REPORT_MAX_TOKENS)


def _describe_estimate(cfg: Config, chunks: int, answer_tokens: int) -> dict[str, Any]:
    """Description summaries' calls, bounded for descriptions of ``answer_tokens`` in all (the extraction's
    estimated answers, which hold them): `summary_call_bound` over the worst way to split them among nodes."""
    budget = cfg.graph.description_max_tokens
    calls = summary_call_bound(answer_tokens, budget)
    return _estimate_row(cfg, "graph.describe", chunks, calls, answer_tokens + calls * 120, calls * budget // 2)


def _spacy_entities(cfg: Config) -> bool:
    backend = cfg.enrich.entity_backend
    return backend == "spacy" or (backend == "auto" and installed(cfg.enrich.nlp_model))


def _summary_estimate(cfg: Config, inputs: Inputs, chunks: list[Chunk]) -> tuple[int, int, int]:
    s, cl100k = cfg.summary, Tokenizer.cl100k()
    calls = tokens_in = 0
    for doc in inputs.documents or documents_of_chunks(chunks):
        planned, _ = plan_chunks(doc.text, s.detail, s.minimum_chunk_size, s.chunk_delimiter, cl100k)
        calls += len(planned)
        tokens_in += sum(cl100k.count(c) + 20 for c in planned)
    return calls, tokens_in, calls * 300
