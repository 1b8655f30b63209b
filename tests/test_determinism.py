"""Same input, same requests: two processes with different PYTHONHASHSEED, every pass on (graph with gleaning,
entity resolution with its LLM tier and embeddings, communities and their reports, description summaries,
summaries, episodic, enrichment, both peer indexes with their embeddings), send the same request bodies."""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import trio

from graphglean.testing import FakeLLMServer, RecordedRequest
from graphglean.testing.models.peer_responders import peers
from graphglean.testing.models.responders import passage_of

from .test_cli import env


PEOPLE = [("Dr. Lena Archer", "Lena Archer", "Archer"), ("Hiroshi Tanaka", "Tanaka", "Mr. Tanaka"),
          ("Zoë Ångström", "Ångström", "Ms. Ångström"), ("Mats Lindqvist", "Lindqvist", "Mayor Lindqvist"),
          ("Ada Brook", "Ada", "Mrs. Brook"), ("Ivo Castle", "Castle", "Captain Ivo Castle")]
PLACES = ["Göteborg Harbour", "Port of Rotterdam", "Älvsborg Fortress", "Osaka Bay", "Vinga Lighthouse",
          "Société Générale de Dragage", "Rouen Shipyard", "North Sea Council"]


def turn_text(k: int) -> str:
    """A chat turn naming two people (each in one of their forms) and two places, different for every ``k``."""
    a, b = PEOPLE[k % 6], PEOPLE[(k * 5 + 2) % 6]
    p, q = PLACES[k % 8], PLACES[(k * 3 + 1) % 8]
    return (f"Yesterday {a[k % 3]} met {b[(k + 1) % 3]} near {p}. They talked about {q} and the storms. "
            f"{a[(k + 2) % 3]} said {p} would open again before winter.")


def locomo(sessions: int = 4, turns: int = 6) -> dict:
    conv = {"speaker_a": "Nora", "speaker_b": "Felix"}
    for s in range(1, sessions + 1):
        conv[f"session_{s}_date_time"] = f"{s}:00 pm on {s} May, 2023"
        conv[f"session_{s}"] = [{"speaker": ("Nora", "Felix")[t % 2], "dia_id": f"D{s}:{t + 1}",
                                 "text": turn_text(s * turns + t)} for t in range(turns)]
    return {"sample_id": "conv-det", "conversation": conv}


_PAIR = re.compile(r'^Pair (\d+)\nA: "(.*?)" .*?\nB: "(.*?)" ', re.M)


def everything(req: RecordedRequest):
    """The peers' compliant model, describing each entity by its passage's words, which also answers entity
    resolution's questions: SAME when the two names share their last word."""
    pairs = _PAIR.findall(req.last_user)
    if pairs:
        return "\n".join(f"{n}: {'SAME' if a.split()[-1] == b.split()[-1] else 'DIFFERENT'}" for n, a, b in pairs)
    answer = peers(req)
    if "Records:" in req.last_user and isinstance(answer, str):  # descriptions of each passage's own: long lists
        opening = " ".join(passage_of(req.last_user).split()[-8:])
        answer = answer.replace(" appears in the text.", f" appears where the text says {opening}")
    return answer


def write_config(folder: Path, base_url: str, corpus: Path, **llm) -> Path:
    """Every pass on over ``corpus``; no response cache unless ``llm`` says so."""
    pytest.importorskip("lancedb", reason="output.formats graphrag needs lancedb (pip install '.[graphrag]')")
    folder.mkdir(parents=True, exist_ok=True)
    cfg = {"llm": {"base_url": base_url, "api_key": "sk-det", "model": "gpt-4o-mini", "max_concurrency": 6,
                   "embedding_model": "text-embedding-3-small", "cache": {"mode": "off"}, **llm},
           "input": {"path": str(corpus), "format": "locomo"},
           "chunking": {"size": 200, "overlap": 20},
           "graph": {"description_max_tokens": 60, "resolve": {"method": "llm", "llm_batch": 3},
                     "communities": {"enabled": True, "max_cluster_size": 4, "min_report_size": 2,
                                     "report_max_input_tokens": 400}},
           "summary": {"enabled": True, "detail": 0.5, "minimum_chunk_size": 60},
           "episodic": {"enabled": True},
           "enrich": {"enabled": True, "message_window": 4, "entity_backend": "llm"},
           "output": {"dir": str(folder / "out"), "formats": ["jsonl", "graphrag", "lightrag"]}}
    path = folder / "config.yaml"
    path.write_text(json.dumps(cfg))
    return path


def canonical(req: RecordedRequest) -> str:
    return f"{req.method} {req.path} " + json.dumps(req.body, sort_keys=True, ensure_ascii=False)


def first_difference(a: Counter, b: Counter) -> str:
    """The request of one run the other did not send, and the other's nearest one, for the assertion message."""
    only_a, only_b = sorted((a - b).elements()), sorted((b - a).elements())
    if not only_a or not only_b:
        return f"{len(only_a)} request(s) only in the first run, {len(only_b)} only in the second"
    x = only_a[0]
    y = max(only_b, key=lambda s: len(_common_prefix(x, s)))
    k = len(_common_prefix(x, y))
    return (f"{len(only_a)} request bodies differ; first at character {k}:\n  {x[max(0, k - 300):k + 300]!r}\n"
            f"  {y[max(0, k - 300):k + 300]!r}")


def _common_prefix(a: str, b: str) -> str:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return a[:n]


