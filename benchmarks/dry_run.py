"""How close `--dry-run` comes to what the run then asks, step by step.

For each corpus (the bundled stave answered by the fake model; each recorded real set of ../shared/realdata, its
extraction answered by its recording, the rest by the fake model): a first dry run and the run (communities with
reports, resolution's LLM tier, the LightRAG index's embeddings), a second dry run (0 expected), then one new
document (a dry run and the run). A row per step: the calls estimated, made, and their ratio. Default settings
otherwise (`max_gleanings` 1, the response cache in the output folder).

    python benchmarks/dry_run.py
"""

from __future__ import annotations

import io
import json
import sqlite3
import sys
import tempfile
from pathlib import Path

import trio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _server import help_only, table  # noqa: E402

from graphglean.core.config import Config  # noqa: E402
from graphglean.launch import run  # noqa: E402
from graphglean.testing import FakeLLMServer  # noqa: E402
from graphglean.testing.models.responders import ReplayResponder, synthetic  # noqa: E402

REALDATA = ROOT.parent / "shared" / "realdata"
NEW_DOCUMENT = ("Jacob Marley's ghost visited Ebenezer Scrooge in London on Christmas Eve. Bob Cratchit, his clerk, "
                "worked at the counting-house on Cornhill, and Fred invited his uncle to dinner.")


def corpora(tmp: Path) -> list[tuple[str, Path, str, object]]:
    sets = [("stave (fake model)", ROOT / "examples" / "a_christmas_carol_stave1.txt", "text", synthetic)]
    for folder in ("lightrag-gpt4o-mini-dickens", "lightrag-llama3.1-abstracts", "nano-qwen3-8b-papers"):
        replay = REALDATA / folder / "replay.jsonl"
        if not replay.is_file():
            continue
        rows = [json.loads(line) for line in replay.open(encoding="utf-8")]
        path = tmp / f"{folder}.jsonl"
        path.write_text("".join(json.dumps({"id": r["chunk_id"], "text": r["content"]}) + "\n" for r in rows))
        sets.append((folder, path, "chunks", ReplayResponder.from_file(replay)))
    return sets


def config(base_url: str, path: Path, fmt: str, out: Path) -> Config:
    cfg = Config()
    cfg.llm.base_url, cfg.llm.api_key, cfg.llm.model = base_url, "sk-bench", "gpt-4o-mini"
    cfg.llm.max_retries = 2
    cfg.input.path, cfg.input.format = str(path), fmt
    cfg.output.dir, cfg.output.formats = str(out), ["json", "jsonl", "lightrag"]
    cfg.graph.communities.enabled = True
    return cfg


def made(out: Path) -> dict[str, int]:
    """The calls of the last invocation, per step, as the run store keeps them."""
    with sqlite3.connect(out / "run.sqlite") as db:
        accounts = json.loads(db.execute("SELECT accounts FROM invocations ORDER BY id DESC LIMIT 1").fetchone()[0])
    return {name: row["calls"] for name, row in accounts.items()}


async def stage(cfg: Config, label: str, name: str, rows: list[list[str]], dry_only: bool = False) -> None:
    estimate = {r["pass"]: r["calls_est"] for r in (await run(cfg, dry=True, notice=lambda _: None,
                                                              out=io.StringIO())).report["passes"]}
    actual: dict[str, int] = {}
    if not dry_only:
        await run(cfg, notice=lambda _: None, out=io.StringIO())
        actual = made(Path(cfg.output.dir))
    for step in sorted(set(estimate) | set(actual)):
        e, a = estimate.get(step, 0), actual.get(step, 0)
        ratio = "-" if dry_only else (f"{e / a:.2f}" if a else ("ok" if not e else "inf"))
        rows.append([name, label, step, str(e), "-" if dry_only else str(a), ratio])
    e, a = sum(estimate.values()), sum(actual.values())
    rows.append([name, label, "total", str(e), "-" if dry_only else str(a),
                 "-" if dry_only else (f"{e / a:.2f}" if a else ("ok" if not e else "inf"))])


async def main() -> None:
    rows: list[list[str]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, path, fmt, responder in corpora(Path(tmp)):
            async with FakeLLMServer(responder).running() as s:
                out = Path(tmp) / name.split()[0] / "out"
                cfg = config(s.base_url, path, fmt, out)
                await stage(cfg, "first run", name, rows)
                await stage(cfg, "again", name, rows, dry_only=True)
                extra = Path(tmp) / name.split()[0] / "new.jsonl"
                lines = path.read_text(encoding="utf-8")
                if fmt == "text":
                    folder = Path(tmp) / name.split()[0] / "in"
                    folder.mkdir()
                    (folder / path.name).write_text(lines, encoding="utf-8")  # the same document id
                    (folder / "b.txt").write_text(NEW_DOCUMENT, encoding="utf-8")
                    cfg.input.path = str(folder)
                else:
                    extra.write_text(lines + json.dumps({"id": "new-document", "text": NEW_DOCUMENT}) + "\n")
                    cfg.input.path = str(extra)
                await stage(cfg, "one new document", name, rows)
    columns = ["corpus", "stage", "step", "estimated", "made", "ratio"]
    print(table([dict(zip(columns, r)) for r in rows], columns))


if __name__ == "__main__":
    help_only(__doc__)
    trio.run(main)
