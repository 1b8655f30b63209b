"""`LoopCheck`: the YES/NO question of a gleaning round ("were entities missed?").

The question is one token (``max_tokens=1``) with ``logit_bias`` +100 on the ids of YES and NO in the
*endpoint's* tokenizer: tiktoken's ids for OpenAI models, the server's own tokenize route for local servers
(`llm.server_tokens`), or ids from the configuration. Without known ids, or when an endpoint refuses
``logit_bias``, it asks without bias and reads the answer leniently; ids from the wrong tokenizer make a local
model answer garbage.
"""

from __future__ import annotations

from typing import Any

import trio

from ...core.answers import strip_reasoning
from ...core.errors import LLMRequestError
from ...core.tokens import Tokenizer
from ...llm.records import Usage
from ...llm.server_tokens import single_token_ids
from ...scheduling.scheduler import PassLLM


def is_openai_endpoint(provider: str, base_url: str) -> bool:
    return provider == "azure" or not base_url or "api.openai.com" in base_url


def is_openai_model(model: str) -> bool:
    return model.lower().startswith(("gpt-", "o1", "o3", "o4", "chatgpt"))


class LoopCheck:
    """Asks the YES/NO continuation question, with the right logit bias for the endpoint (found once)."""

    def __init__(self, llm: PassLLM, provider: str, base_url: str, configured_ids: dict[str, Any]) -> None:
        self.llm = llm
        self._provider, self._base_url = provider, base_url
        self._configured = configured_ids
        self._bias: dict[str, float] | None = None
        self._resolved = False
        self._lock = trio.Lock()

    async def bias(self) -> dict[str, float] | None:
        async with self._lock:
            if not self._resolved:
                ids = await self._find_ids()
                self._bias = {str(i): 100.0 for i in ids} if ids else None
                self._resolved = True
        return self._bias

    async def _find_ids(self) -> list[int] | None:
        if self._configured:
            return [int(self._configured[k]) for k in ("YES", "NO") if k in self._configured] or None
        if not is_openai_endpoint(self._provider, self._base_url):
            ids = await single_token_ids(self.llm.client, ("YES", "NO"))
            if ids or not is_openai_model(self.llm.model):
                return ids
        # OpenAI's endpoint, or an OpenAI model behind a proxy that has no tokenizer of its own
        tok = Tokenizer(self.llm.model)
        ids = [tok.single_token_id(w) for w in ("YES", "NO")]
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
            result = await self.llm.chat(self.llm.request(messages, max_tokens=1, valid=_clear))
        answer = _yes_no(result.text)
        return answer == "y", answer != "", result.usage


def _yes_no(text: str) -> str:
    """"y" or "n" for a clear answer, "" for an unclear one."""
    answer = strip_reasoning(text).strip().strip(".!\"'").lower()
    return answer[:1] if answer.startswith(("y", "n")) else ""


def _clear(text: str) -> bool:  # an unclear YES/NO is not kept: a later run asks again
    return _yes_no(text) != ""
