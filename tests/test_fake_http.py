"""The fake server's own HTTP/1.1: bodies as clients frame them, keep-alive, pipelining, and bad requests."""

import json

import trio

from graphglean.testing import FakeLLMServer

CHAT = b'{"model": "m", "messages": [{"role": "user", "content": "hello"}]}'


async def _exchange(server: FakeLLMServer, data: bytes, until_closed: bool = True) -> bytes:
    stream = await trio.open_tcp_stream("127.0.0.1", server.port)
    async with stream:
        await stream.send_all(data)
        if not until_closed:
            return await stream.receive_some(65536)
        out = b""
        with trio.fail_after(5):
            while chunk := await stream.receive_some(65536):
                out += chunk
        return out


def _post(body: bytes, *extra: str, version: str = "HTTP/1.1") -> bytes:
    head = [f"POST /v1/chat/completions {version}", "Host: x", f"Content-Length: {len(body)}", *extra]
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


async def test_chunked_body_and_pipelined_requests_are_answered_in_order():
    async with FakeLLMServer(lambda r: r.prompt.upper()).running() as s:
        chunked = (b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                   + f"{len(CHAT[:10]):x}\r\n".encode() + CHAT[:10] + b"\r\n"
                   + f"{len(CHAT[10:]):x};ext=1\r\n".encode() + CHAT[10:] + b"\r\n0\r\n\r\n")
        out = await _exchange(s, chunked + _post(CHAT.replace(b"hello", b"again"), "Connection: close"))
    answers = [json.loads(part.split(b"\r\n\r\n", 1)[1].split(b"HTTP/1.1")[0])
               for part in out.split(b"HTTP/1.1 200 OK\r\n")[1:]]
    assert [a["choices"][0]["message"]["content"] for a in answers] == ["HELLO", "AGAIN"]
    assert [r.body["messages"][0]["content"] for r in s.requests] == ["hello", "again"]
    assert s.requests[0].headers["transfer-encoding"] == "chunked"


async def test_connection_stays_open_for_http11_and_closes_for_http10():
    async with FakeLLMServer(lambda r: "ok").running() as s:
        first = await _exchange(s, _post(CHAT), until_closed=False)  # answered, connection kept
        assert first.startswith(b"HTTP/1.1 200 OK\r\n") and b"connection: close" not in first
        old = await _exchange(s, _post(CHAT, version="HTTP/1.0"))  # answered, then closed by the server
        assert old.startswith(b"HTTP/1.1 200 OK\r\n") and b"connection: close" in old


async def test_a_bad_request_closes_the_connection_and_the_server_keeps_serving():
    async with FakeLLMServer(lambda r: "ok").running() as s:
        assert await _exchange(s, b"NONSENSE\r\n\r\n") == b""
        assert await _exchange(s, b"POST / HTTP/1.1\r\nContent-Length: x\r\n\r\n") == b""
        assert (await _exchange(s, _post(CHAT, "Connection: close"))).startswith(b"HTTP/1.1 200 OK")
        assert len(s.requests) == 1


async def test_stats_give_the_cpu_time_of_the_servers_process():
    import time

    async with FakeLLMServer(lambda r: "ok").running() as s:
        before = s.stats()["process_cpu_s"]
        for _ in range(20):
            await _exchange(s, _post(CHAT, "Connection: close"))
        after = s.stats()["process_cpu_s"]
    assert 0 < before < after <= time.process_time()


def frozen_objects(req) -> str:
    """A responder telling how many objects its process keeps out of the collector's passes."""
    import gc

    return str(gc.get_freeze_count())


def test_the_command_serves_with_what_start_up_made_frozen_out_of_the_collector(tmp_path):
    import os
    import subprocess
    import sys
    import time
    import urllib.request
    from pathlib import Path

    port_file = tmp_path / "port"
    root = Path(__file__).resolve().parent.parent
    proc = subprocess.Popen([sys.executable, "-m", "graphglean.testing.serve", "--port-file", str(port_file),
                             "--responder", "tests.test_fake_http:frozen_objects"], cwd=root,
                            stdout=subprocess.DEVNULL, env={**os.environ, "PYTHONPATH": str(root)})
    try:
        deadline = time.monotonic() + 60
        while not port_file.exists():
            assert proc.poll() is None and time.monotonic() < deadline, "the server did not start"
            time.sleep(0.05)
        req = urllib.request.Request(f"http://127.0.0.1:{port_file.read_text()}/v1/chat/completions", data=CHAT,
                                     method="POST")
        with urllib.request.urlopen(req, timeout=30) as resp:
            answer = json.loads(resp.read())["choices"][0]["message"]["content"]
    finally:
        proc.terminate()
        proc.wait(10)
    assert int(answer) > 1000  # modules and all that start-up made
