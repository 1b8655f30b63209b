"""`Enricher`: background enrichment of stored chat messages on the shared scheduler.

    async with Enricher(store, scheduler, config.enrich) as enricher:
        await enricher.add_messages("session-1", messages)   # stored at once, enriched in the background
        await enricher.drain()                               # wait for it (and retry what failed)

Results go under ``metadata.system`` as in Zep: ``token_count``, ``intent``, ``entities``
(``[{"Label", "Name", "Matches": [{"Start", "End", "Text"}]}]``), plus a stored embedding, and progressive
session summaries with their own embeddings and entities. Each step of each message is recorded done or
failed as it ends, so a restart picks up exactly what was unfinished.
"""

from __future__ import annotations

import uuid as uuidlib
import warnings
from contextlib import AsyncExitStack
from typing import Any, Awaitable, Callable, Sequence

import attrs
import regex
import trio

from ..core.answers import json_answer, parse_json_output
from ..core.config import EnrichConfig
from ..core.errors import LLMCapabilityError, single
from ..core.prompts import load_template, render
from ..core.tokens import Tokenizer
from ..scheduling.scheduler import FATAL, Scheduler
from ..summaries import HistoryMessage, ProgressiveSummarizer, SummaryPoint
from ..text.inputs import Message
from ..text.nfc import Composed, nfc
from ..text.words import LETTERS
from .spacy_entities import SpacyEntities
from .store import NAMESPACE, MemoryStore, StoredMessage, StoredSummary, message_uuid

NO_INTENT = ("no_intent", "no intent", "none", "n/a")


@attrs.define
class EnrichStats:
    messages: int = 0
    intents: int = 0
    entities: int = 0
    entities_unlocated: int = 0
    embeddings: int = 0
    summaries: int = 0
    failed_steps: int = 0  # steps (intent, entities, embedding, summary) that failed; asked again next drain
    entity_backend: str = "llm"  # the one auto chose: spacy where installed


_EDGE = rf"[{LETTERS}\p{{N}}_]"  # what a match may not be glued to: a letter, a mark on one (a vowel sign), a digit


def locate(name: str, text: str) -> list[dict[str, Any]]:
    """Every place ``name`` occurs in ``text`` as a whole word (exact case first, else any case), as Zep Matches.
    Both are compared in NFC (`text.nfc`); offsets and the matched text are the original's."""
    name = nfc(name.strip())
    if not name:
        return []
    composed = Composed.of(text)
    view = text if composed is None else composed.text
    for flags in (0, regex.I):
        found = []
        for m in regex.finditer(rf"(?<!{_EDGE}){regex.escape(name)}(?!{_EDGE})", view, flags):
            start, end = m.span() if composed is None else composed.span(*m.span())
            found.append({"Start": start, "End": end, "Text": text[start:end]})
        if found:
            return found
    return []


def stored_messages(session_id: str, messages: Sequence[Message | StoredMessage], position: int) -> list[StoredMessage]:
    """``messages`` of a session as stored, the first at ``position``: one without an id is identified by its
    session, position and content."""
    return [m if isinstance(m, StoredMessage) else StoredMessage(
        m.id or message_uuid(session_id, position + i, m.role, m.content), session_id, m.role, m.content,
        m.created_at, dict(m.metadata)) for i, m in enumerate(messages)]


