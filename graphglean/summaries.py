"""Summaries. `summarize` follows the long-document summarization recipe at a chosen level of detail;
`ProgressiveSummarizer` keeps a running summary of a message history (Zep's summarizer, without its gap)."""

from __future__ import annotations

from typing import Any, Sequence

import attrs
import trio

from .core.answers import answered
from .core.errors import ConfigError
from .core.prompts import load_template, render
from .core.sync import entry_point
from .core.tokens import Tokenizer
from .llm.records import Usage
from .scheduling.scheduler import PassLLM, Scheduler
from .text.chunking import chunk_on_delimiter

SYSTEM = "Rewrite this text in summarized form."
PASS = "summary"


@attrs.frozen
class SummaryResult:
    summary: str
    detail: float
    chunks: int
    calls: int
    prompt_tokens: int
    completion_tokens: int
    dropped: int = 0  # delimiter pieces too large for a chunk, marked "..."

    def to_json(self) -> dict[str, Any]:
        return attrs.asdict(self)


def plan_chunks(text: str, detail: float, minimum_chunk_size: int, delimiter: str,
                tokenizer: Tokenizer) -> tuple[list[str], int]:
    """The recipe's chunking for ``detail``: interpolate between one chunk and the most the delimiter allows."""
    if not 0.0 <= detail <= 1.0:
        raise ConfigError(f"summary detail must be between 0 and 1, got {detail}")
    max_chunks = len(chunk_on_delimiter(text, minimum_chunk_size, tokenizer, delimiter).chunks)
    num_chunks = int(1 + detail * (max(max_chunks, 1) - 1))
    chunk_size = max(minimum_chunk_size, tokenizer.count(text) // num_chunks)
    planned = chunk_on_delimiter(text, chunk_size, tokenizer, delimiter)
    return planned.chunks, planned.dropped


@entry_point
async def summarize(text: str, scheduler: Scheduler, detail: float = 0.0, additional_instructions: str | None = None,
                    minimum_chunk_size: int = 500, chunk_delimiter: str = ".", summarize_recursively: bool = False,
                    tokenizer: Tokenizer | None = None, pass_name: str = PASS) -> SummaryResult:
    """Summarize ``text``; higher ``detail`` means more chunks, hence a longer summary. Non-recursive chunks
    run concurrently on the scheduler; recursive mode gives each chunk the summaries so far, in order."""
    tokenizer = tokenizer or Tokenizer.cl100k()
    # seconds of tokenizing for a book: in a worker thread, so other passes' requests keep flowing
    chunks, dropped = await trio.to_thread.run_sync(plan_chunks, text, detail, minimum_chunk_size, chunk_delimiter,
                                                    tokenizer, abandon_on_cancel=True)
    system = SYSTEM + (f"\n\n{additional_instructions}" if additional_instructions else "")
    llm = scheduler.llm(pass_name)
    usage = Usage()

    async def one(content: str) -> str:
        nonlocal usage
        result = await llm.chat(llm.request([{"role": "system", "content": system},
                                             {"role": "user", "content": content}], valid=answered))
        usage += result.usage
        return result.text.strip()

    summaries: list[str] = []
    if summarize_recursively:
        for chunk in chunks:
            content = chunk if not summaries else (
                "Previous summaries:\n\n" + "\n\n".join(summaries) + f"\n\nText to summarize next:\n\n{chunk}")
            summaries.append(await one(content))
    else:
        outcomes = await scheduler.map(one, chunks, pass_name=pass_name)
        for o in outcomes:
            if not o.ok:
                raise o.error  # a summary with a hole in it is not a summary
        summaries = [o.value for o in outcomes]
    return SummaryResult("\n\n".join(summaries), detail, len(chunks), len(chunks), usage.prompt_tokens,
                         usage.completion_tokens, dropped)


@attrs.frozen
class SummaryPoint:
    """One summary in the history, made at (after) message ``message_id``."""

    content: str
    message_id: str
    token_count: int


@attrs.frozen
class HistoryMessage:
    id: str
    role: str
    content: str


class ProgressiveSummarizer:
    """Keeps a running summary of a message history.

    When the unsummarized messages reach ``window``, all of them but the newest ``window // 2`` are folded
    into the summary, and the summary point moves to the last one folded. Every unsummarized message is
    read, so a backlog larger than the window leaves no gap; a backlog over ``token_budget`` is folded in
    several calls. Empty messages are skipped.
    """

    def __init__(self, llm: PassLLM, window: int = 12, token_budget: int = 3000,
                 tokenizer: Tokenizer | None = None) -> None:
        if window < 2:
            raise ValueError("the message window must be at least 2")
        self.llm, self.window, self.token_budget = llm, window, token_budget
        self.tokenizer = tokenizer or Tokenizer.cl100k()
        self.messages: list[HistoryMessage] = []
        self.summaries: list[SummaryPoint] = []
        self.template = load_template("progressive_summary")

    @property
    def summary_point(self) -> str | None:
        return self.summaries[-1].message_id if self.summaries else None

    def unsummarized(self) -> list[HistoryMessage]:
        point = self.summary_point
        start = 0 if point is None else next(i for i, m in enumerate(self.messages) if m.id == point) + 1
        return [m for m in self.messages[start:] if m.content.strip()]

    def add(self, message: HistoryMessage) -> None:
        self.messages.append(message)

    async def maybe_summarize(self) -> SummaryPoint | None:
        pending = self.unsummarized()
        if len(pending) < self.window:
            return None
        fold = pending[: len(pending) - self.window // 2]
        current = self.summaries[-1].content if self.summaries else ""
        for batch in self._batches(fold):
            lines = "\n".join(f"{m.role}: {m.content}" for m in batch)
            prompt = render(self.template, current_summary=current or "(none yet)", new_lines=lines)
            result = await self.llm.chat(self.llm.request([{"role": "user", "content": prompt}], valid=answered))
            current = result.text.strip()
            self.summaries.append(SummaryPoint(current, batch[-1].id, self.tokenizer.count(current)))
        return self.summaries[-1]

    def _batches(self, messages: Sequence[HistoryMessage]) -> list[list[HistoryMessage]]:
        batches: list[list[HistoryMessage]] = [[]]
        used = 0
        for m in messages:
            n = self.tokenizer.count(m.content) + 4
            if batches[-1] and used + n > self.token_budget:
                batches.append([])
                used = 0
            batches[-1].append(m)
            used += n
        return batches

    def get_memory(self) -> tuple[SummaryPoint | None, list[HistoryMessage]]:
        """The latest summary and every message after its point."""
        point = self.summary_point
        start = 0 if point is None else next(i for i, m in enumerate(self.messages) if m.id == point) + 1
        return (self.summaries[-1] if self.summaries else None), self.messages[start:]
