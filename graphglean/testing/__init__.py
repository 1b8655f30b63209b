"""Test tools: a scriptable OpenAI-compatible server and deterministic responders. Users may use them too."""

from .batch_api import FakeBatchAPI
from .exchange import RecordedRequest, Reply
from .fake_llm import FakeLLMServer, FaultPlan, table_responder
from .local_server import LocalServer
from .refusals import refusal, refusing
from .server_tokenizer import ServerTokenizer

__all__ = ["FakeBatchAPI", "FakeLLMServer", "FaultPlan", "LocalServer", "RecordedRequest", "Reply", "ServerTokenizer",
           "refusal", "refusing", "table_responder"]
