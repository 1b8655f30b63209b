"""`GleaningLoop`: the first extraction of a chunk, then rounds of "were entities missed?" while the model
says YES, up to ``max_gleanings``.

The YES/NO question is one token (``max_tokens=1``) with ``logit_bias`` +100 on the ids of YES and NO in the
*endpoint's* tokenizer: tiktoken's ids for OpenAI models, the server's own tokenize route for local servers
(`llm.server_tokens`), or ids from the configuration. Without known ids, or when an endpoint refuses
``logit_bias``, it asks without bias and reads the answer leniently; ids from the wrong tokenizer make a local
model answer garbage.

An answer the completion cap cuts is continued, never asked again from its start: the cut answer goes back as
the assistant's turn, followed by a short "continue exactly where you stopped", and the parts are joined
(`continuation.join`) into the one answer that is parsed and stored. Every call of a conversation re-sends the
one before it unchanged and adds to its end, so an endpoint serves that prefix from its prompt cache.

No call asks for more than the model's output limit. Continuing stops when the answer ends, or when the model
repeats itself: a cut first answer that is a loop is kept as it is (it holds all the model had to say); a
continuation that makes no progress, or a conversation that fills the context window, has its passage halved
at a break near the middle, each half with its own loop (``max_splits`` deep). An answer twenty times its
passage's length (a backstop against a model that runs on without repeating itself) is kept as it is. Both are
judged on what the answer says outside its reasoning blocks: a reasoning model cut while it thinks, however
short its passage, is continued like any cut answer, until its reasoning runs past a backstop of its own.

A chunk whose answers end cut, kept as they were, with no record read from any of them, fails (`LLMAnswerError`,
naming why they were kept): it is not stored, and a later run asks again.
"""

from __future__ import annotations

import re
from typing import Any, Callable

import attrs
import trio

from ...core.answers import strip_reasoning, without_reasoning
from ...core.errors import LLMAnswerError, LLMRequestError, single
from ...core.repetition import is_loop
from ...core.tokens import Tokenizer
from ...llm.model_limits.completion_cap import LEAST_ROOM, CompletionCap
from ...llm.records import ChatRequest, ChatResult, Usage
from ...llm.server_tokens import single_token_ids
from ...scheduling.scheduler import PassLLM
from .chunk_extraction import ChunkExtraction, Tally
from .continuation import join, progressed
from .parser import RecordParser
from .prompts import GraphPrompts


def is_openai_endpoint(provider: str, base_url: str) -> bool:
    return provider == "azure" or not base_url or "api.openai.com" in base_url


def is_openai_model(model: str) -> bool:
    return model.lower().startswith(("gpt-", "o1", "o3", "o4", "chatgpt"))


class LoopCheck:
    """Asks the YES/NO continuation question, with the right logit bias for the endpoint (found once)."""

    def __init__(self, llm: PassLLM, provider: str, base_url: str, configured_ids: dict[str, Any],
                 method: dict[str, Any] | None = None) -> None:
        self.llm = llm
        self._provider, self._base_url = provider, base_url
        self._configured = configured_ids
        self._bias: dict[str, float] | None = None
        self._resolved = False
        self._lock = trio.Lock()
        self.method = {} if method is None else method  # how the checks are asked, and why (report.json)

    async def bias(self) -> dict[str, float] | None:
        async with self._lock:
            if not self._resolved:
                found: dict[str, Any] = {}
                ids = await self._find_ids(found)
                self._bias = {str(i): 100.0 for i in ids} if ids else None
                self.method.update({"method": "logit_bias", "ids": dict(zip(("YES", "NO"), ids)), **found} if ids
                                   else {"method": "lenient text", "why": found.get("why", "no token ids")})
                self._resolved = True
        return self._bias

    async def _find_ids(self, found: dict[str, Any]) -> list[int] | None:
        if self._configured:
            found["found_by"] = "llm.logit_bias_ids"
            return [int(self._configured[k]) for k in ("YES", "NO") if k in self._configured] or None
        if not is_openai_endpoint(self._provider, self._base_url):
            ids = await single_token_ids(self.llm.client, ("YES", "NO"), found)
            if ids or not is_openai_model(self.llm.model):
                return ids
        # OpenAI's endpoint, or an OpenAI model behind a proxy that has no tokenizer of its own
        tok = Tokenizer(self.llm.model)
        ids = [tok.single_token_id(w) for w in ("YES", "NO")]
        found.update(found_by=f"tiktoken ({tok.requested})") if tok.exact and None not in ids else found.update(
            why=f"no exact tokenizer for {self.llm.model!r}")
        return ids if tok.exact and None not in ids else None

    async def ask(self, messages: list[dict[str, str]]) -> tuple[bool, bool, Usage]:
        """(more?, was the answer a clear yes or no?, usage). An unclear answer counts as NO."""
        bias = await self.bias()
        req = self.llm.request(messages, max_tokens=1, logit_bias=bias, valid=_clear)
        try:
            result = await self.llm.chat(req)
        except LLMRequestError as e:
            if bias is None or not e.is_about("logit_bias"):
                raise
            self._bias = None  # this endpoint refuses logit_bias: remember, and ask plainly from now on
            self.method.update(method="lenient text", why=f"the server refused logit_bias ({str(e)[:160]})")
            result = await self.llm.chat(self.llm.request(messages, max_tokens=1, valid=_clear))
        answer = _yes_no(result.text)
        return answer == "y", answer != "", result.usage


