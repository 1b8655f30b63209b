"""The LLM tier's answers: reading a batch answer in the forms models write, and keeping it.

A call asks about a batch of numbered pairs; its raw answer is kept whole under its request (`ask_key`), and
each pair under its own key (`answer_key`: what decides the answer, and the pair) points at that answer and
its number there. A pair's decision is read from the raw answer when it is needed, so a reader that learns a
new form reads old answers anew, and a pair a complete answer left out (or gave in a form not read) is not
asked again: an answer is paid for once, and a run with every answer stored sends nothing.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any, Awaitable, Callable

import attrs
import trio

from ...core.config import LLMConfig
from ...core.prompts import load_template
from ...llm.credentials import redact
from ...llm.endpoint import endpoint_url

TEMPLATE = "graph_resolve"
UNANSWERED = "UNANSWERED"  # a pair a complete answer left out: asked, paid for, not asked again

_THINKING = re.compile(r"<think>.*?(?:</think>|$)", re.S | re.I)
# where the answer about a pair starts: "Pair 3", "id": 3, or a number with a mark after it ("3:", "3.", "3)",
# "**3.**", "\"3\":", "[3]", "3 -"); the marks around a number are a few, so a model looping on "[[[[" is read
# in linear time
_MARKER = re.compile(r"\b(?:pair|id|index|question)\b\W{0,4}(\d{1,4})\b|#\s?(\d{1,4})\b"
                     r"|(?<![\w.,])[\"'*\[(]{0,4}(\d{1,4})[\"'*\])]{0,4}\s*(?=[:.)\]=\-–—])", re.I)
_VERDICT = re.compile(r"\b(SAME|DIFFERENT|DIFF|DISTINCT|YES|NO)\b", re.I)
_NEGATED = re.compile(r"(?:\bnot|n't|\bnever)\s+(?:\w+\s+){0,2}$", re.I)


@attrs.frozen
class Said:
    """The LLM's answer about one pair: the verdict, and the model's own words for it (its answer line), which
    resolution.jsonl gives beside the decision."""

    same: bool
    line: str


@attrs.define
class AnswerMemo:
    """LLM answers kept across runs (the run store): ``done`` maps a key to what was kept (a batch's raw answer
    by its request, a pair's place in one by the pair: see the module; a batch's embeddings by the request);
    ``save`` is awaited as each answer arrives. A resumed or incremental run asks only what it has no answer
    for, even with the response cache off."""

    done: dict[str, Any] = attrs.field(factory=dict)
    save: Callable[[str, Any], Awaitable[None]] | None = None

    async def keep(self, key: str, answer: Any) -> None:
        if self.save is not None:
            with trio.CancelScope(shield=True):  # a paid answer is always kept
                await self.save(key, answer)


def answer_scope(cfg: LLMConfig, template: str | None = None) -> str:
    """What decides an answer besides its question: the model, the endpoint it is asked at (without
    credentials) and the text of the question prompt (``template``: the one loaded for the call)."""
    text = load_template(TEMPLATE) if template is None else template
    url = redact(endpoint_url(cfg, "chat/completions", cfg.model))
    return hashlib.sha256("\n".join([cfg.model, url, text]).encode("utf-8", "surrogatepass")).hexdigest()[:32]


def answer_key(scope: str, pair: str) -> str:
    """The key of a pair's place in a kept answer: the `answer_scope` and the pair (`llm_tier.pair_id`)."""
    return "pair:" + hashlib.sha256(f"{scope}\n{pair}".encode("utf-8", "surrogatepass")).hexdigest()[:32]


def ask_key(scope: str, prompt: str) -> str:
    """The key a batch's raw answer is kept under: its request (the `answer_scope` and the prompt)."""
    return "ask:" + hashlib.sha256(f"{scope}\n{prompt}".encode("utf-8", "surrogatepass")).hexdigest()[:32]


def raw_answer(text: str, pairs: int, cut: bool) -> dict[str, Any]:
    """What is kept of a batch's answer: its text, how many pairs it was asked about, whether it was cut."""
    return {"text": text, "pairs": pairs, "cut": cut}


