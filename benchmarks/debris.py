"""Parser debris on real answers corrupted as small local models corrupt them.

The recorded answers in ../shared/realdata (replay.jsonl: each chunk's text and responses), and any replay sets
named on the command line, are read as they are, then again with a seeded share of their record lines garbled
the ways small models garble them (`graphglean.testing.models.garbling`: broken delimiters, pipe-joined fields,
arrows, stray quotes: "format"; names quoted as small models quote them, ``"X"/"Y"``, ``"X" (rumor)``,
``"X", "Y"``, ``X"``: "quotes"). For each set and garbling: node names holding a delimiter fragment, an arrow or
a quote that the input does not hold (debris), and the share of the clean answers' grounded names (names that
occur in their chunk) and pairs still found. Runs on any version of graphglean (names are checked against the
chunk only where it can).

Then a whole run on each set's recorded chunks, answered by its recording: the new counts in report.json.

    python benchmarks/debris.py [SHARE] [SET.jsonl ...]   # SHARE of record lines garbled, default 0.3
"""

from __future__ import annotations

import io
import json
import random
import re
import sys
import tempfile
import unicodedata
from pathlib import Path

import trio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _server import help_only, table  # noqa: E402

from graphglean.graph.building.merge import merge_records  # noqa: E402
from graphglean.graph.extraction.parser import RecordParser  # noqa: E402
from graphglean.graph.records import ParseResult, Provenance  # noqa: E402
from graphglean.testing.models.garbling import garbled_answer  # noqa: E402

try:
    from graphglean.testing.models.garbling import quote_garbled_answer
except ImportError:  # a version from before quoted names were garbled: the same ways, here
    def quote_garbled_answer(answer: str, share: float, rng: random.Random) -> str:
        raise SystemExit("this version has no quote garbling: run the benchmark file of a newer one")

try:
    from graphglean.graph.extraction.debris import clean_names
except ImportError:  # a version from before the check
    def clean_names(result: ParseResult, text: str) -> None:
        return None

REALDATA = ROOT.parent / "shared" / "realdata"
DEBRIS = ("<|", "|>", "||", "->")


def _graph(chunks: list[tuple[str, list[str]]], parser: RecordParser):
    results = []
    for i, (text, answers) in enumerate(chunks):
        result = ParseResult()
        for answer in answers:
            result.extend(parser.parse(answer, Provenance("d", i, f"c{i}", 0)))
        clean_names(result, text)
        results.append(result)
    return merge_records(results).to_graph(), results


def _grounded(graph, chunks) -> tuple[set[str], set[frozenset[str]]]:
    texts = {f"c{i}": text for i, (text, _) in enumerate(chunks)}
    names = set()
    for node, data in graph.nodes(data=True):
        name = data.get("name", node)
        pattern = re.compile(r"(?<!\w)" + r"\s+".join(map(re.escape, name.split())) + r"(?!\w)", re.I)
        if name.split() and any(pattern.search(texts[c]) for c in data["source_ids"]):
            names.add(node)
    return names, {frozenset(e) for e in graph.edges if set(e) <= names}


# a quote acting as one: any double quote; a single one but an apostrophe (between two letters: "Priya's"; after
# the s of a plural: "Grocers' Shops")
QUOTE = re.compile("[\"\u201c\u201d\u201e\u00ab\u00bb]|(?<![^\\W_])['\u2018\u2019]"
                   "|(?<=[^\\W_])(?<![sS])['\u2018\u2019](?![^\\W_])")
_FOLD = str.maketrans(dict.fromkeys("\"'\u201c\u201d\u201e\u00ab\u00bb\u2018\u2019`", '"'))


def _folded(text: str) -> str:
    return unicodedata.normalize("NFC", text).translate(_FOLD)


def debris(names: list[str], text: str) -> list[str]:
    """The names holding a delimiter fragment, an arrow or a quote that ``text`` does not hold as written (any
    case, any quote marks, any whitespace between words)."""
    folded = _folded(text)

    def held(name: str) -> bool:
        words = _folded(name).split()
        return bool(words) and re.search(r"\s+".join(map(re.escape, words)), folded, re.I) is not None

    return [n for n in names if (any(f in n for f in DEBRIS) or QUOTE.search(n)) and not held(n)]


def replay_sets(extra: list[Path]) -> list[Path]:
    return sorted(p / "replay.jsonl" for p in REALDATA.iterdir() if (p / "replay.jsonl").exists()) + extra


def cached_sets() -> list[Path]:
    """Recorded sets whose answers are not mapped to chunks (GraphRAG's cache): read against the whole input."""
    return sorted(p for p in REALDATA.iterdir() if (p / "cache" / "extract_graph").is_dir() and (p / "input").is_dir())


def _chunks(path: Path) -> list[tuple[str, list[str]]]:
    """(text, answers) of each chunk of a set: a replay.jsonl, or a folder of cached bodies with its input."""
    if path.is_dir():
        text = "\n".join(p.read_text(encoding="utf-8") for p in sorted((path / "input").iterdir()))
        cached = sorted((path / "cache" / "extract_graph").iterdir())
        bodies = [json.loads(p.read_text(encoding="utf-8")) for p in cached]
        return [(text, [b["result"]["response"]["choices"][0]["message"]["content"]]) for b in bodies]
    entries = [json.loads(line) for line in open(path, encoding="utf-8")]
    return [(e["content"], [c["response"] for c in e["calls"]]) for e in entries]


