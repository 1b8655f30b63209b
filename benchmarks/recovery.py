"""Records recovered from real and cut answers.

1. The same real model outputs, ../shared/realdata: graphglean's parser and merge against the graph the original
   tool built (LightRAG, nano-graphrag, Microsoft GraphRAG). Recall counts only their names that occur in the
   responses, and leaves out placeholder rows copied from the prompt.
2. A dense corpus against the fake server with a 350-token completion cap that it honours (cut answers finish
   with ``length``): how many of the records the model issued for each chunk reach the graph, with and without
   recovery (asking again at the model's output limit, then halving the passage).

    python benchmarks/recovery.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import networkx as nx
import trio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _server import help_only, table  # noqa: E402

from graphglean.core.config import Config  # noqa: E402
from graphglean.core.tokens import Tokenizer  # noqa: E402
from graphglean.graph.building.merge import merge_records, normalize_name  # noqa: E402
from graphglean.graph.extract import extract_graph  # noqa: E402
from graphglean.graph.extraction.debris import clean_names  # noqa: E402
from graphglean.graph.extraction.fields import is_placeholder  # noqa: E402
from graphglean.graph.extraction.parser import RecordParser  # noqa: E402
from graphglean.graph.records import ParseResult, Provenance  # noqa: E402
from graphglean.llm.records import parse_chat_body  # noqa: E402
from graphglean.testing import FakeLLMServer  # noqa: E402
from graphglean.testing.models.responders import capped, dense, dense_corpus, dense_records  # noqa: E402
from graphglean.text.inputs import Document, Inputs  # noqa: E402

REALDATA = ROOT.parent / "shared" / "realdata"


def responses(folder: Path) -> list[list[str]]:
    return [texts for _, texts in chunk_responses(folder)]


def chunk_responses(folder: Path) -> list[tuple[str, list[str]]]:
    """(the chunk's text, its responses) per chunk; GraphRAG's responses are not mapped to chunks: each gets
    the whole input as its text."""
    if (folder / "replay.jsonl").exists():
        entries = [json.loads(line) for line in open(folder / "replay.jsonl")]
        return [(e["content"], [c["response"] for c in e["calls"]]) for e in entries]
    book = "\n".join(p.read_text(encoding="utf-8") for p in sorted((folder / "input").iterdir()))
    return [(book, [parse_chat_body(json.loads(p.read_text())["result"]["response"]).text])
            for p in sorted((folder / "cache" / "extract_graph").iterdir())]


# what a format leaves in a name: a name holding one that the input does not hold is debris
DEBRIS = ("<|", "|>", "||", "->")


def debris(names: list[str], text: str) -> list[str]:
    """Names holding a delimiter fragment, an arrow or a stray quote that ``text`` (the whole input) does not hold."""
    return [n for n in names if any(f in n and f not in text for f in DEBRIS)
            or (n.count('"') % 2 == 1 and n not in text)]


def theirs(folder: Path) -> tuple[set[str], set[frozenset[str]]]:
    graphml = folder / "graph_chunk_entity_relation.graphml"
    if graphml.exists():
        g = nx.read_graphml(graphml)
        return {normalize_name(n) for n in g.nodes}, {frozenset(map(normalize_name, e)) for e in g.edges}
    import pyarrow.parquet as pq

    titles = pq.read_table(folder / "output" / "entities.parquet").column("title").to_pylist()
    nodes = {normalize_name(t) for t in titles}
    rels = pq.read_table(folder / "output" / "relationships.parquet").select(["source", "target"]).to_pylist()
    return nodes, {frozenset((normalize_name(r["source"]), normalize_name(r["target"]))) for r in rels}


def real_data_rows() -> list[dict]:
    rows = []
    totals = [0, 0, 0, 0]
    for folder in sorted(p for p in REALDATA.iterdir() if (p / "replay.jsonl").exists() or (p / "cache").is_dir()):
        parser = RecordParser()
        results = []
        chunks = chunk_responses(folder)
        calls = [texts for _, texts in chunks]
        for i, (chunk, texts) in enumerate(chunks):
            result = ParseResult()
            for text in texts:
                result.extend(parser.parse(text, Provenance("d", i, f"c{i}", 0)))
            clean_names(result, chunk)  # as the graph pass does with each chunk's text
            results.append(result)
        ours = merge_records(results).to_graph()
        inputs = "\n".join(dict.fromkeys(chunk for chunk, _ in chunks))
        said = normalize_name(" ".join(t for texts in calls for t in texts))
        nodes, edges = theirs(folder)
        nodes = {n for n in nodes if n in said and not is_placeholder(n)}
        edges = {e for e in edges if e <= nodes}
        our_edges = {frozenset(e) for e in ours.edges}
        got_nodes, got_edges = len(nodes & set(ours.nodes)), len(edges & our_edges)
        totals = [totals[0] + len(nodes), totals[1] + got_nodes, totals[2] + len(edges), totals[3] + got_edges]
        recall = (got_nodes + got_edges) / max(1, len(nodes) + len(edges))
        rows.append({"data": folder.name, "responses": sum(map(len, calls)),
                     "records": sum(r.records for r in results), "malformed": sum(len(r.malformed) for r in results),
                     "their nodes": len(nodes), "our nodes": ours.number_of_nodes(), "nodes recalled": got_nodes,
                     "their edges": len(edges), "our edges": ours.number_of_edges(), "edges recalled": got_edges,
                     "recall": f"{recall:.4f}",
                     "debris": len(debris([ours.nodes[n]["name"] for n in ours.nodes], inputs)),
                     "repaired": sum(r.repaired_names for r in results)})
    overall = (totals[1] + totals[3]) / max(1, totals[0] + totals[2])
    rows.append({"data": "overall", "their nodes": totals[0], "nodes recalled": totals[1], "their edges": totals[2],
                 "edges recalled": totals[3], "recall": f"{overall:.4f}"})
    return rows


async def capped_run(text: str, recover: bool) -> dict:
    async with FakeLLMServer(capped(dense)).running() as server:
        cfg = Config()
        cfg.llm.base_url, cfg.llm.api_key, cfg.llm.model = server.base_url, "sk-bench", "local-8b"
        cfg.llm.cache.mode = "off"
        cfg.llm.max_tokens = 350
        cfg.llm.max_output_tokens = 0 if recover else 350  # 0 = the table's limit: 8192 for an unknown model
        cfg.graph.max_splits = 4 if recover else 0
        cfg.graph.description_max_tokens = 10**6
        result = await extract_graph(text, cfg)
    graph, st = result.output, result.stats
    issued_nodes, issued_edges, issued_records = set(), set(), set()
    for chunk_text in _chunk_texts(text, cfg):
        for record in dense_records(chunk_text):
            fields = record.strip("()").split("<|>")
            if fields[0] == '"entity"':
                issued_nodes.add(normalize_name(fields[1]))
                issued_records.add((normalize_name(fields[1]), fields[3]))
            else:
                issued_edges.add(frozenset(map(normalize_name, fields[1:3])))
                issued_records.add((frozenset(map(normalize_name, fields[1:3])), fields[3]))
    our_edges = {frozenset(e) for e in graph.edges}
    kept = {(n, d) for n in graph.nodes for d in graph.nodes[n]["descriptions"]}
    kept |= {(frozenset((a, b)), d) for a, b, data in graph.edges(data=True) for d in data["descriptions"]}
    return {"recovery": "on" if recover else "off", "cap": 350, "limit": cfg.llm.max_output_tokens or 8192,
            "calls": len(server.chat_requests()), "cut answers": st.truncated_responses, "asked again": st.raised_caps,
            "halved": st.split_passages, "issued nodes": len(issued_nodes),
            "lost nodes": len(issued_nodes - set(graph.nodes)), "issued edges": len(issued_edges),
            "lost edges": len(issued_edges - our_edges), "issued records": len(issued_records),
            "lost records": len(issued_records - kept), "half records read": len(kept - issued_records)}


def _chunk_texts(text: str, cfg: Config) -> list[str]:
    chunks = Inputs(documents=[Document("dense", text, "<bench>")]).all_chunks(
        Tokenizer(cfg.llm.model), cfg.chunking.size, cfg.chunking.overlap)
    return [c.text for c in chunks]


def main() -> None:
    rows = real_data_rows()
    print(table(rows, list(rows[0])))
    print("\nnames compared after normalization (quotes, whitespace, case); edges unordered; their names that occur "
          "in the responses, placeholders left out; debris: our node names holding <|, |>, ||, -> or a stray quote "
          "that the input does not hold; repaired: names whose format pieces were cut off with the chunk's text")
    text = "\n\n".join(dense_corpus(90, seed) for seed in range(4))
    cap_rows = [trio.run(capped_run, text, recover) for recover in (False, True)]
    print()
    print(table(cap_rows, list(cap_rows[0])))
    print("\ndense corpus: 360 sentences with three names each, 1200-token chunks; the fake server cuts answers at "
          "the request's max_tokens")


if __name__ == "__main__":
    help_only(__doc__)
    main()
