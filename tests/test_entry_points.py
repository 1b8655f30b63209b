"""Library callers get one GraphgleanError, not exception groups; interrupting a notebook cell, or cancelling
an asyncio task awaiting graphglean, stops the work with no more paid calls."""

import asyncio
import contextlib
import signal
import threading

import pytest
import trio

from graphglean import launch as pipeline
from graphglean.core.config import EnrichConfig
from graphglean.core.errors import LLMAuthError, LLMModelError
from graphglean.enrich import Enricher, MemoryStore
from graphglean.graph.extract import extract_graph, extract_graph_sync
from graphglean.llm import ChatClient
from graphglean.scheduling.scheduler import Scheduler
from graphglean.testing import FakeLLMServer, Reply, refusal
from graphglean.testing.models.responders import synthetic
from graphglean.text.inputs import Message

from .conftest import ROOT
from .helpers import config, llm_config

AUTH = Reply(status=401, body={"error": {"message": "Incorrect API key provided", "code": "invalid_api_key"}})
TEXT = " ".join(f"Person{i} Name{i} met Person{i + 1} Name{i + 1} in City{i}." for i in range(60))


def run_config(s, tmp_path):
    cfg = config(s)
    cfg.input.path = str(ROOT / "examples" / "a_christmas_carol_stave1.txt")
    cfg.output.dir = str(tmp_path / "out")
    cfg.summary.enabled = cfg.episodic.enabled = True
    return cfg


async def test_pipeline_run_raises_the_one_error_that_matters(tmp_path):
    async with FakeLLMServer(lambda r: AUTH).running() as s:
        with pytest.raises(LLMAuthError):  # three passes fail at once: still one error, not a group
            await pipeline.run(run_config(s, tmp_path), notice=lambda m: None)


async def test_enricher_raises_one_error(tmp_path):
    async with FakeLLMServer(lambda r: refusal("model_not_found", "ollama", model="gpt-4")).running() as s:
        async with ChatClient(llm_config(s)) as c:
            with pytest.raises(LLMModelError):
                async with Enricher(MemoryStore(tmp_path / "m.sqlite"), Scheduler(c), EnrichConfig()) as enricher:
                    await enricher.add_messages("s", [Message("s", "user", "I adopted a puppy.")])
                    await enricher.drain()


def test_sync_wrapper_raises_one_error(tmp_path):
    with server_thread(lambda r: AUTH) as s:
        with pytest.raises(LLMAuthError):
            pipeline.run_sync(run_config(s, tmp_path), notice=lambda m: None)


# -- a fake server in a thread of its own, so synchronous and asyncio callers can reach it ------------------

@contextlib.contextmanager
def server_thread(responder, **kw):
    ready, box = threading.Event(), {}

    async def serve():
        async with trio.open_nursery() as nursery:
            server = FakeLLMServer(responder, **kw)
            await server.start(nursery)
            box["server"], box["token"], box["stop"] = server, trio.lowlevel.current_trio_token(), nursery.cancel_scope
            ready.set()

    thread = threading.Thread(target=trio.run, args=(serve,), daemon=True)
    thread.start()
    ready.wait()
    try:
        yield box["server"]
    finally:
        box["token"].run_sync_soon(box["stop"].cancel)
        thread.join()


def interrupting(at_request: int, action):
    """A slow compliant model that calls ``action`` once, when request number ``at_request`` arrives."""
    seen = {}

    async def respond(req):
        if req.path.endswith("/chat/completions") and len(seen) == 0 and req.number >= at_request:
            seen["at"] = req.number
            action()
        # after the interrupt, answers are held until the server stops (at most a minute), so no slot frees for a
        # new request however long the interrupt takes to land on a loaded machine
        await trio.sleep(60.0 if seen else 0.05)
        return synthetic(req)

    return respond, seen


def sigint_main_thread():
    signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)


def graphglean_threads():
    return [t for t in threading.enumerate() if t.name == "graphglean-trio" and t.is_alive()]


def assert_stopped(s, seen, concurrency):
    """Nothing was asked after the interrupt but what was already on its way (the other slots), and the trio
    thread is gone. Tokenizer probes are not chat calls and may interleave with them."""
    assert "at" in seen
    after = [r for r in s.chat_requests() if r.number > seen["at"]]
    assert len(after) <= concurrency - 1
    assert not graphglean_threads()


@pytest.mark.parametrize("inside_asyncio_loop", [False, True], ids=["script", "jupyter"])
def test_interrupt_stops_the_sync_wrapper_with_no_more_calls(inside_asyncio_loop):
    respond, seen = interrupting(3, sigint_main_thread)
    with server_thread(respond) as s:
        cfg = config(s, max_concurrency=2)
        cfg.chunking.size, cfg.chunking.overlap = 20, 0

        async def cell():  # a Jupyter cell: synchronous code while the kernel's asyncio loop runs
            return extract_graph_sync(TEXT, cfg)

        with pytest.raises(KeyboardInterrupt):
            if inside_asyncio_loop:
                loop = asyncio.new_event_loop()  # like ipykernel: SIGINT raises KeyboardInterrupt in the cell
                try:
                    loop.run_until_complete(cell())
                finally:
                    loop.close()
            else:
                extract_graph_sync(TEXT, cfg)
        assert_stopped(s, seen, 2)
    assert seen["at"] < 10  # the text has dozens of chunks: most were never asked


def test_await_under_asyncio_works_and_cancels():
    with server_thread(synthetic) as s:
        cfg = config(s)
        result = asyncio.run(extract_graph("Alice Smith met Bob Jones in Paris.", cfg))
    assert "alice smith" in result.output

    started = threading.Event()
    respond, seen = interrupting(2, started.set)
    with server_thread(respond) as s:
        cfg = config(s, max_concurrency=2)
        cfg.chunking.size, cfg.chunking.overlap = 20, 0

        async def main():
            task = asyncio.ensure_future(extract_graph(TEXT, cfg))
            await asyncio.get_running_loop().run_in_executor(None, started.wait)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task

        asyncio.run(main())
        assert_stopped(s, seen, 2)
