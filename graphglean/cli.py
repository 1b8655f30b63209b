"""The ``graphglean`` command. Errors become one line on stderr and an exit code; a traceback means a bug.

Exit codes: 0 success; 1 some items failed after retries or were refused for themselves (too long, filtered;
listed; the rest of the output is written), or the graph came out empty because every answer was cut or
unreadable (said in one line, with what to change); 2 a usage, configuration or input error, an output folder
another process is writing (or an endpoint that refuses the key, the model or a parameter, or cannot be reached);
130 interrupted.
"""

from __future__ import annotations

import argparse
import functools
import os
import re
import sys
import warnings
from pathlib import Path
from typing import Any

import trio

from . import __version__
from .core.config import OutputConfig
from .core.config_loader import field_docs, key_location, key_variables, load_config
from .core.errors import GraphgleanError, primary
from .llm.credentials import endpoint_secrets, redact
from .text.notes import SHOWN

EXIT_OK, EXIT_FAILED_ITEMS, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # argparse's own exit code is 2 as well; keep its one-line form
        self.print_usage(sys.stderr)
        print(f"graphglean: error: {message}", file=sys.stderr)
        sys.exit(EXIT_USAGE)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="graphglean", description="Turn text into graphs, facts, summaries and enriched "
                     "chat memory with an LLM.")
    parser.add_argument("--version", action="version", version=f"graphglean {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    run = sub.add_parser("run", help="run the passes a YAML configuration enables",
                         description="Run the passes CONFIG enables over its inputs, all on one scheduler. "
                         "Started again after an interruption, it continues where it stopped.")
    run.add_argument("config", metavar="CONFIG", help="YAML configuration (see config.example.yaml)")
    run.add_argument("--input", metavar="PATH", help="read this instead of input.path (- for stdin)")
    run.add_argument("--output", metavar="DIR", help="write here instead of output.dir")
    run.add_argument("--dry-run", action="store_true", help="print chunk counts and estimated calls, tokens "
                     "and cost; call no LLM")
    run.add_argument("--detach", action="store_true", help="batch mode: submit the next wave of batches and exit "
                     "(0), saying when to come back; the same command continues the run")
    run.add_argument("--fresh", action="store_true", help="start over: empty the output folder's run store "
                     "(results and journal) and memory store; the response cache is kept")
    tune = sub.add_parser("tune", help="propose graph.schema from a sample of the corpus (docs/schema.md)",
                          description="Ask the configured model, over a sample of CONFIG's input chunks, for the "
                          "entity types and relationship patterns the corpus holds, and write them, with counts, "
                          "descriptions and example names from the sample, to a schema file to edit and name in "
                          "graph.schema. On the scheduler, cached and priced like a run.")
    tune.add_argument("config", metavar="CONFIG", help="YAML configuration (its llm and input)")
    tune.add_argument("--sample", type=int, metavar="N", default=20, help="chunks to read, spread evenly over the "
                      "input (default %(default)s)")
    tune.add_argument("--out", metavar="PATH", help="where to write the schema (default: schema.yaml beside CONFIG; "
                      "an existing file is not overwritten)")
    tune.add_argument("--dry-run", action="store_true", help="print the sample's calls, tokens and cost; call no LLM")
    view = sub.add_parser("view", help="write graph.html again from an output folder (no LLM call)",
                          description="Rebuild OUTPUT_DIR/graph.html, the interactive view of the graph, from the "
                          "graph and chunk files a run wrote there.")
    view.add_argument("out_dir", metavar="OUTPUT_DIR", help="a run's output folder")
    view.add_argument("--max-nodes", type=int, metavar="N", default=OutputConfig().view_max_nodes,
                      help="draw at most N nodes, those of highest degree (default %(default)s; 0 = all)")
    view.add_argument("--open", action="store_true", help="open the page in the default browser")
    ask = sub.add_parser("query", help="ask the graph a run wrote; the answer cites its sources",
                         description="Answer QUESTION from the graph in OUTPUT (or CONFIG's output.dir), on the "
                         "run's endpoint, model and response cache; print the answer, the sources it cites and its "
                         "cost, and append them to OUTPUT/queries.jsonl.")
    ask.add_argument("target", metavar="OUTPUT_OR_CONFIG", help="a run's output folder, or its configuration file")
    ask.add_argument("question", metavar="QUESTION")
    ask.add_argument("--method", choices=("local", "global"), default="local",
                     help="local (default): the entities the question names or resembles, their relationships and "
                     "source sentences; global: a map-reduce over the community reports")
    ask.add_argument("--context-only", action="store_true", help="print the context an answer would be asked "
                     "with, and call nothing (works offline)")
    ask.add_argument("--max-context-tokens", type=int, metavar="N", default=8000,
                     help="tokens of context a call holds (default %(default)s)")
    ask.add_argument("--top-entities", type=int, metavar="N", default=10,
                     help="local: entities the context starts from (default %(default)s)")
    ask.add_argument("--level", type=int, metavar="N", default=2,
                     help="global: reports of community levels 0 to N (default %(default)s)")
    init = sub.add_parser("init", help="start a project: a commented graphglean.yaml and input/ with a sample",
                          description="Write DIR/graphglean.yaml for the endpoint found (OPENAI_API_KEY set; else an "
                          "OpenAI-compatible server answering /v1/models on this machine's usual ports; else the "
                          "offline method) and DIR/input/ holding a sample text. An existing file is left as it is.")
    init.add_argument("dir", metavar="DIR", nargs="?", default=".", help="the project folder (default: here)")
    init.add_argument("--ports", metavar="P,P,...", help="probe these local ports instead of the usual ones "
                      "(8000 vLLM, 11434 Ollama, 8080 llama.cpp, 1234 LM Studio)")
    return parser


