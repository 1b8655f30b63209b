"""The graph pass's calls as a dry run estimates them: extraction of the chunks with no stored answers, then
the steps that follow (description summaries, entity resolution, community reports, the peer indexes'
embeddings) for what those chunks add to the graph the last run left, or, before any run, for a graph of the
estimated size."""

from __future__ import annotations

import json
from typing import Any

import attrs

from ...core.prompts import load_template
from ...graph.building.describe import summary_call_bound
from ...graph.communities.reporting import PASS as REPORTS
from ...graph.communities.reporting import REPORT_MAX_TOKENS, prompt_parts, report_call_bound
from ...graph.communities.reporting import TEMPLATE as REPORT_TEMPLATE
from ...graph.extraction.workload import distinct_names, listed_names, lower_words, named_words
from ...graph.formats.peers.vectors import BATCH_TOKENS, EMBED_BATCH, INPUT_TOKENS, text_key
from ...graph.formats.peers.vectors import PASS as EMBED
from ...graph.formats.peers.write import peer_formats
from ...graph.resolution.llm_tier import EMBED_BATCH as RESOLVE_EMBED_BATCH
from ...graph.resolution.llm_tier import call_bound, question_bound
from ...graph.resolution.resolve import PASS as RESOLVE
from ...graph.schema.ontology import asked_schema
from ...graph.extraction.prompts import GraphPrompts
from ...graph.schema.prompts import graph_prompts
from ...llm.client import ChatClient
from ...llm.model_limits.completion_cap import CompletionCap
from ...llm.model_limits.output_limits import output_limit
from ...text.chunking import Chunk
from ..communities import load_state
from ..context import RunContext
from ..peers import vector_memo
from ..steps import graph_resume
from .stored import StoredAnswers, StoredNode, last_graph, mentioned


@attrs.define
class Estimate:
    """One step's calls: ``calls`` expected, ``calls_max`` at most (None: no bound is known), ``exact`` when
    both are counted, not estimated."""

    name: str
    calls: int
    calls_max: int | None
    tokens_in: int
    tokens_out: int
    model: str = ""  # "" = llm.model
    exact: bool = False


# what recorded real answers hold (gpt-4o-mini, llama3.1 8B): an entity record and its share of relationships
# take ~90 tokens; an answer is ~150 tokens plus 0.4 of its passage's (42 novel chunks of 1,190 tokens: 630 a
# call; 25 abstracts of 84: 240); a node's description from one chunk is ~35 tokens
_TOKENS_PER_ENTITY = 90
_ANSWER_BASE, _ANSWER_PER_TOKEN = 150, 0.4
_DESCRIPTION_TOKENS = 35
_NAME_WORDS_PER_ENTITY = 1.7
_CARD_TOKENS = 130  # one side of a resolution question: name, type, 400 characters of description, neighbours
_EMBED_TOKENS = 80  # an embedded "name: description" text (300 characters of description)
_RELATION_TOKENS = 60  # a LightRAG relationship text: keywords, both names, a description
_RELATIONS_PER_ENTITY = 1.2  # recorded graphs: 359 for 322 nodes (a novel), 106 for 137 (abstracts); fake: 137 for 116
_REPORT_TOKENS = 600  # a community report's full text
# measured (benchmarks/dry_run.py: a novel, abstracts, the fake model's stave; a planted corpus of dense groups):
# one reported community per 3-8 entities, all levels; one resolution call (llm_batch 20) per 23-31 entities,
# the rules deciding the rest. How many entities a report covers is the model's doing (how much it relates), not
# the text's: over the three recorded real models one entity in 5 estimates 0.85x-2.10x of the reports made, a
# spread of 2.5x; one in 6 centres it (0.70x-1.75x; the fake model's stave, which relates everything, 0.65x)
_ENTITIES_PER_REPORT = 6
_ENTITIES_PER_QUESTION_CALL = 25
_NAME_SAMPLE = 200  # stored extractions whose passages' names are counted (each passage is read again for it)


