"""``graphglean tune``: a schema proposed from the corpus, GraphRAG's ``prompt-tune`` for the ontology.

A sample of the configured input's chunks (spread evenly over it) is read by the configured model, one call a
chunk on the run's scheduler (rate limits, the response cache: a second tune of the same sample costs nothing,
the account priced as a run's), in the corpus's language. Its answers are grounded and counted
(`graph.schema.proposals`) into a schema file the user edits and names in ``graph.schema``. ``dry`` prints the
sample and the calls' estimate instead.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path
from typing import Any, Callable, TextIO

import attrs

from .core.atomic import write_text
from .core.config import Config
from .core.errors import ConfigError, InputError
from .core.sync import entry_point
from .core.tokens import Tokenizer
from .graph.schema.proposals import Proposal, aggregate, read_proposal, schema_yaml, tune_prompt
from .llm.client import ChatClient
from .llm.records import ChatResult
from .pipeline.report import cost, price_of
from .scheduling.scheduler import Scheduler
from .text.chunking import Chunk
from .text.inputs import read_inputs
from .text.language import NAMES, detect

PASS = "tune"
DEFAULT_SAMPLE = 20
ANSWER_TOKENS = 600  # an answer's size, for the estimate (a JSON object of a few types and relations)
MAX_TOKENS = 2000  # a cap on each answer: a proposal is short, a runaway is not paid for long


@attrs.frozen
class TuneResult:
    path: Path | None  # the schema file written (None for a dry run)
    sampled: int
    chunks: int
    language: str
    types: int
    patterns: int
    failed: int
    summary: dict[str, Any]


def sample_of(chunks: list[Chunk], n: int) -> list[Chunk]:
    """``n`` chunks spread evenly over the input (all when it has no more)."""
    if n >= len(chunks):
        return list(chunks)
    return [chunks[(2 * i + 1) * len(chunks) // (2 * n)] for i in range(n)]


def corpus_language(chunks: list[Chunk], configured: str) -> str:
    """The language most sampled chunks are written in (by `detect`); ``configured`` when none can be told."""
    found = Counter(c for c in (detect(chunk.text).language for chunk in chunks) if c and c in NAMES and c != "xx")
    return NAMES[found.most_common(1)[0][0]] if found else configured


def _out_path(out: str | None, config_path: str | None) -> Path:
    if out:
        return Path(out)
    return (Path(config_path).parent if config_path else Path(".")) / "schema.yaml"


@entry_point
async def tune(cfg: Config, *, sample: int = DEFAULT_SAMPLE, out: str | None = None, config_path: str | None = None,
               dry: bool = False, overwrite: bool = False, stdout: TextIO | None = None,
               notice: Callable[[str], None] = lambda m: print(f"graphglean: {m}", file=sys.stderr)) -> TuneResult:
    """Propose ``graph.schema`` from ``sample`` chunks of ``cfg``'s input and write it to ``out`` (default:
    ``schema.yaml`` beside ``config_path``); an existing file is kept unless ``overwrite``."""
    stdout = stdout or sys.stdout
    if sample < 1:
        raise InputError(f"--sample: expected a positive number of chunks, got {sample}")
    path = _out_path(out, config_path)
    if not dry and path.exists() and not overwrite:
        raise ConfigError(f"{path}: exists (edited by hand?); remove it, or write elsewhere with --out")
    if not dry and not cfg.llm.has_endpoint:
        raise ConfigError("llm: tune asks the configured model; set llm.base_url (or llm.api_key for OpenAI)")
    tokenizer = Tokenizer(cfg.llm.model)
    inputs = read_inputs(cfg.input, tokenizer)
    chunks = inputs.all_chunks(tokenizer, cfg.chunking.size, cfg.chunking.overlap)
    if not chunks:
        raise InputError(f"{cfg.input.path}: no text to sample")
    chosen = sample_of(chunks, sample)
    language = corpus_language(chosen, cfg.graph.language)
    prompts = [tune_prompt(c.text, language) for c in chosen]
    if dry:
        return _estimate(cfg, chosen, chunks, language, prompts, tokenizer, stdout)
    async with ChatClient.from_config(cfg.llm, cfg.output.dir, count_tokens=tokenizer.count) as client:
        scheduler = Scheduler(client, fail_fast=cfg.fail_fast)
        llm = scheduler.llm(PASS)

        async def one(item: tuple[Chunk, str]) -> ChatResult:
            fmt = {"type": "json_object"} if cfg.llm.json_mode else None
            request = llm.request([{"role": "user", "content": item[1]}], max_tokens=MAX_TOKENS, response_format=fmt,
                                  valid=_holds_json)
            return await llm.chat(request)

        outcomes = await scheduler.map(one, list(zip(chosen, prompts)), pass_name=PASS)
        account = scheduler.pass_total(PASS)
    proposals, failed = _proposals(outcomes, notice)
    proposed = aggregate(proposals)
    if not proposed.types:
        raise InputError(f"tune: no entity type came out of {len(chosen)} sampled chunks ({failed} failed); the model "
                         "may not answer in JSON: check llm.model, or sample more with --sample")
    usd = cost(account, cfg.llm.model, cfg.prices)
    header = [f"graph.schema proposed by graphglean tune from {len(chosen)} of {len(chunks)} chunks of "
              f"{cfg.input.path} by {cfg.llm.model}, in {language}.",
              "Edit it, then name it in the configuration: graph: {schema: " + path.name + "} (without "
              "graph.entity_types).",
              "Counts are of the sampled chunks whose answer named the type or pattern; examples are names those "
              "chunks write (document #chunk in parentheses)."]
    write_text(path, schema_yaml(proposed, header))
    summary = {"calls": account.calls, "cache_hits": account.cache_hits, "prompt_tokens": account.prompt_tokens,
               "completion_tokens": account.completion_tokens, "cost_usd": usd, "invented_examples": proposed.invented}
    print(f"tune: {len(proposed.types)} entity types, {len(proposed.patterns)} relationship patterns from "
          f"{len(chosen)} chunks ({language}); {account.calls} calls, {account.cache_hits} from the cache, "
          f"{account.prompt_tokens + account.completion_tokens} tokens"
          + (f", ${usd:.4f}" if usd is not None else "") + f"; wrote {path}", file=stdout)
    return TuneResult(path, len(chosen), len(chunks), language, len(proposed.types), len(proposed.patterns), failed,
                      summary)


def _holds_json(text: str) -> bool:
    try:
        read_proposal(text, "", "")
    except ValueError:
        return False
    return True


def _proposals(outcomes: list[Any], notice: Callable[[str], None]) -> tuple[list[Proposal], int]:
    proposals, failed = [], 0
    for o in outcomes:
        chunk = o.item[0]
        if not o.ok:
            failed += 1
            notice(f"tune: chunk {chunk.id} failed: {o.error}")
            continue
        try:
            proposals.append(read_proposal(o.value.text, f"{chunk.doc_id} #{chunk.index}", chunk.text))
        except ValueError:
            failed += 1
            notice(f"tune: chunk {chunk.id}: the answer holds no JSON ({o.value.text.strip()[:80]!r})")
    return proposals, failed


def _estimate(cfg: Config, chosen: list[Chunk], chunks: list[Chunk], language: str, prompts: list[str],
              tokenizer: Tokenizer, stdout: TextIO) -> TuneResult:
    tokens_in = sum(tokenizer.count(p) for p in prompts)
    tokens_out = ANSWER_TOKENS * len(prompts)
    price = price_of(cfg.llm.model, cfg.prices)
    usd = None if price is None else round((tokens_in * price[0] + tokens_out * price[1]) / 1e6, 4)
    print(f"tune (dry run): {len(chosen)} of {len(chunks)} chunks sampled, {language}; {len(prompts)} calls, "
          f"~{tokens_in} tokens in, ~{tokens_out} out" + (f", ~${usd}" if usd is not None else
                                                           f" (no price known for {cfg.llm.model})"), file=stdout)
    return TuneResult(None, len(chosen), len(chunks), language, 0, 0, 0,
                      {"calls_est": len(prompts), "tokens_in_est": tokens_in, "tokens_out_est": tokens_out,
                       "cost_usd_est": usd})
