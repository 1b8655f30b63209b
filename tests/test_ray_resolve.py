"""Entity resolution on the partitioned merge (engine ray) gives the local engine's rows and resolution.jsonl.

The steps are plain functions: most tests run them in this process (a "wave" that awaits each task in turn),
so they need no cluster; the end-to-end tests share the session cluster of test_ray.
"""

from __future__ import annotations

import functools
import io
import json
import tempfile
from pathlib import Path

import pytest
import trio
from hypothesis import given, settings
from hypothesis import strategies as st

from graphglean.chunking import Chunk
from graphglean.config import Config
from graphglean.config_loader import load_config_text
from graphglean.graph.export import entity_rows, relationship_rows
from graphglean.graph.extract import GraphStats, _resolve_stage, finish_graph
from graphglean.graph.merge import merge_records
from graphglean.graph.records import EntityRecord, ParseResult, Provenance, RelationshipRecord
from graphglean.runtime import partitions
from graphglean.runtime.resolve_partitions import Decisions, merged_edges, new_pair, resolved_merge
from graphglean.tokens import Tokenizer

PEOPLE = ["Scrooge", "Ebenezer Scrooge", "Mr. Scrooge", "Ebenezer", "Jacob Marley", "Marley", "Old Marley",
          "Mr. Fezziwig", "Mrs. Fezziwig", "Fezziwig", "Bob Cratchit", "Martha Cratchit", "Cratchit", "Bob",
          "Scrooge and Marley", "Scrooge's Clerk", "Ghost of Marley", "Ghost of Jacob Marley", "IRS",
          "Internal Revenue Service", "Christmas", "Christmas Eve", "London", "The Cratchit Family",
          "Cratchit Family"]
KINDS = {"London": "geo", "IRS": "organization", "Internal Revenue Service": "organization", "Christmas": "event",
         "Christmas Eve": "event", "Scrooge and Marley": "organization"}
WORDS = {"Mrs. Fezziwig": "she dances with her husband", "Marley": "his dead partner, a ghost in chains",
         "Martha Cratchit": "she is the eldest daughter", "Bob": "the clerk, a poor father"}


def _chunk(i: int, names: list[str]) -> Chunk:
    text = f"Part {i}: " + "; ".join(names) + "."
    return Chunk(f"c{i:03d}", f"d{i % 2}", i, text, 40 * i, 40 * i + len(text), 5)


def _records(picks: list[tuple[int, int]]) -> tuple[list[Chunk], list[ParseResult]]:
    chunks, results = [], []
    for i, (a, b) in enumerate(picks):
        x, y = PEOPLE[a], PEOPLE[b]
        chunk = _chunk(i, [x, y])
        chunks.append(chunk)
        src = Provenance(chunk.doc_id, chunk.index, chunk.id, 0)
        ents = [EntityRecord(n, KINDS.get(n, "person"), f"{n} {WORDS.get(n, 'is in the story')} ({i % 3})", src)
                for n in (x, y)]
        results.append(ParseResult(ents, [RelationshipRecord(x, y, f"{x} and {y} meet ({i % 2})", 1.0 + i, ("k",),
                                                             src)]))
    return chunks, results


def _config(P: int, directed: bool, drop: bool) -> Config:
    cfg = Config()
    cfg.graph.directed, cfg.graph.drop_ungrounded = directed, drop
    cfg.graph.resolve.method = "rules"
    cfg.runtime.graph_partitions = P
    return cfg


def _local(chunks, results, cfg):
    async def main():
        graph = merge_records(results, cfg.graph.directed).to_graph()
        stats = GraphStats()
        graph = await _resolve_stage(graph, cfg, None, stats, None)
        await finish_graph(graph, {c.id: c for c in chunks}, cfg, None, Tokenizer(cfg.llm.model), stats, offline=True)
        return entity_rows(graph), relationship_rows(graph), stats.resolution_log, stats.resolution

    return trio.run(main)


async def in_process(work, argsets):
    """A wave run task after task in this process (what Ray runs in workers)."""
    return [await work(*args, None) for args in argsets]


def _partitioned(chunks, results, cfg, cut):
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        dirs = []
        for s, first in enumerate(range(0, len(chunks), cut)):
            folder = root / f"s{s}"
            folder.mkdir()
            dirs.append(folder)
            acc = merge_records(results[first:first + cut], cfg.graph.directed)
            partitions.write_parts(acc, cfg.runtime.graph_partitions, folder)
            partitions.write_chunks(chunks[first:first + cut], folder)
        merge = root / "merge"
        merge.mkdir()
        done = trio.run(resolved_merge, in_process, dirs, cfg, merge, root, root / "store")
        read = lambda name: [json.loads(line) for line in (root / name).read_text().splitlines()]  # noqa: E731
        return read("entities.jsonl"), read("relationships.jsonl"), read("resolution.jsonl"), done.stats


def _same(chunks, results, cfg, cut):
    nodes, edges, log, stats = _local(chunks, results, cfg)
    got = _partitioned(chunks, results, cfg, cut)
    assert got[0] == nodes
    assert got[1] == edges
    assert got[2] == log
    assert got[3] == stats


def test_partitioned_resolution_merges_what_the_local_one_merges():
    picks = [(i % len(PEOPLE), (3 * i + 1) % len(PEOPLE)) for i in range(60)]
    chunks, results = _records(picks)
    cfg = _config(5, False, False)
    nodes, _, log, stats = _local(chunks, results, cfg)
    assert stats["rule_merges"] >= 5 and len(log) == stats["rule_merges"]  # a corpus with real merges
    scrooge = next(r for r in nodes if "Mr. Scrooge" in r.get("aliases", []))
    assert {"Scrooge", "Ebenezer Scrooge"} <= set(scrooge["aliases"])
    for P, cut in ((1, 60), (3, 7), (7, 25)):
        _same(chunks, results, _config(P, False, False), cut)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.integers(0, len(PEOPLE) - 1), st.integers(0, len(PEOPLE) - 1)), min_size=1, max_size=24),
       st.integers(1, 8), st.integers(1, 6), st.booleans(), st.booleans())
def test_resolution_on_partitions_equals_local_for_any_shards_and_partitions(picks, cut, P, directed, drop):
    chunks, results = _records(picks)
    _same(chunks, results, _config(P, directed, drop), cut)
