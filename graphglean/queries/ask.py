"""`query`: one question asked of the graph a run wrote, on the run's own endpoint, model and response cache
(through a `Scheduler`, as every call of graphglean), its answer citing the entities, relationships, source
sentences (chunk ids with their documents) or community reports it rests on; appended with its cost to
``OUTPUT/queries.jsonl``. ``context_only`` builds the same context without any call.

    result = await graphglean.query("output", "Who is Scrooge?")                 # under trio
    result = graphglean.query_sync("output", "Who is Scrooge?", method="global")  # anywhere
"""

from __future__ import annotations

import datetime
import json
import os
from pathlib import Path
from typing import Any

import attrs
import trio

from ..core.answers import NoAnswer, json_answer
from ..core.config import Config
from ..core.errors import InputError, LLMError, LLMRequestError
from ..core.prompts import load_template, render
from ..core.sync import entry_point, run_sync
from ..core.tokens import Tokenizer
from ..graph.formats.peers.vectors import unit
from ..graph.formats.readback import SOURCES
from ..llm.client import ChatClient
from ..llm.credentials import endpoint_secrets, redact_data, remember
from ..pipeline.report import cost
from ..scheduling.scheduler import Scheduler
from .context import Context, Source, cited
from .global_search import DEFAULT_LEVEL, Point, chosen_reports, map_contexts, no_reports, read_points, \
    reduce_context, relabelled
from .local import local_context
from .matching import EntityIndex, find_entities, focus_words
from .outputs import RunOutputs, read_outputs
from .settings import RunSettings, run_settings
from .vectors import entity_vectors

PASS = "query"
METHODS = ("local", "global")
QUERIES = "queries.jsonl"
ANSWER_MAX_TOKENS, MAP_MAX_TOKENS = 2000, 1000
MAX_CONTEXT_TOKENS, TOP_ENTITIES = 8000, 10


