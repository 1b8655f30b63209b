"""`ChunkExtraction`: what the model said about one chunk, as the run store keeps it, and `Tally`, what the
gleaning loop counts while it asks."""

from __future__ import annotations

from typing import Any

import attrs

from ...llm.records import Usage


@attrs.frozen
class ChunkExtraction:
    """What the model said about one chunk, in call order. Parsing is done from these, so they are what a
    run stores: a resumed run re-parses them instead of paying for them again. A continued answer is one
    response, its parts joined as they were read (``joins``: where each continuation begins in it)."""

    chunk_id: str
    responses: list[str]
    rounds: int  # gleaning rounds that asked for more (0 = the first extraction only)
    checks: int  # YES/NO questions asked
    prompt_tokens: int
    completion_tokens: int
    truncated: int = 0  # calls whose answer the completion cap cut (continued, or split, when they could be)
    unclear: int = 0  # YES/NO checks answered with neither (read as NO)
    spans: list[list[int]] = attrs.field(factory=list)  # per response: [start, end) of the passage, chunk offsets
    cut: list[bool] = attrs.field(factory=list)  # per response: still cut by the cap (its last record is unread)
    raised: int = 0  # answers asked again at the model's output limit (runs before continuations)
    splits: int = 0  # passages halved because a continuation made no progress or the window was full
    loops: int = 0  # cut answers that were a model repeating itself (not asked again)
    outgrown: int = 0  # gleaning stopped because the conversation outgrew the model's context window
    joins: list[list[int]] = attrs.field(factory=list)  # per response: where its continuations begin
    continued: int = 0  # continuation calls
    saved_tokens: int = 0  # output tokens that asking a continued answer again from its start would have repeated
    cached_tokens: int = 0  # prompt tokens the endpoint served from its prompt cache

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
_COUNTS = ("rounds", "checks", "unclear", "truncated", "splits", "loops", "outgrown", "continued", "saved_tokens")


@attrs.define
class Tally:
    """A chunk's answers and counts while its gleaning loop (and those of its halves) runs."""

    responses: list[str] = attrs.field(factory=list)
    spans: list[list[int]] = attrs.field(factory=list)
    cut: list[bool] = attrs.field(factory=list)
    joins: list[list[int]] = attrs.field(factory=list)
    # per response: why its loop stopped asking (`_Answer.ending`; "split": its passage's halves answered for it)
    endings: list[str] = attrs.field(factory=list)
    usage: Usage = Usage()
    rounds: int = 0
    checks: int = 0
    unclear: int = 0
    truncated: int = 0
    splits: int = 0
    loops: int = 0
    outgrown: int = 0
    continued: int = 0
    saved_tokens: int = 0

    def answer(self, text: str, start: int, end: int, cut: bool, joins: list[int], ending: str = "done") -> None:
        self.responses.append(text)
        self.spans.append([start, end])
        self.cut.append(cut)
        self.joins.append(joins)
        self.endings.append(ending)

    def add(self, other: "Tally") -> None:
        for name in ("responses", "spans", "cut", "joins", "endings"):
            getattr(self, name).extend(getattr(other, name))
        self.usage += other.usage
        for name in _COUNTS:
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def extraction(self, chunk_id: str) -> ChunkExtraction:
        u = self.usage
        return ChunkExtraction(chunk_id, self.responses, self.rounds, self.checks, u.prompt_tokens,
                               u.completion_tokens, self.truncated, self.unclear, self.spans, self.cut,
                               splits=self.splits, loops=self.loops, outgrown=self.outgrown, joins=self.joins,
                               continued=self.continued, saved_tokens=self.saved_tokens,
                               cached_tokens=u.cached_tokens)