class Enricher:
    def __init__(self, store: MemoryStore, scheduler: Scheduler, cfg: EnrichConfig | None = None,
                 tokenizer: Tokenizer | None = None, embedding_batch: int = 64) -> None:
        self.store, self.scheduler = store, scheduler
        self.cfg = cfg or EnrichConfig()
        self.tokenizer = tokenizer or Tokenizer(scheduler.client.cfg.model)
        self.embedding_batch = embedding_batch
        self.stats = EnrichStats()
        self.intent_template = load_template("enrich_intent")
        self.entity_template = load_template("enrich_entities")
        self._stack = AsyncExitStack()
        self._nursery: trio.Nursery | None = None
        self._dirty = False
        self._running = False
        self._idle = trio.Event()
        self._idle.set()
        self._spacy: SpacyEntities | None = None
        self.entity_backend = "llm"

    async def __aenter__(self) -> "Enricher":
        if self.cfg.entities and self.cfg.entity_backend != "llm":
            self._spacy = await SpacyEntities.load(self.cfg.nlp_model, required=self.cfg.entity_backend == "spacy")
            self.entity_backend = self.stats.entity_backend = "spacy" if self._spacy else "llm"
        self._nursery = await self._stack.enter_async_context(trio.open_nursery())
        self._kick()  # whatever a previous run left unfinished
        return self

    async def __aexit__(self, *exc: Any) -> bool:
        waiting: BaseException | None = None
        try:
            if exc[0] is None:
                await self._idle.wait()
        except BaseException as e:  # cancelled because a background step failed: the nursery must still close
            waiting, exc = e, (type(e), e, e.__traceback__)
        try:
            suppressed = await self._stack.__aexit__(*exc)
        except BaseExceptionGroup as group:  # the background nursery's: the one error that matters
            raise single(group) from None
        if waiting is not None and not suppressed:
            raise waiting
        return bool(suppressed) and waiting is None

    async def add_messages(self, session_id: str, messages: Sequence[Message | StoredMessage],
                           position: int | None = None) -> list[str]:
        """Store ``messages`` (durably, before returning) and start enriching them in the background.

        A message without an id is identified by its session, position and content. ``position`` is where
        the first one stands in the session (0 when giving a whole session): then adding the same messages
        again stores nothing twice. Without it they are appended after the messages already stored."""
        if position is None:
            position = len(await trio.to_thread.run_sync(self.store.messages, session_id))
        stored = stored_messages(session_id, messages, position)
        uuids = await trio.to_thread.run_sync(self.store.add_messages, stored)
        self._kick()
        return uuids

    async def drain(self) -> EnrichStats:
        """Wait until every message is enriched; steps that failed before are tried once more first."""
        await trio.to_thread.run_sync(self.store.retry_failed)
        self._kick()
        await self._idle.wait()
        return self.stats

    # -- the background loop ------------------------------------------------------------------------------

    def _kick(self) -> None:
        self._dirty = True
        if not self._running and self._nursery is not None:
            self._running = True
            self._idle = trio.Event()
            self._nursery.start_soon(self._loop)

    async def _loop(self) -> None:
        try:
            while self._dirty:
                self._dirty = False
                await self._round()
        finally:
            self._running = False
            self._idle.set()

    async def _round(self) -> None:
        await self._token_counts()
        async with trio.open_nursery() as nursery:
            if self.cfg.intent or (self.cfg.entities and self._spacy is None):
                nursery.start_soon(self._per_message_llm_steps)
            if self.cfg.entities and self._spacy is not None:
                nursery.start_soon(self._spacy_entities)
            if self.cfg.embeddings:
                nursery.start_soon(self._embeddings)
            if self.cfg.summaries:
                nursery.start_soon(self._summaries)

    async def _token_counts(self) -> None:
        def work() -> int:
            pending = self.store.pending("token_count")
            for m in pending:
                count = self.tokenizer.count(f"{m.role}: {m.content}")
                self.store.set_token_count(m.uuid, count)
                self.store.set_system(m.uuid, "token_count", count)
                self.store.mark(m.uuid, "token_count", "done")
            return len(pending)

        self.stats.messages += await trio.to_thread.run_sync(work)

    async def _step(self, uuid: str, step: str, fn: Callable[[], Awaitable[None]]) -> None:
        """Run one step of one message; record it done or failed, never lose the error."""
        try:
            await fn()
        except Exception as e:
            if isinstance(e, FATAL):
                raise
            self.stats.failed_steps += 1
            await trio.to_thread.run_sync(self.store.mark, uuid, step, "failed", f"{type(e).__name__}: {e}")
            return
        await trio.to_thread.run_sync(self.store.mark, uuid, step, "done")

    async def _per_message_llm_steps(self) -> None:
        steps = [s for s, on in (("intent", self.cfg.intent), ("entities", self.cfg.entities and self._spacy is None))
                 if on]
        work: dict[str, tuple[StoredMessage, list[str]]] = {}
        for step in steps:
            for m in await trio.to_thread.run_sync(self.store.pending, step):
                work.setdefault(m.uuid, (m, []))[1].append(step)
        llm = self.scheduler.llm("enrich")

        async def one(item: tuple[StoredMessage, list[str]]) -> None:
            m, todo = item
            if not m.content.strip():
                for step in todo:
                    await trio.to_thread.run_sync(self.store.mark, m.uuid, step, "done")
                return
            if "intent" in todo:
                await self._step(m.uuid, "intent", lambda: self._intent(llm, m))
            if "entities" in todo:
                await self._step(m.uuid, "entities", lambda: self._entities(llm, m.uuid, m.content, "messages"))

        await self.scheduler.map(one, list(work.values()), pass_name="enrich")

    async def _intent(self, llm: Any, m: StoredMessage) -> None:
        prompt = render(self.intent_template, message=f"{m.role}: {m.content}")
        # reasoning alone, or a refusal, is not the message's intent: `NoAnswer`, the step fails and is asked again
        answer = (await llm.prose([{"role": "user", "content": prompt}], max_tokens=100)).text
        if not answer.lower().strip(" .").startswith(NO_INTENT):
            await trio.to_thread.run_sync(self.store.set_system, m.uuid, "intent", answer)
            self.stats.intents += 1

    async def _spacy_entities(self) -> None:
        """Entities of every pending message from spaCy, in batches: no LLM call."""
        assert self._spacy is not None
        pending = [m for m in await trio.to_thread.run_sync(self.store.pending, "entities")]
        for i in range(0, len(pending), SpacyEntities.BATCH):
            batch = pending[i:i + SpacyEntities.BATCH]
            try:
                found = await self._spacy.entities([m.content for m in batch])
            except Exception as e:  # the model failed on this batch: recorded per message, tried again on drain
                self.stats.failed_steps += len(batch)
                for m in batch:
                    await trio.to_thread.run_sync(self.store.mark, m.uuid, "entities", "failed",
                                                  f"{type(e).__name__}: {e}")
                continue

            def write(batch: list[StoredMessage] = batch, found: list[list[dict[str, Any]]] = found) -> None:
                for m, entities in zip(batch, found):
                    self.store.set_system(m.uuid, "entities", entities, "messages")
                    self.store.mark(m.uuid, "entities", "done")

            await trio.to_thread.run_sync(write)
            self.stats.entities += sum(map(len, found))

    async def _entities(self, llm: Any, uuid: str, text: str, table: str) -> None:
        if self._spacy is not None:
            entities = (await self._spacy.entities([text]))[0]
            await trio.to_thread.run_sync(self.store.set_system, uuid, "entities", entities, table)
            self.stats.entities += len(entities)
            return
        prompt = render(self.entity_template, message=text)
        fmt = {"type": "json_object"} if self.scheduler.client.cfg.json_mode else None
        result = await llm.chat(llm.request([{"role": "user", "content": prompt}], response_format=fmt,
                                            valid=json_answer))
        value = parse_json_output(result.text)
        items = value.get("entities", []) if isinstance(value, dict) else value
        found = [(str(e.get("label") or e.get("Label") or "").upper(), str(e.get("name") or e.get("Name") or ""))
                 for e in items if isinstance(e, dict)]
        entities = []
        for label, name in dict.fromkeys(found):
            matches = locate(name, text)
            if not matches:
                self.stats.entities_unlocated += 1  # a name the text does not contain: not an entity of it
                continue
            entities.append({"Label": label, "Name": name, "Matches": matches})
        await trio.to_thread.run_sync(self.store.set_system, uuid, "entities", entities, table)
        self.stats.entities += len(entities)

    async def _embeddings(self) -> None:
        pending = [m for m in await trio.to_thread.run_sync(self.store.pending, "embedding")]
        batches = [pending[i:i + self.embedding_batch] for i in range(0, len(pending), self.embedding_batch)]
        llm = self.scheduler.llm("enrich.embed")

        async def one(batch: list[StoredMessage]) -> None:
            try:
                result = await llm.embed([f"{m.role}: {m.content}" for m in batch])
            except Exception as e:
                if isinstance(e, FATAL):
                    raise
                self.stats.failed_steps += len(batch)
                for m in batch:
                    await trio.to_thread.run_sync(self.store.mark, m.uuid, "embedding", "failed", str(e))
                return
            for m, vector in zip(batch, result.vectors):
                await trio.to_thread.run_sync(self.store.set_embedding, m.uuid, vector)
                await trio.to_thread.run_sync(self.store.mark, m.uuid, "embedding", "done")
            self.stats.embeddings += len(batch)

        try:
            await self.scheduler.map(one, batches, pass_name="enrich.embed")
        except LLMCapabilityError as e:  # a chat-only server: the messages are kept, without vectors
            warnings.warn(f"enrich.embeddings: {e}; messages are stored without embeddings (set enrich.embeddings: "
                          "false, or llm.embedding_model to a model the endpoint serves)", stacklevel=2)

    async def _summaries(self) -> None:
        sessions = await trio.to_thread.run_sync(self.store.sessions)
        llm = self.scheduler.llm("enrich.summary")

        async def one(session_id: str) -> None:
            # a session's summary step is recorded under the session's id: one that failed (an answer of
            # reasoning alone, say) is a failed step in the report, asked again on the next drain
            await self._step(session_id, "summary", lambda: self._summarize(llm, session_id))

        await self.scheduler.map(one, sessions, pass_name="enrich.summary")

    async def _summarize(self, llm: Any, session_id: str) -> None:
        """The session's summaries due now, stored with their embeddings and entities."""
        messages = await trio.to_thread.run_sync(self.store.messages, session_id)
        previous = await trio.to_thread.run_sync(self.store.summaries, session_id)
        summarizer = ProgressiveSummarizer(llm, self.cfg.message_window, tokenizer=self.tokenizer)
        summarizer.messages = [HistoryMessage(m.uuid, m.role, m.content) for m in messages]
        summarizer.summaries = [SummaryPoint(s.content, s.message_uuid, s.token_count) for s in previous]
        before = len(summarizer.summaries)
        await summarizer.maybe_summarize()
        for point in summarizer.summaries[before:]:
            summary = StoredSummary(str(uuidlib.uuid5(NAMESPACE, f"summary\n{session_id}\n{point.message_id}")),
                                    session_id, point.content, point.message_id, {}, point.token_count)
            await trio.to_thread.run_sync(self.store.add_summary, summary)
            self.stats.summaries += 1
            await self._enrich_summary(summary)

    async def _enrich_summary(self, summary: StoredSummary) -> None:
        if self.cfg.embeddings:
            result = await self.scheduler.llm("enrich.embed").embed([summary.content])
            await trio.to_thread.run_sync(self.store.set_embedding, summary.uuid, result.vectors[0], "summaries")
        if self.cfg.entities:
            await self._entities(self.scheduler.llm("enrich"), summary.uuid, summary.content, "summaries")
