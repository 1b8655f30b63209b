"""`CompletionCap`: the ``max_tokens`` a pass asks at, and what it knows of the served model's limits.

The cap is ``llm.max_tokens`` when set. Otherwise it is the model's own output limit where graphglean knows it
(``llm.max_output_tokens``, the table of `output_limits`, or what a local server reports: `served_limits`), and
`UNKNOWN_CAP` where nothing is known. A cap costs nothing while answers are shorter than it: a model ends an
answer that fits of its own accord. With a known context window (a local server's), a request asks at most
for what its prompt leaves of the window.

A refusal of a cap as too large teaches the pass: the output limit it states, or the window it states, is
kept for every later request (`lower`).
"""

from __future__ import annotations

from ...core.config import LLMConfig
from ...core.errors import LLMError, LLMRequestError
from ..endpoint import Endpoint
from .output_limits import output_limit, stated_limit, stated_window
from .served_limits import ServedLimits, served_limits

UNKNOWN_CAP = 4096  # where neither the configuration, the table nor the server says the model's limit
_LEAST_CAP = 256  # refusals that name no limit halve the cap down to this
LEAST_ROOM = 64  # tokens of answer a request needs the window to leave, to be worth asking
_MARGIN = 64  # tokens of a window left free beside the counted prompt (chat template, counting error)


class CompletionCap:
    def __init__(self, configured: int = 0, limit: int | None = None, window: int | None = None) -> None:
        self.configured = configured  # llm.max_tokens; 0 = the model's limit
        self.limit = limit  # the model's output limit, when known
        self.window = window  # its context window, when known

    @classmethod
    def of(cls, cfg: LLMConfig, served: ServedLimits | None = None) -> "CompletionCap":
        served = served or ServedLimits()
        return cls(cfg.max_tokens, output_limit(cfg.model, cfg.max_output_tokens) or served.output, served.window)

    @classmethod
    async def served(cls, cfg: LLMConfig, endpoint: Endpoint) -> "CompletionCap":
        """`of` the configuration, with what the endpoint's server reports of a model neither the configuration
        nor the table knows (one or two GETs, once a run)."""
        if output_limit(cfg.model, cfg.max_output_tokens) is not None:
            return cls.of(cfg)
        return cls.of(cfg, await served_limits(endpoint, cfg.model))

    @property
    def cap(self) -> int:
        """The cap of a request whose prompt leaves room enough."""
        if self.configured:
            return min(self.configured, self.limit) if self.limit else self.configured
        return self.limit or UNKNOWN_CAP

    def room(self, prompt_tokens: int) -> int | None:
        """What a prompt of ``prompt_tokens`` leaves of the known window (None when the window is unknown)."""
        if self.window is None:
            return None
        return self.window - prompt_tokens - prompt_tokens // 8 - _MARGIN  # counted with another tokenizer

    def within(self, prompt_tokens: int = 0, budget: int | None = None) -> int:
        """The cap for one request: `cap`, at most ``budget`` and what the prompt leaves of the window (at
        least 1)."""
        cap = self.cap if budget is None else min(self.cap, budget)
        room = self.room(prompt_tokens)
        return max(1, cap if room is None else min(cap, room))

    def lower(self, e: LLMError, asked: int, prompt_tokens: int = 0) -> int | None:
        """Learn from a refusal of a request asked at ``asked`` tokens: the output limit or the window it names;
        else, for a cap of the model's limit (not a configured one) refused as too large, half of it. The cap to
        ask that request again at, or None when a lower cap cannot help."""
        if not isinstance(e, LLMRequestError) or not (e.is_about("max_tokens") or e.kind == "context_length"):
            return None
        text = f"{e} {e.body}"
        stated = stated_limit(text) if e.is_about("max_tokens") else None
        window, prompt = stated_window(text)
        if stated is not None and stated < asked:
            self.limit = min(self.limit or stated, stated)
        if window is not None:
            self.window = window
        if stated is None and window is None and e.is_about("max_tokens") and not self.configured:
            self.limit = max(_LEAST_CAP, asked // 2)  # the endpoint takes less, and does not say how much
        room = self.room(max(prompt_tokens, prompt or 0))
        if room is not None and room < LEAST_ROOM:
            return None  # the prompt alone (nearly) fills the window: no cap helps
        cap = self.within(max(prompt_tokens, prompt or 0))
        return cap if cap < asked else None
