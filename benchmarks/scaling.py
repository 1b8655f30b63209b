"""Scaling benchmark: work that must stay linear in the size of the input.

- the summary pass's chunk plan (`summarize.plan_chunks`, the recipe's delimiter chunking) at detail 0 and 1,
  for texts of ~146 kB and ~1 MB (the bundled stave of A Christmas Carol, repeated);
- listing and reading a folder of N small files (`inputs.read_folder`).

A linear path shows ~7x the time for ~7x the text, and ~2x for 2x the files.

    python benchmarks/scaling.py [--kb 146 1030] [--files 4000 8000]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _server import table  # noqa: E402

from graphglean.core.tokens import Tokenizer  # noqa: E402
from graphglean.summaries import plan_chunks  # noqa: E402
from graphglean.text.inputs import read_folder  # noqa: E402


def text_of(kb: int) -> str:
    stave = (ROOT / "examples" / "a_christmas_carol_stave1.txt").read_text(encoding="utf-8")
    copies = -(-kb * 1000 // len(stave.encode()))
    return "\n\n".join([stave] * copies)


def chunking_rows(sizes: list[int]) -> list[dict]:
    tokenizer = Tokenizer.cl100k()
    rows = []
    for kb in sizes:
        text = text_of(kb)
        tokens = tokenizer.count(text)
        for detail in (0.0, 1.0):
            t0 = time.perf_counter()
            chunks, dropped = plan_chunks(text, detail, 500, ".", tokenizer)
            wall = time.perf_counter() - t0
            rows.append({"text kB": round(len(text.encode()) / 1000), "tokens": tokens, "detail": detail,
                         "chunks": len(chunks), "plan s": f"{wall:.2f}", "µs/token": f"{1e6 * wall / tokens:.1f}"})
    return rows


def listing_rows(counts: list[int]) -> list[dict]:
    rows = []
    for n in counts:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            for i in range(n):
                folder = root / f"d{i % 50:02d}"
                folder.mkdir(exist_ok=True)
                suffix = ".txt" if i % 10 else ".bin"  # one file in ten is skipped (and reported)
                (folder / f"f{i:05d}{suffix}").write_text(f"Document {i} about boats.")
            t0 = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                docs = read_folder(root)
            wall = time.perf_counter() - t0
        rows.append({"files": n, "documents": len(docs), "read_folder s": f"{wall:.2f}",
                     "µs/file": f"{1e6 * wall / n:.0f}"})
    return rows


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--kb", type=int, nargs="*", default=[146, 1030], help="text sizes for the chunk plan")
    p.add_argument("--files", type=int, nargs="*", default=[4000, 8000], help="folder sizes for the listing")
    args = p.parse_args()
    if args.kb:
        rows = chunking_rows(args.kb)
        print(table(rows, list(rows[0])))
        print()
    if args.files:
        rows = listing_rows(args.files)
        print(table(rows, list(rows[0])))


if __name__ == "__main__":
    main()