def stored_answer(memo: AnswerMemo, scope: str, pair: str) -> Said | str | None:
    """The saved answer about ``pair`` (same or not), `UNANSWERED`, or None when it is to be asked (never
    asked, or its answer is not kept or was cut there)."""
    place = memo.done.get(answer_key(scope, pair))
    if not isinstance(place, dict):
        return None
    raw = memo.done.get(place.get("ask", ""))
    return answer_at(raw, place.get("at")) if isinstance(raw, dict) else None


def answer_at(raw: dict[str, Any], n: Any) -> Said | str | None:
    """The answer about pair ``n`` of a kept batch answer (`raw_answer`), as `stored_answer` gives it: of an
    answer cut short, not the last one read, which the cut may have changed."""
    pairs = int(raw.get("pairs") or 0)
    read = read_said(str(raw.get("text") or ""), pairs)
    if raw.get("cut"):
        return read[n] if n in read and n != max(read) else None
    return read.get(n, UNANSWERED)


def read_answers(text: str, pairs: int | None = None) -> dict[int, bool]:
    """Pair number -> same (see `read_said`)."""
    return {n: said.same for n, said in read_said(text, pairs).items()}


def read_said(text: str, pairs: int | None = None) -> dict[int, Said]:
    """Pair number -> what the model said of it (`Said`), from an answer about ``pairs`` numbered pairs in the forms models write: "3:
    SAME", "Pair 3 - different", "**3.** YES", several on a line ("1) Same  2) Different"), a JSON object
    ({"1": "SAME", "2": "DIFFERENT"}), words around the verdict ("Pair 1: The same person (SAME)", "not the
    same"), and, with no number at all, exactly one verdict a pair in order. Reasoning is skipped; a pair
    whose verdicts disagree is not read."""
    text = _THINKING.sub("", text)
    marks = [(m.start(), m.end(), int(next(g for g in m.groups() if g))) for m in _MARKER.finditer(text)]
    marks = [m for m in marks if 1 <= m[2] <= (pairs or 10**4)]
    found: dict[int, set[bool]] = {}
    lines: dict[int, str] = {}
    for k, (start, end, n) in enumerate(marks):
        stop = marks[k + 1][0] if k + 1 < len(marks) else len(text)
        after = text[end:stop].splitlines()
        line = next((x for x in after if x.strip(" \t:.-*\"'")), "")
        said = _verdict(line)
        if said is not None:
            found.setdefault(n, set()).add(said)  # the marker and the verdict, as on one line
            lines.setdefault(n, _shown(text[start:end] + ("" if after and after[0] == line else " ") + line))
    if not marks and pairs:
        verdicts = [(_said(line, m), line) for line in text.splitlines() for m in _VERDICT.finditer(line)]
        found = {n: {said} for n, (said, _) in enumerate(verdicts, 1)} if len(verdicts) == pairs else {}
        lines = {n: _shown(line) for n, (_, line) in enumerate(verdicts, 1)}
    return {n: Said(said.pop(), lines[n]) for n, said in found.items() if len(said) == 1}


def _shown(line: str, limit: int = 300) -> str:
    """An answer line as resolution.jsonl shows it: one line, spaces collapsed, at most ``limit`` characters."""
    line = " ".join(line.split())
    return line if len(line) <= limit else line[:limit - 1] + "…"


def _said(text: str, m: re.Match[str]) -> bool:
    """What one verdict word says: "same" after a "not" says different."""
    word = m.group(1).upper()
    return word in ("SAME", "YES") and not (word == "SAME" and _NEGATED.search(text[max(0, m.start() - 30):m.start()]))


def _verdict(text: str) -> bool | None:
    """The verdict of the text after a pair's number: the words in capitals where there are any (a label
    after an explanation), else every verdict word, which must agree."""
    words = [(m.group(1).isupper(), _said(text, m)) for m in _VERDICT.finditer(text)]
    said = {s for upper, s in words if upper} or {s for _, s in words}
    return said.pop() if len(said) == 1 else None
