"""Reading answers of pathological shapes: seconds per reader, at two sizes, to see how it grows.

A pattern that can split a run of blanks between two of its parts, or copies a stack at every bracket, grows
with the square (or cube) of the answer: an answer in JSON mode (one line, blanked by the parser once read), a
page of blank lines, a model looping on brackets. Each reader should grow about as the answer does (x2 for
twice the size). A reader that takes longer than ``--limit`` seconds (default 60) is stopped and shown as
``>LIMIT``, so the script runs on versions before the fix too.

    python benchmarks/answer_reading.py [--limit S]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _json_mode(n: int) -> str:
    return json.dumps({"entities": [{"name": f"Person {i}", "type": "person", "description": f"Person {i} of it."}
                                    for i in range(n)],
                       "relationships": [{"source": f"Person {i}", "target": f"Person {i + 1}", "description": "knows",
                                          "strength": 5} for i in range(n)]})


SHAPES = {  # name -> (answer of size n)
    "JSON mode, one line (n records)": lambda n: _json_mode(n // 40),
    "a list item, then n blanks": lambda n: "- " + " " * n + "x",
    "a key, then n blanks": lambda n: "name:" + " " * n + "value",
    "n blank lines": lambda n: "name:" + "\n" * n + "SAME",
    "n opening brackets": lambda n: "[" * n,
    "two words, n blanks between": lambda n: "Ada" + " " * n + "(person): a - b",
    "an arrow, then n blanks": lambda n: "Ada ->" + " " * n + "Bob: knows (5)",
}
READERS = ["parser", "JSON answer", "report", "resolution answer"]


def _read(reader: str, text: str) -> None:
    if reader == "parser":
        from graphglean.graph.extraction.parser import RecordParser

        RecordParser().parse(text)
    elif reader == "JSON answer":
        from graphglean.core.answers import parse_json_output

        try:
            parse_json_output(text)
        except (ValueError, RecursionError):
            pass
    elif reader == "report":
        from graphglean.graph.communities.reading import holds_report

        try:
            holds_report(text)
        except RecursionError:
            pass
    else:
        from graphglean.graph.resolution.answers import read_answers

        read_answers(text)


def _timed(reader: str, text: str, out: "multiprocessing.Queue[float]") -> None:
    t0 = time.perf_counter()
    _read(reader, text)
    out.put(time.perf_counter() - t0)


def measure(reader: str, text: str, limit: float) -> str:
    out: "multiprocessing.Queue[float]" = multiprocessing.Queue()
    p = multiprocessing.Process(target=_timed, args=(reader, text, out))
    p.start()
    p.join(limit)
    if p.is_alive():
        p.kill()
        p.join()
        return f">{limit:g}"
    return f"{out.get():.3f}" if not out.empty() else "error"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--limit", type=float, default=60.0)
    ap.add_argument("--sizes", default="20000,40000")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    for reader in READERS:  # imported here: each measure is a fork of this process, reading only
        _read(reader, "")
    print(f"load: {os.getloadavg()[0]:.2f}; seconds per answer (stopped after {args.limit:g} s)")
    head = f"{'shape':34} {'reader':18} " + " ".join(f"{f'n={n}':>10}" for n in sizes)
    print(head + "\n" + "-" * len(head))
    for shape, make in SHAPES.items():
        for reader in READERS:
            print(f"{shape:34} {reader:18} " + " ".join(f"{measure(reader, make(n), args.limit):>10}" for n in sizes),
                  flush=True)


if __name__ == "__main__":
    main()
