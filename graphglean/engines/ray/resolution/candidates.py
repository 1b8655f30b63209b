"""The candidate pairs of a partitioned resolution, each step a task over one partition:

    edges by pair partition  ─► adjacency by node partition ─┐
    nodes by key partition   ─► node table (attributes, profile, degree, chunks) + block keys + corpus counts
    blocks by block partition ─► candidate pairs ─► pairs by pair partition ─► kept: the pairs that matter

The blocks are those of the local engine (`blocking.candidate_pairs`), found block by block.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

import attrs
import numpy as np

from ....core.config import Config
from ....graph.building.merge import edge_attrs, node_attributes
from ....graph.resolution.answers import AnswerMemo
from ....graph.resolution.blocking import (
    CLOSE_COSINE,
    ONE_AGAINST_MANY,
    acronym_keys,
    all_pairs,
    block_keys,
    block_pairs,
    hyperplane_codes,
    minhash_bands,
    minhash_text,
    numbered_initials,
    rare_threshold,
    spelled_club_key,
    unit_rows,
)
from ....graph.resolution.evidence import Evidence
from ....graph.resolution.descriptions.namesakes import one_name_lines
from ....graph.resolution.llm_tier import embed_profiles
from ....graph.resolution.profiles import Corpus, Profile, corpus_words, profile_from
from ....graph.resolution.resolver import apart_line
from ....graph.resolution.verdicts import DIFFERENT, SAME, UNSURE
from ....scheduling.scheduler import Scheduler
from ..partitions import edge_partition, merge_edges, merge_nodes, node_partition
from ..stage_files import dump, load, write_ordered
from .method import method_of
from .node_tables import NodeTables, write_table
from .word_tables import CorpusCounts, corpus_of, word_stats, write_word_parts

Pair = tuple[str, str]
_ALL_WORDS = 1 << 62  # rare_below for collecting every rare-word key: the blocks are kept by the global counts


def block_partition(key: str, partitions: int) -> int:
    """A one-word name's block lives with the longer names' block of its word (`ONE_AGAINST_MANY`): they are
    read together."""
    return node_partition(key[3:] if key[:3] in ONE_AGAINST_MANY or key[:3] in ONE_AGAINST_MANY.values() else key,
                          partitions)


# -- step 1: edges of pair partition q -> adjacency by node partition ---------------------------------------

def adjacency(shard_dirs: list[Path], q: int, cfg: Config, folder: Path) -> None:
    """Merge pair partition ``q``'s edges (kept for the re-keying) and send each node partition its nodes'
    neighbours (the graph's ``neighbors``: successors when directed) and degrees."""
    P, directed = cfg.runtime.graph_partitions, cfg.graph.directed
    acc = merge_edges(shard_dirs, q, directed)
    dump([(pair, edge_attrs(acc.edges[pair])) for pair in sorted(acc.edges)], folder / f"edges-{q:04d}.pkl")
    out: list[dict[str, list[Any]]] = [{} for _ in range(P)]

    def entry(node: str) -> list[Any]:
        return out[node_partition(node, P)].setdefault(node, [[], 0])

    for a, b in acc.edges:
        entry(a)[1] += 1
        entry(b)[1] += 1
        entry(a)[0].append(b)
        if not directed and a != b:
            entry(b)[0].append(a)
    for p, part in enumerate(out):
        dump(part, folder / f"adj-{q:04d}-{p:04d}.pkl")


# -- step 2: nodes of key partition p -> node table, block keys, corpus counts ------------------------------

async def node_table(shard_dirs: list[Path], p: int, cfg: Config, folder: Path, scheduler: Scheduler | None,
                     memo: AnswerMemo | None = None) -> CorpusCounts:
    """Merge key partition ``p``'s nodes; write their table rows and their block keys by block partition. With
    a ``scheduler`` the nodes are embedded too (those ``memo`` has are not asked again)."""
    P, broad = cfg.runtime.graph_partitions, method_of(cfg) == "llm"
    acc, where = merge_nodes(shard_dirs, p, cfg.graph.directed)
    neighbours: dict[str, list[Any]] = {}
    for q in range(P):
        for node, (nbrs, degree) in load(folder / f"adj-{q:04d}-{p:04d}.pkl").items():
            mine = neighbours.setdefault(node, [[], 0])
            mine[0] += nbrs
            mine[1] += degree
    keys = sorted(acc.nodes)
    datas = [node_attributes(acc.nodes[key]) for key in keys]
    profiles = [profile_from(key, data, neighbours.get(key, [[], 0])[0]) for key, data in zip(keys, datas)]
    vectors = await embed_profiles(profiles, scheduler, memo) if scheduler is not None else {}
    write_table(NodeTables.path(folder, p), (
        (key, (data, profile, neighbours.get(key, [[], 0])[1],
               {c: str(where[c]) for c in data["source_ids"] if c in where}, vectors.get(n)))
        for n, (key, data, profile) in enumerate(zip(keys, datas, profiles))))
    write_ordered(one_name_lines(zip(keys, datas)), folder / f"names-{p:04d}.jsonl")
    write_word_parts(profiles, p, P, folder)
    _write_blocks(profiles, vectors, broad, P, folder, p)
    return CorpusCounts(len(profiles), len(vectors), {len(v) for v in vectors.values()})


def _write_blocks(profiles: list[Profile], vectors: dict[int, list[float]], broad: bool, P: int, folder: Path,
                  p: int) -> None:
    """Each node's block keys, tagged "a" where the node is an acronym itself: an initials key ("a:...") makes
    a block only where some node is that acronym, a rare-word key ("r:") only where the word is rare in the
    whole graph; both are decided with the block. Embedded nodes get their hyperplane band codes ("e")."""
    out: list[list[tuple[str, str, str]]] = [[] for _ in range(P)]
    bands = minhash_bands([minhash_text(pr) for pr in profiles]).tolist() if broad and profiles else []
    codes: dict[int, list[int]] = {}
    if vectors and len({len(v) for v in vectors.values()}) == 1:  # else no close pairs anywhere (as locally)
        index = sorted(vectors)
        codes = dict(zip(index, hyperplane_codes(np.array([vectors[n] for n in index], dtype=float))[1].tolist()))
    for n, pr in enumerate(profiles):
        for band, code in enumerate(codes.get(n, [])):
            k = f"e{band}:{code}"
            out[block_partition(k, P)].append((k, pr.key, ""))
        own = acronym_keys(pr)
        initials = {i for f in pr.forms for i in (f.initials, f.short_initials, spelled_club_key(f),
                                                  *numbered_initials(f)) if i}
        keys = block_keys(pr, Corpus(), own | initials, _ALL_WORDS if broad else 0)
        if bands:
            keys.update(f"m{band}:{h}" for band, h in enumerate(bands[n]))
        for k in keys:
            tag = "a" if k.startswith("a:") and k[2:] in own else ""
            out[block_partition(k, P)].append((k, pr.key, tag))
    for b, part in enumerate(out):
        dump(part, folder / f"blocks-{p:04d}-{b:04d}.pkl")


# -- step 3: blocks of block partition b -> candidate pairs by pair partition -------------------------------

def block_candidates(b: int, cfg: Config, counts: CorpusCounts, folder: Path) -> int:
    """The candidate pairs of block partition ``b``'s blocks, sent to their pair partitions; returns how many
    blocks were too large to use."""
    P = cfg.runtime.graph_partitions
    members: dict[str, list[str]] = defaultdict(list)
    acronym_blocks: set[str] = set()
    for p in range(P):
        for k, node, tag in load(folder / f"blocks-{p:04d}-{b:04d}.pkl"):
            members[k].append(node)
            if tag:
                acronym_blocks.add(k)
    rare_below, max_block = rare_threshold(counts.nodes), cfg.graph.resolve.max_block
    df = {w: stats[0] for w, stats in word_stats((k[2:] for k in members if k.startswith("r:")), folder, P).items()}
    blocks = {k: sorted(ms) for k, ms in members.items()
              if not (k.startswith("a:") and k not in acronym_blocks)
              and not (k.startswith("r:") and df.get(k[2:], 0) >= rare_below) and not k.startswith("e")}
    pairs, skipped = block_pairs(blocks, max_block)
    close: set[Pair] = set()  # pairs of embeddings in one band: `blocking.vector_pairs`, block by block
    if counts.comparable_vectors:
        for k, ms in members.items():
            if k.startswith("e") and 2 <= len(ms) <= max_block:
                close.update(all_pairs(sorted(ms)))
    out: list[tuple[list[Pair], list[Pair]]] = [([], []) for _ in range(P)]
    for kind, found in enumerate((pairs, close)):
        for pair in found:
            out[edge_partition(pair, P)][kind].append(pair)
    for c, part in enumerate(out):
        dump(part, folder / f"pairs-{b:04d}-{c:04d}.pkl")
    return skipped


# -- step 4: pairs of pair partition c -> the pairs that can change the result -----------------------------

@attrs.define
class KeptPairs:
    """The candidate pairs of one pair partition that can change the result."""

    pairs: list[Pair]  # the rules' candidates, ascending
    similar: list[tuple[str, str, float]]  # pairs of close embeddings and their cosine
    owned: list[str]  # the nodes of those pairs that name an owned thing ("Ghost of Marley")


def pair_verdicts(c: int, cfg: Config, counts: CorpusCounts, folder: Path) -> tuple[int, int]:
    """Keep the distinct pairs of pair partition ``c`` that the rules call SAME or UNSURE or that name an owned
    thing (its verdict changes once owners are clustered), and the pairs of close embeddings with their
    cosine (`KeptPairs`); the others the rules call DIFFERENT are written as resolution.jsonl's lines of pairs
    kept apart (those of close embeddings are the batches' to write). Returns how many distinct candidate pairs
    there were, and how many were kept apart here."""
    P = cfg.runtime.graph_partitions
    pairs: set[Pair] = set()
    near: set[Pair] = set()
    for b in range(P):
        found, close = load(folder / f"pairs-{b:04d}-{c:04d}.pkl")
        pairs.update(found)
        near.update(close)
    tables = NodeTables(folder, P)
    try:
        rows = tables.found({k for pair in pairs | near for k in pair})
        row = rows.__getitem__
        words = corpus_words(r[1] for r in rows.values())
        evidence = Evidence(None, {}, corpus_of(words, counts.nodes, folder, tables))

        cosines = ((a, b, _cosine(row(a)[4], row(b)[4])) for a, b in sorted(near))
        similar = [(a, b, cosine) for a, b, cosine in cosines if cosine >= CLOSE_COSINE]
        close = {(a, b) for a, b, _ in similar} if method_of(cfg) == "llm" and cfg.graph.resolve.embeddings else set()
        kept, apart = [], []
        for a, b in sorted(pairs):
            pa, pb = row(a)[1], row(b)[1]
            if any(f.head for f in (*pa.forms, *pb.forms)) or (v := evidence.verdict(pa, pb)).kind in (SAME, UNSURE):
                kept.append((a, b))
            elif v.kind == DIFFERENT and (a, b) not in close:
                apart.append(apart_line(pa, pb, v.kind, v.rule, "rules"))
        named = {k for pair in kept for k in pair} | {k for a, b, _ in similar for k in (a, b)}
        owned = sorted(k for k in named if any(f.head for f in row(k)[1].forms))
    finally:
        tables.close()
    dump(KeptPairs(kept, similar, owned), folder / f"kept-{c:04d}.pkl")
    write_ordered(apart, folder / f"apart-{c:04d}.jsonl")
    return len(pairs | {(a, b) for a, b, _ in similar}), len(apart)


def _cosine(x: list[float], y: list[float]) -> float:
    """As `blocking.vector_pairs` computes it."""
    unit = [unit_rows(np.array([v], dtype=float))[0] for v in (x, y)]
    return float(unit[0] @ unit[1])
