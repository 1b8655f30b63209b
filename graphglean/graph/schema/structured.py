"""Which format the extraction asks for (``graph.structured_output``), learned once a run.

``auto`` tries ``response_format: json_schema`` with one request, the probe: the first request of the heaviest
chunk (the one the scheduler starts first), while the other chunks wait for its outcome and then send at once.
Only the probe's outcome decides, so what every other chunk asks does not depend on timing: a refusal that
names the parameter (a 4xx, or llama-cpp-python's 500) is answered by asking again in the ``json_object`` form with
the schema beside it (llama-cpp-python's JSON schema mode: a grammar), and a refusal of that too means the tuple
format; an answer without JSON (the server took the parameter but did not follow it) means the tuple format too,
for every chunk but the probe's (its answer is read as what it is); otherwise JSON, in the form taken. One line says when it is not JSON. The decision is kept in the run store
(`FormatMemo`), so a resumed run (or the next ``--detach`` cycle) asks as the first did; a fresh one probes again
with the same chunk, whose answer the response cache holds.

In batch mode, where an answer may take a day, no chunk waits: each tries JSON, and only a refusal (remembered
like the probe's) moves the chunks not yet started to the tuple format; an answer without JSON is read as what it
is. ``json_schema`` insists: a refusal fails the run with what to change. ``off`` never asks for JSON.
"""

from __future__ import annotations

import warnings
from typing import Any, Awaitable, Callable

import attrs
import trio

from ...core.answers import looks_like_refusal
from ...core.errors import LLMParameterError, LLMRequestError
from ...llm.records import ChatResult
from ..extraction.chunk_extraction import ChunkExtraction
from ..extraction.gleaning import GleaningLoop
from ..extraction.json_records import looks_like_json, opens_with_json
from .json_schema import FORMS


class FormatRefused(Exception):
    """The endpoint refused ``json_schema`` (auto): the chunk is extracted in the tuple format instead."""


@attrs.frozen
class FormatMemo:
    """The run's decision as the run store keeps it (``known``: ``{"state", "why"}`` from an earlier invocation),
    and how to keep a new one."""

    known: dict[str, str] | None = None
    save: Callable[[dict[str, str]], Awaitable[None]] | None = None


