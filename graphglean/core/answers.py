"""Reading what models answer: reasoning blocks, fences, preambles, truncated JSON, nulls."""

from __future__ import annotations

import functools
import json
import re
from typing import Any, Iterator

import json_repair

from .errors import LLMAnswerError

_TAGS = r"think|thinking|thought|reasoning|reflection"
_OPEN = re.compile(rf"<(?:{_TAGS})>|<\|begin_of_thought\|>|◁think▷", re.I)
_CLOSE = re.compile(rf"</(?:{_TAGS})>|<\|end_of_thought\|>|◁/think▷", re.I)
_EITHER = re.compile(f"{_OPEN.pattern}|{_CLOSE.pattern}", re.I)  # one scan: most answers have no tag at all
_FENCE = re.compile(r"```(?:json)?\s*(.*?)(?:```|\Z)", re.S | re.I)
# what reading a text as JSON raises when it is not JSON; nesting deeper than the decoder's recursion (a model
# looping on "[[[[...") is not JSON either, and RecursionError escaped every reader after the answer was paid for
NOT_JSON = (ValueError, RecursionError)


def reasoning_spans(text: str) -> list[tuple[int, int, int, int]]:
    """Reasoning blocks as (start, end, content start, content end): ``<think>...</think>`` and its kin. A block
    never closed runs to the end; a closing tag never opened (servers that put ``<think>`` in the prompt)
    closes a block that starts at the beginning."""
    return [] if _EITHER.search(text) is None else _scanned_spans(text)


def _scanned_spans(text: str) -> list[tuple[int, int, int, int]]:
    """`reasoning_spans` by an opening and a closing scan from each position."""
    spans: list[tuple[int, int, int, int]] = []
    pos = 0
    while True:
        opened, closed = _OPEN.search(text, pos), _CLOSE.search(text, pos)
        if closed is not None and (opened is None or closed.start() < opened.start()):
            spans.append((pos, closed.end(), pos, closed.start()))  # orphan closing tag
            pos = closed.end()
            continue
        if opened is None:
            return spans
        closed = _CLOSE.search(text, opened.end())
        if closed is None:
            spans.append((opened.start(), len(text), opened.end(), len(text)))
            return spans
        spans.append((opened.start(), closed.end(), opened.end(), closed.start()))
        pos = closed.end()


def strip_reasoning(text: str) -> str:
    """The answer without its reasoning blocks. A block that was never closed is not dropped: only its tag
    goes (the answer is often inside it, as when a reasoning model is cut off or forgets the closing tag)."""
    out, pos = [], 0
    for start, end, inner_start, inner_end in reasoning_spans(text):
        out.append(text[pos:start])
        if end == len(text) and inner_end == len(text):
            out.append(text[inner_start:])
        pos = end
    out.append(text[pos:])
    return "".join(out)


def without_reasoning(text: str) -> str:
    """The answer without its reasoning blocks, each dropped whole, closed or not: what a model says in free
    text (a summary, an intent, a query's answer). A block never closed is reasoning the cap cut before the
    answer began, or one whose end the model forgot; either way no answer in it can be told from the reasoning
    (`strip_reasoning` keeps its content, for records and JSON, which are told apart by their shape)."""
    spans = reasoning_spans(text)
    if not spans:
        return text
    out, pos = [], 0
    for start, end, inner_start, inner_end in spans:
        if not _leads(text, pos, start, end, inner_start, inner_end):  # a tag the answer itself mentions
            break
        out.append(text[pos:start])
        pos = end
    out.append(text[pos:])
    return "".join(out)


def _leads(text: str, pos: int, start: int, end: int, inner_start: int, inner_end: int) -> bool:
    """Whether a block `reasoning_spans` found is one a model wrote before its answer, not a tag its answer
    names ("asked it to stop printing <think> blocks"): one with nothing but earlier blocks before it, or a
    closed one that is not both tags named as words in a sentence ("in <think> and </think> tags": a few words
    between them, no line break, spaces or quotes around); a closing tag never opened, unless it stands in a
    sentence as a word (spaces on both sides) or quoted."""
    if inner_start != start:  # opened
        if not text[pos:start].strip():
            return True
        inner = text[inner_start:inner_end]
        named = _word(text[start - 1:start], text[end:end + 1]) and "\n" not in inner and len(inner.split()) <= 3
        return inner_end != end and not named  # (closed: a closing tag between them)
    return not _word(text[inner_end - 1:inner_end], text[end:end + 1])


def _word(before: str, after: str) -> bool:
    """A tag standing in a sentence as a word: spaces, or quotes, on both sides (or punctuation after it)."""
    spaced = before in (" ", "\t") and (after in (" ", "\t") or after in ".,;:)")
    return spaced or (before in _QUOTES and after in _QUOTES)


_QUOTES = frozenset("`'\"“”‘’«»")


class NoAnswer(LLMAnswerError):
    """A free-text answer with nothing to keep: empty, reasoning alone, or a refusal."""


def prose(text: str) -> str:
    """A free-text answer as every pass keeps it, stores and feeds back: its reasoning blocks dropped, closed or
    not (`without_reasoning`), its ends trimmed. `NoAnswer` when nothing is left, or what is left declines."""
    body = without_reasoning(text).strip()
    if not body:
        raise NoAnswer(f"the answer held only reasoning ({len(text)} characters), no text after it" if text.strip()
                       else "the answer was empty")
    if looks_like_refusal(body):
        raise NoAnswer(f"the answer declined: {body[:120]!r}")
    return body


