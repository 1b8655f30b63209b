"""A client's first contact with its endpoint and what is said of it: a server that takes connections and answers
nothing stops the run within llm.timeout_s, saying what it waits for (and `graphglean query` too); the server's
probes wait seconds, not llm.timeout_s, and each route is asked once; a slow first chat answer is still waited
for; llm.base_url that is no URL is refused when the configuration is read (--dry-run too); an endpoint error
names the environment variable the configuration's line reads; the test server listens on 127.0.0.1 only."""

import contextlib
import json
import socket
import subprocess
import sys
import time
from functools import partial

import pytest
import trio

from graphglean.core.config import LLMConfig
from graphglean.core.config_loader import key_variables, load_config_text
from graphglean.core.errors import ConfigError, LLMUnreachableError
from graphglean.llm import ChatClient, contact
from graphglean.llm.model_limits.served_limits import served_limits
from graphglean.testing import FakeLLMServer
from graphglean.testing.models.responders import synthetic

from .test_cli import STAVE, env

CHAT = json.dumps({"id": "x", "object": "chat.completion", "model": "m", "choices": [
    {"index": 0, "message": {"role": "assistant", "content": "pong"}, "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4}}).encode()


@contextlib.asynccontextmanager
async def http_server(answer):
    """A small HTTP/1.1 server on 127.0.0.1: ``answer(method, path)`` gives (status, body, seconds before it) or
    None, to answer nothing ever (the connection stays open). Yields its base URL and the requests it saw."""
    seen = []

    async def handle(stream):
        buffer = b""
        with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
            while True:
                while b"\r\n\r\n" not in buffer:
                    data = await stream.receive_some(65536)
                    if not data:
                        return
                    buffer += data
                head, _, buffer = buffer.partition(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                method, target, _ = lines[0].split(" ", 2)
                length = next((int(v) for k, _, v in (h.partition(":") for h in lines[1:])
                               if k.strip().lower() == "content-length"), 0)
                while len(buffer) < length:
                    buffer += await stream.receive_some(65536)
                buffer = buffer[length:]
                seen.append(f"{method} {target}")
                reply = answer(method, target)
                if reply is None:
                    await trio.sleep_forever()
                status, body, delay = reply
                await trio.sleep(delay)
                await stream.send_all(f"HTTP/1.1 {status} X\r\ncontent-type: application/json\r\n"
                                      f"content-length: {len(body)}\r\n\r\n".encode() + body)

    async with trio.open_nursery() as nursery:
        listeners = await nursery.start(partial(trio.serve_tcp, handle, 0, host="127.0.0.1"))
        try:
            yield f"http://127.0.0.1:{listeners[0].socket.getsockname()[1]}/v1", seen
        finally:
            nursery.cancel_scope.cancel()


def config(url, **kw):
    cfg = LLMConfig(base_url=url, model="m", stream=False, **kw)
    cfg.cache.mode = "off"
    return cfg


def msg(text):
    return [{"role": "user", "content": text}]


async def test_a_server_that_takes_connections_and_answers_nothing_stops_the_first_request_at_llm_timeout_s():
    async with http_server(lambda method, path: None) as (url, seen):
        lines: list[str] = []
        async with ChatClient(config(url, timeout_s=1.0)) as client:
            client.on_held(lines.append)
            started = trio.current_time()
            with pytest.raises(LLMUnreachableError) as raised:
                await client.chat(client.request(msg("hi")))
            waited = trio.current_time() - started
            assert await client.get_json(client.url("models")) is None  # a probe: no such route, at once
            with pytest.raises(LLMUnreachableError):  # said once: the next request fails at once
                await client.chat(client.request(msg("again")))
            assert trio.current_time() - started - waited < 0.5
    assert 1.0 <= waited < 4.0 and raised.value.key == "llm.base_url"
    assert str(raised.value).startswith(f"llm.base_url: {url}: connected, but no answer to GET /props within "
                                        "llm.timeout_s (1 s): a server that takes connections and answers nothing")
    assert lines == [f"llm.base_url {url}: connected, no answer yet to GET /props (waiting up to 1 s: llm.timeout_s)"]
    assert seen == ["GET /props"]  # no chat request sent, nothing asked twice
    assert client.account.failures == 2 and client.account.requests == 0


async def test_probes_wait_seconds_not_llm_timeout_s_and_each_route_is_asked_once(monkeypatch):
    monkeypatch.setattr(contact, "PROBE_S", 0.3)
    routes = {"/props": (404, b"{}", 0.0), "/metrics": (404, b"{}", 0.0), "/v1/chat/completions": (200, CHAT, 0.0)}
    async with http_server(lambda method, path: routes.get(path)) as (url, seen):  # /v1/models, /slots: silent
        async with ChatClient(config(url, timeout_s=60.0)) as client:
            started = trio.current_time()
            limits = await served_limits(client, "m")  # GET /v1/models, then /props
            answers = [(await client.chat(client.request(msg(f"q{i}")))).text for i in range(2)]
            took = trio.current_time() - started
    assert limits.window is None and answers == ["pong", "pong"] and took < 3.0
    assert sorted(seen) == sorted(["GET /props", "GET /v1/models", "GET /slots", "GET /metrics",
                                   "POST /v1/chat/completions", "POST /v1/chat/completions"])


async def test_a_route_probed_by_several_tasks_at_once_is_asked_once():
    routes = {"/props": (404, b"{}", 0.0), "/v1/models": (200, b'{"data": []}', 0.3)}

    def answer(method, path):  # /v1/slots: its first GET is never answered
        return None if path == "/v1/slots" and seen.count("GET /v1/slots") == 1 else routes.get(path, (200, b"[]", 0))
    async with http_server(answer) as (url, seen):
        async with ChatClient(config(url)) as client:
            answers = []

            async def probe(route, scope=None):
                with scope or trio.CancelScope():
                    answers.append((route, await client.probe(client.url(route))))
            async with trio.open_nursery() as nursery:
                for _ in range(3):
                    nursery.start_soon(probe, "models")
                given_up = trio.CancelScope()
                nursery.start_soon(probe, "slots", given_up)
                while "GET /v1/slots" not in seen:
                    await trio.sleep(0.01)
                nursery.start_soon(probe, "slots")  # waits for the first's answer; it is given up: asks again
                await trio.sleep(0.05)
                given_up.cancel()
    assert sorted(answers) == [("models", {"data": []})] * 3 + [("slots", [])]
    assert seen.count("GET /v1/models") == 1 and seen.count("GET /v1/slots") == 2


async def test_a_first_chat_answer_that_takes_long_is_waited_for():
    """A model loading, or a long prompt: the server answers its own routes, and its first chat answer in its time
    (llm.first_token_timeout_s), however short llm.timeout_s."""
    routes = {"/props": (404, b"{}", 0.0), "/v1/chat/completions": (200, CHAT, 1.5)}
    async with http_server(lambda method, path: routes.get(path, (404, b"{}", 0.0))) as (url, seen):
        async with ChatClient(config(url, timeout_s=0.5, first_token_timeout_s=30.0)) as client:
            result = await client.chat(client.request(msg("hi")))
    assert result.text == "pong" and result.attempts == 1


async def test_a_run_against_a_silent_server_stops_in_llm_timeout_s_with_one_line_naming_the_setting(tmp_path):
    async with http_server(lambda method, path: None) as (url, _):
        path = tmp_path / "config.yaml"
        path.write_text(f"llm:\n  model: m\n  timeout_s: 1\n  base_url: {url}\ninput: {{path: {STAVE}}}\n"
                        "output: {dir: out}\n")
        started = time.monotonic()
        r = await trio.run_process([sys.executable, "-m", "graphglean", "run", str(path)], capture_stdout=True,
                                   capture_stderr=True, env=env(), check=False)
        took = time.monotonic() - started
    err = r.stderr.decode()
    assert r.returncode == 2 and "Traceback" not in err, err
    assert f"llm.base_url {url}: connected, no answer yet to GET /props (waiting up to 1 s: llm.timeout_s)" in err
    assert [line for line in err.splitlines() if "error" in line] == [
        f"graphglean: error: {path}:4: llm.base_url: {url}: connected, but no answer to GET /props within "
        "llm.timeout_s (1 s): a server that takes connections and answers nothing (wedged, a model that never "
        "finished loading, a tunnel or port whose far end is down); restart it, or set llm.base_url to where a "
        "server answers"]
    assert took < 60  # (a loaded machine's start-up; it waited ~8 minutes before saying anything)


async def test_a_query_against_a_silent_server_says_what_it_waits_for_and_stops(tmp_path):
    from graphglean import query

    from .test_query import build

    async with FakeLLMServer(synthetic).running() as s:
        cfg = await build(tmp_path, s, communities=False)
    async with http_server(lambda method, path: None) as (url, _):
        cfg.llm.base_url, cfg.llm.timeout_s = url, 1.0
        with pytest.warns(UserWarning, match="connected, no answer yet to GET /props"):
            with pytest.raises(LLMUnreachableError, match="no answer to GET /props within llm.timeout_s"):
                await query(cfg, "Who is Marley?")


@pytest.mark.parametrize("written, shown", [
    ("127.0.0.1:8000/v1", "127.0.0.1:8000/v1 (no http:// before the host)"),
    ("not a url", "not a url (no http:// before the host)"),
    ("http://:8000/v1", "http://:8000/v1"),
    ("ftp://host/v1", "ftp://host/v1"),
    ("http://host:99999/v1", "http://host:99999/v1"),
    ("alice:pa55w0rd@host:8000/v1", "[redacted]@host:8000/v1 (no http:// before the host)"),
    # a password holding "/", a space or "@" unencoded is never shown, in part or whole
    ("https://tok:abc/def+g=@proxy.example/v1", "https://[redacted]@proxy.example/v1 (a '/', '@' or space in a "
                                                "user name or password is written %2F, %40, %20)"),
    ("http://user:pa ss@host/v1", "http://[redacted]@host/v1 (a '/', '@' or space in a user name or password is "
                                  "written %2F, %40, %20)"),
    # a character no host name has, pasted with the URL: refused here, not an item failure of the run
    ("http://localhost\u200b:8000/v1", "http://localhost\\u200b:8000/v1 (it holds an invisible character, as a "
                                        "copy from a web page may)"),
    ("http://\U0001f642.com/v1", "http://\U0001f642.com/v1"),
])
def test_a_base_url_that_is_no_url_is_refused_when_the_configuration_is_read(written, shown):
    with pytest.raises(ConfigError) as raised:
        load_config_text(f'llm:\n  model: m\n  base_url: "{written}"\n', "c.yaml")
    assert str(raised.value) == f"c.yaml:3: llm.base_url: not a URL: {shown}; expected http(s)://HOST[:PORT]/v1"


def test_a_base_url_is_checked_once_its_environment_references_are_read(monkeypatch):
    monkeypatch.setenv("GG_TEST_URL", "localhost:8000/v1")
    with pytest.raises(ConfigError, match=r"^c.yaml:2: llm.base_url: not a URL: localhost:8000/v1 "):
        load_config_text("llm:\n  base_url: ${GG_TEST_URL}\n", "c.yaml")
    monkeypatch.setenv("GG_TEST_URL", "http://localhost:8000/v1")
    assert load_config_text("llm:\n  base_url: ${GG_TEST_URL}\n", "c.yaml").llm.base_url == "http://localhost:8000/v1"
    for fine in ("", "http://[::1]:8000/v1", "https://gateway.example/v1?key=k", "${GG_UNSET_URL:-}"):
        load_config_text(f'llm:\n  base_url: "{fine}"\n', "c.yaml")


async def test_a_base_url_that_is_no_url_fails_the_dry_run_too_and_a_library_client_says_so(tmp_path):
    path = tmp_path / "url.yaml"
    path.write_text(f'llm: {{base_url: "127.0.0.1:8000/v1", model: x}}\ninput: {{path: {STAVE}}}\n')
    r = await trio.run_process([sys.executable, "-m", "graphglean", "run", str(path), "--dry-run"],
                               capture_stdout=True, capture_stderr=True, env=env(), check=False)
    assert r.returncode == 2 and r.stderr.decode().splitlines() == [
        f"graphglean: error: {path}:1: llm.base_url: not a URL: 127.0.0.1:8000/v1 (no http:// before the host); "
        "expected http(s)://HOST[:PORT]/v1"]
    async with ChatClient(config("127.0.0.1:8000/v1")) as client:  # a configuration made in Python
        with pytest.raises(LLMUnreachableError, match=r"^llm.base_url: not a URL: 127.0.0.1:8000/v1 "):
            await client.chat(client.request(msg("hi")))


def test_the_variables_a_key_reads_are_found_on_its_line(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("llm: {base_url: '${OPENAI_BASE_URL:-http://x/v1}', api_key: '${OPENAI_API_KEY}'}\n"
                    "output:\n  dir: ${HOME}/${OUT:-out}\n")
    assert key_variables(path, "llm.base_url") == ["OPENAI_BASE_URL"]
    assert key_variables(path, "output.dir") == ["HOME", "OUT"]
    assert key_variables(path, "llm.model") == [] and key_variables(tmp_path / "none.yaml", "llm.base_url") == []


@pytest.mark.parametrize("reads", ["${OPENAI_BASE_URL:-}", None])
async def test_an_unreachable_endpoint_names_the_variable_its_line_reads_or_none(tmp_path, reads):
    with trio.socket.socket() as sock:
        await sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # nothing listens there once the socket is closed
    url = f"http://127.0.0.1:{port}/v1"
    path = tmp_path / "c.yaml"
    path.write_text(f"llm:\n  model: m\n  base_url: {reads or url}\ninput: {{path: {STAVE}}}\noutput: {{dir: out}}\n")
    environ = {**env(), "OPENAI_BASE_URL": url, "GRAPHGLEAN_BASE_URL": "http://127.0.0.1:9/v1"}
    r = await trio.run_process([sys.executable, "-m", "graphglean", "run", str(path)], capture_stdout=True,
                               capture_stderr=True, env=environ, check=False)
    setting = "llm.base_url (OPENAI_BASE_URL)" if reads else "llm.base_url"
    assert r.returncode == 2 and [line for line in r.stderr.decode().splitlines() if "error" in line] == [
        f"graphglean: error: {path}:3: llm.base_url: {url}: connection refused 2 times: nothing listens there; "
        f"start the server, or set {setting} to where it listens"]


@pytest.mark.parametrize("reads", ["${OPENAI_BASE_URL:-}", "${MY_SERVER:-}", None])
async def test_no_endpoint_names_the_variable_the_base_url_line_reads(tmp_path, reads):
    path = tmp_path / "c.yaml"
    base_url = reads or "''"
    path.write_text(f"graph: {{method: llm}}\nllm:\n  base_url: {base_url}\ninput: {{path: {STAVE}}}\n")
    environ = {k: v for k, v in env().items() if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "MY_SERVER")}
    r = await trio.run_process([sys.executable, "-m", "graphglean", "run", str(path), "--dry-run"],
                               capture_stdout=True, capture_stderr=True, env=environ, check=False)
    variable = f" ({reads[2:-3]})" if reads else ""
    assert r.returncode == 2 and f"or set llm.base_url{variable} to an OpenAI-compatible server's URL" in (
        r.stderr.decode()), r.stderr.decode()
    assert "GRAPHGLEAN_BASE_URL" not in r.stderr.decode()


async def _connects(host: str, port: int) -> bool:
    try:
        stream = await trio.open_tcp_stream(host, port)
    except OSError:
        return False
    await stream.aclose()
    return True


def _is_local(host: str) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind((host, 0))
        except OSError:
            return False
    return True


async def test_the_test_server_listens_on_127_0_0_1_only():
    async with FakeLLMServer().running() as s:
        assert [address[0] for address in s.addresses] == ["127.0.0.1"] and await _connects("127.0.0.1", s.port)


async def test_the_test_server_run_alone_listens_on_this_machine_only_unless_told(tmp_path):
    if not _is_local("127.0.0.2"):
        pytest.skip("127.0.0.2 is no address of this machine (macOS and the BSDs give the loopback 127.0.0.1 "
                    "alone): the connections that tell 127.0.0.1 from every interface go there")
    port_file = tmp_path / "port"
    for host, elsewhere in ((None, False), ("0.0.0.0", True)):
        args = [sys.executable, "-m", "graphglean.testing.serve", "--port-file", str(port_file)]
        async with trio.open_nursery() as nursery:
            proc = await nursery.start(partial(trio.run_process, args + (["--host", host] if host else []),
                                               stdout=subprocess.DEVNULL, env=env(), check=False))
            try:
                with trio.fail_after(60):
                    while not port_file.exists():
                        await trio.sleep(0.05)
                port = int(port_file.read_text())
                assert await _connects("127.0.0.1", port) and await _connects("127.0.0.2", port) == elsewhere
            finally:
                proc.terminate()
        port_file.unlink()

