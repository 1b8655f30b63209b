"""One run's plan, which both engines execute: the passes a configuration enables (and why), what they need
before any call, and how they run together on one context."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Callable

import attrs
import trio

from ..core.config import PEER_FORMATS, Config, missing_extra
from ..core.errors import Contained, ConfigError
from .context import PassFn, PassOutcome, RunContext
from .steps import enrich_pass, episodic_pass, graph_llm_pass, graph_nlp_pass, summary_pass

BATCH_ON_RAY = ("llm.batch: batch mode runs on runtime.engine local (the endpoint answers the batches; one "
                "process sends them and keeps up with thousands of requests)")
HOW_TO_GET_AN_ENDPOINT = "set OPENAI_API_KEY, or llm.base_url (GRAPHGLEAN_BASE_URL) for a local OpenAI-compatible server"


def llm_without_endpoint(cfg: Config) -> str | None:
    """The key that asks for the LLM by name when no endpoint is configured (it would be asked with no key)."""
    if cfg.llm.has_endpoint:
        return None
    if cfg.graph.enabled and cfg.graph.method == "llm":
        return "graph.method"
    if cfg.graph.enabled and cfg.graph.resolve.enabled and cfg.graph.resolve.method == "llm":
        return "graph.resolve.method"
    return None


def plan_passes(cfg: Config, notice: Callable[[str], None]) -> list[tuple[str, PassFn]]:
    """The passes this configuration enables, with the choice of graph method explained."""
    passes: list[tuple[str, PassFn]] = []
    endpoint = cfg.llm.has_endpoint
    how = HOW_TO_GET_AN_ENDPOINT + ", to use the LLM"
    if cfg.graph.enabled:
        method = cfg.graph.method
        if method == "auto":
            method = "llm" if endpoint else "nlp"
            notice(f"graph.method auto: using the {'LLM' if endpoint else 'offline NLP'} method"
                   + ("" if endpoint else f"; {how}"))
        passes.append(("graph", graph_llm_pass if method == "llm" else graph_nlp_pass))
    for name, enabled, fn in (("summary", cfg.summary.enabled, summary_pass),
                              ("episodic", cfg.episodic.enabled, episodic_pass),
                              ("enrich", cfg.enrich.enabled, enrich_pass)):
        if enabled and not endpoint:
            notice(f"{name}: needs an LLM endpoint; skipped ({how})")
        elif enabled:
            passes.append((name, fn))
    return passes


def check_runnable(cfg: Config, dry: bool, detach: bool = False) -> None:
    """Refuse, before any work, a configuration that could not run: a missing extra for an output format, the
    LLM asked for by name with no endpoint to ask, a peer index with no embedding endpoint, batch mode on
    Ray, or ``detach`` without batch mode."""
    if missing_extra(cfg.output.formats):  # a Config built in code skipped the loader's check
        raise ConfigError(f"output.formats: {missing_extra(cfg.output.formats)}")
    if not dry and (key := llm_without_endpoint(cfg)):
        raise ConfigError(f"{key}: llm needs an LLM endpoint: {HOW_TO_GET_AN_ENDPOINT}; or set {key} to "
                          f"{'nlp' if key == 'graph.method' else 'rules'}")
    peers = [f for f in cfg.output.formats if f in PEER_FORMATS] if cfg.graph.enabled else []
    if peers and not dry and not cfg.llm.has_endpoint:
        raise ConfigError(f"output.formats: {peers[0]} embeds texts with llm.embedding_model: "
                          f"{HOW_TO_GET_AN_ENDPOINT}; or leave {peers[0]} out")
    if cfg.llm.batch.enabled and cfg.runtime.engine == "ray":
        raise ConfigError(BATCH_ON_RAY)
    if detach and not cfg.llm.batch.enabled:
        raise ConfigError("--detach needs batch mode (llm.batch.enabled: true): only batches keep working while "
                          "no run waits for them")


def with_peer_needs(cfg: Config, notice: Callable[[str], None]) -> Config:
    """``cfg``, with communities enabled when a GraphRAG index is asked for: every GraphRAG search reads
    communities and their reports (local search too), so the format asked for implies them."""
    if cfg.graph.enabled and "graphrag" in cfg.output.formats and not cfg.graph.communities.enabled:
        notice("output.formats graphrag: GraphRAG's searches read communities and their reports, so "
               "graph.communities.enabled is on for this run")
        communities = attrs.evolve(cfg.graph.communities, enabled=True)
        return attrs.evolve(cfg, graph=attrs.evolve(cfg.graph, communities=communities))
    return cfg


def writable_dir(path: Path, key: str) -> None:
    """Fail before any LLM call, with the key to fix, when results could not be written."""
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / ".graphglean-write-test"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as e:
        raise ConfigError(f"{key}: cannot write to {path} ({e.strerror or type(e).__name__})") from None


async def run_passes(ctx: RunContext, passes: list[tuple[str, PassFn]]) -> list[PassOutcome]:
    """Run ``passes`` concurrently on ``ctx``'s scheduler; their outcomes, timed, in the given order."""
    results: dict[str, PassOutcome] = {}

    async def one(name: str, fn: PassFn) -> None:
        t0 = time.monotonic()
        failed: list[dict[str, Any]] = []
        # a pass that raises (a bug, after its calls were paid) fails alone: the others go on and are written
        with Contained(name, f"{name}.enabled: false skips it", failed, "its answers are kept for the next run"):
            outcome = await fn(ctx)
        if failed:
            outcome = PassOutcome(name, failed=failed)
        outcome.wall_s = time.monotonic() - t0
        results[name] = outcome

    async with trio.open_nursery() as nursery:  # independent passes run concurrently on the one scheduler
        for name, fn in passes:
            nursery.start_soon(one, name, fn)
    return [results[name] for name, _ in passes]
