"""Test tools: a scriptable OpenAI-compatible server and deterministic responders. Users may use them too."""

from .fake_llm import (
    FakeLLMServer,
    FaultPlan,
    RecordedRequest,
    Reply,
    ServerTokenizer,
    refusal,
    refusing,
    table_responder,
)

__all__ = ["FakeLLMServer", "FaultPlan", "RecordedRequest", "Reply", "ServerTokenizer", "refusal", "refusing",
           "table_responder"]
