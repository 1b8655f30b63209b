"""Records recovered from the same real model outputs: graphglean's parser and merge against the graph the
original tool built (LightRAG, nano-graphrag, Microsoft GraphRAG), from ../shared/realdata.

    python benchmarks/recovery.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _server import table  # noqa: E402

from graphglean.graph.merge import merge_records, normalize_name  # noqa: E402
from graphglean.graph.parser import RecordParser  # noqa: E402
from graphglean.graph.records import Provenance  # noqa: E402
from graphglean.llm.records import parse_chat_body  # noqa: E402

REALDATA = ROOT.parent / "shared" / "realdata"


def responses(folder: Path) -> list[list[str]]:
    if (folder / "replay.jsonl").exists():
        return [[c["response"] for c in json.loads(line)["calls"]] for line in open(folder / "replay.jsonl")]
    return [[parse_chat_body(json.loads(p.read_text())["result"]["response"]).text]
            for p in sorted((folder / "cache" / "extract_graph").iterdir())]


def theirs(folder: Path) -> tuple[set[str], set[frozenset[str]]]:
    graphml = folder / "graph_chunk_entity_relation.graphml"
    if graphml.exists():
        g = nx.read_graphml(graphml)
        return {normalize_name(n) for n in g.nodes}, {frozenset(map(normalize_name, e)) for e in g.edges}
    import pyarrow.parquet as pq

    nodes = {normalize_name(t) for t in pq.read_table(folder / "output" / "entities.parquet").column("title").to_pylist()}
    rels = pq.read_table(folder / "output" / "relationships.parquet").select(["source", "target"]).to_pylist()
    return nodes, {frozenset((normalize_name(r["source"]), normalize_name(r["target"]))) for r in rels}


def main() -> None:
    rows = []
    for folder in sorted(p for p in REALDATA.iterdir() if (p / "replay.jsonl").exists() or (p / "cache").is_dir()):
        parser = RecordParser()
        results = []
        for i, calls in enumerate(responses(folder)):
            for text in calls:
                results.append(parser.parse(text, Provenance("d", i, f"c{i}", 0)))
        ours = merge_records(results).to_graph()
        nodes, edges = theirs(folder)
        our_edges = {frozenset(e) for e in ours.edges}
        rows.append({"data": folder.name, "responses": sum(map(len, responses(folder))),
                     "records": sum(r.records for r in results), "malformed": sum(len(r.malformed) for r in results),
                     "their nodes": len(nodes), "our nodes": ours.number_of_nodes(),
                     "theirs missed by us": len(nodes - set(ours.nodes)), "their edges": len(edges),
                     "our edges": ours.number_of_edges(), "edges missed by us": len(edges - our_edges)})
    print(table(rows, list(rows[0])))
    print("\nnames compared after normalization (quotes, whitespace, case); edges unordered")


if __name__ == "__main__":
    main()
