"""The LoCoMo conversation format: conversations of dated sessions of turns with ``dia_id``s."""

from __future__ import annotations

import json
import re
from typing import Any, Iterator

import attrs

from ..core.errors import InputError
from ..core.tokens import Tokenizer
from .chunking import Chunk, chunk_id


@attrs.frozen
class Turn:
    dia_id: str
    speaker: str
    text: str


@attrs.frozen
class Session:
    number: int
    date: str
    turns: list[Turn]


@attrs.frozen
class Conversation:
    sample_id: str
    speakers: tuple[str, str]
    sessions: list[Session]


_SESSION = re.compile(r"session_(\d+)$")


def parse_locomo(text: str, name: str) -> list[Conversation]:
    """Parse the text of a ``locomo10.json``-shaped file; errors name the file and the JSON path."""
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as e:
        raise InputError(f"{name}:{e.lineno}: invalid JSON: {e.msg}") from None
    if isinstance(raw, dict):
        raw = [raw]
    if not isinstance(raw, list):
        raise InputError(f"{name}: expected a list of LoCoMo conversations")
    return [_conversation(item, f"{name}: [{i}]", i) for i, item in enumerate(raw)]


def _conversation(item: Any, where: str, i: int) -> Conversation:
    conv = item.get("conversation") if isinstance(item, dict) else None
    if not isinstance(conv, dict):
        raise InputError(f"{where}: missing 'conversation' object (is this a LoCoMo file?)")
    sessions = []
    for key, turns in conv.items():
        m = _SESSION.match(key)
        if not m:
            continue
        if not isinstance(turns, list):
            raise InputError(f"{where}.conversation.{key}: expected a list of turns")
        parsed = []
        for j, t in enumerate(turns):
            if not isinstance(t, dict) or not isinstance(t.get("text", ""), str) or "speaker" not in t:
                raise InputError(f"{where}.conversation.{key}[{j}]: a turn needs 'speaker' and 'text'")
            parsed.append(Turn(str(t.get("dia_id", f"D{m.group(1)}:{j + 1}")), str(t["speaker"]), t.get("text", "")))
        sessions.append(Session(int(m.group(1)), str(conv.get(f"{key}_date_time", "")), parsed))
    sessions.sort(key=lambda s: s.number)
    sample = str(item.get("sample_id", f"conv-{i}"))
    return Conversation(sample, (str(conv.get("speaker_a", "")), str(conv.get("speaker_b", ""))), sessions)


def turn_passage(date: str, speaker: str, text: str) -> str:
    return f"Date: {date}\n{speaker}: {text}"


def to_chunks(conversations: list[Conversation], tokenizer: Tokenizer, granularity: str = "session") -> list[Chunk]:
    """One chunk per session (its turns, dated) or per turn; metadata carries date, speakers and ids."""
    chunks: list[Chunk] = []
    for conv in conversations:
        for s in conv.sessions:
            session_id = f"{conv.sample_id}:session_{s.number}"
            if granularity == "turn":
                for t in s.turns:
                    meta = {"type": "turn", "date": s.date, "speaker": t.speaker, "dia_id": t.dia_id,
                            "session_id": session_id, "conversation": conv.sample_id}
                    chunks.append(_chunk(session_id, t.text, len(chunks), tokenizer, meta))
            else:
                body = "\n".join(f"{t.speaker}: {t.text}" for t in s.turns)
                meta = {"type": "session", "date": s.date, "session_id": session_id, "conversation": conv.sample_id,
                        "dia_ids": [t.dia_id for t in s.turns], "speakers": list(conv.speakers)}
                chunks.append(_chunk(session_id, body, len(chunks), tokenizer, meta))
    return chunks


def _chunk(doc_id: str, text: str, index: int, tokenizer: Tokenizer, meta: dict[str, Any]) -> Chunk:
    key = meta.get("dia_id", doc_id)
    return Chunk(chunk_id(key, text), doc_id, index, text, 0, len(text), tokenizer.count(text), meta)


def turns(conversations: list[Conversation]) -> Iterator[tuple[str, str, str, Turn]]:
    """Every turn in order, with its conversation's sample id, its session's id and its session's date."""
    for c in conversations:
        for s in c.sessions:
            for t in s.turns:
                yield c.sample_id, f"{c.sample_id}:session_{s.number}", s.date, t