@attrs.define
class QueryResult:
    """A question's answer (empty with ``context_only``), the context it was asked with, the sources the
    context held and those the answer cites, and what it cost (``cost_usd`` None: the model has no price)."""

    question: str
    method: str
    out_dir: Path
    context: str
    sources: list[Source]
    answer: str = ""
    cited: list[Source] = attrs.field(factory=list)
    found: bool = True  # False: nothing in the graph to answer from (no entity matched, no report helped)
    model: str = ""
    cost_usd: float | None = 0.0
    calls: int = 0
    cache_hits: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    notes: list[str] = attrs.field(factory=list)
    log: Path | None = None  # the queries.jsonl the answer was appended to

    def to_json(self) -> dict[str, Any]:
        """The line of ``queries.jsonl``."""
        return {"asked": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                "question": self.question, "method": self.method, "answer": self.answer, "found": self.found,
                "cited": [s.to_json() for s in self.cited], "model": self.model, "cost_usd": self.cost_usd,
                "calls": self.calls, "cache_hits": self.cache_hits, "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens}

    def cost_line(self) -> str:
        usd = "unknown (no price for this model: set prices in the config)" if self.cost_usd is None \
            else f"${self.cost_usd:.4f}"
        calls = f"{self.calls} call{'s' if self.calls != 1 else ''}"
        return (f"cost {usd}: {calls}, {self.cache_hits} from the cache, {self.prompt_tokens:,} tokens in, "
                f"{self.completion_tokens:,} out")

    def formatted(self) -> str:
        """The answer and the sources it cites (all the context's, when it cites none)."""
        shown = self.cited or self.sources
        head = "Sources:" if self.cited else "Sources (the answer cites none; the context held):"
        return self.answer.strip() + ("\n\n" + head + "\n" + "\n".join("  " + s.cited() for s in shown)
                                      if shown else "")


def _settings(target: str | os.PathLike[str] | Config) -> RunSettings:
    if isinstance(target, Config):
        return RunSettings(target, Path(target.output.dir), Path("<config>"))
    return run_settings(target)


def _check_graph(settings: RunSettings) -> None:
    """A run with the graph pass off wrote no graph to ask: said so, not as a folder that is not an output."""
    if settings.cfg.graph.enabled or any((settings.out_dir / name).is_file() for name in SOURCES):
        return
    also = "; for the chat messages it enriched, graphglean.search" if settings.cfg.enrich.enabled else ""
    raise InputError(f"{settings.out_dir}: the run built no graph (graph.enabled is false in {settings.source}), "
                     f"and a query asks the graph: set graph.enabled: true in the run's config and run it again{also}")


def _client_config(settings: RunSettings) -> Any:
    """The run's `llm` settings for asking: online (never a 24-hour batch), the cache beside the output when
    the run's left its path empty."""
    llm = settings.cfg.llm
    cache = llm.cache if llm.cache.path else attrs.evolve(llm.cache, path=str(settings.out_dir / "cache.sqlite"))
    return attrs.evolve(llm, batch=attrs.evolve(llm.batch, enabled=False), cache=cache)


def _check_endpoint(settings: RunSettings) -> None:
    missing = settings.missing()
    if missing:
        raise InputError("the answer needs the run's endpoint: " + "; ".join(missing))
    if not settings.cfg.llm.has_endpoint:
        raise InputError(f"{settings.source}: the run had no LLM endpoint (the offline method); --context-only "
                         "shows the context without one, or give a config with an endpoint (set OPENAI_API_KEY, "
                         "or llm.base_url)")


def _cap(settings: RunSettings, wanted: int) -> int:
    limit = settings.cfg.llm.max_output_tokens
    return min(wanted, limit) if limit else wanted


async def _question_vector(scheduler: Scheduler, question: str, dimension: int, notes: list[str]) -> Any:
    try:
        vectors = (await scheduler.llm(PASS + ".embed").embed([question])).vectors
    except LLMError as e:
        notes.append(f"the question was not embedded ({e}); entities are found by name and description")
        return None
    if not vectors or len(vectors[0]) != dimension:
        notes.append(f"the embedding model's vectors ({len(vectors[0]) if vectors else 0}) do not match the run's "
                     f"({dimension}); entities are found by name and description")
        return None
    return unit(vectors[0])


async def _local(outputs: RunOutputs, question: str, settings: RunSettings, scheduler: Scheduler | None,
                 count: Any, limit: int, top: int, notes: list[str]) -> tuple[Context, str | None]:
    graph = outputs.graph
    index = await trio.to_thread.run_sync(EntityIndex, graph)
    vectors, question_vector = None, None
    found = await trio.to_thread.run_sync(entity_vectors, outputs.out_dir, graph)
    if found and scheduler is None:
        notes.append("--context-only asks nothing, so the question is not embedded: entities are found by name "
                     f"and description, not by the vectors in {found.source}")
    if scheduler is not None:
        if found:
            dimension = len(next(iter(found.by_node.values())))
            question_vector = await _question_vector(scheduler, question, dimension, notes)
            vectors = found.by_node
    matches = find_entities(index, question, top, vectors, question_vector)
    if not outputs.chunks:
        notes.append(f"{outputs.out_dir} has no chunks.jsonl: the context holds no source sentences")
    context = local_context(graph, matches, outputs.chunks, limit, count, focus_words(question, matches))
    if not context or scheduler is None:
        return context, None
    prompt = render(load_template("query_local"), context=context.text, question=question)
    return context, await _answer(scheduler.llm(PASS), prompt, _cap(settings, ANSWER_MAX_TOKENS), notes)


async def _answer(llm: Any, prompt: str, cap: int, notes: list[str]) -> str | None:
    """The model's answer to ``prompt`` without its reasoning (`PassLLM.prose`); None, with a note saying why,
    when it held nothing else."""
    try:
        result = await llm.prose([{"role": "user", "content": prompt}], max_tokens=cap)
    except NoAnswer as e:
        notes.append(f"no answer: {e}")
        return None
    if result.truncated:
        notes.append(f"the answer was cut at {cap} tokens")
    return result.text


async def _global(outputs: RunOutputs, question: str, settings: RunSettings, scheduler: Scheduler | None,
                  count: Any, limit: int, level: int, notes: list[str]) -> tuple[list[Context], str | None]:
    reason = no_reports(outputs.out_dir, outputs.communities, outputs.reports)
    if reason is not None:
        raise InputError(reason)
    assert outputs.reports is not None
    members = {int(c["id"]): _leading(outputs.graph, c) for c in outputs.communities or []}
    contexts = relabelled(map_contexts(chosen_reports(outputs.reports, level), members, limit, count))
    if scheduler is None:
        return contexts, None
    template, json_mode = load_template("query_map"), settings.cfg.llm.json_mode
    llm = scheduler.llm(PASS + ".map")

    async def one(batch: tuple[int, Context]) -> list[Point]:
        nonlocal json_mode
        messages = [{"role": "user", "content": render(template, context=batch[1].text, question=question)}]
        cap = _cap(settings, MAP_MAX_TOKENS)
        # an answer with no JSON holds no points: never cached, so asking again asks the model again
        try:
            fmt = {"type": "json_object"} if json_mode else None
            result = await llm.chat(llm.request(messages, response_format=fmt, max_tokens=cap, valid=json_answer))
        except LLMRequestError as e:
            if not json_mode or not e.is_about("response_format"):
                raise
            json_mode = False  # the endpoint does not take response_format: ask plainly
            result = await llm.chat(llm.request(messages, max_tokens=cap, valid=json_answer))
        return read_points(result.text, batch[0])

    outcomes = await scheduler.map(one, list(enumerate(contexts)), pass_name=PASS + ".map")
    failed = [o for o in outcomes if not o.ok]
    if failed:
        notes.append(f"{len(failed)} of {len(outcomes)} map calls failed (first: {failed[0].error}); the answer "
                     "rests on the others")
    points = [p for o in outcomes if o.ok and o.value for p in o.value]
    if not points:
        return contexts, ""
    prompt = render(load_template("query_reduce"), context=reduce_context(points, limit, count), question=question)
    return contexts, await _answer(scheduler.llm(PASS + ".reduce"), prompt, _cap(settings, ANSWER_MAX_TOKENS), notes)


def _leading(graph: Any, community: dict[str, Any]) -> tuple[str, ...]:
    """A community's entity names, the best connected first."""
    names = dict(zip(map(str, community.get("entity_ids") or []), map(str, community.get("entities") or [])))
    degree = {str(n): d for n, d in graph.degree()}
    return tuple(names[k] for k in sorted(names, key=lambda k: (-degree.get(k, 0), names[k])))


def _accounts(result: QueryResult, scheduler: Scheduler, settings: RunSettings) -> None:
    llm, costs = settings.cfg.llm, []
    for name, account in sorted(scheduler.accounts.items()):
        model = llm.embedding_model if name.endswith(".embed") else llm.model
        costs.append(cost(account, model, settings.cfg.prices))
        result.calls += account.calls
        result.cache_hits += account.cache_hits
        result.prompt_tokens += account.prompt_tokens
        result.completion_tokens += account.completion_tokens
    result.cost_usd = None if None in costs else round(sum(c for c in costs if c is not None), 6)


async def _ask(settings: RunSettings, outputs: RunOutputs, question: str, method: str, scheduler: Scheduler | None,
               limit: int, top: int, level: int) -> QueryResult:
    count = Tokenizer(settings.cfg.llm.model).count
    notes: list[str] = []
    if method == "local":
        context, answer = await _local(outputs, question, settings, scheduler, count, limit, top, notes)
        text, sources, found = context.text, list(context.sources.values()), bool(context)
    else:
        contexts, answer = await _global(outputs, question, settings, scheduler, count, limit, level, notes)
        parts = [c.text for c in contexts]
        text = parts[0] if len(parts) == 1 else "\n\n".join(f"--- map call {i + 1} of {len(parts)} ---\n{t}"
                                                            for i, t in enumerate(parts))
        sources = [s for c in contexts for s in c.sources.values()]
        found = answer != ""
    result = QueryResult(question, method, outputs.out_dir, text, sources, answer or "", found=found,
                         model=settings.cfg.llm.model, notes=notes)
    if not found:
        result.notes.append("no entity of the graph is named in or resembles the question" if method == "local"
                            else "no community report holds anything for the question")
    result.cited = cited(result.answer, {s.label: s for s in sources})
    return result


@entry_point
async def query(target: str | os.PathLike[str] | Config, question: str, *, method: str = "local",
                context_only: bool = False, max_context_tokens: int = MAX_CONTEXT_TOKENS,
                top_entities: int = TOP_ENTITIES, level: int = DEFAULT_LEVEL) -> QueryResult:
    """Answer ``question`` from the graph a run wrote. ``target``: the run's output folder (its settings.yaml
    names the endpoint), its configuration file, or its `Config`. ``method``: ``local`` (the entities the
    question names or resembles, their relationships and source sentences) or ``global`` (a map-reduce over
    the community reports of levels up to ``level``). ``context_only``: no call; the context is in
    ``QueryResult.context``. An answer is appended to ``OUTPUT/queries.jsonl``."""
    if method not in METHODS:
        raise InputError(f"method: expected one of {', '.join(METHODS)}, got {method!r}")
    if not question.strip():
        raise InputError("the question is empty")
    for name, value, least in (("max_context_tokens", max_context_tokens, 200), ("top_entities", top_entities, 1),
                               ("level", level, 0)):
        if value < least:
            raise InputError(f"{name} (--{name.replace('_', '-')}): expected at least {least}, got {value}")
    settings = _settings(target)
    _check_graph(settings)
    outputs = await trio.to_thread.run_sync(read_outputs, settings.out_dir)
    if method == "global" and (reason := no_reports(outputs.out_dir, outputs.communities, outputs.reports)):
        raise InputError(reason)  # said before any call or check of the endpoint
    args = (question, method)
    if context_only:
        return await _ask(settings, outputs, *args, None, max_context_tokens, top_entities, level)
    _check_endpoint(settings)
    llm = _client_config(settings)
    remember(endpoint_secrets(llm.api_key, llm.base_url))
    tokenizer = Tokenizer(llm.model)
    async with ChatClient.from_config(llm, count_tokens=tokenizer.count) as client:
        scheduler = Scheduler(client, fail_fast=settings.cfg.fail_fast)
        result = await _ask(settings, outputs, *args, scheduler, max_context_tokens, top_entities, level)
        _accounts(result, scheduler, settings)
    await trio.to_thread.run_sync(_append, outputs.out_dir / QUERIES, result)
    return result


def _append(path: Path, result: QueryResult) -> None:
    """One line more in ``queries.jsonl``; a folder that cannot be written costs the log, not the paid answer."""
    try:
        with open(path, "a", encoding="utf-8") as f:
            f.write(json.dumps(redact_data(result.to_json()), ensure_ascii=False) + "\n")
        result.log = path
    except OSError as e:
        result.notes.append(f"{path}: cannot write ({e.strerror or type(e).__name__}); the answer is not logged")


def query_sync(target: str | os.PathLike[str] | Config, question: str, **kw: Any) -> QueryResult:
    """`query` from synchronous code, including a Jupyter cell where an asyncio loop is running."""
    return run_sync(query, target, question, **kw)
