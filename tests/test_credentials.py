"""Credentials are never written: a URL's user info and key-like query parameters, the API key, wherever they
would appear (settings files, report.json, the lock note, progress, warnings, errors, the stores)."""

from __future__ import annotations

import json
import re
import sys

import httpx
import pytest
import yaml

from graphglean.core.config import Config, LLMConfig
from graphglean.core.errors import LLMError
from graphglean.llm.credentials import (
    endpoint_secrets,
    has_credentials,
    redact,
    redact_data,
    remember,
    url_secrets,
    without_credentials,
)
from graphglean.testing import FakeLLMServer, RecordedRequest, Reply

from .test_determinism import conversation, everything, graphglean, write_config

PASSWORD, QUERY_KEY, API_KEY = "pa55-w0rd-Zq", "qk-9f8e7d6c5b", "sk-live-4a3b2c1d0e"


def test_urls_lose_their_user_info_and_key_like_parameters_wherever_they_are():
    text = ("POST https://bob:hunter2@gw.example.com/v1/chat/completions?api-key=abc123&api-version=2024-10-21: "
            "HTTP 500; file at https://acct.blob.core.windows.net/f?sv=2022&sig=Zx%2F9&se=2025; "
            "--token=t0ken graphglean run key=value max_tokens=100 Authorization: Bearer eyJhbGciOi.x-y; sk-abcdef12")
    said = redact(text)
    for secret in ("hunter2", "bob:", "abc123", "Zx%2F9", "t0ken", "=value", "eyJhbGciOi", "sk-abcdef12"):
        assert secret not in said
    for kept in ("gw.example.com/v1/chat/completions", "api-version=2024-10-21", "sv=2022", "se=2025",
                 "max_tokens=100", "HTTP 500"):
        assert kept in said
    assert redact("a basic understanding of the task-manager") == "a basic understanding of the task-manager"


def test_the_secrets_of_a_configured_endpoint_are_found_in_any_form():
    url = "http://ann:p%40ss-Word9@127.0.0.1:8000/v1?x-api-key=K3y-Value"
    assert has_credentials(url) and not has_credentials("http://127.0.0.1:8000/v1?api-version=1")
    remember(endpoint_secrets("sk-test-key-77", url))
    said = redact('the server said: password p@ss-Word9 ("K3y-Value") for key sk-test-key-77')
    assert "p@ss-Word9" not in said and "K3y-Value" not in said and "sk-test-key-77" not in said
    data = redact_data({"failed": [{"error": "p%40ss-Word9 in http://ann:p%40ss-Word9@h/v1"}], "calls": 3})
    assert "Word9" not in json.dumps(data) and data["calls"] == 3


@pytest.mark.parametrize("placeholder", ["ollama", "lm-studio", "EMPTY", "none", "dummy", "test",
                                         "sk-no-key-required", "not-needed"])
def test_a_local_server_s_placeholder_key_is_no_secret(placeholder):
    remember(endpoint_secrets(placeholder, "http://ollama:11434/v1"))
    said = ("cannot connect to http://ollama:11434/v1 (is ollama running?); 404 nonexistent route; "
            "the lm-studio server said EMPTY: test a dummy request")
    assert redact(said) == said


def test_a_secret_is_redacted_as_a_whole_token_and_error_codes_stay():
    remember(["Tk4-x9Q2-secret"])
    said = redact("key Tk4-x9Q2-secret, not xTk4-x9Q2-secretx; error_code=429 status_code=503 "
                  "https://f.azurewebsites.net/api/x?code=AbC123xyz&v=1")
    assert said == ("key [redacted], not xTk4-x9Q2-secretx; error_code=429 status_code=503 "
                    "https://f.azurewebsites.net/api/x?code=[redacted]&v=1")
    assert url_secrets("https://f.azurewebsites.net/api/x?code=AbC123xyz") == ["AbC123xyz"]


async def test_an_error_body_is_redacted_before_it_is_cut(tmp_path):
    """A secret that a cut would split must not leave its start in the message."""
    from graphglean.core.config import LLMConfig
    from graphglean.llm.endpoint import Endpoint

    key = "sk-cut-3e9f7a1b2c4d5e6f"
    endpoint = Endpoint(LLMConfig(api_key=key, base_url="http://127.0.0.1:9/v1"))
    body = "x" * 1989 + " " + key
    resp = httpx.Response(400, text=body)
    with pytest.raises(LLMError) as raised:
        endpoint._judge(resp, lambda b: b, "http://127.0.0.1:9/v1/chat/completions")
    assert "sk-cut" not in str(raised.value) + str(getattr(raised.value, "body", ""))


def test_a_credential_in_extra_body_is_never_said():
    from graphglean.core.config import LLMConfig
    from graphglean.llm.endpoint import Endpoint

    Endpoint(LLMConfig(extra_body={"top_k": 5, "provider": {"auth_token": "tok-in-body-8c7b"}}))
    assert redact("the server said: unknown token tok-in-body-8c7b; top_k 5") == \
        "the server said: unknown token [redacted]; top_k 5"


def test_the_lock_note_names_the_command_without_credentials(monkeypatch):
    from graphglean.pipeline.folder_lock import _command

    monkeypatch.setattr(sys, "argv", ["graphglean", "run", "c.yaml", "--input", "https://u:hunter22@h/x?token=t0k3n"])
    line = _command()
    assert "hunter22" not in line and "t0k3n" not in line and "c.yaml" in line


