"""Throughput benchmark: a full graph build against the critical-path bound and a naive engine.

    python benchmarks/throughput.py [--docs 40] [--corpus dense,dense-25,skewed,issue,uniform] [--max-tokens N]
                                    [--no-resolve] [--server-concurrency N] [--log-dir DIR]

The fake server (its own process) answers after 0.3 s + 2 ms per output token (prompt tokens cost no time,
as on real endpoints, whose prompt caches serve the repeated prefixes of later rounds) with record-dense
answers (two thirds of a passage's records first, the rest when asked to continue), one YES then NO at the
loop check, and short description summaries; it continues an answer its cap cut, as a model asked to
continue exactly where it stopped does, and reports cached prompt tokens for repeated prefixes. The model is
gpt-4o-mini (an output limit of 16,384 tokens). Per corpus it runs:

- graphglean: the full build (extraction, loop checks, continues, description summaries, and entity
  resolution unless ``--no-resolve``), ``max_gleanings`` 1, the default cap unless ``--max-tokens``, once per
  ``--server-concurrency`` setting (default: with the default ``llm`` settings, then with 64 slots set);
- naive: a reference engine written here, plain trio + httpx, ``C`` workers taking chunks in input order,
  extraction only (extract, check, continue), every call at the model's output limit (no answer cut);

and prints wall time, the bound max(work/C, longest chain) from the server's request log (work = the sum
of the requests' service times; a chain = the calls of one conversation), each ratio, client CPU per call,
calls, output tokens (graphglean's extraction against the naive engine's: the tokens the model needed), the
cached share of prompt tokens on calls after a conversation's first, and whether every record the model
issued is in the graph. Where time goes, from the same log: when the last extraction chain ended and the
tail after it (resolution, summaries), time outside any request (start-up, graph building), the share of
request slots in use over the requests' span, and the mean wait between the calls of a chunk's chain.

Corpora: dense (issue 32: 40 documents of 120 sentences, 81 chunks, every chain long and 17 chunks more than
request slots), dense-25 (issue 25: 80 chunks of 1,200 tokens, answers of 2-9k tokens, most over 4,096),
skewed (answers of ~2k tokens but a few documents' chunks 5x that), issue and uniform (issue 15's).
Targets (issues 25 and 32): graphglean within 1.25x the bound and <= 0.9x the naive engine on dense (with the
default ``llm`` settings, and with ``--server-concurrency 64``), within 1.25x the bound on the others, every
issued record recovered, output tokens within 2% of the naive engine's, client CPU <= 1 ms a call, cached share
>= 90% on calls after the first.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
import urllib.request
from pathlib import Path
from typing import Callable

import trio

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from _server import fake_server, table  # noqa: E402

from graphglean.core.config import Config  # noqa: E402
from graphglean.core.tokens import Tokenizer  # noqa: E402
from graphglean.llm.model_limits.completion_cap import CompletionCap  # noqa: E402
from graphglean.llm.model_limits.output_limits import output_limit  # noqa: E402
from graphglean.testing.fake_llm import RecordedRequest, Reply  # noqa: E402
from graphglean.testing.models.responders import (  # noqa: E402
    MARK_CONTINUE, MARK_DESCRIBE, MARK_LOOP, answers_given, capped, passage_of)

MARK_RESOLVE = "Decide for each pair whether"

LATENCY, TOKEN_LATENCY, CONCURRENCY = 0.3, 0.002, 64
MODEL = "gpt-4o-mini"
STOP_TOKENS = 16000  # where the model ends an answer of its own accord (under its output limit)

FIRST = ["Alda", "Bram", "Cora", "Dane", "Edda", "Finn", "Gwen", "Hale", "Iris", "Joss", "Kira", "Lund"]
SURNAMES = ["Achter", "Bellow", "Corrin", "Dastel", "Everly", "Fenwick", "Garrow", "Hollis", "Ingram", "Jessop",
            "Kettle", "Lorimer", "Marlow", "Nesbit", "Orwin", "Pellam", "Quarry", "Rowan", "Sallow", "Tamsin",
            "Umber", "Varley", "Wexley", "Yarrow", "Zeller", "Abbot", "Brisk", "Calder", "Denholm", "Elgar",
            "Fairly", "Gilder", "Harker", "Islay", "Jarrow", "Kenning", "Lathe", "Minter", "Norland", "Oakes"]
GLOBAL = ["Mara Quill", "Harbor Council", "Old Bridge"]
VERBS = ["met", "wrote to", "argued with", "travelled with", "paid", "warned", "visited", "thanked"]
PLACES = ["near the grain market", "at the north quay", "beside the old mill", "in the counting house",
          "on the ferry road", "under the clock tower"]
DETAILS = ["about the late shipment of wool and salt", "before the winter tolls were raised again",
           "after the long dispute over the fishing rights", "while the harbour lamps were being lit",
           "because the ledger showed a missing payment", "as the rain came in from the western hills"]
NAME = re.compile(r"\b[A-Z][a-z]+ [A-Z][a-z]+\b")
RECORD = re.compile(r'\("(entity|relationship)"<\|>(.*?)\)(?=##|\n<\|COMPLETE\|>|$)', re.S)


FILLER = ["The carts waited in the lane while the bell rang over the wet roofs.",
          "Nobody could say how long the weather would hold that week.",
          "The ledgers were copied twice and locked in the iron chest by evening."]


def corpus(docs: int, sentences: int, extra: Callable[[int, int], int] = lambda d, s: 0,
           plain: Callable[[int, int], bool] = lambda d, s: False,
           filler: Callable[[int, int], int] = lambda d, s: 0) -> list[str]:
    """Documents of sentences naming two of the document's people (one of three shared names every tenth
    sentence), plus ``extra(d, s)`` more people (at most three); a ``plain(d, s)`` sentence has no detail, and
    ``filler(d, s)`` sentences that name no one follow it."""
    return [document(d, sentences, extra, plain, filler) for d in range(docs)]


def document(d: int, sentences: int, extra: Callable[[int, int], int], plain: Callable[[int, int], bool],
             filler: Callable[[int, int], int]) -> str:
    """Document ``d`` of `corpus`."""
    cast = [f"{f} {SURNAMES[d % len(SURNAMES)]}" for f in FIRST]
    n = len(cast)
    lines = []
    for s in range(sentences):
        names = [cast[s % n], cast[(s * 5 + 1) % n]]
        if names[0] == names[1]:
            names[1] = cast[(s + 1) % n]
        if s % 10 == 0:
            names[1] = GLOBAL[(s // 10 + d) % 3]
        names += [c for c in (cast[(s + 2) % n], cast[(s + 3) % n], cast[(s + 4) % n])
                  if c not in names][:extra(d, s)]
        who = " and ".join(names[1:])
        detail = "" if plain(d, s) else " " + DETAILS[(s * 7 + d) % 6]
        lines.append(f"{names[0]} {VERBS[(s + d) % 8]} {who} {PLACES[s % 6]} on day {s + 1}{detail}.")
        lines += [FILLER[(s + k + d) % 3] for k in range(filler(d, s))]
    return " ".join(lines)


def filled(docs: int, sentences: int, tokens: int) -> list[str]:
    """Documents of plain sentences naming two people, as many of them naming a third (spread evenly) as keep
    each within ``tokens`` tokens: documents of one size whatever their names' tokens."""
    count = Tokenizer(MODEL).count
    texts = []
    for d in range(docs):
        def text(third: int, d: int = d) -> str:
            return document(d, sentences, lambda _, s: (s * third) // sentences != ((s + 1) * third) // sentences,
                            lambda _, s: True, lambda _, s: 0)
        lo, hi = 0, sentences
        while lo < hi:
            mid = (lo + hi + 1) // 2
            lo, hi = (mid, hi) if count(text(mid)) <= tokens else (lo, mid - 1)
        texts.append(text(lo))
    return texts


