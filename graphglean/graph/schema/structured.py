"""Which format the extraction asks for (``graph.structured_output``), learned once a run.

``auto`` tries ``response_format: json_schema`` with the run's first extraction request, the others waiting for
its outcome (in batch mode, where an answer may take a day, each chunk tries and falls back alone). A refusal
that names the parameter (a 4xx, or llama-cpp-python's 500) is remembered: that chunk and every later one use
the tuple format, and one line says so. A server that takes the parameter but answers something other than JSON
is remembered too: chunks not yet started use the tuple format (those under way go on in JSON; their answers
are read as what they are). ``json_schema`` insists: a refusal fails the run with what to change. ``off`` never
asks for JSON.
"""

from __future__ import annotations

import warnings
from typing import Any, Awaitable, Callable

import trio

from ...core.answers import looks_like_refusal
from ...core.errors import LLMParameterError, LLMRequestError
from ...llm.records import ChatResult
from ..extraction.chunk_extraction import ChunkExtraction
from ..extraction.gleaning import GleaningLoop
from ..extraction.json_records import opens_with_json


class FormatRefused(Exception):
    """The endpoint refused ``json_schema`` (auto): the chunk is extracted in the tuple format instead."""


class StructuredChoice:
    """The run's knowledge of whether the server takes ``json_schema``; ``report`` is report.json's account."""

    def __init__(self, mode: str, probes: bool, report: dict[str, Any] | None = None) -> None:
        self.mode = mode  # auto | json_schema
        self.probes = probes  # the first request is tried alone (False: batch mode)
        self.state = "untried"  # untried | json | refused | ignored
        self.report = {} if report is None else report
        self.report.update(format="json_schema", why=f"graph.structured_output {mode}", json_chunks=0,
                           tuple_chunks=0)
        self._lock = trio.Lock()

    def starts_json(self) -> bool:
        """Whether a chunk starting now asks for JSON."""
        return self.mode == "json_schema" or self.state in ("untried", "json")

    async def request(self, call: Callable[[], Awaitable[ChatResult]]) -> ChatResult:
        """One JSON-schema request of a chunk (``call``), tried alone while it is not known whether the server
        takes the parameter; `FormatRefused` when it does not (auto)."""
        if self.state == "refused" and self.mode == "auto":
            raise FormatRefused
        if self.state != "untried" or not self.probes:
            return self._read(await self._refusable(call))
        async with self._lock:
            if self.state == "refused" and self.mode == "auto":
                raise FormatRefused
            result = await self._refusable(call)
            if self.state == "untried":
                self.state = "json"
                if self.mode == "auto":
                    self.report["why"] = "graph.structured_output auto: the server took response_format json_schema"
        return self._read(result)

    async def _refusable(self, call: Callable[[], Awaitable[ChatResult]]) -> ChatResult:
        try:
            return await call()
        except LLMRequestError as e:
            if not e.is_about("response_format"):
                raise
            if self.mode == "json_schema":
                raise LLMParameterError(
                    f"graph.structured_output is json_schema, but the endpoint does not take response_format "
                    f"json_schema ({e}); set graph.structured_output to auto (or off) to extract in the tuple "
                    "format", e.status, e.body, kind="parameter", params=e.params) from None
            self._fall_back("refused", f"the server refused response_format json_schema ({_short(e)})")
            raise FormatRefused from None

    def _read(self, result: ChatResult) -> ChatResult:
        """Note an answer that is not JSON (the server took the parameter but did not follow it)."""
        text = result.text
        if text.strip() and not result.truncated and not opens_with_json(text) and not looks_like_refusal(text):
            if self.mode == "auto":
                self._fall_back("ignored", "the server took response_format json_schema but answered without JSON "
                                f"({text.strip()[:60]!r})")
            else:
                self.report["why"] = ("graph.structured_output json_schema; the server took it but answered "
                                      "without JSON at times (read as the tuple format)")
        return result

    def _fall_back(self, state: str, why: str) -> None:
        if self.state in ("refused", "ignored"):
            return
        self.state = state
        self.report.update(format="tuple", why=why)
        warnings.warn(f"graph.structured_output auto: {why}; the graph is extracted in the tuple format",
                      stacklevel=3)

    def counted(self, extraction: ChunkExtraction, as_json: bool) -> ChunkExtraction:
        self.report["json_chunks" if as_json else "tuple_chunks"] += 1
        return extraction


class StructuredExtraction:
    """Extracts a chunk in JSON where the choice says so, in the tuple format otherwise (or once refused)."""

    def __init__(self, as_json: GleaningLoop, as_tuples: GleaningLoop, choice: StructuredChoice) -> None:
        self.as_json, self.as_tuples, self.choice = as_json, as_tuples, choice

    async def run(self, chunk_id: str, text: str) -> ChunkExtraction:
        if self.choice.starts_json():
            try:
                return self.choice.counted(await self.as_json.run(chunk_id, text), True)
            except FormatRefused:
                pass
        return self.choice.counted(await self.as_tuples.run(chunk_id, text), False)


def _short(e: Exception) -> str:
    return " ".join(str(e).split())[:200]