def _leaking(req: RecordedRequest):
    """The everything-model, and a server that echoes its caller's credentials in some refusals."""
    if "Ångström met" in req.last_user and "Records:" in req.last_user:
        return Reply(status=400, body={"error": {"message": f"blocked: http://user:{PASSWORD}@gw/v1?api-key="
                                                            f"{QUERY_KEY} (Authorization: Bearer {API_KEY})",
                                                 "code": "content_filter"}})
    return everything(req)


@pytest.mark.slow
async def test_a_run_with_credentials_in_its_urls_writes_them_nowhere(tmp_path):
    """Every file of the output folder (stores and caches included) and everything the run printed."""
    corpus = conversation(tmp_path)
    async with FakeLLMServer(_leaking, embedding_dim=16).running() as server:
        url = server.base_url.replace("http://", f"http://user:{PASSWORD}@") + f"?api-key={QUERY_KEY}"
        cache = {"mode": "readwrite", "path": str(tmp_path / "run" / "out" / "cache.sqlite")}
        config = write_config(tmp_path / "run", url, corpus, api_key=API_KEY, cache=cache, max_retries=0)
        done = await graphglean(config, "1")
        again = await graphglean(config, "2", "--fresh")  # with answers in the cache, and the lock note there
    printed = done.stdout + done.stderr + again.stdout + again.stderr
    assert done.returncode == 1 and b" failed (the rest of the output is written" in done.stderr  # the refusals, listed
    assert b"content_filter" in done.stderr or b"content filter" in done.stderr
    files = [p for p in (tmp_path / "run" / "out").rglob("*") if p.is_file()]
    assert len(files) > 20 and (tmp_path / "run" / "out" / ".graphglean.lock").is_file()
    for secret in (PASSWORD, QUERY_KEY, API_KEY):
        assert secret.encode() not in printed
        assert [p for p in files if secret.encode() in p.read_bytes()] == []
    settings = (tmp_path / "run" / "out" / "graphrag" / "settings.yaml").read_text()
    assert "api_base: ${GRAPHRAG_API_BASE}" in settings and "set GRAPHRAG_API_BASE" in settings
    assert yaml.safe_load(settings)["completion_models"]["default_completion_model"]["api_key"] == \
        "${GRAPHRAG_API_KEY}"
    assert re.search(rb"graphrag: llm.base_url carries credentials.*GRAPHRAG_API_BASE", done.stderr)
    assert [r for r in server.requests if "/chat/completions" in r.path]  # the run did ask, through that URL


async def test_a_gateway_key_in_the_base_url_is_no_part_of_any_stored_answer_s_key(tmp_path):
    """Answers (chat, embeddings, the tokenize probe) are kept under the endpoint without its credentials: a
    rotated key finds what the old one paid for."""
    from graphglean.llm import ChatClient
    from graphglean.llm.records import ChatRequest

    from .helpers import llm_config

    async with FakeLLMServer(lambda req: "Hi.", embedding_dim=4).running() as s:
        for key in ("Gw-Key-1111aaaa", "Gw-Key-2222bbbb"):
            cfg = llm_config(s, tmp_path)
            cfg.base_url = f"http://u:Pw-{key}@{s.base_url.partition('://')[2]}?api-version=1&api-key={key}"
            async with ChatClient.from_config(cfg) as c:
                await c.chat(ChatRequest([{"role": "user", "content": "Hello there"}], model="gpt-4"))
                await c.embed(["Hello there"])
        assert len(s.chat_requests()) == 1 and len([r for r in s.requests if "embeddings" in r.path]) == 1
    assert url_secrets(without_credentials("http://u:p@h/v1?api-version=1&api-key=k&sig=s")) == []
    assert without_credentials("http://h/v1?api-version=1&api-key=k") == "http://h/v1?api-version=1"
    assert without_credentials("http://h:8000/v1") == "http://h:8000/v1"


def test_the_configuration_s_repr_shows_no_secret():
    from graphglean.core.config import Config
    cfg = Config()
    cfg.llm.api_key = "sk-test-SECRET123"
    cfg.llm.base_url = "http://user:PASSWORD789@127.0.0.1:9/v1?api-key=KEY999"
    cfg.llm.extra_body = {"token": "TOK123"}
    shown = f"{cfg!r} {cfg} {cfg.llm!r}"  # a notebook cell, a logged config, a traceback's locals
    assert not any(secret in shown for secret in ("SECRET123", "PASSWORD789", "KEY999", "TOK123"))
    assert "127.0.0.1:9/v1" in shown and "'token'" in shown  # what it is still shows
    assert Config().llm.api_key == "" and "api_key=''" in repr(Config().llm)


@pytest.mark.parametrize("url, password", [
    ("https://tok:abc/def+g=@proxy.example/v1", "abc/def+g="),  # base64 holds "/" and "+"
    ("http://user:p@ss@host/v1", "p@ss"),
    ("http://user:pa55w0rd@host/v1", "pa55w0rd"),
])
def test_a_password_with_a_slash_or_an_at_sign_is_found_and_redacted_whole(url, password):
    assert password in url_secrets(url)
    said = redact(f"error at {url}: refused")
    assert password not in said and "[redacted]@" in said
    assert "[redacted]" in repr(Config(llm=LLMConfig(base_url=url))) and password not in repr(
        Config(llm=LLMConfig(base_url=url)))


def test_an_at_sign_in_a_path_is_no_user_info():
    assert url_secrets("http://host/v1/@models") == [] and url_secrets("http://host:8000/v1/@x") == []
    assert redact("see http://host:8000/v1/@x") == "see http://host:8000/v1/@x"
    assert "host:8000" in repr(Config(llm=LLMConfig(base_url="http://host:8000/v1/@x")))
