"""What a fake server records of a request (`RecordedRequest`) and what a `Responder` answers (`Reply`)."""

from __future__ import annotations

from typing import Any, Awaitable, Callable

import attrs


@attrs.define
class RecordedRequest:
    number: int
    method: str
    path: str
    headers: dict[str, str]
    body: Any
    started: float = 0.0  # trio clock when the request was read, and when its answer was sent
    finished: float = 0.0
    completion_tokens: int = 0
    cached_tokens: int = 0  # prompt tokens the server's prompt cache held

    @property
    def messages(self) -> list[dict[str, str]]:
        return list((self.body or {}).get("messages") or [])

    @property
    def prompt(self) -> str:
        return "\n".join(str(m.get("content") or "") for m in self.messages)

    @property
    def last_user(self) -> str:
        users = [m for m in self.messages if m.get("role") == "user"]
        return str(users[-1].get("content") or "") if users else ""

    @property
    def assistant_turns(self) -> int:
        return sum(1 for m in self.messages if m.get("role") == "assistant")

    @property
    def max_tokens(self) -> int | None:
        return (self.body or {}).get("max_tokens")

    @property
    def logit_bias(self) -> dict[str, float] | None:
        return (self.body or {}).get("logit_bias")


@attrs.define
class Reply:
    text: str = ""
    finish_reason: str = "stop"
    status: int = 200
    headers: dict[str, str] = attrs.field(factory=dict)
    body: Any = None  # a full JSON body, overriding the chat-completion shape (an error status: text as is)
    delay: float = 0.0


Responder = Callable[[RecordedRequest], "Reply | str | Awaitable[Reply | str]"]
