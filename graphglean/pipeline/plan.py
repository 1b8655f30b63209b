"""One run's plan, which both engines execute: the passes a configuration enables (and why), what they need
before any call, and how they run together on one context."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any, Callable

import attrs
import trio

from ..core.config import PEER_FORMATS, Config, missing_extra
from ..core.errors import ConfigError, Contained
from ..graph.resolution.resolve import asks_llm
from ..graph.schema.ontology import schema_of
from ..text.chunking import Chunk
from ..text.inputs import Inputs
from .communities import reports_asked
from .context import PassFn, PassOutcome, RunContext
from .runstore import FILENAME as RUN_STORE
from .steps import enrich_pass, enrich_without_messages, episodic_pass, graph_llm_pass, graph_nlp_pass, summary_pass

HOW_TO_GET_AN_ENDPOINT = "set OPENAI_API_KEY, or set llm.base_url to an OpenAI-compatible server's URL"


def llm_without_endpoint(cfg: Config) -> str | None:
    """The key that asks for the LLM by name when no endpoint is configured (it would be asked with no key)."""
    if cfg.llm.has_endpoint:
        return None
    if cfg.graph.enabled and cfg.graph.method == "llm":
        return "graph.method"
    if cfg.graph.enabled and cfg.graph.resolve.enabled and cfg.graph.resolve.method == "llm":
        return "graph.resolve.method"
    return None


def asks_the_llm(cfg: Config, passes: list[tuple[str, PassFn]]) -> bool:
    """Whether the run's ``passes`` may call the LLM (the offline graph may not; the peer indexes embed)."""
    peers = cfg.graph.enabled and any(f in PEER_FORMATS for f in cfg.output.formats)
    return peers or any(fn is not graph_nlp_pass or asks_llm(cfg, offline=True) or reports_asked(cfg)
                        for _, fn in passes)


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


def check_inputs(cfg: Config, inputs: Inputs, chunks: list[Chunk], passes: list[tuple[str, PassFn]],
                 notice: Callable[[str], None]) -> None:
    """Before any call, as a run and its dry run both do: refuse a pass whose input is missing (enrich without
    chat messages), and say in one line of each pass that will produce nothing from this input."""
    names = [name for name, _ in passes]
    if "enrich" in names and not inputs.messages:
        raise enrich_without_messages(cfg)
    for name in ("graph", "summary", "episodic"):
        if name in names and not chunks and not (name == "summary" and inputs.documents):
            why = ("input.format messages gives chat messages, which only enrich reads" if inputs.messages
                   else "the input holds no text")
            notice(f"{name}: nothing to read ({why}); it produces nothing")


def check_runnable(cfg: Config, detach: bool = False) -> None:
    """Refuse, before any work, a configuration that could not run: a missing extra for an output format, the
    LLM asked for by name with no endpoint to ask, a peer index with no embedding endpoint, ``detach`` without
    batch mode, a response cache where a run would remove it, or a ``graph.schema`` that is none."""
    if missing_extra(cfg.output.formats):  # a Config built in code skipped the loader's check
        raise ConfigError(f"output.formats: {missing_extra(cfg.output.formats)}")
    if cfg.graph.enabled:
        schema_of(cfg.graph)  # the loader's checks again (a Config built in code, a schema file edited since)
    if key := llm_without_endpoint(cfg):
        raise ConfigError(f"{key}: llm needs an LLM endpoint: {HOW_TO_GET_AN_ENDPOINT}; or set {key} to "
                          f"{'nlp' if key == 'graph.method' else 'rules'}")
    peers = [f for f in cfg.output.formats if f in PEER_FORMATS] if cfg.graph.enabled else []
    if peers and not cfg.llm.has_endpoint:
        raise ConfigError(f"output.formats: {peers[0]} embeds texts with llm.embedding_model: "
                          f"{HOW_TO_GET_AN_ENDPOINT}; or leave {peers[0]} out")
    if cfg.llm.cache.mode != "off" and (removed := removed_by_a_run(cfg, Path(cfg.llm.cache.path))):
        raise ConfigError(f"llm.cache.path: {cfg.llm.cache.path} is {removed}: give the response cache a file "
                          "of its own (it outlives --fresh)")
    if detach and not cfg.llm.batch.enabled:
        raise ConfigError("--detach needs batch mode (llm.batch.enabled: true): only batches keep working while "
                          "no run waits for them")


