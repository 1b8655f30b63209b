"""`GleaningLoop`: the first extraction of a chunk, then rounds of "were entities missed?" while the model
says YES, up to ``max_gleanings``.

The YES/NO question is one token (``max_tokens=1``) with ``logit_bias`` +100 on the ids of YES and NO in the
*endpoint's* tokenizer: tiktoken's ids for OpenAI models, the server's own tokenize route for local servers
(`llm.server_tokens`), or ids from the configuration. Without known ids, or when an endpoint refuses
``logit_bias``, it asks without bias and reads the answer leniently; ids from the wrong tokenizer make a local
model answer garbage.
"""

from __future__ import annotations

import re
from typing import Any, Callable

import attrs
import trio

from ...core.answers import strip_reasoning
from ...core.errors import FATAL, LLMError, LLMParameterError, LLMRequestError
from ...core.tokens import Tokenizer
from ...llm.output_limits import stated_limit
from ...llm.records import ChatRequest, ChatResult, Usage
from ...llm.server_tokens import single_token_ids
from ...scheduling.scheduler import PassLLM
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


def _about_size(e: LLMError) -> bool:
    """Whether a refusal may be about the completion cap: a max_tokens the endpoint calls too large, or a
    prompt plus cap over the model's window."""
    return isinstance(e, LLMRequestError) and (e.is_about("max_tokens") or e.kind == "context_length")


def _clear(text: str) -> bool:  # an unclear YES/NO is not kept: a later run asks again
    return _yes_no(text) != ""


@attrs.frozen
class ChunkExtraction:
    """What the model said about one chunk, in call order. Parsing is done from these, so they are what a
    run stores: a resumed run re-parses them instead of paying for them again."""

    chunk_id: str
    responses: list[str]
    rounds: int  # gleaning rounds that asked for more (0 = the first extraction only)
    checks: int  # YES/NO questions asked
    prompt_tokens: int
    completion_tokens: int
    truncated: int = 0  # responses cut by the completion token cap (asked again or split, when they could be)
    unclear: int = 0  # YES/NO checks answered with neither (read as NO)
    spans: list[list[int]] = attrs.field(factory=list)  # per response: [start, end) of the passage, chunk offsets
    cut: list[bool] = attrs.field(factory=list)  # per response: still cut by the cap (its last record is unread)
    raised: int = 0  # answers asked again at the model's output limit
    splits: int = 0  # passages halved because even that limit cut their answer
    loops: int = 0  # cut answers that were a model repeating itself (not asked again)
    outgrown: int = 0  # gleaning stopped because the conversation outgrew the model's context window

    def span(self, i: int) -> tuple[int, int] | None:
        return (self.spans[i][0], self.spans[i][1]) if i < len(self.spans) else None

    def is_cut(self, i: int) -> bool:
        return i < len(self.cut) and self.cut[i]

    def to_json(self) -> dict[str, Any]:
        """Its fields, for ``json.dumps`` (the lists are its own, not copies): ``attrs.asdict(self, recurse=False)``
        at a third of its cost (once a chunk)."""
        return {name: getattr(self, name) for name in _EXTRACTION_FIELDS}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "ChunkExtraction":
        return cls(**data)


_EXTRACTION_FIELDS = tuple(f.name for f in attrs.fields(ChunkExtraction))


@attrs.define
class _Tally:
    responses: list[str] = attrs.field(factory=list)
    spans: list[list[int]] = attrs.field(factory=list)
    cut: list[bool] = attrs.field(factory=list)
    usage: Usage = Usage()
    rounds: int = 0
    checks: int = 0
    unclear: int = 0
    truncated: int = 0
    raised: int = 0
    splits: int = 0
    loops: int = 0
    outgrown: int = 0

    def answer(self, text: str, start: int, end: int, cut: bool) -> None:
        self.responses.append(text)
        self.spans.append([start, end])
        self.cut.append(cut)

    def add(self, other: "_Tally") -> None:
        for name in ("responses", "spans", "cut"):
            getattr(self, name).extend(getattr(other, name))
        self.usage += other.usage
        for name in ("rounds", "checks", "unclear", "truncated", "raised", "splits", "loops", "outgrown"):
            setattr(self, name, getattr(self, name) + getattr(other, name))