class _Redacted:
    """A text stream that writes what it is given without credentials (`redact`): whatever the CLI prints."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        return self._stream.write(redact(text))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def _warning_line(message: Any, category: Any, filename: str, lineno: int, file: Any = None, line: Any = None,
                  log: Any = None) -> None:
    """A warning as one line on standard error. One that names only some of what it is about (an input
    warning's ``details``: every file skipped, with why) has them all written to the run's ``log``, or shown
    under it where there is none (``--dry-run``)."""
    details = getattr(message, "details", ())
    cut = len(details) > SHOWN
    where = " (logs/run.log names every one)" if cut and log is not None else ""
    print(f"graphglean: warning: {message}{where}", file=sys.stderr, flush=True)
    if details and log is not None:
        log("".join(f"  {d}\n" for d in details))
    elif cut:
        print("".join(f"  {d}\n" for d in details), end="", file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    commands = {"run": _run, "view": _view, "tune": _tune, "init": _init, "query": _query}
    if args.command not in commands:
        build_parser().print_help(sys.stderr)
        return EXIT_USAGE
    warnings.showwarning = _warning_line
    try:
        return commands[args.command](args)
    except BaseException as raised:
        return _failed(raised, getattr(args, "config", None), _flags(args))


#: every setting's dotted key, sections too ("graph", "graph.method"): what an error's text may begin with
SETTINGS = frozenset(k for key, _, _ in field_docs() for k in (".".join(key.split(".")[:n])
                                                              for n in range(1, key.count(".") + 2)))
#: the settings a command line flag sets instead of the configuration file
FLAGS = {"input": "input.path", "output": "output.dir"}


def _flags(args: argparse.Namespace) -> dict[str, str]:
    """The settings ``args`` set by a flag, each with the flag's words ("input.path": "--input x.txt")."""
    return {key: f"--{flag} {getattr(args, flag)}" for flag, key in FLAGS.items() if getattr(args, flag, None)}


def _leading_key(said: str) -> str | None:
    """The setting an error's text begins with ("graph.method: llm needs ..."), whose line the error names."""
    m = re.match(r"([a-z_]+(?:\.[a-z_]+)+): ", said)
    return m[1] if m and m[1] in SETTINGS else None


def _with_variables(setting: re.Match, config: str) -> str:
    names = key_variables(config, setting[1])
    return f"set {setting[1]} ({', '.join(names)}) to " if names else setting[0]


def _failed(raised: BaseException, config: str | None = None, flags: dict[str, str] | None = None) -> int:
    """The exit code of an error, said in one line; a traceback (raised again) means a bug. An error about a
    setting (its ``key``) names the line of ``config`` that holds it, or the flag that set it (``flags``)."""
    error = primary(raised)  # trio's nurseries gather errors into groups: report the one that matters
    if isinstance(error, KeyboardInterrupt):
        print("graphglean: interrupted; finished work is kept in the output folder's run.sqlite: "
              "run the same command again to continue", file=sys.stderr, flush=True)
        return EXIT_INTERRUPTED
    if isinstance(error, GraphgleanError):
        key = getattr(error, "key", None) or _leading_key(str(error))
        flag = (flags or {}).get(key or "")
        where = f"{flag}: " if flag else (key_location(config, key) or config) + ": " if key and config else ""
        said = str(error)
        if config:  # "set KEY to ...": the environment variables KEY's line reads, if any
            said = re.sub(r"\bset ([a-z_]+(?:\.[a-z_]+)+) to ", lambda m: _with_variables(m, config), said)
        print(f"graphglean: error: {where}{said}", file=sys.stderr, flush=True)
        return error.exit_code if error.exit_code != 1 else EXIT_USAGE
    raise raised


def _run(args: argparse.Namespace) -> int:
    from .pipeline.folder_lock import has_held
    from .pipeline.progress import RunLog, Tee

    cfg = load_config(args.config)
    if args.input:
        cfg.input.path = args.input
    if args.output:
        cfg.output.dir = args.output
    if args.dry_run:  # writes nothing: no log either
        return _run_here(args, cfg)
    out = Path(cfg.output.dir)
    try:  # written once the run has held the folder: a refused run writes nothing into the live run's log
        log = RunLog(out / "logs" / "run.log", endpoint_secrets(cfg.llm.api_key, cfg.llm.base_url),
                     lambda: has_held(out))
    except OSError:  # the run says why it cannot write there (output.dir), in its own words
        return _run_here(args, cfg)
    flags = [f"--input {args.input}"] * bool(args.input) + [f"--output {args.output}"] * bool(args.output)
    flags += [flag for flag, on in (("--fresh", args.fresh), ("--detach", args.detach)) if on]
    log.write(f"graphglean {__version__}: run {' '.join([args.config, *flags])} (pid {os.getpid()})")
    warnings.showwarning = functools.partial(_warning_line, log=log.write)  # details into the log
    consoles = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = Tee(consoles[0], log.write), Tee(consoles[1], log.write)
    try:
        return _run_here(args, cfg, log, consoles[1])
    except BaseException as raised:
        return _failed(raised, args.config, _flags(args))
    finally:
        for tee in (sys.stdout, sys.stderr):
            if isinstance(tee, Tee):
                tee.close_line()
        sys.stdout, sys.stderr = consoles
        warnings.showwarning = _warning_line
        log.close()


def _run_here(args: argparse.Namespace, cfg: Any, log: Any = None, console: Any = None) -> int:
    """The run itself; its progress goes to the ``console`` (the real standard error) and the ``log``."""
    from .launch import run
    from .pipeline.progress import ConsoleProgress, plural

    progress = ConsoleProgress(console, log=log.write if log is not None else None)
    result = trio.run(lambda: run(cfg, fresh=args.fresh, dry=args.dry_run, progress=progress, detach=args.detach,
                                  config_path=args.config))
    where = Path(cfg.output.dir)
    if result.detached:
        print(f"graphglean: detached: {result.detached}", file=sys.stderr)
        return EXIT_OK
    if result.failed:
        print(f"graphglean: {plural(result.failed, 'item')} failed (the rest of the output is written; report.json "
              "lists them):", file=sys.stderr)
        for p in result.passes:
            for f in p.failed[:20]:
                print(f"  {p.name} {f['item']}: {f['error']}", file=sys.stderr)
        return EXIT_FAILED_ITEMS
    if result.empty:  # said already, as it happened; the outputs are written, empty
        print(f"graphglean: the run produced nothing usable (report.json says why); outputs in {where}/",
              file=sys.stderr)
        return EXIT_FAILED_ITEMS
    if not args.dry_run:
        print(f"outputs in {where}/", file=sys.stderr)
    return EXIT_OK


def _tune(args: argparse.Namespace) -> int:
    from .tune import tune

    cfg = load_config(args.config)
    result = trio.run(lambda: tune(cfg, sample=args.sample, out=args.out, config_path=args.config, dry=args.dry_run))
    return EXIT_FAILED_ITEMS if result.failed else EXIT_OK


def _view(args: argparse.Namespace) -> int:
    from .core.errors import InputError
    from .pipeline.outputs import rebuild_view

    if args.max_nodes < 0:
        raise InputError(f"--max-nodes: expected 0 (all) or a positive number, got {args.max_nodes}")
    path = rebuild_view(args.out_dir, args.max_nodes)
    print(f"wrote {path}", file=sys.stderr)
    if args.open:
        import webbrowser

        if not webbrowser.open(path.resolve().as_uri()):
            print(f"graphglean: no browser could be started; open {path} yourself", file=sys.stderr)
    return EXIT_OK


def _query(args: argparse.Namespace) -> int:
    from .queries import query

    result = trio.run(lambda: query(args.target, args.question, method=args.method, context_only=args.context_only,
                                    max_context_tokens=args.max_context_tokens, top_entities=args.top_entities,
                                    level=args.level))
    if args.context_only:
        print(result.context, flush=True)
    elif result.found:
        print(result.formatted(), flush=True)
    for note in result.notes:
        print(f"graphglean: {note}", file=sys.stderr)
    if not args.context_only:
        logged = f"; logged in {result.log}" if result.log else ""
        print(f"graphglean: {result.cost_line()}{logged}", file=sys.stderr)
    return EXIT_OK if result.found else EXIT_FAILED_ITEMS


def _init(args: argparse.Namespace) -> int:
    import os

    from .core.errors import InputError
    from .starter import init_folder, parse_ports
    from .starter.project import SAMPLE

    try:
        ports = parse_ports(args.ports) if args.ports is not None else None
    except ValueError as e:
        raise InputError(f"--ports: {e}") from None
    done = trio.run(lambda: init_folder(args.dir, ports=ports))
    for line in done.lines:
        print(f"graphglean init: {line}", file=sys.stderr)
    here = args.dir if args.dir != "." else ""
    print(f"next: graphglean run {os.path.join(here, 'graphglean.yaml')}", file=sys.stderr)
    if any(p.name == SAMPLE for p in done.written):
        print(f"then: graphglean query {os.path.join(here, 'output')} \"Who is Scrooge?\"", file=sys.stderr)
    return EXIT_OK


def entry() -> None:
    sys.stdout, sys.stderr = _Redacted(sys.stdout), _Redacted(sys.stderr)  # the process's, as it is the CLI
    try:
        code = main()
        sys.stdout.flush()
    except BrokenPipeError:  # the reader went away (`graphglean query ... | head`): nothing left to say
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # so the exit's own flush is quiet
        code = EXIT_FAILED_ITEMS
    sys.exit(code)


if __name__ == "__main__":
    entry()
