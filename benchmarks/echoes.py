"""Echo removal on news-like chunks whose real entities a model named in forms the chunk does not hold.

Each set is a replay.jsonl (one line a chunk: its text and the answers a model gave, in call order) whose lines
also say which answer names are real entities (`real`: name → class: expanded, normalised, translated, names
that match placeholder lists or other tools' prompt examples, NFD text...), which are echoes of the prompt's
examples or stock placeholders (`echoes`), and which pairs are real relationships (`real_pairs`). A whole run
with the defaults (resolution on, `input.format: chunks`) answers each chunk from its recording; a real entity
is kept when a node has its name (or it among the node's aliases), a pair when an edge joins their nodes; an echo
is kept when a node of its name holds the echo's chunk among its sources (an example name may be real in another
chunk: that node stays, but gathers nothing from the chunks that echo it).

    python benchmarks/echoes.py [SET.jsonl ...]      # default: tests/data/echoes_heldback.jsonl
"""

from __future__ import annotations

import io
import json
import sys
import tempfile
from collections import Counter
from pathlib import Path

import trio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _server import help_only, table  # noqa: E402

DEFAULT_SET = ROOT / "tests" / "data" / "echoes_heldback.jsonl"


def _key(name: str) -> str:
    import unicodedata
    return unicodedata.normalize("NFC", name).casefold().strip()


async def run_set(path: Path, out: Path) -> tuple[list[dict], dict]:
    from graphglean.core.config import Config
    from graphglean.launch import run
    from graphglean.testing import FakeLLMServer
    from graphglean.testing.models.responders import ReplayResponder

    responder = ReplayResponder.from_file(path)
    source = out / "chunks.jsonl"
    source.write_text("".join(json.dumps({"id": e["chunk_id"], "text": e["content"]}, ensure_ascii=False) + "\n"
                              for e in responder.entries), encoding="utf-8")
    async with FakeLLMServer(responder).running() as server:
        cfg = Config()
        cfg.llm.base_url, cfg.llm.api_key, cfg.llm.model = server.base_url, "sk-bench", "gpt-4o-mini"
        cfg.llm.cache.mode = "off"
        cfg.input.path, cfg.input.format = str(source), "chunks"
        cfg.output.dir, cfg.output.formats = str(out / "graph"), ["jsonl"]
        report = (await run(cfg, out=io.StringIO(), notice=lambda m: None)).report
    nodes = [json.loads(line) for line in (out / "graph" / "entities.jsonl").open(encoding="utf-8")]
    edges = [json.loads(line) for line in (out / "graph" / "relationships.jsonl").open(encoding="utf-8")]
    return _score(responder.entries, nodes, edges), report


def _score(entries: list[dict], nodes: list[dict], edges: list[dict]) -> list[dict]:
    owner, sources = {}, {}
    for node in nodes:
        sources[node.get("id")] = set(node.get("source_ids") or [])
        for name in [node.get("name", node.get("id")), node.get("id"), *(node.get("aliases") or [])]:
            if isinstance(name, str):
                owner[_key(name)] = node.get("id")
    joined = {frozenset((e["source"], e["target"])) for e in edges}
    rows: Counter = Counter()
    lost: dict[str, list[str]] = {}
    for entry in entries:
        for name, kind in entry["real"].items():
            rows[(kind, "real")] += 1
            if _key(name) in owner:
                rows[(kind, "kept")] += 1
            else:
                lost.setdefault(kind, []).append(name)
        for name in entry.get("echoes", []):  # kept: a node of its name holds this chunk (an example name may be
            rows[("echo", "real")] += 1           # real in another chunk, and that node stays)
            kept = entry["chunk_id"] in sources.get(owner.get(_key(name)), ())
            rows[("echo", "kept")] += kept
            if kept:
                lost.setdefault("echo", []).append(name)
        for a, b in entry.get("real_pairs", []):
            rows[("pairs", "real")] += 1
            ends = owner.get(_key(a)), owner.get(_key(b))
            rows[("pairs", "kept")] += None not in ends and frozenset(ends) in joined
    kinds = sorted({k for k, _ in rows})
    return [{"class": k, "names": rows[(k, "real")], "kept": rows[(k, "kept")],
             "lost": rows[(k, "real")] - rows[(k, "kept")], "lost (echo: kept) names": ", ".join(lost.get(k, []))[:70]}
            for k in kinds]


def main() -> None:
    sets = [Path(a) for a in sys.argv[1:]] or [DEFAULT_SET]
    for path in sets:
        with tempfile.TemporaryDirectory() as tmp:
            found, report = trio.run(run_set, path, Path(tmp))
        echoed = report.get("echoed_examples", report["passes"][0].get("echoed_examples"))
        print(f"{path.name}: echoed_examples {echoed}")
        print(table(found, list(found[0])))
    print("\nreal classes: kept = a node holds the name (or an alias); echo: kept should be 0; pairs: real "
          "relationships whose two entities are joined by an edge")


if __name__ == "__main__":
    help_only(__doc__)
    main()