def corpora(docs: int) -> dict[str, list[str]]:
    """dense: the shape of issue 32 (at 40 documents of 120 sentences, 81 chunks: each document is two full
    chunks, the first has a third; first answers of 3-5.6k tokens, the rest 1.5-2.7k, so every chain is long
    and 17 of them wait for a slot at C = 64): two or three people a sentence. dense-25: the corpus of issue 25
    (at 40 documents, 80 chunks; answers of 2-9k tokens, median 5.3k, three quarters over 4,096): a third of
    the documents name one more person a sentence, a quarter another, and every third sentence one more. skewed: answers of ~2k tokens (two people a sentence, two sentences naming no one
    after each), but every eighth document names five people a sentence: its chunks' answers are 5x the median.
    issue: the corpus of issue 15 (at 40 x 120, 114 chunks): a third of the documents name one or two more
    people a sentence, a fifth are short, the rest mixed. uniform: every chunk alike. skewed-15: issue 15's
    skewed corpus (three documents name four people a sentence)."""
    dense = {docs // 5, docs // 2, docs - 2}
    return {
        "dense": [document(0, 120, lambda d, s: 1 + s % 2, lambda d, s: True, lambda d, s: 0)] + filled(docs, 120, 2300)[1:],
        "dense-25": corpus(docs, 64, lambda d, s: (d % 3 == 0) + (d % 4 == 1) + (s % 3 == 0)),
        "skewed": corpus(docs, 60, lambda d, s: 3 if d % 8 == 5 else 0, filler=lambda d, s: 0 if d % 8 == 5 else 2),
        "issue": corpus(docs, 120, lambda d, s: 0 if d % 5 == 1 else (d % 3 == 2) + (d % 9 == 8),
                        lambda d, s: s % 2 == 0 or d % 5 == 1),
        "uniform": corpus(docs, 120),
        "skewed-15": corpus(docs, 120, lambda d, s: 2 if d in dense else 0),
    }


def verb_of(sentence: str) -> str:
    return next((v for v in VERBS if f" {v} " in sentence), "met")


def records_of(passage: str) -> list[str]:
    """The records a model would find in ``passage``: each person of a sentence, and each neighbouring pair."""
    out = []
    for sentence in re.split(r"(?<=\.)\s+", passage):
        names = list(dict.fromkeys(NAME.findall(sentence)))
        where = sentence.split(" ", 2)[-1].split(" ", 3)[-1].rstrip(".")  # a place and a detail
        out += [f'("entity"<|>{n}<|>person<|>{n} was seen {where})' for n in names]
        day = re.search(r"on day \d+", sentence)
        when = f" {day.group()}" if day else ""
        out += [f'("relationship"<|>{a}<|>{b}<|>{a} {verb_of(sentence)} {b}{when}<|>5)'
                for a, b in zip(names, names[1:])]
    return list(dict.fromkeys(out))


def _answer(records: list[str]) -> Reply:
    """The records up to where the model stops of its own accord (the server's cap may cut it before)."""
    text = ""
    for r in records:
        if len(text) + len(r) + 3 > STOP_TOKENS * 4:
            break
        text += ("##\n" if text else "") + r
    return Reply(text + "\n<|COMPLETE|>")


def model(req: RecordedRequest) -> Reply | str:
    """A record-dense model: two thirds of the records first, the rest when asked to continue."""
    last = req.last_user
    if req.max_tokens == 1 or MARK_LOOP in last:
        return Reply("YES" if answers_given(req) < 2 else "NO", finish_reason="length")
    if MARK_RESOLVE in last:  # entity resolution's questions: one short line a pair, as a model answers them
        return "\n".join(f"{n}: DIFFERENT" for n in re.findall(r"^Pair (\d+)$", last, re.M))
    if MARK_DESCRIBE in last:
        lines = [line[2:] for line in last.splitlines() if line.startswith("- ")]
        words = " ".join(lines).split()[:150]
        return " ".join(words)
    records = records_of(passage_of(req.messages[0]["content"]))
    said = "".join(m.get("content") or "" for m in req.messages if m.get("role") == "assistant")  # pieces whole
    if MARK_CONTINUE in last:
        return _answer([r for r in records if r not in said])
    return _answer(records[: (2 * len(records) + 2) // 3])


respond = capped(model)  # cut at each request's cap, and continued where a cut answer is asked to go on


# -- the server's log -------------------------------------------------------------------------------------

def server_log(base_url: str) -> list[dict]:
    req = urllib.request.Request(base_url + "/log", data=b"{}", method="POST")
    with urllib.request.urlopen(req, timeout=30) as resp:
        return json.loads(resp.read())


def bound_of(log: list[dict], concurrency: int) -> dict:
    chains: dict[str, list[dict]] = {}
    for row in sorted(log, key=lambda r: r["started"]):
        chains.setdefault(row["chain"], []).append(row)
    spent = {k: sum(r["finished"] - r["started"] for r in rows) for k, rows in chains.items()}
    work = sum(spent.values())
    start, end = min(r["started"] for r in log), max(r["finished"] for r in log)
    # extraction chains are the ones with a loop check (a one-token answer); what follows them is the tail
    extraction = [rows for rows in chains.values() if any(r["completion_tokens"] <= 1 for r in rows)]
    gaps = [b["started"] - a["finished"] for rows in extraction for a, b in zip(rows, rows[1:])]
    later = [r for r in log if r.get("turns", 0) > 0]  # calls after a conversation's first
    return {"work_s": work, "work/C": work / concurrency, "chain": max(spent.values(), default=0.0),
            "bound": max(work / concurrency, max(spent.values(), default=0.0)), "calls": len(log),
            "prompt_tokens": sum(r["prompt_tokens"] for r in log),
            "output_tokens": sum(r["completion_tokens"] for r in log),
            "extraction_output": sum(r["completion_tokens"] for rows in extraction for r in rows),
            "cached_later": (sum(r.get("cached_tokens", 0) for r in later)
                             / max(1, sum(r["prompt_tokens"] for r in later))),
            "span": end - start,
            "extraction_end": max((rows[-1]["finished"] for rows in extraction), default=start) - start,
            "slot_use": work / ((end - start) * concurrency), "chain_gap": sum(gaps) / max(len(gaps), 1)}


# -- the engines -------------------------------------------------------------------------------------------

MAX_TOKENS: int | None = None  # --max-tokens: the completion cap of extraction calls (None: the default)
RESOLVE = True  # --no-resolve: without entity resolution (not among the stages issue 15 measured)
LOG_DIR: Path | None = None  # --log-dir: each run's server log saved there as JSON


def config(base_url: str, server_concurrency: int = 0) -> Config:
    """The benchmark's settings; ``server_concurrency`` 0 leaves ``llm.server_concurrency`` at its default."""
    cfg = Config()
    if MAX_TOKENS:
        cfg.llm.max_tokens = MAX_TOKENS
    cfg.llm.base_url, cfg.llm.api_key, cfg.llm.model = base_url, "bench", MODEL
    cfg.llm.cache.mode = "off"
    cfg.llm.max_concurrency = CONCURRENCY
    if server_concurrency:
        cfg.llm.server_concurrency = server_concurrency
    cfg.graph.max_gleanings = 1
    cfg.graph.resolve.enabled = RESOLVE
    return cfg


async def graphglean_build(base_url: str, texts: list[str], server_concurrency: int = 0) -> dict:
    from graphglean.graph.building.merge import normalize_name
    from graphglean.graph.extract import extract_graph

    t0, cpu0 = time.perf_counter(), time.process_time()
    result = await extract_graph(texts, config(base_url, server_concurrency))
    wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    g = result.output
    issued = missing = 0
    for ex in result.extractions.values():
        for kind, body in RECORD.findall("\n".join(ex.responses)):
            fields = body.split("<|>")
            issued += 1
            if kind == "entity":
                key = normalize_name(fields[0])
                found = key in g and fields[2].strip() in g.nodes[key]["descriptions"]
            else:
                a, b = normalize_name(fields[0]), normalize_name(fields[1])
                found = g.has_edge(a, b) and fields[2].strip() in g.edges[a, b]["descriptions"]
            missing += not found
    s = result.stats
    return {"wall": wall, "cpu": cpu, "chunks": s.chunks, "issued": issued, "missing": missing,
            "truncated": s.truncated_responses, "continued": s.continued_answers, "splits": s.split_passages,
            "summaries": s.summarized_descriptions, "failed": s.failed_chunks}


async def naive_build(base_url: str, texts: list[str], server_concurrency: int = 0) -> dict:
    """C workers, chunks in input order, each through extract, check, continue; nothing else."""
    import httpx

    from graphglean.graph.extraction.prompts import GraphPrompts
    from graphglean.text.chunking import token_chunks

    t0, cpu0 = time.perf_counter(), time.process_time()
    cfg = config(base_url)
    tokenizer = Tokenizer(MODEL)
    cap = output_limit(MODEL)  # every answer whole
    chunks = [c for i, t in enumerate(texts)
              for c in token_chunks(f"doc{i}", t, tokenizer, cfg.chunking.size, cfg.chunking.overlap)]
    prompts = GraphPrompts.from_config(cfg.graph)
    todo = iter(chunks)
    limits = httpx.Limits(max_connections=CONCURRENCY, max_keepalive_connections=CONCURRENCY)

    async with httpx.AsyncClient(base_url=base_url, limits=limits, timeout=120) as http:
        async def ask(messages: list[dict], max_tokens: int) -> str:
            r = await http.post("/chat/completions", json={"model": MODEL, "messages": messages,
                                                             "max_tokens": max_tokens, "temperature": 0})
            return r.json()["choices"][0]["message"]["content"]

        async def worker() -> None:
            for chunk in todo:
                messages = [{"role": "user", "content": prompts.extraction(chunk.text)}]
                messages.append({"role": "assistant", "content": await ask(messages, cap)})
                if (await ask([*messages, {"role": "user", "content": prompts.loop_prompt}], 1)).startswith("Y"):
                    messages.append({"role": "user", "content": prompts.continue_prompt})
                    await ask(messages, cap)

        async with trio.open_nursery() as nursery:
            for _ in range(CONCURRENCY):
                nursery.start_soon(worker)
    return {"wall": time.perf_counter() - t0, "cpu": time.process_time() - cpu0, "chunks": len(chunks)}


def run(engine, texts: list[str], name: str = "", server_concurrency: int = 0) -> dict:
    with fake_server("--latency", str(LATENCY), "--token-latency", str(TOKEN_LATENCY),
                     "--responder", "throughput:respond") as url:
        row = trio.run(engine, url, texts, server_concurrency)
        log = server_log(url)
        row.update(bound_of(log, CONCURRENCY))
    if LOG_DIR is not None:
        LOG_DIR.mkdir(parents=True, exist_ok=True)
        (LOG_DIR / f"{name}-{engine.__name__}-{server_concurrency}.json").write_text(json.dumps(log))
    return row


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--docs", type=int, default=40)
    p.add_argument("--corpus", default="dense,dense-25,skewed,issue,uniform")
    p.add_argument("--max-tokens", type=int, help="completion cap of extraction calls (default: llm.max_tokens)")
    p.add_argument("--no-resolve", action="store_true", help="graphglean without entity resolution")
    p.add_argument("--server-concurrency", default="0,64",
                   help="graphglean runs, one per llm.server_concurrency given (0: the default, none set: the "
                        "client learns the server's slots); default 0,64")
    p.add_argument("--log-dir", type=Path, help="save each run's server request log there (JSON)")
    args = p.parse_args()
    global MAX_TOKENS, RESOLVE, LOG_DIR
    MAX_TOKENS, RESOLVE, LOG_DIR = args.max_tokens, not args.no_resolve, args.log_dir
    settings = [int(n) for n in args.server_concurrency.split(",")]
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(HERE), os.environ.get("PYTHONPATH")]))
    rows = []
    texts_of = corpora(args.docs)
    for name in args.corpus.split(","):
        texts = texts_of[name]
        load = f"{os.getloadavg()[0]:.1f}"
        naive = run(naive_build, texts, name)
        runs = [("naive", "", naive)]
        for slots in settings:
            runs.append(("graphglean", f"server_concurrency {slots}" if slots else "defaults",
                         run(graphglean_build, texts, name, slots)))
        for engine, llm, r in runs:
            rows.append({"corpus": name, "engine": engine, "llm": llm, "load": load, "chunks": r["chunks"],
                         "wall s": f"{r['wall']:.1f}", "work/C s": f"{r['work/C']:.1f}",
                         "longest chain s": f"{r['chain']:.1f}", "bound s": f"{r['bound']:.1f}",
                         "wall/bound": f"{r['wall'] / r['bound']:.2f}", "vs naive": f"{r['wall'] / naive['wall']:.2f}",
                         "CPU ms/call": f"{1000 * r['cpu'] / max(1, r['calls']):.2f}",
                         "extraction end s": f"{r['extraction_end']:.1f}",
                         "tail s": f"{r['span'] - r['extraction_end']:.1f}",
                         "off-server s": f"{r['wall'] - r['span']:.1f}", "slot use": f"{r['slot_use']:.0%}",
                         "chain gap s": f"{r['chain_gap']:.2f}", "calls": r["calls"], "output tok": r["output_tokens"],
                         "extraction out/naive": f"{r['extraction_output'] / max(1, naive['extraction_output']):.3f}",
                         "cached later": f"{r['cached_later']:.0%}", "summaries": r.get("summaries", ""),
                         "cut/continued/split": (f"{r['truncated']}/{r['continued']}/{r['splits']}"
                                                 if "truncated" in r else ""),
                         "records issued/missing": f"{r['issued']}/{r['missing']}" if "issued" in r else ""})
    print(table(rows, list(rows[0])))
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    cap = MAX_TOKENS or f"{CompletionCap.of(config('').llm).cap} (the default: {MODEL}'s output limit)"
    print(f"\nllm.max_tokens {cap}; llm.max_concurrency {CONCURRENCY}; entity resolution "
          f"{'on' if RESOLVE else 'off'}; load: {load} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
