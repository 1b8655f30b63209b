"""`ServerProfile`: what one client learns of its server during a run, in one place: its slots (`ServerSlots`,
with what the server reports of them), what it refused (streaming, ``stream_options``, a parameter, the
embeddings route), and how long a retry should wait for work the server goes on doing after a hang-up."""

from __future__ import annotations

from typing import Any

import httpx
import trio

from ...core.config import LLMConfig
from ...core.errors import LLMError
from ..http.watch import AttemptWatch
from ..limits import AdaptiveConcurrency
from .reports import read_report
from .slots import ServerSlots

#: requests to which the YES/NO checks and other tiny answers belong: not worth a stream
SMALLEST_STREAMED = 5


def is_hosted(cfg: LLMConfig) -> bool:
    """OpenAI's and Azure's endpoints: no slots to learn, no generation going on after a hang-up."""
    return cfg.provider == "azure" or not cfg.base_url or "api.openai.com" in cfg.base_url


class ServerProfile:
    def __init__(self, cfg: LLMConfig, concurrency: AdaptiveConcurrency) -> None:
        self.cfg = cfg
        self.hosted = is_hosted(cfg)
        self.slots = ServerSlots(concurrency, cfg.server_concurrency, self.hosted)
        self.refused: dict[str, str] = {}  # what the server refused this run -> why, one line
        self.refused_formats: set[str] = set()  # the response_format types it refused (json_schema, json_object)
        self.errors: dict[str, LLMError] = {}  # capabilities it lacks -> the error, raised again at once
        self.streamed = 0
        self.unstreamed = 0
        self._asked = not self.slots.learning  # whether its own report was read (or needs none)
        self._asking = trio.Lock()

    def streams(self, req_max_tokens: int | None, extra: dict[str, Any], transport_streams: bool) -> bool:
        """Whether to stream this chat request."""
        return (self.cfg.stream and transport_streams and "stream" not in self.refused and "stream" not in extra
                and (req_max_tokens is None or req_max_tokens >= SMALLEST_STREAMED))

    def takes_format(self, response_format: Any) -> bool:
        """Whether a ``response_format`` may still be sent: its type is not one the server refused (a server that
        refuses ``json_schema``, as llama-cpp-python does, may take ``json_object``)."""
        if "response_format" not in self.refused:
            return True
        kind = response_format.get("type") if isinstance(response_format, dict) else None
        return bool(self.refused_formats) and kind not in self.refused_formats

    def refuse(self, what: str, why: str, error: LLMError | None = None) -> None:
        self.refused.setdefault(what, " ".join(why.split())[:300])
        if error is not None:
            self.errors.setdefault(what, error)

    async def ask_once(self, http: httpx.AsyncClient, headers: dict[str, str]) -> None:
        """Read the server's report of its slots, once, before the first chat call (others wait for it)."""
        if self._asked:
            return
        async with self._asking:
            if self._asked:
                return
            report = await read_report(http, self.cfg.base_url, headers, self.cfg.connect_timeout_s)
            self._asked = True
            if report is None:
                return
            if report.slots is not None:
                self.slots.set_slots(report.slots, report.source)
            elif report.waiting == 0:  # a batching server (vLLM) with room: its slots are learned if it fills
                self.slots.source = f"{report.source}: nothing waiting; learning from the time to first token"
                self.slots.concurrency.set_ceiling(self.slots.concurrency.maximum)

    def drain_s(self, watch: AttemptWatch) -> float:
        """How long the server goes on with an answer given up at ``watch`` (a server that does not stop on a
        hang-up finishes it), at the pace answers have come: what a retry waits, holding its place."""
        if self.hosted:
            return 0.0
        rate, tokens = self.slots.rate(), self.slots.answer_tokens()
        if not rate or not tokens:
            return 0.0
        left = max(0.0, tokens - watch.tokens) / rate
        return min(left, self.cfg.first_token_timeout_s)

    def summary(self, usage_counted: int = 0) -> dict[str, Any]:
        """report.json's ``llm``: the server's concurrency and the waits, streaming, what the server refused;
        ``usage_counted``: streamed answers whose tokens were counted here (the server sent no usage)."""
        why = ("off (llm.stream)" if not self.cfg.stream else
               f"refused by the server: {self.refused['stream']}" if "stream" in self.refused else "on")
        usage = (f"counted here for {usage_counted} answers (the server sent no usage in its streams)"
                 if usage_counted else "the server's")
        return {"concurrency": self.slots.summary(),
                "streaming": {"mode": why, "streamed_calls": self.streamed, "unstreamed_calls": self.unstreamed,
                              "usage": usage},
                "refused": dict(self.refused)}
