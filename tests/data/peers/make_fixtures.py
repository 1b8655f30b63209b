"""Make the fixtures of the peers' real output that tests/test_peers_schemas.py checks graphglean's against:
GraphRAG 3.3's index and LightRAG 1.5's working directory, each built by the engine itself from
``corpus/harbour.txt`` with graphglean's fake server as its model (`peer_responders.peers`).

    .venv/bin/python tests/data/peers/make_fixtures.py [--graphrag-venv V] [--lightrag-venv V]

The venvs default to /work/scratch-graphrag and /work/scratch-lightrag (``pip install graphrag==3.3.*`` and
``lightrag-hku==1.5.*``). Writes ``graphrag/*.parquet``, ``graphrag/lancedb.json`` (the vector tables' schemas)
and ``lightrag/*.json|graphml`` next to this script.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

import trio

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

from graphglean.testing import FakeLLMServer  # noqa: E402
from graphglean.testing.models.peer_responders import peers  # noqa: E402
from tests.peers_support import peer_env, tiktoken_cache  # noqa: E402

DIMENSION = 64
SETTINGS = """\
completion_models:
  default_completion_model: {{model_provider: openai, model: gpt-4o-mini, auth_method: api_key,
                              api_key: "${{GRAPHRAG_API_KEY}}", api_base: "{base}"}}
embedding_models:
  default_embedding_model: {{model_provider: openai, model: text-embedding-3-small, auth_method: api_key,
                             api_key: "${{GRAPHRAG_API_KEY}}", api_base: "{base}"}}
input: {{type: text}}
vector_store: {{type: lancedb, db_uri: output/lancedb, vector_size: {dim}}}
cluster_graph: {{max_cluster_size: 4}}
"""
LANCEDB_SCHEMAS = """
import json, sys, lancedb
db = lancedb.connect(sys.argv[1])
out = {}
for name in db.list_tables().tables:
    t = db.open_table(name)
    out[name] = {"schema": [[f.name, str(f.type)] for f in t.schema],
                 "indices": [[i.name, i.index_type, list(i.columns)] for i in t.list_indices()]}
print(json.dumps(out, indent=1))
"""
LIGHTRAG_INDEX = """
import asyncio, functools, sys
from lightrag import LightRAG
from lightrag.llm.openai import openai_complete_if_cache, openai_embed
from lightrag.utils import EmbeddingFunc, TiktokenTokenizer
base, folder, path, dim = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
async def llm(prompt, system_prompt=None, history_messages=[], **kw):
    return await openai_complete_if_cache("gpt-4o-mini", prompt, system_prompt=system_prompt,
                                          history_messages=history_messages, base_url=base, api_key="k", **kw)
embed = EmbeddingFunc(embedding_dim=dim, max_token_size=8192, model_name="text-embedding-3-small",
                      func=functools.partial(openai_embed.func, model="text-embedding-3-small", base_url=base,
                                             api_key="k"))
async def main():
    rag = LightRAG(working_dir=folder, llm_model_func=llm, embedding_func=embed,
                   tokenizer=TiktokenTokenizer("gpt-4o-mini"))
    await rag.initialize_storages()
    await rag.ainsert(open(path, encoding="utf-8").read(), file_paths=[path.rsplit("/", 1)[-1]])
    await rag.finalize_storages()
asyncio.run(main())
"""


async def make(graphrag_venv: Path, lightrag_venv: Path) -> None:
    source = HERE / "corpus" / "harbour.txt"
    async with FakeLLMServer(peers, embedding_dim=DIMENSION).running() as server:
        with tempfile.TemporaryDirectory() as tmp:
            env = peer_env(tiktoken_cache(Path(tmp) / "tiktoken"))
            root = Path(tmp) / "graphrag"
            (root / "input").mkdir(parents=True)
            shutil.copy(source, root / "input")
            (root / "settings.yaml").write_text(SETTINGS.format(base=server.base_url, dim=DIMENSION))
            await trio.run_process([str(graphrag_venv / "bin" / "graphrag"), "index", "--root", str(root)], env=env)
            out = HERE / "graphrag"
            shutil.rmtree(out, ignore_errors=True)
            out.mkdir()
            for table in root.glob("output/*.parquet"):
                shutil.copy(table, out / table.name)
            schemas = await trio.run_process([str(graphrag_venv / "bin" / "python"), "-c", LANCEDB_SCHEMAS,
                                              str(root / "output" / "lancedb")], env=env, capture_stdout=True)
            (out / "lancedb.json").write_bytes(schemas.stdout)
            folder = Path(tmp) / "lightrag"
            await trio.run_process([str(lightrag_venv / "bin" / "python"), "-c", LIGHTRAG_INDEX, server.base_url,
                                    str(folder), str(source), str(DIMENSION)], env=env)
            out = HERE / "lightrag"
            shutil.rmtree(out, ignore_errors=True)
            out.mkdir()
            for path in sorted(folder.iterdir()):
                if path.name != "kv_store_llm_response_cache.json":  # the model's answers: not the index
                    shutil.copy(path, out / path.name)
    print(json.dumps(sorted(str(p.relative_to(HERE)) for p in HERE.glob("*/*") if p.parent.name != "corpus")))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    for engine in ("graphrag", "lightrag"):
        variable = f"{engine.upper()}_VENV"
        p.add_argument(f"--{engine}-venv", type=Path, default=Path(os.environ.get(variable, f"/work/scratch-{engine}")))
    args = p.parse_args()
    trio.run(make, args.graphrag_venv, args.lightrag_venv)


if __name__ == "__main__":
    main()
