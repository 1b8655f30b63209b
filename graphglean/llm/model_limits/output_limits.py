"""How many tokens a model can write in one answer, for the common hosted models, and what a refusal of a
too large ``max_tokens`` says of the model's limits (`stated_limit`, `stated_window`).

`completion_cap.CompletionCap` asks at the model's own limit where it is known (``llm.max_output_tokens``, this
table, or what a local server reports) unless ``llm.max_tokens`` sets a cap.
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


def output_limit(model: str, configured: int = 0) -> int | None:
    """The configured limit, else the table's for ``model`` (with any ``provider/`` prefix dropped); None for a
    model the table does not know (a local one: its window is its bound)."""
    if configured > 0:
        return configured
    name = model.lower().rsplit("/", 1)[-1]
    best = max((p for p in OUTPUT_LIMITS if name.startswith(p)), key=len, default=None)
    return OUTPUT_LIMITS[best] if best else None


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


# "This model's maximum context length is 2048 tokens. However, you requested 4300 tokens (300 in the messages,
# 4000 in the completion)" (OpenAI, vLLM), "... However, your messages resulted in 9120 tokens" (OpenAI), "... is
# 2048 tokens and your request has 300 input tokens" (vLLM); llama.cpp's body {"n_prompt_tokens": 4160,
# "n_ctx": 4096}
_WINDOW = [re.compile(r"maximum context length is (\d+) tokens", re.I), re.compile(r'"n_ctx"\s*:\s*(\d+)')]
_PROMPT = [re.compile(r"(\d+) (?:tokens )?in the messages", re.I), re.compile(r"has (\d+) input tokens", re.I),
           re.compile(r"messages resulted in (\d+) tokens", re.I), re.compile(r'"n_prompt_tokens"\s*:\s*(\d+)')]


def stated_window(message: str) -> tuple[int | None, int | None]:
    """(the context window, the request's prompt tokens) a refusal of a too long request names, each if it does."""
    window = next((m for p in _WINDOW if (m := p.search(message))), None)
    prompt = next((m for p in _PROMPT if (m := p.search(message))), None)
    return (int(window.group(1)) if window else None, int(prompt.group(1)) if prompt else None)