def removed_by_a_run(cfg: Config, path: Path) -> str:
    """What of the output folder ``path`` is that a run removes (``--fresh``: the run store, the memory store,
    the Ray engine's shards; every run: its merge folder), or ""."""
    out = Path(cfg.output.dir).resolve()
    path = path.resolve()
    for name, what in ((RUN_STORE, "the output folder's run store, which --fresh empties"),
                       ("memory.sqlite", "the enrichment store, which --fresh empties"),
                       ("shards", "in the Ray engine's shards folder, which --fresh empties"),
                       ("merge", "in the Ray engine's merge folder, which every run empties")):
        if path == out / name or (name in ("shards", "merge") and out / name in path.parents):
            return what
    return ""


def with_peer_needs(cfg: Config, notice: Callable[[str], None]) -> Config:
    """``cfg``, with communities enabled when a GraphRAG index is asked for: every GraphRAG search reads
    communities and their reports (local search too), so the format asked for implies them."""
    if cfg.graph.enabled and "graphrag" in cfg.output.formats and not cfg.graph.communities.enabled:
        notice("output.formats graphrag: GraphRAG's searches read communities and their reports, so "
               "graph.communities.enabled is on for this run")
        communities = attrs.evolve(cfg.graph.communities, enabled=True)
        return attrs.evolve(cfg, graph=attrs.evolve(cfg.graph, communities=communities))
    return cfg


LEGACY_CACHE = Path(".graphglean") / "cache.sqlite"  # where the cache was before llm.cache.path's empty default


def state_beside_output(cfg: Config, notice: Callable[[str], None] | None = None,
                        config_path: str | None = None) -> Config:
    """``cfg`` with the response cache's file named: ``llm.cache.path``, or (left empty) ``cache.sqlite`` in
    ``output.dir``, so the cache goes with the output, whatever folder the run starts in. Left empty where a
    cache is at the old default (``.graphglean/cache.sqlite`` in the working folder, or beside the
    configuration file), ``notice`` hears, in one line, where it is and how to keep using it."""
    cache = attrs.evolve(cfg.llm.cache, path=cfg.llm.cache.file(cfg.output.dir))
    if not cfg.llm.cache.path and cfg.llm.cache.mode != "off" and notice is not None:
        folders = [Path.cwd()] + ([Path(config_path).resolve().parent] if config_path else [])
        legacy = next((f / LEGACY_CACHE for f in folders if (f / LEGACY_CACHE).is_file()), None)
        if legacy is not None:
            notice(f"llm.cache.path: answers an earlier version cached are in {legacy} (the old default); this "
                   f"run's cache is {cache.path}: set llm.cache.path: {legacy} to keep using them")
    return attrs.evolve(cfg, llm=attrs.evolve(cfg.llm, cache=cache))


def writable_dir(path: Path, key: str, probe: bool = True) -> None:
    """Fail before any LLM call, with the key to fix, when results could not be written. Without ``probe`` (a
    dry run), nothing is made: the nearest folder that exists must let one write."""
    if not probe:
        existing = path.resolve()
        while not existing.exists() and existing != existing.parent:
            existing = existing.parent
        if existing.is_dir() and os.access(existing, os.W_OK | os.X_OK):
            return
        why = "not a folder" if existing == path.resolve() and not existing.is_dir() else "permission denied"
        raise ConfigError(f"{key}: cannot write to {path} ({why})")
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