class StructuredChoice:
    """The run's knowledge of whether the server takes ``json_schema``; ``report`` is report.json's account."""

    def __init__(self, mode: str, probes: bool, report: dict[str, Any] | None = None,
                 memo: FormatMemo | None = None) -> None:
        self.mode = mode  # auto | json_schema
        self.probes = probes  # one request is tried alone first (False: batch mode)
        self.state = "untried"  # untried | json | refused | ignored
        self.form = "json_schema"  # the form of response_format asked (`json_schema.FORMS`)
        self._refused_schema = ""  # why json_schema was refused, when json_object was asked instead
        self.report = {} if report is None else report
        self.report.update(format="json_schema", why=f"graph.structured_output {mode}", json_chunks=0,
                           tuple_chunks=0)
        self.probe_chunk: str | None = None  # the chunk whose first request probes (None: the first to ask)
        self._prober: str | None = None
        self._changed = trio.Event()
        self._memo = memo or FormatMemo()
        known = self._memo.known
        if mode == "auto" and known and known.get("state") in ("json", "refused", "ignored"):
            self.form = known.get("form") if known.get("form") in FORMS else "json_schema"
            self._decided(known["state"], known.get("why", ""), remember=False)

    def starts_json(self) -> bool:
        """Whether a chunk starting now asks for JSON."""
        return self.mode == "json_schema" or self.state in ("untried", "json")

    async def ready(self, chunk_id: str) -> None:
        """Wait, unless this chunk probes, while the probe's outcome is not known."""
        while self.probes and self.state == "untried":
            if self._prober == chunk_id:
                return
            if self._prober is None and self.probe_chunk in (None, chunk_id):
                self._prober = chunk_id
                return
            await self._changed.wait()

    def release(self, chunk_id: str) -> None:
        """The probe's chunk ended without an outcome (its request failed otherwise): the next chunk to ask probes."""
        if self._prober == chunk_id and self.state == "untried":
            self._prober = self.probe_chunk = None
            self._notify()

    async def request(self, call: Callable[[], Awaitable[ChatResult]]) -> ChatResult:
        """One JSON-schema request of a chunk (``call``); `FormatRefused` when the server does not take the
        parameter (auto)."""
        if self.state == "refused" and self.mode == "auto":
            raise FormatRefused
        while True:
            form = self.form
            try:
                result = await call()
                break
            except LLMRequestError as e:
                if not e.is_about("response_format"):
                    raise
                if self.mode == "json_schema":
                    raise LLMParameterError(
                        f"graph.structured_output is json_schema, but the endpoint does not take response_format "
                        f"json_schema ({e}); set graph.structured_output to auto (or off) to extract in the tuple "
                        "format", e.status, e.body, kind="parameter", params=e.params) from None
                if form == "json_schema":  # asked again in the json_object form, with the schema beside it
                    if self.form == form:
                        self.form, self._refused_schema = "json_object", _short(e)
                    continue
                if self.state != "refused":
                    await self._decide("refused", f"the server refused response_format json_schema "
                                                  f"({self._refused_schema}) and json_object ({_short(e)})")
                raise FormatRefused from None
        await self._read(result)
        return result

    async def _read(self, result: ChatResult) -> None:
        """The probe's answer decides; any other answer without JSON is read as what it is, and only noted."""
        text = result.text
        cut_json = result.truncated and looks_like_json(text)  # cut before its first whole item: JSON all the same
        without_json = bool(text.strip()) and not looks_like_refusal(text) and not cut_json and not opens_with_json(
            text)
        if without_json and self.mode == "json_schema":
            self.report["why"] = ("graph.structured_output json_schema; the server took it but answered without "
                                  "JSON at times (read as the tuple format)")
        if self.state != "untried" or not self.probes:  # batch mode: nothing waits on one answer
            return
        took = "json_schema" if self.form == "json_schema" else (
            f"json_object with the schema, having refused json_schema ({self._refused_schema})")
        if without_json and self.mode == "auto":
            await self._decide("ignored", f"the server took response_format {took} but answered without JSON "
                               f"({text.strip()[:60]!r})")
        else:
            await self._decide("json", f"the server took response_format {took}")

    async def _decide(self, state: str, why: str) -> None:
        self._decided(state, why, remember=True)
        if self._memo.save is not None:
            with trio.CancelScope(shield=True):
                await self._memo.save({"state": state, "why": why, "form": self.form})

    def _decided(self, state: str, why: str, remember: bool) -> None:
        self.state = state
        if state == "json":
            if self.mode == "auto":
                self.report.update(format=self.form, why=f"graph.structured_output auto: {why}")
        else:
            self.report.update(format="tuple", why=why)
            said = why if remember else f"{why}, as an earlier invocation of this run found"
            warnings.warn(f"graph.structured_output auto: {said}; the graph is extracted in the tuple format",
                          stacklevel=4)
        self._notify()

    def _notify(self) -> None:
        self._changed.set()
        self._changed = trio.Event()

    def counted(self, extraction: ChunkExtraction, as_json: bool) -> ChunkExtraction:
        self.report["json_chunks" if as_json else "tuple_chunks"] += 1
        return extraction


class StructuredExtraction:
    """Extracts a chunk in JSON where the choice says so, in the tuple format otherwise (or once refused)."""

    def __init__(self, as_json: GleaningLoop, as_tuples: GleaningLoop, choice: StructuredChoice) -> None:
        self.as_json, self.as_tuples, self.choice = as_json, as_tuples, choice

    async def run(self, chunk_id: str, text: str) -> ChunkExtraction:
        await self.choice.ready(chunk_id)
        try:
            if self.choice.starts_json():
                try:
                    return self.choice.counted(await self.as_json.run(chunk_id, text), True)
                except FormatRefused:
                    pass
        finally:
            self.choice.release(chunk_id)
        return self.choice.counted(await self.as_tuples.run(chunk_id, text), False)


def _short(e: Exception) -> str:
    return " ".join(str(e).split())[:200]