def _yes_no(text: str) -> str:
    """"y" or "n" for a clear answer, "" for an unclear one."""
    answer = strip_reasoning(text).strip().strip(".!\"'").lower()
    return answer[:1] if answer.startswith(("y", "n")) else ""


def _clear(text: str) -> bool:  # an unclear YES/NO is not kept: a later run asks again
    return _yes_no(text) != ""


_BREAKS = (re.compile(r"\n\s*\n"), re.compile(r"\n"),
           re.compile(r"[.!?]['\")\u201d]?\s+|[\u3002\uff01\uff1f]['\")\u201d\u300d]?\s*"),
           re.compile(r"[,;\uff0c\u3001\uff1b]\s*|\s+"))
_SHORTEST_HALF = 16  # characters; a passage without any break is halved at its middle when longer than two
# A backstop no real answer reaches (each continuation must also make progress and fit the window): the
# densest recorded answers are ~1.3 tokens a passage token, the benchmark's dense corpus ~7.5
_MOST_PER_PASSAGE_TOKEN = 20
# A backstop of reasoning, which no passage bounds (a model may think long on a short one): what reasoning
# models' makers give them to think (Qwen3's and DeepSeek-R1's 32k), and at most eight calls of it; at least one
_MOST_REASONING_TOKENS, _MOST_REASONING_CALLS = 32768, 8
# why an answer cut at the cap was kept as it is (`_Answer.ending`), as a failed chunk's line says it
_KEPT = {"loop": "it repeated itself", "long": "its text ran past twenty tokens a passage token",
         "reasoning": "its reasoning ran past {reasoning} tokens", "stuck": "a continuation made no progress",
         "full": "the conversation filled the model's context window"}