@attrs.define
class GraphWork:
    """What the graph pass works on this run: the chunks with no stored extraction (``new``), the answers it
    will read from them, the nodes the graph will have, and the last graph's nodes those chunks mention."""

    new: list[Chunk]
    calls_per_chunk: float  # extraction calls a new chunk takes (seen in stored ones, else the most)
    answer_tokens: int  # of the new chunks' extraction answers
    entities: int  # nodes the graph will have
    new_entities: int  # nodes none of the last graph's
    last: list[StoredNode] | None  # the last graph's nodes, while its extractions are still the run's
    touched: list[StoredNode] = attrs.field(factory=list)  # of those, the ones the new (or gone) chunks change
    shrunk: bool = False  # some of the last graph's chunks are no longer in the input
    names: list[set[str]] = attrs.field(factory=list)  # each chunk's name words (`_names`), before any run
    replayed: int = 0  # of the new chunks, those whose extraction the response cache answers
    listed: float = 0.0  # the share of the new chunks' names that stand in lists (`listed_names`)

    @property
    def changed(self) -> bool:
        return bool(self.new) or self.shrunk or self.last is None


def graph_work(ctx: RunContext, llm: bool, answers: StoredAnswers | None = None) -> GraphWork:
    """`GraphWork` from the run store (stored extractions, under the fingerprint a run checks), the last graph,
    and the response cache (``answers``: the chunks whose extraction it answers)."""
    cfg, chunks = ctx.cfg, ctx.chunks
    rounds = cfg.graph.max_gleanings
    if llm:
        done, _ = graph_resume(ctx)
    else:  # the offline method's analyses (no call): what is new is what it has not parsed
        done = dict.fromkeys(ctx.store.keys("graph.nlp") if ctx.store is not None else ())  # type: ignore[attr-defined]
    new = [c for c in chunks if c.id not in done]
    seen = [x for c in chunks if (x := done.get(c.id)) is not None] if llm else []
    tokens = {c.id: c.tokens for c in chunks}
    names = _names(chunks) if not seen else []
    dense = 0  # the new chunks' answer tokens by their names, where the model's answers are measured
    weights = [c.tokens for c in new]  # what each new chunk draws, as far as it is known
    if seen:  # the model's own measure: its answers per passage token, its calls per chunk
        per_token = sum(x.completion_tokens for x in seen) / max(1, sum(tokens[x.chunk_id] for x in seen))
        answer = round(per_token * sum(c.tokens for c in new))
        per_chunk = sum(len(x.responses) + x.checks + x.continued + x.raised for x in seen) / len(seen)
        per_name = min(_per_name(seen, chunks), _TOKENS_PER_ENTITY / _NAME_WORDS_PER_ENTITY)  # a record a name
        dense = round(per_name * sum(len(distinct_names(c.text)) for c in new))
    else:
        of_chunk = dict(zip((c.id for c in chunks), names))
        weights = [_first_answers(c, of_chunk[c.id], rounds) for c in new]
        answer = sum(weights)
        per_chunk = 1 + 2 * rounds
    if not llm:  # spaCy's names: one per capitalized word that opens no sentence
        answer = sum(named_words(c.text) for c in new) * _TOKENS_PER_ENTITY
    last = last_graph(ctx.out_dir, {c.id: c for c in chunks}) if len(new) < len(chunks) else None
    records = max(answer, dense) // _TOKENS_PER_ENTITY  # a short text dense with names draws records by them
    replayed = len(_replayed(ctx, new, answers)) if llm and answers is not None else 0
    listed = _listed(new, weights)
    if last is None:
        names = names or _names(chunks)
        entities = round(records * _recurrence(names) ** 0.5)
        return GraphWork(new, per_chunk, answer, entities, entities, None, names=names, replayed=replayed,
                         listed=listed)
    touched = mentioned(last, [c.text for c in new]) if new else []
    added = max(0, records - len(touched)) if new else 0
    ids = {c.id for c in chunks}
    gone = [n for n in last if n.sources and not ids.issuperset(n.sources)]  # found in a chunk no longer read
    touched += [n for n in gone if n not in touched]
    return GraphWork(new, per_chunk, answer, len(last) + added, added, last, touched, bool(gone), replayed=replayed,
                     listed=listed)