def prose_answer(text: str) -> bool:
    """Validity of a free-text answer (``ChatRequest.valid``): `prose` finds one in it. An answer of reasoning
    alone is not kept, so a later run asks again."""
    try:
        prose(text)
    except NoAnswer:
        return False
    return True


def _candidate(text: str) -> str:
    text = strip_reasoning(text).strip()
    fenced = _FENCE.search(text)
    if fenced:
        text = fenced.group(1).strip()
    starts = [i for i in (text.find("{"), text.find("[")) if i >= 0]
    return text[min(starts):] if starts else text


def _structure(text: str) -> Iterator[tuple[int, str]]:
    """(offset, character) of each bracket and comma of JSON ``text`` outside its strings."""
    in_string = escaped = False
    for i, ch in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[]{},":
            yield i, ch


def _open_at(text: str) -> list[str]:
    """The brackets still open at the end of ``text``."""
    stack: list[str] = []
    for _, ch in _structure(text):
        if ch in "[{":
            stack.append(ch)
        elif ch in "]}" and stack:
            stack.pop()
    return stack


def close_truncated(text: str) -> str | None:
    """Cut truncated JSON back to its last complete array element and close what is open. Strings are
    scanned properly, so a comma inside a cut-off string is not mistaken for an element boundary. Linear: the
    brackets open at the cut are found by a second scan (a copy of them at each candidate cut was quadratic,
    seconds for a model's "[[[[..." loop)."""
    cut: tuple[int, int] | None = None  # where, and how many brackets are open there
    opened: list[str] = []
    for i, ch in _structure(text):
        if ch in "[{":
            opened.append(ch)
            if ch == "[":
                cut = (i + 1, len(opened))  # an empty list is complete too
        elif ch in "]}":
            if opened:
                opened.pop()
            if not opened or opened[-1] == "[":
                cut = (i + 1, len(opened))
        elif ch == "," and opened and opened[-1] == "[":
            cut = (i, len(opened))
    if cut is None or not cut[1]:
        return None
    pos = cut[0]
    open_ = _open_at(text[:pos])
    return text[:pos].rstrip().rstrip(",") + "".join("]" if c == "[" else "}" for c in reversed(open_))


def _first_whole_value(text: str, attempts: int = 64) -> Any:
    """The first complete JSON object or array that starts at one of the first ``attempts`` brackets (prose or
    reasoning before the answer may hold brackets of its own)."""
    decoder = json.JSONDecoder()
    for m in list(re.finditer(r"[{\[]", text))[:attempts]:
        try:
            return decoder.raw_decode(text, m.start())[0]
        except NOT_JSON:
            continue
    return None


def parse_json_output(text: str) -> Any:
    """The JSON value in a model's answer. Truncated JSON is cut back to its complete leading items (a
    half-written item is dropped, not kept half). Raises ValueError when there is no JSON at all."""
    body = _candidate(text)
    try:
        return json.loads(body)
    except NOT_JSON:
        pass
    closed = close_truncated(body)
    if closed is not None:
        try:
            return json.loads(closed)
        except NOT_JSON:
            pass
    whole = _first_whole_value(body)
    if whole is not None:
        return whole
    try:
        repaired = json_repair.loads(body)
    except RecursionError:
        repaired = None
    if repaired in ("", None, [], {}) and body.strip() not in ("[]", "{}"):
        raise ValueError(f"no JSON in the answer: {text[:80]!r}")
    return repaired


def replace_nulls(value: Any, with_: Any = "") -> Any:
    """Nulls replaced after parsing, never by text substitution (so "annulled" stays a word)."""
    if value is None:
        return with_
    if isinstance(value, list):
        return [replace_nulls(v, with_) for v in value]
    if isinstance(value, dict):
        return {k: replace_nulls(v, with_) for k, v in value.items()}
    return value


_REFUSAL = re.compile(r"(?:i['\u2019]?m|i am)\s+(?:so\s+|very\s+)?sorry|sorry\b|i\s+apologi[sz]e|i\s+(?:can['\u2019]?t|cannot|"
                      r"won['\u2019]?t|will not)\b|i['\u2019]?m\s+(?:not able|unable)|i am\s+(?:not able|unable)|as an ai\b",
                      re.I)


def looks_like_refusal(text: str) -> bool:
    """A short answer that declines instead of answering ("I'm sorry, but I can't help with that.")."""
    body = strip_reasoning(text).strip().lstrip("\"'*_ ")
    return len(body) < 400 and _REFUSAL.match(body) is not None


@functools.lru_cache(maxsize=512)
def answered(text: str) -> bool:
    """Validity of an answer in free text or records: anything but a refusal or nothing at all (reasoning
    counts as something: records can stand inside an unclosed block). For ``ChatRequest.valid``. The verdicts
    on the latest answers are kept: the client judges an answer before storing it, and its pass judges the
    same text again when the item is done (a scan of the answer for reasoning tags each time)."""
    return bool(text.strip()) and not looks_like_refusal(text)


def json_answer(text: str) -> bool:
    """Validity of an answer that was asked for JSON: it holds some. For ``ChatRequest.valid``."""
    try:
        parse_json_output(text)
    except ValueError:
        return False
    return True
