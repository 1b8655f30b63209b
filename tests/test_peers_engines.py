"""The peers' own query engines on graphglean's index: GraphRAG 3.3 (``graphrag query``, every method) and
LightRAG 1.5 (every mode), each installed in a venv of its own (see `peers_support.peer_venv`; skipped with
the command to make it when absent), against the fake server for chat (streamed, as their query calls ask)
and embeddings. Then one document is added, graphglean runs again, and both still answer, about it too."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import trio

from graphglean.testing import FakeLLMServer
from graphglean.testing.models.peer_responders import peers

from .peers_support import peer_env, peer_venv, tiktoken_cache
from .test_peers import corpus, peer_config, quiet_run

pytestmark = pytest.mark.slow
QUESTION = "What did Zoë Ångström and Hiroshi Tanaka build at the Göteborg harbour?"
ADDED = "Who is Ingrid Berg, the keeper of the Vinga Lighthouse?"
# the CLI's own code (graphrag.cli.main.app) for several methods in one process: GraphRAG takes seconds to import
GRAPHRAG_METHODS = """
import sys
from graphrag.cli.main import app
root, question = sys.argv[1], sys.argv[2]
for method in sys.argv[3:]:
    try:
        app(["query", "--root", root, "--method", method, question], standalone_mode=False)
        code = 0
    except SystemExit as e:
        code = e.code or 0
    print(f"\\n=== {method} exit {code}", flush=True)
"""
LIGHTRAG_MODES = """
import asyncio, functools, json, sys
from lightrag import LightRAG, QueryParam
from lightrag.llm.openai import openai_complete_if_cache, openai_embed
from lightrag.utils import EmbeddingFunc, TiktokenTokenizer
base, folder, question, dim = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
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
    found = {}
    for mode in ("local", "global", "hybrid", "mix", "naive"):
        found[mode] = await rag.aquery(question, param=QueryParam(mode=mode, only_need_context=True,
                                                                  enable_rerank=False))
    await rag.finalize_storages()
    print("@@@" + json.dumps(found))
asyncio.run(main())
"""
DIM = 64


async def _graphglean(server: FakeLLMServer, tmp_path: Path, *added: str) -> Path:
    corpus(tmp_path, *added)
    out = tmp_path / "out"
    out.mkdir(exist_ok=True)
    # a model LiteLLM knows to take a JSON schema (DRIFT's primer sends one): it passes the schema on to the server
    cfg = peer_config(server, tmp_path, model="gpt-4o-mini", embedding_model="text-embedding-3-small")
    result = await quiet_run(cfg)
    assert result.failed == 0
    return out


async def _run(command: list[str], env: dict[str, str]) -> str:
    done = await trio.run_process(command, env=env, capture_stdout=True, capture_stderr=True, check=False)
    output = done.stdout.decode("utf-8", "replace")
    assert done.returncode == 0, (command[:4], output[-2000:], done.stderr.decode("utf-8", "replace")[-3000:])
    return output


async def test_graphrag_answers_every_method_on_graphglean_index(tmp_path):
    venv = peer_venv("graphrag")
    env = peer_env(tiktoken_cache(tmp_path / "tiktoken"))
    async with FakeLLMServer(peers, embedding_dim=DIM).running() as server:
        root = str(await _graphglean(server, tmp_path) / "graphrag")
        del server.requests[:]
        await _run([str(venv / "bin" / "graphrag"), "query", "--root", root, "--method", "local", QUESTION], env)
        local = server.chat_requests()
        assert all(r.body.get("stream") for r in local)  # GraphRAG streams; the fake server must too
        assert any("ZOË ÅNGSTRÖM" in r.prompt for r in local)  # the asked entity, in the context sent
        del server.requests[:]
        output = await _run([str(venv / "bin" / "python"), "-c", GRAPHRAG_METHODS, root, QUESTION,
                             "global", "drift", "basic"], env)
        for method in ("global", "drift", "basic"):
            assert f"=== {method} exit 0" in output
        prompts = [r.prompt for r in server.chat_requests()]
        titles = [json.loads(line)["title"] for line in (Path(root).parent / "community_reports.jsonl").open()]
        assert titles and any(t in p and '"points"' in p for t in titles for p in prompts)  # global's map step
        assert any("follow_up_queries" in json.dumps(r.body) for r in server.chat_requests())  # DRIFT's JSON
        root = str(await _graphglean(server, tmp_path, "lighthouse.txt") / "graphrag")  # a document added
        del server.requests[:]
        await _run([str(venv / "bin" / "graphrag"), "query", "--root", root, "--method", "local", ADDED], env)
        assert any("INGRID BERG" in r.prompt for r in server.chat_requests())


def _lightrag_contexts(output: str) -> dict[str, str]:
    return json.loads(output.rpartition("@@@")[2])


async def test_lightrag_answers_every_mode_on_graphglean_index(tmp_path):
    venv = peer_venv("lightrag")
    env = peer_env(tiktoken_cache(tmp_path / "tiktoken"))
    async with FakeLLMServer(peers, embedding_dim=DIM).running() as server:
        folder = str(await _graphglean(server, tmp_path) / "lightrag")
        command = [str(venv / "bin" / "python"), "-c", LIGHTRAG_MODES, server.base_url, folder]
        contexts = _lightrag_contexts(await _run(command + [QUESTION, str(DIM)], env))
        for mode, context in contexts.items():
            assert context and "[no-context]" not in context and "Zoë Ångström" in context, mode
            if mode != "naive":  # naive mode retrieves chunks only
                assert '"entity1": "Zoë Ångström"' in context or '"entity2": "Zoë Ångström"' in context, mode
        folder = str(await _graphglean(server, tmp_path, "lighthouse.txt") / "lightrag")
        contexts = _lightrag_contexts(await _run(command + [ADDED, str(DIM)], env))
        for mode, context in contexts.items():
            assert "Ingrid Berg" in context, mode
