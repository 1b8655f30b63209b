"""Refusals as real servers word them: `refusal` builds the error a given server answers for a kind of
refusal, and `refusing` wraps a responder so that chosen requests get it."""

from __future__ import annotations

import inspect
import json
from typing import Any, Callable

from .exchange import RecordedRequest, Reply, Responder

_AZURE_FILTER = {"hate": {"filtered": False, "severity": "safe"},
                 "self_harm": {"filtered": False, "severity": "safe"},
                 "sexual": {"filtered": False, "severity": "safe"},
                 "violence": {"filtered": True, "severity": "medium"}}
_CONTEXT = ("This model's maximum context length is 4096 tokens. However, you requested 5120 tokens (1024 in the "
            "messages, 4096 in the completion). Please reduce the length of the messages or completion.")
_REFUSALS: dict[tuple[str, str], tuple[int, Any]] = {
    ("context_length", "openai"): (400, {"error": {
        "message": "This model's maximum context length is 8192 tokens. However, your messages resulted in 9120 "
                   "tokens. Please reduce the length of the messages.",
        "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded"}}),
    ("context_length", "azure"): (400, {"error": {
        "message": "This model's maximum context length is 8192 tokens. However, your messages resulted in 9120 "
                   "tokens. Please reduce the length of the messages.",
        "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded"}}),
    ("context_length", "vllm"): (400, {"object": "error", "message": _CONTEXT, "type": "BadRequestError",
                                       "param": None, "code": 400}),
    ("context_length", "llamacpp"): (400, {"error": {
        "code": 400, "message": "the request exceeds the available context size, try increasing it",
        "type": "exceed_context_size_error", "n_prompt_tokens": 4160, "n_ctx": 4096}}),
    ("context_length", "llama-cpp-python"): (400, {"error": {"message": _CONTEXT.replace("4096 tokens. H", "2048 "
                                                   "tokens. H"), "type": "invalid_request_error",
                                                   "param": "messages", "code": "context_length_exceeded"}}),
    ("context_length", "ollama"): (400, {"error": {"message": "input length exceeds the context length",
                                                   "type": "api_error", "param": None, "code": None}}),
    ("content_filter", "azure"): (400, {"error": {
        "message": "The response was filtered due to the prompt triggering Azure OpenAI's content management "
                   "policy. Please modify your prompt and retry.",
        "type": None, "param": "prompt", "code": "content_filter", "status": 400,
        "innererror": {"code": "ResponsibleAIPolicyViolation", "content_filter_result": _AZURE_FILTER}}}),
    ("content_filter", "openai"): (400, {"error": {
        "message": "Your request was flagged by our content moderation system.", "type": "invalid_request_error",
        "param": None, "code": "content_policy_violation"}}),
    ("model_not_found", "openai"): (404, {"error": {
        "message": "The model `{model}` does not exist or you do not have access to it.",
        "type": "invalid_request_error", "param": None, "code": "model_not_found"}}),
    ("model_not_found", "azure"): (404, {"error": {
        "code": "DeploymentNotFound", "message": "The API deployment for this resource does not exist. If you "
        "created the deployment within the last 5 minutes, please wait a moment and try again."}}),
    ("model_not_found", "vllm"): (404, {"object": "error", "message": "The model `{model}` does not exist.",
                                        "type": "NotFoundError", "param": None, "code": 404}),
    ("model_not_found", "ollama"): (404, {"error": "model \"{model}\" not found, try pulling it first"}),
    ("unsupported_parameter", "openai"): (400, {"error": {
        "message": "Unsupported parameter: '{param}' is not supported with this model.",
        "type": "invalid_request_error", "param": "{param}", "code": "unsupported_parameter"}}),
    ("unsupported_parameter", "vllm"): (400, {"object": "error", "message": "{param} is not supported",
                                              "type": "BadRequestError", "param": None, "code": 400}),
    ("unsupported_parameter", "llama-cpp-python"): (422, {"detail": [{
        "type": "extra_forbidden", "loc": ["body", "{param}"], "msg": "Extra inputs are not permitted"}]}),
    ("no_such_path", "any"): (404, "404 page not found"),
    # llama-cpp-python 0.3.x: its pydantic model knows response_format types text and json_object only
    ("json_schema", "llama-cpp-python"): (500, {"error": {
        "message": "1 validation error:\n  {'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), "
                   "'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema'}",
        "type": "internal_server_error", "param": None, "code": None}}),
    ("json_schema", "vllm"): (400, {"object": "error", "message": "response_format json_schema is not supported",
                                    "type": "BadRequestError", "param": None, "code": 400}),
}
REFUSAL_KINDS = sorted({kind for kind, _ in _REFUSALS})


def refusal(kind: str, server: str = "openai", *, model: str = "fake", param: str = "logit_bias") -> Reply:
    """The error a real ``server`` (openai, azure, vllm, llamacpp, llama-cpp-python, ollama) answers for
    ``kind``: context_length, content_filter, model_not_found, unsupported_parameter, json_schema (a server
    that does not take ``response_format`` of that type) or no_such_path."""
    key = (kind, server) if (kind, server) in _REFUSALS else (kind, "any")
    if key not in _REFUSALS:
        known = sorted(f"{k}/{s}" for k, s in _REFUSALS)
        raise ValueError(f"no recorded refusal {kind}/{server}; known: {', '.join(known)}")
    status, body = _REFUSALS[key]
    text = json.dumps(body) if not isinstance(body, str) else body
    text = text.replace("{model}", model).replace("{param}", param)
    return Reply(status=status, body=json.loads(text) if not isinstance(body, str) else None,
                 text=text if isinstance(body, str) else "")


def refusing(responder: Responder, refuse: Callable[[RecordedRequest], bool], reply: Reply) -> Responder:
    """``responder``, except that requests for which ``refuse`` is true get ``reply`` (e.g. a `refusal`)."""
    async def respond(req: RecordedRequest) -> Reply | str:
        if refuse(req):
            return reply
        answer = responder(req)
        return await answer if inspect.isawaitable(answer) else answer
    return respond