def _listed(chunks: list[Chunk], weights: list[int]) -> float:
    """The share of what ``chunks`` draw (``weights``) that comes from lists: all of a chunk most of whose judged
    names stand in lists (a paper's references, the wrapped lines between entries included), else the share of
    its names that do (an author line above an abstract). Their entities seldom join a community (recorded
    qwen3-8b answers over papers: 721 of the 752 found only in such chunks are in components of one or two)."""
    lists = 0.0
    for chunk, weight in zip(chunks, weights):
        listed, judged = listed_names(chunk.text)
        lists += weight if judged and 2 * listed >= judged else weight * listed / max(1, judged)
    return lists / max(1, sum(weights))


def _per_name(seen: list[Any], chunks: list[Chunk]) -> float:
    """The model's answer tokens per distinct name word of a passage, over (up to) `_NAME_SAMPLE` of the
    ``seen`` chunks' stored extractions."""
    text = {c.id: c.text for c in chunks}
    sample = seen[:_NAME_SAMPLE]
    return sum(x.completion_tokens for x in sample) / max(1, sum(len(distinct_names(text[x.chunk_id])) for x in sample))


def _replayed(ctx: RunContext, chunks: list[Chunk], answers: StoredAnswers) -> list[Chunk]:
    """The ``chunks`` whose first extraction request, built as a run builds it, the response cache answers (the
    rest of their extraction is taken as answered too: it was asked by the run that asked the first). None
    where that request depends on what the server says: a schema's probe of its structured output, or a
    completion cap it reports."""
    cfg = ctx.cfg
    if not chunks or asked_schema(cfg.graph) is not None or output_limit(cfg.llm.model, cfg.llm.max_output_tokens) \
            is None:
        return []
    client, prompts = ChatClient(cfg.llm), GraphPrompts.from_config(cfg.graph)
    cap = CompletionCap.of(cfg.llm).within()
    keys = {client.key_of(client.request([{"role": "user", "content": prompts.extraction(c.text)}], max_tokens=cap)): c
            for c in chunks}
    return [keys[k] for k in answers.held(list(keys))]


def _first_answers(chunk: Chunk, names: set[str], rounds: int) -> int:
    """The answer tokens of a chunk's extraction calls, before any is seen: by its length (the first answer
    and each gleaning round's), or by the ``names`` in it when they are denser (a record for every ~1.7
    distinct name words: "Bram Archer")."""
    by_length = (_ANSWER_BASE + _ANSWER_PER_TOKEN * chunk.tokens) * (1 + rounds)
    by_names = len(names) / _NAME_WORDS_PER_ENTITY * _TOKENS_PER_ENTITY
    return round(max(by_length, by_names))


def _names(chunks: list[Chunk]) -> list[set[str]]:
    """Each chunk's name words: capitalized words that open no sentence, less those the text writes in lower
    case at least as often (``The``; ``Ghost`` of "the ghost")."""
    lower: dict[str, int] = {}
    capital: dict[str, int] = {}
    per_chunk = [distinct_names(c.text) for c in chunks]
    for c, names in zip(chunks, per_chunk):
        for name in names:
            capital[name] = capital.get(name, 0) + 1
        for word in lower_words(c.text):
            lower[word] = lower.get(word, 0) + 1
    kept = {name for name, n in capital.items() if lower.get(name, 0) < n}
    return [names & kept for names in per_chunk]


def _recurrence(names: list[set[str]]) -> float:
    """How much of what each chunk names is named in other chunks too: distinct names over all chunks, to the
    chunks' own counts added up (1: no name recurs). A model writes a record per chunk for an entity, which
    the merge makes one node. Its square root is taken: capitalized words are a rough sign of names."""
    total = sum(len(n) for n in names)
    return len(set().union(*names)) / total if total else 1.0


def graph_estimates(ctx: RunContext, work: GraphWork, llm: bool, resolve: bool, reports: bool,
                    answers: StoredAnswers | None = None) -> list[Estimate]:
    """The graph pass's steps that ask the LLM (``resolve``: its resolution's LLM tier; ``reports``: community
    reports); ``answers``, the response cache, for the requests built here as a run builds them."""
    rows = [_extraction(ctx, work), _describe(ctx, work)] if llm else [Estimate("graph", 0, 0, 0, 0, exact=True)]
    if resolve:
        rows += _resolution(ctx, work)
    if peer_formats(ctx.cfg):
        rows.append(_embeddings(ctx, work, answers))
    if reports:
        rows.append(_reports(ctx, work))
    return rows


