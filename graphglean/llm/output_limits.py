"""How many tokens a model can write in one answer, for the common hosted models.

The graph pass asks at ``llm.max_tokens`` and, for an answer cut by that cap, once more at the model's own
limit (``llm.max_output_tokens``, or this table when that is 0); from then on the pass asks at that limit. An
endpoint that refuses the limit as too large often says its own (`stated_limit`): that one is used instead.
"""

from __future__ import annotations

import re

#: model name prefix -> output token limit; the longest matching prefix wins
OUTPUT_LIMITS = {
    "gpt-3.5": 4096, "gpt-4": 8192, "gpt-4-32k": 8192, "gpt-4-turbo": 4096, "gpt-4-1106": 4096,
    "gpt-4-0125": 4096, "gpt-4o": 16384, "gpt-4o-2024-05-13": 4096, "chatgpt-4o": 16384, "gpt-4o-mini": 16384,
    "gpt-4.1": 32768, "gpt-4.5": 16384, "gpt-5": 128000, "o1": 100000, "o1-mini": 65536, "o1-preview": 32768,
    "o3": 100000, "o4-mini": 100000, "deepseek-chat": 8192, "deepseek-reasoner": 65536, "claude-3-haiku": 4096,
    "claude-3-opus": 4096, "claude-3-5": 8192, "claude-3-7": 64000, "claude-sonnet-4": 64000,
    "claude-opus-4": 32000, "gemini-1.5": 8192, "gemini-2.0": 8192, "gemini-2.5": 65536,
    "mistral-large": 8192, "qwen-max": 8192, "qwen-plus": 16384,
}
#: for a model not in the table (a local server's window is often the real bound; a request it refuses is
#: answered by splitting the chunk instead)
UNKNOWN_MODEL_LIMIT = 8192


def output_limit(model: str, configured: int = 0) -> int:
    """The configured limit, else the table's for ``model`` (with any ``provider/`` prefix dropped)."""
    if configured > 0:
        return configured
    name = model.lower().rsplit("/", 1)[-1]
    best = max((p for p in OUTPUT_LIMITS if name.startswith(p)), key=len, default=None)
    return OUTPUT_LIMITS[best] if best else UNKNOWN_MODEL_LIMIT


# "supports at most 1000 completion tokens" (OpenAI), "100000 > 64000, which is the maximum allowed number of
# output tokens" (Anthropic), "max_tokens must be less than or equal to 8192" (many proxies)
_STATED = [re.compile(r"at most (\d+) (?:completion|output|new) tokens", re.I),
           re.compile(r"> ?(\d+), which is the maximum allowed number of output tokens", re.I),
           re.compile(r"max(?:imum)?_?(?:new_|completion_|output_)?tokens\W[^.]{0,60}?"
                      r"(?:less than or equal to|<=|at most|up to) (\d+)", re.I)]


def stated_limit(message: str) -> int | None:
    """The output token limit an endpoint's refusal of a too large ``max_tokens`` names, if it names one."""
    for pattern in _STATED:
        found = pattern.search(message)
        if found:
            return int(found.group(1))
    return None
