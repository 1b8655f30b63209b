"""What a server says of its own concurrency, read once before the first chat call:

- llama.cpp (``llama-server``): ``GET /props`` -> ``{"total_slots": N, ...}``; ``GET /slots`` -> one object per
  slot (``--no-slots`` turns it off); ``GET /metrics`` with ``--metrics``: ``llamacpp:requests_processing``,
  ``llamacpp:requests_deferred``.
- vLLM: ``GET /metrics`` (Prometheus): ``vllm:num_requests_running``, ``vllm:num_requests_waiting``; it batches
  up to its ``--max-num-seqs`` (256 by default), which it does not report: while nothing waits, it is not full.
- llama-cpp-python, Ollama and LM Studio report nothing of the kind (their ``/props`` is a 404): learned.
"""

from __future__ import annotations

import re
from typing import Any, Awaitable, Callable

import attrs

_METRIC = re.compile(r"^(vllm:num_requests_running|vllm:num_requests_waiting|llamacpp:requests_processing"
                     r"|llamacpp:requests_deferred)(?:\{[^}]*\})?\s+([0-9.eE+-]+)", re.M)


@attrs.frozen
class SlotReport:
    slots: int | None  # the server's slots, when it says
    source: str
    running: int | None = None  # requests generating now and waiting now, when it says
    waiting: int | None = None


def server_root(base_url: str) -> str:
    base = base_url.partition("?")[0].rstrip("/")
    return base[:-3] if base.endswith("/v1") else base


Get = Callable[..., Awaitable[Any]]  # a GET of a URL: its JSON (``as_json=False``: its text), or None


async def read_report(get: Get, base_url: str) -> SlotReport | None:
    """The server's own word on its slots (llama.cpp's /props, else /slots, else a /metrics), or None. ``get``
    asks each route once a client, and takes one that answers nothing within a few seconds as none
    (`Endpoint.probe`)."""
    root = server_root(base_url)
    props = await get(root + "/props")
    if isinstance(props, dict) and type(props.get("total_slots")) is int and props["total_slots"] > 0:
        return SlotReport(props["total_slots"], "reported by the server's /props (total_slots)")
    slots = await get(root + "/slots")
    if isinstance(slots, list) and slots and all(isinstance(s, dict) for s in slots):
        return SlotReport(len(slots), "reported by the server's /slots")
    return await read_metrics(get, root)


async def read_metrics(get: Get, root: str) -> SlotReport | None:
    """Requests running and waiting from a Prometheus ``/metrics`` of vLLM or llama.cpp."""
    text = await get(root + "/metrics", as_json=False)
    if not isinstance(text, str):
        return None
    found = {name: float(value) for name, value in _METRIC.findall(text)}
    running = found.get("vllm:num_requests_running", found.get("llamacpp:requests_processing"))
    waiting = found.get("vllm:num_requests_waiting", found.get("llamacpp:requests_deferred"))
    if running is None or waiting is None:
        return None
    server = "vLLM" if "vllm:num_requests_running" in found else "llama.cpp"
    return SlotReport(None, f"{server} /metrics", int(running), int(waiting))