def _extraction(ctx: RunContext, work: GraphWork) -> Estimate:
    """The new chunks' extraction calls, but those the response cache answers (their share of the tokens)."""
    cfg, rounds = ctx.cfg, ctx.cfg.graph.max_gleanings
    overhead = ctx.tokenizer.count(graph_prompts(cfg.graph, asked_schema(cfg.graph)).extraction(""))
    asked = len(work.new) - work.replayed
    share = asked / len(work.new) if work.new else 0.0
    calls_max = asked * (1 + 2 * rounds)
    # each gleaning round resends the conversation so far: prompt and answers grow per round
    tokens_in = round((sum(c.tokens for c in work.new) + overhead * len(work.new)) * (1 + 2 * rounds) * share)
    return Estimate("graph", min(calls_max, round(asked * work.calls_per_chunk)), calls_max, tokens_in,
                    round(work.answer_tokens * share), exact=not asked)


def _describe(ctx: RunContext, work: GraphWork) -> Estimate:
    """Description summaries: a node whose descriptions outgrow ``graph.description_max_tokens`` is summarized
    (asked again when they change, or when no response cache replays the last run's answers)."""
    budget = ctx.cfg.graph.description_max_tokens
    bound = summary_call_bound(work.answer_tokens, budget)
    if work.last is None:  # one description per chunk a name is in
        chunks_of: dict[str, int] = {}
        for names in work.names:
            for name in _described(names):
                chunks_of[name] = chunks_of.get(name, 0) + 1
        calls = sum(n * _DESCRIPTION_TOKENS > budget for n in chunks_of.values())
    else:
        asked = work.touched if ctx.cfg.llm.cache.replays else work.last
        grown = {n.id for n in work.touched}
        calls = sum((n.description_tokens * 4 // 3 + _DESCRIPTION_TOKENS * (n.id in grown)) > budget for n in asked)
        bound = max(bound, calls)
    return Estimate("graph.describe", min(calls, bound), bound, calls * budget * 3, calls * budget // 2)


def _described(names: set[str]) -> set[str]:
    """The name words a model describes as a node of their own: a possessive read as its owner ("scrooge's"),
    less single letters (the pronoun "I", an initial "J.", a variable "x")."""
    owners = {n[:-2] if n.endswith(("'s", "\u2019s")) else n for n in names}
    return {n for n in owners if len(n) > 1}


def _resolution(ctx: RunContext, work: GraphWork) -> list[Estimate]:
    """The LLM tier's questions: about every node the first time, then about the new and the changed ones (the
    answers are kept in the run store, or the Ray resolution's); its embeddings, in batches by position,
    whenever the graph changed."""
    rc = ctx.cfg.graph.resolve
    bound, embed = call_bound(work.entities, rc)
    asked = question_bound(work.entities, rc)
    chat = min(bound, -(-work.entities // _ENTITIES_PER_QUESTION_CALL))
    stale = ctx.store is not None and ctx.store.open_pass(RESOLVE, ctx.fingerprint())
    if stale:
        ctx.notice(f"{RESOLVE}: settings changed since the stored results; that pass starts over")
    if work.last is not None and not stale:  # a settled graph (its answers kept): the new and changed nodes ask
        moved = work.new_entities + len(work.touched)
        asked = min(asked, moved * rc.llm_pairs_per_entity)
        chat = min(chat, -(-asked // rc.llm_batch))
        embed = -(-work.entities // RESOLVE_EMBED_BATCH) if rc.embeddings and work.changed else 0
    asked = min(asked, chat * rc.llm_batch)
    rows = [Estimate("graph.resolve", chat, bound, chat * 200 + asked * 2 * _CARD_TOKENS, chat * 16 + asked * 8)]
    if rc.embeddings:
        rows.append(Estimate("graph.resolve.embed", embed, None, work.entities * _EMBED_TOKENS, 0,
                             ctx.cfg.llm.embedding_model))
    return rows


def _reports(ctx: RunContext, work: GraphWork) -> Estimate:
    """Community reports: one per community of ``min_report_size`` entities or more. Before any run, for the
    communities a graph of the estimated size has; after one, for the stored communities the new chunks touch
    (and their parents: they hold them), and those whose report is missing."""
    cc = ctx.cfg.graph.communities
    bound, levels = report_call_bound(work.entities, cc)
    related = round(work.entities * (1 - work.listed))  # listed names mostly end in no community
    calls = -(-related // _ENTITIES_PER_REPORT) if work.entities >= cc.min_report_size else 0
    state = load_state(ctx.store) if work.last is not None and ctx.store is not None else None  # type: ignore[arg-type]
    report_tokens = REPORT_MAX_TOKENS // 2
    if state is not None:
        reported = [c for c in state.items if len(c.entities) >= cc.min_report_size]
        kept = ctx.resume(REPORTS, *prompt_parts(ctx.cfg)) if reported else {}
        touched = {n.id for n in work.touched}
        hit = [c for c in reported if touched.intersection(c.entities)]
        added = round(work.new_entities * (1 - work.listed))
        calls = min(bound, len(hit) + max(0, len(reported) - len(kept)) + -(-added // _ENTITIES_PER_REPORT))
        levels = max(1, state.levels)
        if kept:  # what this model's reports take
            sample = list(kept.values())[:50]
            report_tokens = sum(ctx.tokenizer.count(json.dumps(r, ensure_ascii=False)) for r in sample) // len(sample)
    overhead = ctx.tokenizer.count(load_template(REPORT_TEMPLATE))
    text = work.answer_tokens if work.last is None else sum(n.description_tokens for n in work.touched)
    tokens_in = calls * overhead + min(calls * cc.report_max_input_tokens, levels * text + calls * report_tokens)
    return Estimate("graph.communities", calls, bound, tokens_in, calls * report_tokens)


def _embeddings(ctx: RunContext, work: GraphWork, answers: StoredAnswers | None) -> Estimate:
    """The peer indexes' embeddings: the chunks whose vector neither the run store nor the response cache holds
    (counted), and the texts of the nodes, relationships (LightRAG) and reports (GraphRAG) that are new or
    changed (estimated), packed as `vectors` packs them."""
    formats = peer_formats(ctx.cfg)
    unique = list({c.text: c for c in ctx.chunks}.values())
    # the vectors are read from the store a part at a time, never all at once (`VectorMemo`)
    stored = vector_memo(ctx).has([text_key(c.text) for c in unique]) if ctx.store is not None else set()
    chunks = [c for c in unique if text_key(c.text) not in stored]
    whole = [c for c in chunks if c.tokens <= INPUT_TOKENS]  # (a longer one is embedded in pieces)
    if answers is not None and whole:
        keys = dict(zip(ChatClient(ctx.cfg.llm).embedding_keys([c.text for c in whole], ctx.cfg.llm.embedding_model),
                        whole))
        cached = {keys[k].id for k in answers.held(list(keys))}
        chunks = [c for c in chunks if c.id not in cached]
    nodes = work.entities if work.last is None or not stored else work.new_entities + len(work.touched)
    texts, tokens = len(chunks), sum(c.tokens for c in chunks)
    texts += nodes * len(formats)
    tokens += nodes * _EMBED_TOKENS * len(formats)
    if "lightrag" in formats:
        relations = round(nodes * _RELATIONS_PER_ENTITY)
        texts, tokens = texts + relations, tokens + relations * _RELATION_TOKENS
    if "graphrag" in formats:
        reports = -(-nodes // _ENTITIES_PER_REPORT)
        texts, tokens = texts + reports, tokens + reports * _REPORT_TOKENS
    calls = max(-(-texts // EMBED_BATCH), -(-tokens // BATCH_TOKENS))
    return Estimate(EMBED, calls, None, tokens, 0, ctx.cfg.llm.embedding_model, exact=not nodes)


def graph_summary(work: GraphWork) -> dict[str, Any]:
    """What the estimate assumed of the graph, for report and tests."""
    return {"new_chunks": len(work.new), "entities": work.entities, "new_entities": work.new_entities,
            "touched_entities": len(work.touched), "answer_tokens": work.answer_tokens}