def split_point(text: str) -> int | None:
    """Where to halve a passage: the paragraph, line, sentence or word break nearest its middle (in that order
    of preference, when one lies in the middle half), else the middle; None for a passage too short to halve."""
    middle = len(text) // 2
    for pattern in _BREAKS:
        ends = [m.end() for m in pattern.finditer(text) if len(text) // 4 <= m.end() <= 3 * len(text) // 4]
        if ends:
            return min(ends, key=lambda e: abs(e - middle))
    return middle if middle >= _SHORTEST_HALF else None


class _WindowFull(Exception):
    """The conversation leaves no room in the model's context window for an answer."""


@attrs.define
class _Answer:
    text: str  # the parts joined
    truncated: bool  # its last part was cut
    turns: list[dict[str, str]]  # what follows the question in the conversation: the parts and the asks between
    joins: list[int]  # where each continuation begins in ``text``
    ending: str = "done"  # done, loop (a cut first answer repeating itself), long or reasoning (the backstops of
    # its text and of its reasoning), or why the passage must be halved: stuck (a continuation without progress),
    # full (the context window)
    parts: list[tuple[str, bool]] | None = None  # answers stored apart (a cut JSON answer and its rest), each cut?


class GleaningLoop:
    """Extraction of one chunk (see the module docstring). ``caps`` is the pass's `CompletionCap`, shared by its
    chunks: what one call learns of the endpoint's limits applies to the others' calls from then on.
    ``count`` counts a prompt's tokens (used where the context window is known)."""

    def __init__(self, llm: PassLLM, prompts: GraphPrompts, max_gleanings: int, check: LoopCheck,
                 caps: CompletionCap | None = None, max_splits: int = 0, valid: Callable[[str], bool] | None = None,
                 count: Callable[[str], int] | None = None) -> None:
        self.llm, self.prompts, self.max_gleanings, self.check = llm, prompts, max_gleanings, check
        self.caps = caps or CompletionCap()
        self.max_splits = max_splits
        self.valid = valid  # whether an extraction answer is a real one (``ChatRequest.valid``)
        self.count = count or (lambda text: len(text) // 3 + 1)
        self.params: dict[str, Any] = {}  # more parameters of the extraction requests (see `request_params`)
        f = prompts.fields
        self._parser = RecordParser(f["tuple_delimiter"], f["record_delimiter"], f["completion_delimiter"])

    async def run(self, chunk_id: str, text: str) -> ChunkExtraction:
        tally = Tally()
        await self._loop(text, 0, 0, tally)
        self._check_read(tally)
        return tally.extraction(chunk_id)

    def _check_read(self, tally: Tally) -> None:
        """`LLMAnswerError` for a chunk whose answers end cut, kept as they were, and hold no record: the chunk
        has nothing, and storing it as finished would say it had been read."""
        kept = [ending for ending, cut in zip(tally.endings, tally.cut) if cut and ending not in ("done", "split")]
        if not kept or any(self._records(r, cut) for r, cut in zip(tally.responses, tally.cut)):
            return
        why = "; ".join(dict.fromkeys(_KEPT.get(ending, ending).format(reasoning=self._most_reasoning())
                                      for ending in kept))
        raise LLMAnswerError(
            f"no record read: {len(kept)} answer{'s' if len(kept) > 1 else ''} cut at the completion cap "
            f"({self.caps.cap} tokens) and kept as {'they were' if len(kept) > 1 else 'it was'} ({why}); raise "
            "llm.max_tokens (and llm.max_output_tokens to the model's own limit), or use a model that answers in "
            "fewer tokens. Nothing of the chunk is stored: the next run asks again")

    def _records(self, text: str, cut: bool) -> int:
        """The records read from one of the chunk's answers."""
        return self._parser.parse(text, truncated=cut).records

    async def _loop(self, text: str, offset: int, depth: int, tally: Tally) -> None:
        messages = [{"role": "user", "content": self.prompts.extraction(text)}]
        for round_ in range(self.max_gleanings + 1):
            try:
                answer = await (self._glean(messages, tally, text) if round_ else self._answer(messages, tally, text))
            except (LLMRequestError, _WindowFull) as e:
                if isinstance(e, LLMRequestError) and e.kind != "context_length":
                    raise
                if round_:  # a later round outgrew the window: the answers so far are the chunk's
                    tally.outgrown += 1
                    return
                # the prompt fills the window by our own count too (not just by a refusal's word): halves may fit
                if self._fills_window(messages) and await self._split(text, offset, depth, tally):
                    return
                if isinstance(e, LLMRequestError):
                    raise
                raise LLMRequestError(f"the passage leaves no room for an answer ({e})",
                                      kind="context_length") from None
            if answer is None:
                return
            parts = answer.parts or [(answer.text, answer.truncated)]
            for part, cut in parts:
                tally.answer(part, offset, offset + len(text), cut, answer.joins if answer.parts is None else [],
                             answer.ending)
            messages += answer.turns
            tally.loops += answer.ending == "loop"
            if answer.ending == "full" and round_:  # as above: the answers so far are the chunk's
                tally.outgrown += 1
            elif answer.ending in ("stuck", "full"):
                at = len(tally.endings) - len(parts)
                if await self._split(text, offset, depth, tally):  # the halves' answers stand for this one
                    tally.endings[at:at + len(parts)] = ["split"] * len(parts)
            if answer.truncated:
                return

    async def _glean(self, messages: list[dict[str, str]], tally: Tally, passage: str) -> _Answer | None:
        """A gleaning round: ask whether entities were missed, and if so, for the rest (None when not)."""
        tally.checks += 1
        asked = [*messages, {"role": "user", "content": self.prompts.loop_prompt}]
        more, clear, check_usage = await self.check.ask(asked)
        tally.usage += check_usage
        tally.unclear += int(not clear)
        if not more:
            return None
        messages.append({"role": "user", "content": self.prompts.continue_prompt})
        tally.rounds += 1
        return await self._answer(messages, tally, passage)

    async def _answer(self, messages: list[dict[str, str]], tally: Tally, passage: str) -> _Answer:
        """The model's whole answer to ``messages``: continued while the cap cuts it (see the module docstring)."""
        result = await self._ask(messages, tally)
        answer = _Answer(result.text, result.truncated, [{"role": "assistant", "content": result.text}], [])
        tokens = last = result.usage.completion_tokens
        while result.truncated:
            answer.ending = self._stop(answer, tokens, passage)
            if answer.ending != "done":
                return answer
            ask = {"role": "user", "content": self.prompts.resume_prompt}
            rest = await self._rest(messages, answer, ask, tally)
            if rest is None:
                return answer
            result = rest
            joined, at = join(answer.text, result.text, self._parser)
            moved = not result.truncated or progressed(answer.text, joined, result.text, self._parser)
            tally.continued += 1
            answer.joins.append(at)
            answer.text, answer.truncated = joined, result.truncated
            answer.turns += [ask, {"role": "assistant", "content": result.text}]
            tokens, last = tokens + result.usage.completion_tokens, result.usage.completion_tokens
            if not moved:
                answer.ending = "stuck"
                return answer
        if answer.joins:
            tally.saved_tokens += tokens - last  # what asking again from the start would have written again
        return answer

    async def _rest(self, messages: list[dict[str, str]], answer: _Answer, ask: dict[str, str],
                    tally: Tally) -> ChatResult | None:
        """The answer to ``ask`` for the rest of a cut ``answer``; None (its ending set to ``full``) when the
        conversation outgrew the model's context window."""
        try:
            return await self._ask([*messages, *answer.turns, ask], tally)
        except (LLMRequestError, _WindowFull) as e:
            if isinstance(e, LLMRequestError) and e.kind != "context_length" and not e.is_about("max_tokens"):
                raise
            answer.ending = "full"
            return None

    def _stop(self, answer: _Answer, tokens: int, passage: str) -> str:
        """Why a cut answer of ``tokens`` to ``passage`` is not continued ("done" when it is). Its tokens are
        split, in proportion to its characters, between what it says outside its reasoning blocks (closed or
        not: a block the cap cut holds no answer yet) and its reasoning. What it says is held to twenty tokens
        a passage token, its reasoning, which no passage bounds, to `_most_reasoning`; each at least the cap.
        Judged whole, every cut answer to a passage under a twentieth of the cap was kept at its first cut: a
        reasoning model thinking on a short passage left its chunk without a record."""
        if self._looping(answer.text):
            return "stuck" if answer.joins else "loop"
        text, cap = answer.text, self.caps.cap
        said = tokens * len(without_reasoning(text)) // max(1, len(text))  # its tokens in proportion
        if said >= max(_MOST_PER_PASSAGE_TOKEN * self.count(passage), cap):
            return "long"
        return "reasoning" if tokens - said >= self._most_reasoning() else "done"

    def _most_reasoning(self) -> int:
        """The tokens of reasoning a cut answer is continued for."""
        cap = self.caps.cap
        return max(min(_MOST_REASONING_TOKENS, _MOST_REASONING_CALLS * cap), cap)

    async def _ask(self, messages: list[dict[str, str]], tally: Tally) -> ChatResult:
        """One answer to ``messages`` at the pass's cap (at most what the prompt leaves of a known window); a cap
        the endpoint refuses as too large is lowered as the refusal tells, and asked again."""
        prompt = self._prompt_tokens(messages)
        asked, bound = 0, None

        def build() -> ChatRequest:  # at the call's turn: a cap lowered while it waited applies
            nonlocal asked
            asked = self.caps.within(prompt, bound)
            return self.llm.request(messages, max_tokens=asked, valid=self.valid, **self.request_params())

        while True:
            try:
                result = await self.llm.chat_at_turn(build)
            except LLMRequestError as e:
                lower = self.caps.lower(e, asked, prompt)
                if lower is None:
                    raise
                bound = lower if bound is None else min(bound, lower)
                prompt = max(prompt, self._prompt_tokens(messages))  # the window may be known now
                continue
            tally.usage += result.usage
            tally.truncated += int(result.truncated)
            return result

    def request_params(self) -> dict[str, Any]:
        """More parameters of an extraction request, at its turn (a response_format)."""
        return self.params

    def _prompt_tokens(self, messages: list[dict[str, str]]) -> int:
        """The prompt's tokens where the context window is known (0 otherwise: no need to count); `_WindowFull`
        when the prompt leaves too little of it."""
        if self.caps.window is None:
            return 0
        prompt = sum(self.count(m["content"]) + 4 for m in messages)
        room = self.caps.room(prompt)
        if room is not None and room < LEAST_ROOM:
            raise _WindowFull(f"{prompt} tokens of prompt in a window of {self.caps.window}")
        return prompt

    def _fills_window(self, messages: list[dict[str, str]]) -> bool:
        try:
            self._prompt_tokens(messages)
        except _WindowFull:
            return True
        return False

    def _looping(self, text: str) -> bool:
        """A cut answer that repeats its records or its lines: asking for more would buy more of the same.
        Records repeat outside reasoning (records drafted while thinking and then written are no loop); lines
        anywhere (reasoning going round in circles is one)."""
        parsed = self._parser.parse(without_reasoning(text), truncated=True)
        return (parsed.repeated > 2 and 4 * parsed.repeated >= parsed.records) or is_loop(text)

    async def _split(self, text: str, offset: int, depth: int, tally: Tally) -> bool:
        """Extract the two halves of the passage, each with its own loop; False when it may not be halved."""
        at = split_point(text) if depth < self.max_splits else None
        if at is None:
            return False
        tally.splits += 1
        halves = [Tally(), Tally()]
        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._loop, text[:at], offset, depth + 1, halves[0])
                nursery.start_soon(self._loop, text[at:], offset + at, depth + 1, halves[1])
        except BaseExceptionGroup as group:  # the chunk fails with its halves' error, not a group of them
            raise single(group) from None
        for half in halves:
            tally.add(half)
        return True
