"""The chat request bodies a run sends, as the fake server received them: one canonical JSON line each, sorted
(the order requests arrive in depends on timing; their set does not). Run it before and after a change that must
not alter what a default run sends, and compare the files (or the printed digests).

    python benchmarks/request_bodies.py OUT.jsonl [--config extra.yaml] [--corpus stave|planted|both]

Default settings but the endpoint; the response cache is off, so every call is made (extraction, gleaning
checks, entity resolution's LLM tier, description summaries). Communities are left off: their report prompts
list an undirected edge's endpoints in an order that varies from run to run (found here, not yet fixed).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import tempfile
from pathlib import Path

import trio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from graphglean.core.config_loader import load_config_text  # noqa: E402
from graphglean.launch import run  # noqa: E402
from graphglean.testing import FakeLLMServer  # noqa: E402
from graphglean.testing.models.planted import planted_corpus  # noqa: E402
from graphglean.testing.models.responders import synthetic  # noqa: E402

STAVE = Path(__file__).resolve().parent.parent / "examples" / "a_christmas_carol_stave1.txt"


def corpus(which: str) -> list[dict[str, str]]:
    docs = []
    if which in ("stave", "both"):
        docs.append({"id": "stave", "text": STAVE.read_text(encoding="utf-8")})
    if which in ("planted", "both"):
        docs += [{"id": f"planted-{i}", "text": t} for i, t in enumerate(planted_corpus(documents=4).documents)]
    return docs


async def bodies(which: str, extra: str) -> list[str]:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        with open(folder / "in.jsonl", "w", encoding="utf-8") as f:
            for doc in corpus(which):
                f.write(json.dumps(doc) + "\n")
        async with FakeLLMServer(synthetic).running() as s:
            text = (f"llm: {{base_url: '{s.base_url}', api_key: sk-test, cache: {{mode: 'off'}}}}\n"
                    f"input: {{path: in.jsonl}}\noutput: {{dir: out}}\n" + extra)
            cfg = load_config_text(text, "bodies.yaml", folder)
            await run(cfg, notice=lambda m: None, out=open(os.devnull, "w"))
            sent = [json.dumps(r.body, sort_keys=True, ensure_ascii=False) for r in s.chat_requests()]
    return sorted(sent)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", help="where to write the sorted bodies, one JSON line each")
    parser.add_argument("--config", help="YAML text appended to the configuration (a file)")
    parser.add_argument("--corpus", choices=("stave", "planted", "both"), default="both")
    args = parser.parse_args()
    extra = Path(args.config).read_text(encoding="utf-8") if args.config else ""
    sent = trio.run(bodies, args.corpus, extra)
    Path(args.out).write_text("".join(line + "\n" for line in sent), encoding="utf-8")
    digest = hashlib.sha256("\n".join(sent).encode("utf-8", "surrogatepass")).hexdigest()
    print(f"{len(sent)} chat requests, sha256 {digest}")


if __name__ == "__main__":
    main()
