"""The fake server as a command, ``python -m graphglean.testing.serve``: a responder named by module path
(or a replay file), refusal rules, faults and limits from the command line."""

from __future__ import annotations

import gc
from typing import Any

import trio

from .batch_api import FakeBatchAPI
from .exchange import Responder
from .fake_llm import FAULT_KINDS, FakeLLMServer, FaultPlan
from .local_server import LocalServer
from .refusals import REFUSAL_KINDS, refusal, refusing

DEFAULT_MODEL = "graphglean-fake"


def load_responder(spec: str) -> Responder:
    """The responder ``module:function`` names (``respond`` when no function is named)."""
    import importlib

    module, _, name = spec.partition(":")
    return getattr(importlib.import_module(module), name or "respond")


def refusing_rule(responder: Responder, rule: str, parser: Any) -> Responder:
    """``responder`` refusing prompts that contain TEXT, for a ``--refuse TEXT=KIND[/SERVER]`` rule."""
    text, sep, spec = rule.rpartition("=")
    kind, _, server = spec.partition("/")
    try:
        reply = refusal(kind, server or "openai")
    except ValueError as e:
        parser.error(f"--refuse {rule!r}: {e}")
    if not sep or not text:
        parser.error(f"--refuse {rule!r}: expected TEXT=KIND[/SERVER]")
    return refusing(responder, lambda req: text in req.prompt, reply)


def main(argv: list[str] | None = None) -> None:
    import argparse
    import sys

    p = argparse.ArgumentParser(prog="python -m graphglean.testing.serve",
                                description="A scriptable OpenAI-compatible server for tests and benchmarks.")
    p.add_argument("--port", type=int, default=0, help="0 = any free port; a fixed one (8000) lets a config, or "
                   "graphglean init, find the server there")
    p.add_argument("--host", default="127.0.0.1", help="the address to listen on (default %(default)s: this machine "
                   "only; 0.0.0.0 for every interface: the server takes any key and keeps every request)")
    p.add_argument("--model", action="append", default=[], metavar="NAME",
                   help=f"a model GET /v1/models lists (repeat for more; default {DEFAULT_MODEL}); any name is "
                   "answered")
    p.add_argument("--port-file", help="write the chosen port here once listening")
    p.add_argument("--latency", type=float, default=0.0, help="seconds before each answer")
    p.add_argument("--token-latency", type=float, default=0.0, help="seconds per output token, after --latency")
    p.add_argument("--refuse-stream", action="store_true", help="answer whole only: a 400 for a streamed request")
    p.add_argument("--slots", type=int, default=0, metavar="N",
                   help="a local inference server (LocalServer) running N answers at once, the rest queued")
    p.add_argument("--tokens-per-s", type=float, default=20.0, help="--slots: each answer's pace")
    p.add_argument("--slot-report", action="store_true", help="--slots: answer /props and /slots")
    p.add_argument("--rpm", type=int, default=0)
    p.add_argument("--tpm", type=int, default=0)
    p.add_argument("--fault-rate", type=float, default=0.0)
    p.add_argument("--fault-kinds", default=",".join(FAULT_KINDS))
    p.add_argument("--hang-s", type=float, default=3600.0, help="how long a 'timeout' fault holds the request")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--batch-delay", type=float, default=0.0, metavar="S",
                   help="the Batch API: seconds from a batch's creation to its answers")
    p.add_argument("--batch-failed-lines", type=float, default=0.0, metavar="SHARE",
                   help="the Batch API: share of requests whose first answer in a batch is a 500 (by --seed)")
    p.add_argument("--responder", default="graphglean.testing.models.responders:synthetic",
                   help="module:function taking a RecordedRequest")
    p.add_argument("--replay", help="a replay.jsonl of recorded responses (overrides --responder)")
    p.add_argument("--refuse", action="append", default=[], metavar="TEXT=KIND[/SERVER]",
                   help="refuse chat requests whose prompt contains TEXT, as SERVER words a KIND refusal "
                   f"(kinds: {', '.join(REFUSAL_KINDS)}), e.g. 'Marley was dead=context_length/openai'")
    args = p.parse_args(argv)
    if args.replay:
        from .models.responders import ReplayResponder

        responder: Responder = ReplayResponder.from_file(args.replay)
    else:
        responder = load_responder(args.responder)
    for rule in args.refuse:
        responder = refusing_rule(responder, rule, p)
    server = FakeLLMServer(responder, latency=args.latency, token_latency=args.token_latency, rpm=args.rpm,
                           tpm=args.tpm, hang_s=args.hang_s,
                           faults=FaultPlan(args.fault_rate, tuple(k for k in args.fault_kinds.split(",") if k),
                                            seed=args.seed), host=args.host, port=args.port,
                           batch_api=FakeBatchAPI(args.batch_delay, failed_lines=args.batch_failed_lines,
                                                  seed=args.seed), refuse_stream=args.refuse_stream,
                           local=LocalServer(slots=args.slots, tokens_per_s=args.tokens_per_s,
                                             reports_slots=args.slot_report) if args.slots else None,
                           models=tuple(args.model or [DEFAULT_MODEL]))

    async def serve() -> None:
        async with trio.open_nursery() as nursery:
            await server.start(nursery)
            if args.port_file:
                from pathlib import Path

                tmp = Path(args.port_file + ".tmp")
                tmp.write_text(str(server.port))
                tmp.replace(args.port_file)
            print(f"fake LLM listening on {server.base_url}", flush=True)
            # what start-up made (modules, the responder's tables) lives as long as the process: out of the
            # collector's full passes, which paused the server ~17 ms each once 5,000 requests were logged
            gc.freeze()

    try:
        trio.run(serve)
    except KeyboardInterrupt:
        sys.exit(0)
    except BaseExceptionGroup as group:  # the listener's own error, out of trio's nursery
        bind = group.subgroup(OSError)
        if bind is None:
            raise
        error = bind.exceptions[0]
        while isinstance(error, BaseExceptionGroup):
            error = error.exceptions[0]
        sys.exit(f"python -m graphglean.testing.serve: cannot listen on port {args.port}: {error.strerror or error}")


if __name__ == "__main__":
    main()