def _name(path: Path) -> str:
    return path.name if path.is_dir() else path.parent.name if path.name == "replay.jsonl" else path.stem


def rows(share: float, sets: list[Path]) -> list[dict]:
    out = []
    for path in sets:
        chunks = _chunks(path)
        delimiter = "<|#|>" if any("<|#|>" in a for _, answers in chunks for a in answers) else "<|>"
        parser = RecordParser(delimiter)
        clean, _ = _graph(chunks, parser)
        names, pairs = _grounded(clean, chunks)
        inputs = "\n".join(text for text, _ in chunks)
        for kind, garble in (("format", garbled_answer), ("quotes", quote_garbled_answer)):
            rng = random.Random(7)
            garbled_chunks = [(text, [garble(a, share, rng) for a in answers]) for text, answers in chunks]
            ours, results = _graph(garbled_chunks, parser)
            found = debris([ours.nodes[n].get("name", n) for n in ours.nodes], inputs)
            edges = {frozenset(e) for e in ours.edges}
            out.append({"data": _name(path), "garbled": f"{kind} {share}", "clean nodes": clean.number_of_nodes(),
                        "grounded names": len(names),
                        "names kept": f"{len(names & set(ours.nodes)) / max(1, len(names)):.4f}",
                        "grounded pairs": len(pairs), "pairs kept": f"{len(pairs & edges) / max(1, len(pairs)):.4f}",
                        "nodes": ours.number_of_nodes(), "debris": len(found),
                        "debris share": f"{len(found) / max(1, ours.number_of_nodes()):.4f}",
                        "repaired": sum(getattr(r, "repaired_names", 0) for r in results),
                        "malformed": sum(len(r.malformed) for r in results), "example": (found or [""])[0][:40]})
    return out


async def run_row(path: Path, out: Path) -> dict:
    """report.json's counts of a whole run (local engine) on the set's chunks, answered by its recording."""
    from graphglean.core.config import Config
    from graphglean.launch import run
    from graphglean.testing import FakeLLMServer
    from graphglean.testing.models.responders import ReplayResponder

    name = _name(path)
    responder = ReplayResponder.from_file(path)
    source = out / f"{name}.jsonl"
    source.write_text("".join(json.dumps({"id": e["chunk_id"], "text": e["content"]}) + "\n"
                              for e in responder.entries), encoding="utf-8")
    async with FakeLLMServer(responder).running() as server:
        cfg = Config()
        cfg.llm.base_url, cfg.llm.api_key, cfg.llm.model = server.base_url, "sk-bench", "gpt-4o-mini"
        cfg.llm.cache.mode, cfg.llm.max_concurrency = "off", 16
        cfg.input.path, cfg.input.format = str(source), "chunks"
        cfg.output.dir, cfg.output.formats = str(out / name), ["jsonl"]
        cfg.graph.description_max_tokens = 100_000
        report = (await run(cfg, out=io.StringIO(), notice=lambda m: None)).report
    graph = report["passes"][0]
    text = "\n".join(e["content"] for e in responder.entries)
    rows_ = [json.loads(line) for line in (out / name / "entities.jsonl").open(encoding="utf-8")]
    names = [r["name"] for r in rows_]
    found = debris(names, text)
    known = {_folded(n).casefold() for r in rows_ for n in [r["name"], *(r.get("aliases") or [])]}
    # sets that say which names are real: "real" (the answer's names), or "expected" (as the chunk writes them)
    real = [n for e in responder.entries for n in e.get("real") or e.get("expected") or []]
    # a real name is kept by a node of that name, or of a longer one the text writes ("Vikram" by "Vikram lander")
    longer = [n for n in known if not debris([n], text)]
    found_real = sum(_folded(n).casefold() in known or any(k.startswith(_folded(n).casefold() + " ") for k in longer)
                     for n in real)
    kept = {"real names kept": f"{found_real}/{len(real)}"} if real else {}
    return {"data": name, "nodes": graph["nodes"], "debris": len(found),
            "debris share": f"{len(found) / max(1, graph['nodes']):.4f}",
            **{k: report.get(k, graph.get(k)) for k in ("repaired_names", "echoed_examples", "lone_surrogates",
                                                        "ungrounded", "malformed", "placeholder_rows")},
            **kept, "example": (found or [""])[0][:40]}


def main() -> None:
    args = sys.argv[1:]
    share = float(args.pop(0)) if args and not args[0].endswith(".jsonl") else 0.3
    sets = replay_sets([Path(a) for a in args])
    found = rows(share, sets + cached_sets())
    print(table(found, list(found[0])))
    print(f"\n{share:.0%} of record lines garbled (seed 7); grounded: the clean answers' node names that occur in "
          "their chunk, and pairs of those; debris: names holding <|, |>, ||, -> or a quote the input does not hold")
    with tempfile.TemporaryDirectory() as tmp:
        runs = [trio.run(run_row, path, Path(tmp)) for path in sets]
    print()
    print(table(runs, list(dict.fromkeys(k for run in runs for k in run))))
    print("\nwhole runs on each set's recorded chunks (pre-chunked JSONL), answered by its recording: report.json's "
          "counts (repaired_names: names cut free of format pieces; echoed_examples: ungrounded echoes dropped)")


if __name__ == "__main__":
    help_only(__doc__)
    main()
