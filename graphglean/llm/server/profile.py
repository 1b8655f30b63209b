"""`ServerProfile`: what one client learns of its server during a run, in one place: how it serves requests at
once (`ServerMeasures`, handed to `ConcurrencyRule`, with what the server reports of its slots), the line of
requests waiting for a first token (`WaitingLine`), what it refused (streaming, ``stream_options``, a
parameter, the embeddings route), and how long a retry should wait for work the server goes on doing after a
hang-up."""

from __future__ import annotations

from typing import Any

import trio

from ...core.config import LLMConfig
from ...core.errors import LLMError
from ..http.watch import AttemptWatch, WaitingLine
from .in_flight import AdaptiveConcurrency
from .measures import ServerMeasures
from .reports import Get, read_report
from .rule import ConcurrencyRule

#: requests to which the YES/NO checks and other tiny answers belong: not worth a stream
SMALLEST_STREAMED = 5
CHECK_S = 0.25  # requests stuck in a queue are looked for at most this often
INTERRUPTED = "inferred: the server stops an answer when another request comes (llama-cpp-python: " \
              "--interrupt_requests False lets requests wait instead); one at a time, no queue"
CUTS = 2  # streams cut while another request of ours waited, and at least half of those that ended


def is_hosted(cfg: LLMConfig) -> bool:
    """OpenAI's and Azure's endpoints: no slots to learn, no generation going on after a hang-up."""
    return cfg.provider == "azure" or not cfg.base_url or "api.openai.com" in cfg.base_url


class ServerProfile:
    def __init__(self, cfg: LLMConfig, concurrency: AdaptiveConcurrency) -> None:
        self.cfg = cfg
        self.hosted = is_hosted(cfg)
        self.concurrency = concurrency
        self.rule = ConcurrencyRule(concurrency, cfg.server_concurrency, self.hosted)
        self.line = WaitingLine(self._review)
        self.measures = ServerMeasures(self.line)
        self.rule.count = self.measures.served_at_once
        self.refused: dict[str, str] = {}  # what the server refused this run -> why, one line
        self.refused_formats: set[str] = set()  # the response_format types it refused (json_schema, json_object)
        self.errors: dict[str, LLMError] = {}  # capabilities it lacks -> the error, raised again at once
        self.streamed = 0
        self.unstreamed = 0
        self._asked = self.rule.fixed  # whether its own report was read (or needs none)
        self._asking = trio.Lock()
        self._checked_at = -1e18
        self._cuts = 0  # streams of ours the server ended early while another of ours waited

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

    async def ask_once(self, get: Get) -> None:
        """Read the server's report of its slots, once, before the first chat call (others wait for it); ``get``:
        the client's `Endpoint.probe`."""
        if self._asked:
            return
        async with self._asking:
            if self._asked:
                return
            report = await read_report(get, self.cfg.base_url)
            self._asked = True
            if report is not None and report.slots is not None:
                self.rule.fix(report.slots, report.source)
            elif report is not None and report.waiting:  # a batching server (vLLM) full already
                self.rule.hold(report.running or 1, f"{report.source}: {report.waiting} waiting while "
                               f"{report.running} ran")
            elif report is not None:
                self.rule.source = f"{report.source}: nothing waiting; {self.rule.source}"
            self.concurrency.start = self.concurrency.allowed

    # -- what the client tells it (each attempt) -----------------------------------------------------

    def first_token(self, watch: AttemptWatch) -> None:
        """A streamed answer's first event arrived."""
        waited = self.measures.first_token(watch)
        if waited is not None:
            self.rule.judged(waited, watch.seq)

    def answered(self, watch: AttemptWatch, latency: float, tokens: int | None) -> None:
        """A good answer came, of ``tokens`` (None: not a chat answer)."""
        waited = self.measures.answered(watch, latency, tokens)
        if waited is not None:
            self.rule.judged(waited, watch.seq, whole=True)

    def finished(self, watch: AttemptWatch, abandoned: bool) -> None:
        """An attempt ended (answered, failed or given up)."""
        self.measures.finished(watch, abandoned)

    def cut(self) -> bool:
        """A stream of ours ended early (after its first token). Whether the server stopped it for another of
        ours that waits (llama-cpp-python's ``interrupt_requests``, on by default): a server never seen
        streaming two at once, that cut `CUTS` streams so, and at least half of those that ended. Then: one at
        a time."""
        if self.measures.peak > 1 or not self.line.waiting:
            return False
        self._cuts += 1
        if self._cuts >= CUTS and 2 * self._cuts >= self.measures.streams_ended + 1 and not self.rule.fixed:
            self.rule.fix(1, INTERRUPTED, queue=False)
        return True

    def _review(self, now: float) -> None:
        """The line moved: requests that wait for their first token while others stream, longer than their
        prompt explains, wait for a slot."""
        if now < self._checked_at + CHECK_S or self.rule.fixed:
            return
        self._checked_at = now
        for seq in self.measures.stuck(now):
            self.rule.judged(True, seq)

    def drain_s(self, watch: AttemptWatch) -> float:
        """How long the server goes on with an answer given up at ``watch`` (a server that does not stop on a
        hang-up finishes it), at the pace answers have come: what a retry waits, holding its place."""
        if self.hosted:
            return 0.0
        rate, tokens = self.measures.rate(), self.measures.answer_tokens()
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
        concurrency = {**self.rule.summary(), **self.concurrency.summary(), **self.measures.summary()}
        return {"concurrency": concurrency,
                "streaming": {"mode": why, "streamed_calls": self.streamed, "unstreamed_calls": self.unstreamed,
                              "usage": usage},
                "refused": dict(self.refused)}
