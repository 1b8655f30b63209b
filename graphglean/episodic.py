"""Episodic memory: per chunk, the gist (stage 1) and then the facts, told the gists (stage 2).

Both stages of a chunk run as one item on the shared scheduler, so chunk i's facts start as soon as its gists
are done, not after every chunk's gists. Bad JSON is repaired, then asked again once; a chunk that still fails
is kept with empty lists and the error in its metadata.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import attrs

from .core.answers import parse_json_output, replace_nulls
from .core.config import WIKIPEDIA_DATASETS, Config
from .core.errors import ConfigError, LLMRequestError
from .core.prompts import load_template, render
from .core.sync import entry_point, run_sync
from .llm.records import ChatResult
from .scheduling.scheduler import FATAL, PassLLM, Scheduler
from .text.locomo import turn_passage

PASS = "episodic"


@attrs.frozen
class ChunkInfo:
    content: str
    num_tokens: int = 0
    chunk_order: list[Any] = attrs.field(factory=list)
    full_doc_ids: list[str] = attrs.field(factory=list)
    metadata: dict[str, Any] = attrs.field(factory=dict)


@attrs.define
class EpisodeRawOutput:
    chunk_id: str
    verbatim: str
    facts: list[Any]
    gists: list[str]
    response: dict[str, str]  # raw LLM text of each stage
    metadata: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return attrs.asdict(self)


def template_family(dataset: str) -> str:
    name = dataset.lower()
    if name.startswith(WIKIPEDIA_DATASETS):
        return "wikipedia"
    return "locomo"


def _items(text: str, key: str) -> list[Any]:
    """The list under ``key`` in a JSON answer (or the answer's own list); ValueError when there is none."""
    value = parse_json_output(text)
    items = value.get(key) if isinstance(value, dict) else value
    if not isinstance(items, list):
        raise ValueError(f"expected a list under {key!r}")
    return items


def _answers_with(key: str) -> Callable[[str], bool]:
    """Validity (``ChatRequest.valid``) of an answer that must hold a JSON list under ``key``."""
    def valid(text: str) -> bool:
        try:
            _items(text, key)
        except ValueError:
            return False
        return True
    return valid


def build_passage(info: ChunkInfo) -> str:
    meta = info.metadata
    if meta.get("speaker"):
        return turn_passage(meta.get("date", ""), meta["speaker"], info.content)
    if meta.get("date"):
        return f"Date: {meta['date']}\n{info.content}"
    return info.content


class EpisodicGistExtraction:
    """``await batch_openie(chunks)`` under trio, ``batch_openie_sync(chunks)`` elsewhere.

    ``llm`` is the run's shared `Scheduler`; with None, each batch opens a client from ``config.llm`` for
    itself (which is what synchronous callers want)."""

    def __init__(self, llm: Scheduler | None, config: Config) -> None:
        self.scheduler = llm
        self.llm: PassLLM | None = llm.llm(PASS) if llm is not None else None
        self.cfg = config
        family = template_family(config.episodic.dataset)
        override = config.episodic.templates or None
        if override and not Path(override).is_dir():
            raise ConfigError(f"episodic.templates: {override} is not a folder")
        self.gist_template = load_template(f"episodic_gist_extraction_{family}", override)
        self.fact_template = load_template(f"episodic_fact_extraction_{family}", override)
        self.json_mode = config.llm.json_mode

    async def _ask_json(self, prompt: str, key: str, meta: dict[str, Any]) -> tuple[list[Any], str]:
        messages = [{"role": "user", "content": prompt}]
        texts = []
        for attempt in range(2):
            result = await self._chat(messages, valid=_answers_with(key))
            texts.append(result.text)
            meta["prompt_tokens"] += result.usage.prompt_tokens
            meta["completion_tokens"] += result.usage.completion_tokens
            meta["cache_hits"] += int(result.cached)
            meta["finish_reasons"].append(result.finish_reason)
            try:
                return [i for i in replace_nulls(_items(result.text, key)) if i not in ("", {}, [])], result.text
            except ValueError as e:
                error = f"{key}: {e}"
                messages += [{"role": "assistant", "content": result.text},
                             {"role": "user", "content": f"That answer was not the JSON asked for ({e}). "
                              f'Answer again with only a JSON object of the form {{"{key}": [...]}}.'}]
        meta["errors"].append(error)
        return [], "\n".join(texts)

    async def _chat(self, messages: list[dict[str, str]], valid: Callable[[str], bool]) -> ChatResult:
        fmt = {"type": "json_object"} if self.json_mode else None
        try:
            assert self.llm is not None
            return await self.llm.chat(self.llm.request(messages, response_format=fmt, valid=valid))
        except LLMRequestError as e:
            if fmt is None or not e.is_about("response_format"):
                raise
            self.json_mode = False  # the endpoint does not take response_format: remember, ask plainly
            return await self.llm.chat(self.llm.request(messages, valid=valid))

    async def extract(self, chunk_id: str, info: ChunkInfo) -> EpisodeRawOutput:
        passage = build_passage(info)
        meta: dict[str, Any] = {"prompt_tokens": 0, "completion_tokens": 0, "cache_hits": 0, "finish_reasons": [],
                                "errors": [], **{k: v for k, v in info.metadata.items() if k in ("date", "session_id")}}
        out = EpisodeRawOutput(chunk_id, passage, [], [], {"gists": "", "facts": ""}, meta)
        try:
            gists, out.response["gists"] = await self._ask_json(render(self.gist_template, passage=passage),
                                                               "gists", meta)
            out.gists = [g if isinstance(g, str) else str(g) for g in gists]
            lines = "\n".join(f"- {g}" for g in out.gists) or "(none)"
            out.facts, out.response["facts"] = await self._ask_json(
                render(self.fact_template, passage=passage, gists=lines), "facts", meta)
        except FATAL:
            raise
        except Exception as e:  # the chunk is kept, with the error, whatever went wrong
            meta["errors"].append(f"{type(e).__name__}: {e}")
        return out

    @entry_point
    async def batch_openie(self, chunks: dict[str, ChunkInfo]) -> dict[str, EpisodeRawOutput]:
        """Gists then facts for every chunk; results in input order."""
        if self.scheduler is None:
            from .llm.client import ChatClient

            async with ChatClient.from_config(self.cfg.llm, self.cfg.output.dir) as client:
                self.scheduler = Scheduler(client, fail_fast=self.cfg.fail_fast)
                self.llm = self.scheduler.llm(PASS)
                try:
                    return await self.batch_openie(chunks)
                finally:
                    self.scheduler = self.llm = None
        items = list(chunks.items())
        outcomes = await self.scheduler.map(lambda kv: self.extract(*kv), items, pass_name=PASS)
        return {o.item[0]: o.value for o in outcomes if o.ok}

    def batch_openie_sync(self, chunks: dict[str, ChunkInfo]) -> dict[str, EpisodeRawOutput]:
        return run_sync(self.batch_openie, chunks)
