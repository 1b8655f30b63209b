"""Summaries. `summarize` follows the long-document summarization recipe at a chosen level of detail;
`ProgressiveSummarizer` keeps a running summary of a message history (Zep's summarizer, without its gap)."""

from __future__ import annotations

import warnings
from typing import Any, Sequence

import attrs
import trio

from .core.answers import prose, prose_answer
from .core.errors import ConfigError
from .core.prompts import load_template, render
from .core.repetition import is_loop, loop_start, overlap
from .core.sync import entry_point
from .core.tokens import Tokenizer
from .llm.model_limits.completion_cap import CompletionCap
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
    cut: int = 0  # chunk summaries the model's output limit cut, or that repeated themselves (the repeats left out)
    continued: int = 0  # calls that continued a summary the completion cap cut

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
    run concurrently on the scheduler; recursive mode gives each chunk the summaries so far, in order. A chunk's
    summary is its answer without reasoning blocks, closed or not (`answers.prose`); one with nothing else
    (or a refusal) raises `NoAnswer`: a summary with a hole in it is not a summary."""
    tokenizer = tokenizer or Tokenizer.cl100k()

    def plan() -> tuple[list[str], int, dict[str, int]]:
        chunks, dropped = plan_chunks(text, detail, minimum_chunk_size, chunk_delimiter, tokenizer)
        return chunks, dropped, {c: tokenizer.count(c) for c in chunks}

    # seconds of tokenizing for a book: in a worker thread, so other passes' requests keep flowing
    chunks, dropped, sizes = await trio.to_thread.run_sync(plan, abandon_on_cancel=True)
    system = SYSTEM + (f"\n\n{additional_instructions}" if additional_instructions else "")
    llm = scheduler.llm(pass_name)
    limit = CompletionCap.of(llm.client.cfg).cap
    usage, counts = Usage(), {"cut": 0, "continued": 0}

    async def one(chunk: str, content: str | None = None) -> str:
        nonlocal usage
        # a summary is shorter than what it summarizes: a cap of the text's length stops a looping model early
        cap = min(limit, max(_LEAST_CAP, sizes[chunk]))
        messages = [{"role": "system", "content": system}, {"role": "user", "content": content or chunk}]
        answer = await whole_answer(llm, messages, cap, limit)
        usage += answer.usage
        counts["cut"] += answer.cut
        counts["continued"] += answer.continued
        return prose(answer.text)  # never reasoning: summaries are stored, and fed back to the next chunk's call

    summaries: list[str] = []
    if summarize_recursively:
        for chunk in chunks:
            content = chunk if not summaries else (
                "Previous summaries:\n\n" + "\n\n".join(summaries) + f"\n\nText to summarize next:\n\n{chunk}")
            summaries.append(await one(chunk, content))
    else:
        outcomes = await scheduler.map(one, chunks, pass_name=pass_name)
        for o in outcomes:
            if not o.ok:
                raise o.error  # a summary with a hole in it is not a summary
        summaries = [o.value for o in outcomes]
    if counts["cut"]:
        warnings.warn(f"{pass_name}: {counts['cut']} of {len(chunks)} chunk summaries did not end within the model's "
                      f"output limit ({limit} tokens) or repeated themselves; the repeats were left out (a higher "
                      "summary.detail gives shorter chunks)", stacklevel=2)
    return SummaryResult("\n\n".join(summaries), detail, len(chunks), len(chunks) + counts["continued"],
                         usage.prompt_tokens, usage.completion_tokens, dropped, counts["cut"], counts["continued"])


_LEAST_CAP = 256  # tokens: the cap of a summary of a short text


@attrs.frozen
class _Answer:
    text: str
    usage: Usage
    cut: bool  # still cut at ``limit``, or a loop with its repeats left out
    continued: int


async def whole_answer(llm: PassLLM, messages: list[dict[str, str]], cap: int, limit: int) -> _Answer:
    """The answer to ``messages``, asked at ``cap`` and continued while the cap cuts it (the answer so far as
    the assistant's turn, then a request to continue where it stopped), up to ``limit`` tokens in all. A model
    repeating itself is not continued, and its repeats are left out."""
    result = await llm.chat(llm.request(messages, max_tokens=cap, valid=prose_answer))
    text, usage, continued = result.text, result.usage, 0
    # cut answers of ``cap`` tokens reach ``limit`` within this many continuations: a server that says "cut" of
    # shorter ones (or counts no tokens) is not asked on and on, each time with the whole conversation again
    most = -(-limit // max(1, cap))
    while result.truncated and not is_loop(text) and usage.completion_tokens < limit and continued < most:
        messages = [*messages, {"role": "assistant", "content": result.text},
                    {"role": "user", "content": load_template("resume_answer").strip()}]
        result = await llm.chat(llm.request(messages, max_tokens=min(cap, limit - usage.completion_tokens),
                                            valid=prose_answer))
        added = result.text[overlap(text, result.text):]
        text += added
        usage, continued = usage + result.usage, continued + 1
        if not added.strip():  # no progress: it only said again what it had written
            break
    looping = result.truncated and is_loop(text)
    return _Answer(text[:loop_start(text)] if looping else text, usage, result.truncated, continued)


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
    several calls. Empty messages are skipped. A summary is the answer without its reasoning (`PassLLM.prose`);
    an answer of reasoning alone raises `NoAnswer`, and the summary point stays at the last summary made.
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
            # the summary so far goes into the next call's prompt: its text without reasoning (`PassLLM.prose`)
            current = (await self.llm.prose([{"role": "user", "content": prompt}])).text
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
