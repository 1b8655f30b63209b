"""LLM transport: one HTTP client, rate limits, retries and a response cache. Knows nothing of passes."""

from .cache import ResponseCache
from .client import ChatClient
from .limits import RateLimiter
from .records import ChatRequest, ChatResult, EmbeddingResult, Usage
from .retry import RetryPolicy

__all__ = ["ChatClient", "ChatRequest", "ChatResult", "EmbeddingResult", "RateLimiter", "ResponseCache",
           "RetryPolicy", "Usage"]
