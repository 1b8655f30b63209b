"""A chat message's ``content`` as text: a string, or a list of parts in OpenAI's shape (``{"type": "text",
"text": ...}``) whose text parts are joined, images, audio and files left out and counted; a message with no
text (an assistant's tool call, ``"content": null``) is skipped and named. What is left out is said once per
file (`Left.warn`)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import attrs

from ..core.errors import InputError
from .notes import InputWarning, listed, warn

TEXT_PARTS = ("text", "input_text", "output_text")  # Chat Completions' part, and the Responses API's


@attrs.define
class Left:
    """What one file's messages left out: parts that are not text, by type, and the lines of messages skipped."""

    parts: Counter[str] = attrs.field(factory=Counter)
    messages: list[int] = attrs.field(factory=list)

    def warn(self, name: str) -> None:
        if self.parts:
            kinds = ", ".join(f"{n} {kind}" for kind, n in sorted(self.parts.items()))
            warn(InputWarning(f"{name}: {sum(self.parts.values())} content part(s) that are not text left out "
                              f"({kinds}); the text parts are read"), stacklevel=3)
        if self.messages:
            where = [f"{name}:{lineno}" for lineno in self.messages]
            what = "a message" if len(where) == 1 else f"{len(where)} messages"
            warn(InputWarning(f"{listed(where)}: {what} without text skipped (content null, as a tool call's, or "
                              "no text part)", where), stacklevel=3)


def message_content(obj: dict[str, Any], name: str, lineno: int, left: Left) -> str | None:
    """The text of a message line's ``content``, or None for a message without text (counted in ``left``);
    `InputError` naming the file and line for a content of another shape."""
    value = obj.get("content")
    if type(value) is str:  # the usual case, first
        return value
    if value is None:
        if "content" not in obj and not (obj.get("tool_calls") or obj.get("function_call")):
            raise InputError(f"{name}:{lineno}: missing field 'content'")
        left.messages.append(lineno)
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    if not isinstance(value, list):
        raise InputError(f"{name}:{lineno}: field 'content' must be a string or a list of parts, got "
                         f"{type(value).__name__}")
    texts = [_part_text(part, i, name, lineno, left) for i, part in enumerate(value, 1)]
    text = "\n".join(t for t in texts if t)
    if not text.strip():
        left.messages.append(lineno)
        return None
    return text


def _part_text(part: Any, i: int, name: str, lineno: int, left: Left) -> str | None:
    if type(part) is str:
        return part
    kind = part.get("type") if isinstance(part, dict) else None
    if not isinstance(kind, str):
        raise InputError(f"{name}:{lineno}: content part {i} must be an object with a 'type' (OpenAI's parts: "
                         f"{{\"type\": \"text\", \"text\": ...}}), got {_shown(part)}")
    if kind not in TEXT_PARTS:
        left.parts[kind] += 1
        return None
    text = part.get("text")
    if isinstance(text, dict):  # the Assistants API's {"value": ..., "annotations": [...]}
        text = text.get("value")
    if type(text) is not str:
        raise InputError(f"{name}:{lineno}: content part {i} ({kind}) must hold its text as a string in 'text', "
                         f"got {type(text).__name__}")
    return text


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
