"""Shared test helpers: a client config pointed at an in-process fake server."""

from __future__ import annotations

import contextlib
import threading
from typing import Iterator

import trio

from graphglean.core.config import Config, LLMConfig
from graphglean.core.tokens import Tokenizer


def llm_config(server, tmp_path=None, **kw) -> LLMConfig:
    cfg = LLMConfig(base_url=server.base_url, api_key=kw.pop("api_key", "sk-test"), model=kw.pop("model", "gpt-4"),
                    max_retries=kw.pop("max_retries", 4), timeout_s=kw.pop("timeout_s", 5.0), **kw)
    if "first_token_timeout_s" not in kw:  # a hung server is found as soon as before the first tokens
        cfg.first_token_timeout_s = cfg.timeout_s
    cfg.cache.mode = "off" if tmp_path is None else "readwrite"
    if tmp_path is not None:
        cfg.cache.path = str(tmp_path / "cache.sqlite")
    return cfg


def config(server, tmp_path=None, **llm) -> Config:
    cfg = Config()
    cfg.llm = llm_config(server, tmp_path, **llm)
    return cfg


class ThreadRecordingTokenizer(Tokenizer):
    """A cl100k tokenizer that notes the threads it encodes in."""

    def __init__(self):
        super().__init__(encoding="cl100k_base")
        self.threads = set()

    def encode(self, text):
        self.threads.add(threading.get_ident())
        return super().encode(text)


async def replayed_graph(folder: str, garble: float = 0.0, quotes: bool = False):
    """The graph built from a real model's recorded responses in ../shared/realdata/FOLDER, and its chunks;
    ``garble``: that share of the answers' lines garbled as small models garble them (``quotes``: their names
    quoted as small models quote them)."""
    result, chunks = await replayed(folder, garble, quotes)
    return result.output, chunks


async def replayed(folder: str, garble: float = 0.0, quotes: bool = False):
    """`replayed_graph`'s whole extraction result (graph and stats), and its chunks."""
    from graphglean.graph.extract import extract_graph
    from graphglean.testing import FakeLLMServer
    from graphglean.testing.models.garbling import garbling
    from graphglean.testing.models.responders import ReplayResponder
    from graphglean.text.chunking import Chunk
    from graphglean.text.inputs import Inputs

    from .conftest import shared_path

    responder = ReplayResponder.from_file(shared_path("realdata", folder, "replay.jsonl"))
    chunks = [Chunk(e["chunk_id"], folder, i, e["content"], 0, len(e["content"]), 0)
              for i, e in enumerate(responder.entries)]
    async with FakeLLMServer(garbling(responder, garble, quotes=quotes) if garble else responder).running() as s:
        cfg = config(s, max_concurrency=16)
        cfg.graph.description_max_tokens = 100000
        result = await extract_graph(Inputs(chunks=chunks), cfg)
    return result, chunks


class _TaskSteps(trio.abc.Instrument):
    def __init__(self, task: trio.lowlevel.Task) -> None:
        self.task, self.count = task, 0

    def before_task_step(self, task: trio.lowlevel.Task) -> None:
        self.count += task is self.task


@contextlib.contextmanager
def task_resumes() -> Iterator[_TaskSteps]:
    """Counts how often trio's scheduler resumes the current task inside the block: its trips through the
    scheduler (``.count``)."""
    steps = _TaskSteps(trio.lowlevel.current_task())
    trio.lowlevel.add_instrument(steps)
    try:
        yield steps
    finally:
        trio.lowlevel.remove_instrument(steps)