def conversation(tmp_path: Path) -> Path:
    corpus = tmp_path / "conversation.json"
    corpus.write_text(json.dumps([locomo()], ensure_ascii=False))
    return corpus


async def graphglean(config: Path, seed: str, *args: str) -> Any:
    """``graphglean run CONFIG ARGS`` in a process of its own whose string hashes are seeded with ``seed``."""
    return await trio.run_process([sys.executable, "-m", "graphglean", "run", str(config), *args],
                                  capture_stdout=True, capture_stderr=True, check=False,
                                  env={**env(), "PYTHONHASHSEED": seed})


def succeeded(done: Any) -> str:
    err = done.stderr.decode()
    assert done.returncode == 0 and "Traceback" not in err, err[-3000:]
    return err


async def _run(tmp_path: Path, seed: str, server: FakeLLMServer, corpus: Path, results: dict) -> None:
    results[seed] = await graphglean(write_config(tmp_path / f"seed{seed}", server.base_url, corpus), seed)


@pytest.mark.slow
async def test_two_processes_with_different_hash_seeds_send_the_same_request_bodies(tmp_path):
    corpus = conversation(tmp_path)
    results: dict = {}
    async with FakeLLMServer(everything, embedding_dim=16).running() as one, \
            FakeLLMServer(everything, embedding_dim=16).running() as two:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_run, tmp_path, "1", one, corpus, results)
            nursery.start_soon(_run, tmp_path, "2", two, corpus, results)
    for done in results.values():
        succeeded(done)
    bodies = [Counter(canonical(r) for r in s.requests) for s in (one, two)]
    paths = Counter(r.path.rsplit("/", 1)[-1] for r in one.requests)
    prompts = " ".join(r.prompt for r in one.chat_requests())
    # every pass asked: extraction and gleaning, resolution's questions, reports, summaries, episodes, enrichment
    assert paths["embeddings"] >= 2 and "Pair 1\nA:" in prompts and "Community data:" in prompts
    assert [m for m in ("Records:", '"gists"', '"facts"', "intent of the message",
                        "Rewrite this text in summarized form.", "Below are several descriptions",
                        "New lines of conversation") if m not in prompts] == []
    assert bodies[0] == bodies[1], first_difference(*bodies)


@pytest.mark.slow
async def test_fresh_with_a_warm_cache_in_another_process_sends_nothing(tmp_path):
    """--fresh forgets the run store (and the memory store), never the response cache: a second process, its
    hashes seeded otherwise, asks exactly what the first asked, so every answer comes from the cache."""
    corpus = conversation(tmp_path)
    async with FakeLLMServer(everything, embedding_dim=16).running() as server:
        cache = {"mode": "readwrite", "path": str(tmp_path / "responses.sqlite")}
        config = write_config(tmp_path / "run", server.base_url, corpus, cache=cache)
        succeeded(await graphglean(config, "1"))
        out = tmp_path / "run" / "out"
        first = {name: (out / name).read_text() for name in ("entities.jsonl", "community_reports.jsonl")}
        asked = len(server.requests)
        succeeded(await graphglean(config, "2", "--fresh"))
    assert asked > 50 and len(server.requests) == asked, [canonical(r)[:300] for r in server.requests[asked:]]
    assert {name: (out / name).read_text() for name in first} == first


def test_a_response_cache_where_fresh_would_remove_it_is_refused(tmp_path):
    from graphglean.core.config import Config
    from graphglean.core.errors import ConfigError
    from graphglean.pipeline.plan import check_runnable

    cfg = Config()
    cfg.output.dir = str(tmp_path / "out")
    cfg.llm.cache.path = str(tmp_path / "out" / "cache.sqlite")  # beside the run store: kept
    check_runnable(cfg)
    for inside in ("run.sqlite", "memory.sqlite", "shards/cache.sqlite", "merge/c.sqlite"):
        cfg.llm.cache.path = str(tmp_path / "out" / inside)
        with pytest.raises(ConfigError, match="llm.cache.path: .* which (--fresh|every run) empties"):
            check_runnable(cfg)
    cfg.llm.cache.mode = "off"
    check_runnable(cfg)


@pytest.mark.slow
async def test_detached_batch_runs_in_processes_of_other_hash_seeds_submit_each_request_once(tmp_path):
    """Two --detach cycles and a final run, each process's hashes seeded otherwise, submit exactly the requests
    one uninterrupted run submits, each once."""
    from graphglean.core.config_loader import load_config
    from graphglean.testing.batch_api import FakeBatchAPI

    from .test_resume import quiet_run

    corpus = conversation(tmp_path)
    api = FakeBatchAPI(0.3)
    batch = {"enabled": True, "poll_s": 0.02, "quiet_s": 0.1, "online_tail": 0}
    async with FakeLLMServer(everything, embedding_dim=16, batch_api=api).running() as server:
        reference = write_config(tmp_path / "reference", server.base_url, corpus, batch=batch)
        assert not (await quiet_run(load_config(reference))).failed
        asked = Counter(api.uploaded_lines)
        api.uploaded_lines.clear()
        config = write_config(tmp_path / "run", server.base_url, corpus, batch=batch)
        cycles = [succeeded(await graphglean(config, seed, "--detach")) for seed in ("1", "2")]
        final = await graphglean(config, "3")
    succeeded(final)
    assert all("detached:" in err for err in cycles)
    submitted = Counter(api.uploaded_lines)
    assert max(asked.values()) == 1 and len(asked) > 50
    assert submitted == asked, (len(submitted), len(asked), sum(submitted.values()))