_BREAKS = (re.compile(r"\n\s*\n"), re.compile(r"\n"),
           re.compile(r"[.!?]['\")\u201d]?\s+|[\u3002\uff01\uff1f]['\")\u201d\u300d]?\s*"),
           re.compile(r"[,;\uff0c\u3001\uff1b]\s*|\s+"))
_SHORTEST_HALF = 16  # characters; a passage without any break is halved at its middle when longer than two


def split_point(text: str) -> int | None:
    """Where to halve a passage: the paragraph, line, sentence or word break nearest its middle (in that order
    of preference, when one lies in the middle half), else the middle; None for a passage too short to halve."""
    middle = len(text) // 2
    for pattern in _BREAKS:
        ends = [m.end() for m in pattern.finditer(text) if len(text) // 4 <= m.end() <= 3 * len(text) // 4]
        if ends:
            return min(ends, key=lambda e: abs(e - middle))
    return middle if middle >= _SHORTEST_HALF else None


class GleaningLoop:
    """Extraction of one chunk: the first answer, then gleaning rounds while the model says there is more.

    An answer cut by the completion cap is asked again at the model's output limit, and the loop's later calls
    are asked at that limit straight away; cut even there, the passage is halved at a break near its middle and each half gets its own loop (``max_splits`` deep). A model stuck
    repeating itself is not asked again: its answer holds all it had to say.
    """

    def __init__(self, llm: PassLLM, prompts: GraphPrompts, max_gleanings: int, check: LoopCheck,
                 max_tokens: int | None = None, output_limit: int | None = None, max_splits: int = 0,
                 valid: Callable[[str], bool] | None = None) -> None:
        self.llm, self.prompts, self.max_gleanings, self.check = llm, prompts, max_gleanings, check
        self.cap = max_tokens  # the configured completion cap
        self.max_tokens = max_tokens  # the pass's cap now: the output limit after the first cut answer
        self.output_limit = output_limit
        self.max_splits = max_splits
        self.valid = valid  # whether an extraction answer is a real one (``ChatRequest.valid``)
        f = prompts.fields
        self._parser = RecordParser(f["tuple_delimiter"], f["record_delimiter"], f["completion_delimiter"])

    async def run(self, chunk_id: str, text: str) -> ChunkExtraction:
        tally = _Tally()
        await self._loop(text, 0, 0, tally)
        u = tally.usage
        return ChunkExtraction(chunk_id, tally.responses, tally.rounds, tally.checks, u.prompt_tokens,
                               u.completion_tokens, tally.truncated, tally.unclear, tally.spans, tally.cut,
                               tally.raised, tally.splits, tally.loops, tally.outgrown)

    async def _loop(self, text: str, offset: int, depth: int, tally: _Tally) -> None:
        messages = [{"role": "user", "content": self.prompts.extraction(text)}]
        for round_ in range(self.max_gleanings + 1):
            try:
                result = await (self._glean(messages, tally) if round_ else self._answer(messages, tally))
            except LLMRequestError as e:
                # a later round outgrew a small model's window: the answers so far are the chunk's (a re-run
                # would outgrow it again); the first answer has no such fallback and fails the chunk
                if not round_ or e.kind != "context_length":
                    raise
                tally.outgrown += 1
                return
            if result is None:
                return
            tally.answer(result.text, offset, offset + len(text), result.truncated)
            if result.truncated and not self._looping(result, tally):
                await self._split(text, offset, depth, tally)
                return

    async def _glean(self, messages: list[dict[str, str]], tally: _Tally) -> ChatResult | None:
        """A gleaning round: ask whether entities were missed, and if so, for the rest (None when not)."""
        messages.append({"role": "assistant", "content": tally.responses[-1]})
        tally.checks += 1
        more, clear, check_usage = await self.check.ask([*messages, {"role": "user", "content": self.prompts.loop_prompt}])
        tally.usage += check_usage
        tally.unclear += int(not clear)
        if not more:
            return None
        messages.append({"role": "user", "content": self.prompts.continue_prompt})
        tally.rounds += 1
        return await self._answer(messages, tally)

    async def _answer(self, messages: list[dict[str, str]], tally: _Tally) -> ChatResult:
        """The answer, asked again at the output limit when the cap cut it (unless it is a loop). The first cut
        answer raises the pass's cap to the limit: a corpus whose answers outgrow the cap would otherwise pay a
        cut answer and a second call for each of them (a model ends an answer that fits of its own accord)."""
        cap = 0

        def build() -> ChatRequest:  # at the call's turn: a cap raised while it waited applies
            nonlocal cap
            cap = self.max_tokens or 0
            return self.llm.request(messages, max_tokens=self.max_tokens, valid=self.valid)

        try:
            result = await self.llm.chat_at_turn(build)
        except LLMRequestError as e:
            if cap <= (self.cap or 0) or not _about_size(e):
                raise
            if cap == (self.max_tokens or 0):
                self._refused(e, cap)
            return await self._answer(messages, tally)  # at the cap of now
        tally.usage += result.usage
        tally.truncated += int(result.truncated)
        if (not result.truncated or (self.output_limit or 0) <= cap
                or self._looping(result, tally, count=False)):
            return result
        self.max_tokens = max(self.max_tokens or 0, self.output_limit or 0)
        raised = await self._at_limit(messages, cap)
        if raised is None:
            return result
        tally.raised += 1
        tally.usage += raised.usage
        tally.truncated += int(raised.truncated)
        return raised

    async def _at_limit(self, messages: list[dict[str, str]], cap: int) -> ChatResult | None:
        """The answer at the output limit; None when the endpoint takes no cap above ``cap``."""
        limit = 0

        def build() -> ChatRequest:  # at the call's turn: what another call learned meanwhile applies
            nonlocal limit
            limit = self.output_limit or 0
            return self.llm.request(messages, max_tokens=max(limit, cap + 1), valid=self.valid)

        while (self.output_limit or 0) > cap:
            try:
                result = await self.llm.chat_at_turn(build)
            except LLMParameterError as e:
                if not e.is_about("max_tokens"):
                    raise
                if limit == (self.output_limit or 0):
                    self._refused(e, limit)
                continue
            except FATAL:
                raise
            except LLMError as e:  # a window too small for the limit: splitting the passage is the way left
                if _about_size(e) and limit == (self.output_limit or 0):
                    self._refused(e, limit)
                return None
            return result if limit > cap else None  # the limit fell to the cap while this call waited
        return None

    def _refused(self, e: LLMError, cap: int) -> None:
        """A request at ``cap``, above the configured cap, was refused for its size: a limit the refusal names
        is asked at from now on; else the pass goes back to the configured cap and splits the passages of cut
        answers instead of asking again (the endpoint takes no such cap, or its window holds no such answer)."""
        stated = stated_limit(f"{e} {e.body}") if isinstance(e, LLMRequestError) and e.is_about("max_tokens") else None
        if stated is not None and (self.cap or 0) < stated < cap:
            self.output_limit = stated
            self.max_tokens = min(self.max_tokens or stated, stated)
            return
        self.max_tokens = self.cap
        self.output_limit = None

    def _looping(self, result: ChatResult, tally: _Tally, count: bool = True) -> bool:
        """A cut answer that repeats its records: asking for more would buy more of the same."""
        looping = self._parser.parse(result.text, truncated=True).repeated > 2
        tally.loops += int(looping and count)
        return looping

    async def _split(self, text: str, offset: int, depth: int, tally: _Tally) -> None:
        at = split_point(text) if depth < self.max_splits else None
        if at is None:
            return
        tally.splits += 1
        halves = [_Tally(), _Tally()]
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._loop, text[:at], offset, depth + 1, halves[0])
            nursery.start_soon(self._loop, text[at:], offset + at, depth + 1, halves[1])
        for half in halves:
            tally.add(half)
