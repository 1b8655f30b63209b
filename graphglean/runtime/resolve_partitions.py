"""Entity resolution on the partitioned merge (engine ray): the local resolver's decisions, made without
holding the graph in one process.

    edges by pair partition  ─► adjacency by node partition ─┐
    nodes by key partition   ─► node table (attributes, profile, degree, chunks) + block keys + corpus counts
    blocks by block partition ─► candidate pairs ─► pairs by pair partition ─► verdicts: the pairs that matter
    one task: `resolve.Resolver` over those pairs' nodes ─► merges (alias map, merge log)
    nodes by key partition ─► clusters combined under their kept key, finished (grounding, summaries)
                            + edges re-keyed by the alias map ─► by new pair partition ─► merged, finished

Every task holds about a partition's share of the graph; the resolve task holds only the nodes of pairs the
rules call SAME or UNSURE, or that name an owned thing (the others cannot change the result). Blocks, verdicts,
clusters, the merged nodes and the order rows are listed in are those of the local engine: the rows and
resolution.jsonl are the local run's.
"""

from __future__ import annotations

import heapq
import json
import pickle
import sqlite3
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any, Awaitable, Callable, Iterable, Iterator, Mapping

import attrs
import networkx as nx
import numpy as np
import trio

from ..atomic import atomic_open
from ..config import Config
from ..graph.blocking import (CLOSE_COSINE, all_pairs, block_keys, block_pairs, hyperplane_codes, minhash_bands,
                              minhash_text, rare_threshold)
from ..graph.combine import combined_node, merged_edge
from ..graph.evidence import SAME, UNSURE, Corpus, Evidence, Profile, profile_from
from ..graph.export import entity_rows, relationship_rows, write_jsonl
from ..graph.extract import GraphStats, finish_descriptions, finish_graph
from ..graph.merge import edge_attrs, node_attributes
from ..graph.resolve import PASS, AnswerMemo, ResolutionStats, Resolver, llm_tier, merged_groups, rule_clusters
from ..graph.resolve_llm import embed_profiles, mark_similar
from ..llm.accounting import CallAccount
from ..llm.client import ChatClient
from ..runstore import RunStore
from ..scheduler import Scheduler
from ..tokens import Tokenizer
from .partitions import ShardChunks, edge_partition, merge_edges, merge_nodes, names_of, node_partition

Pair = tuple[str, str]
Wave = Callable[[Callable[..., Awaitable[Any]], list[tuple[Any, ...]]], Awaitable[list[Any]]]
_ALL_WORDS = 1 << 62  # rare_below for collecting every rare-word key: the blocks are kept by the global counts


def embedded(cfg: Config) -> bool:
    """Whether nodes are embedded (as the local llm method does with ``embeddings``)."""
    return method_of(cfg) == "llm" and cfg.graph.resolve.embeddings


def llm_graph(cfg: Config) -> bool:
    """The graph is built with the LLM (so its long descriptions are summarized)."""
    return cfg.graph.method == "llm" or (cfg.graph.method == "auto" and cfg.llm.has_endpoint)


def method_of(cfg: Config) -> str:
    """rules or llm, as the local graph pass chooses (auto: llm when the graph is built with an endpoint)."""
    chosen = cfg.graph.resolve.method
    if chosen != "auto":
        return chosen
    return "llm" if llm_graph(cfg) and cfg.llm.has_endpoint else "rules"


def _dump(obj: Any, path: Path) -> None:
    with atomic_open(path, "wb") as f:
        pickle.dump(obj, f, protocol=pickle.HIGHEST_PROTOCOL)


def _load(path: Path) -> Any:
    # written by this run's own tasks in its output folder, trusted like run.sqlite
    with path.open("rb") as f:
        return pickle.load(f)


def block_partition(key: str, partitions: int) -> int:
    """A ``ws:`` block (a one-word name) lives with the ``wm:`` block of its word: they are read together."""
    return node_partition(key[3:] if key.startswith(("ws:", "wm:")) else key, partitions)


# -- the node table: what every later step reads about a node, by key ---------------------------------------

class NodeTables:
    """Rows of the node tables of every partition, read on demand: (attributes, profile, degree, chunk
    folders by chunk id, embedding or None)."""

    def __init__(self, folder: Path, partitions: int) -> None:
        self.folder, self.partitions = folder, partitions
        self._dbs: dict[int, sqlite3.Connection] = {}

    @staticmethod
    def path(folder: Path, p: int) -> Path:
        return folder / f"table-{p:04d}.sqlite"

    def _db(self, p: int) -> sqlite3.Connection:
        db = self._dbs.get(p)
        if db is None:
            db = self._dbs[p] = sqlite3.connect(self.path(self.folder, p), check_same_thread=False)
        return db

    def row(self, key: str) -> tuple[Any, ...]:
        found = self._db(node_partition(key, self.partitions)).execute(
            "SELECT value FROM nodes WHERE key = ?", (key,)).fetchone()
        if found is None:
            raise KeyError(key)
        return pickle.loads(found[0])

    def rows(self, p: int) -> Iterator[tuple[str, tuple[Any, ...]]]:
        """Partition ``p``'s rows in key order."""
        for key, value in self._db(p).execute("SELECT key, value FROM nodes ORDER BY key"):
            yield key, pickle.loads(value)

    def close(self) -> None:
        for db in self._dbs.values():
            db.close()


def _write_table(path: Path, rows: Iterable[tuple[str, Any]]) -> None:
    path.unlink(missing_ok=True)
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE nodes (key TEXT PRIMARY KEY, value BLOB)")
    db.executemany("INSERT INTO nodes VALUES (?, ?)",
                   ((k, pickle.dumps(v, protocol=pickle.HIGHEST_PROTOCOL)) for k, v in rows))
    db.commit()
    db.close()


class _Degrees:
    """A node's number of neighbours (`Corpus.degree`), read from the node tables."""

    def __init__(self, tables: NodeTables) -> None:
        self.tables, self.known = tables, {}

    def get(self, key: str, default: int = 0) -> int:
        if key not in self.known:
            try:
                self.known[key] = len(self.tables.row(key)[1].neighbours)
            except KeyError:
                self.known[key] = default
        return self.known[key]


class TableFacts:
    """`resolve.NodeFacts` from the node tables."""

    def __init__(self, tables: NodeTables) -> None:
        self.tables = tables
        self._rows: dict[str, Any] = {}

    def _row(self, key: str) -> Any:
        if key not in self._rows:
            self._rows[key] = self.tables.row(key)
        return self._rows[key]

    def data(self, node: str) -> Mapping[str, Any]:
        return self._row(node)[0]

    def related(self, node: str) -> list[str]:
        # a graph lists neighbours in key order: the sort by degree keeps it among equals
        best = sorted(sorted(self._row(node)[1].neighbours), key=lambda n: -self._row(n)[2])[:4]
        return [str(self._row(n)[0].get("name") or n) for n in best]


# -- step 1: edges of pair partition q -> adjacency by node partition ---------------------------------------

def adjacency(shard_dirs: list[Path], q: int, cfg: Config, folder: Path) -> None:
    """Merge pair partition ``q``'s edges (kept for the re-keying) and send each node partition its nodes'
    neighbours (the graph's ``neighbors``: successors when directed) and degrees."""
    P, directed = cfg.runtime.graph_partitions, cfg.graph.directed
    acc = merge_edges(shard_dirs, q, directed)
    _dump([(pair, edge_attrs(acc.edges[pair])) for pair in sorted(acc.edges)], folder / f"edges-{q:04d}.pkl")
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
        _dump(part, folder / f"adj-{q:04d}-{p:04d}.pkl")


# -- step 2: nodes of key partition p -> node table, block keys, corpus counts ------------------------------

@attrs.define
class CorpusCounts:
    """The graph-wide statistics of `evidence.Corpus`, summed over partitions (the degrees stay in the tables)."""

    nodes: int = 0
    df: Counter[str] = attrs.field(factory=Counter)
    lowercase: set[str] = attrs.field(factory=set)
    person_words: set[str] = attrs.field(factory=set)
    vectors: int = 0  # nodes embedded, and the lengths of their embeddings: pairs of close embeddings are
    dims: set[int] = attrs.field(factory=set)  # looked for only among two or more of one length (as locally)

    @property
    def comparable_vectors(self) -> bool:
        return self.vectors >= 2 and len(self.dims) == 1

    def add(self, other: "CorpusCounts") -> "CorpusCounts":
        self.nodes += other.nodes
        self.vectors += other.vectors
        self.dims |= other.dims
        self.df.update(other.df)
        self.lowercase |= other.lowercase
        self.person_words |= other.person_words
        return self

    def corpus(self, tables: NodeTables) -> Corpus:
        degrees: Any = _Degrees(tables)  # read as Corpus.degree is: .get(key, 0)
        return Corpus(self.nodes, self.df, self.lowercase, self.person_words, degrees)


async def node_table(shard_dirs: list[Path], p: int, cfg: Config, folder: Path,
                     scheduler: Scheduler | None) -> CorpusCounts:
    """Merge key partition ``p``'s nodes; write their table rows and their block keys by block partition. With
    a ``scheduler`` the nodes are embedded too."""
    P, broad = cfg.runtime.graph_partitions, method_of(cfg) == "llm"
    acc, where = merge_nodes(shard_dirs, p, cfg.graph.directed)
    neighbours: dict[str, list[Any]] = {}
    for q in range(P):
        for node, (nbrs, degree) in _load(folder / f"adj-{q:04d}-{p:04d}.pkl").items():
            mine = neighbours.setdefault(node, [[], 0])
            mine[0] += nbrs
            mine[1] += degree
    keys = sorted(acc.nodes)
    datas = [node_attributes(acc.nodes[key]) for key in keys]
    profiles = [profile_from(key, data, neighbours.get(key, [[], 0])[0]) for key, data in zip(keys, datas)]
    vectors = await embed_profiles(profiles, scheduler) if scheduler is not None else {}
    _write_table(NodeTables.path(folder, p), (
        (key, (data, profile, neighbours.get(key, [[], 0])[1],
               {c: str(where[c]) for c in data["source_ids"] if c in where}, vectors.get(n)))
        for n, (key, data, profile) in enumerate(zip(keys, datas, profiles))))
    corpus = Corpus.of(None, profiles)
    _write_blocks(profiles, vectors, broad, P, folder, p)
    return CorpusCounts(corpus.documents, corpus.df, corpus.lowercase, corpus.person_words, len(vectors),
                        {len(v) for v in vectors.values()})


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
        own = {f.acronym for f in pr.forms if f.acronym}
        initials = {f.initials for f in pr.forms if f.initials}
        keys = block_keys(pr, Corpus(), own | initials, _ALL_WORDS if broad else 0)
        if bands:
            keys.update(f"m{band}:{h}" for band, h in enumerate(bands[n]))
        for k in keys:
            tag = "a" if k.startswith("a:") and k[2:] in own else ""
            out[block_partition(k, P)].append((k, pr.key, tag))
    for b, part in enumerate(out):
        _dump(part, folder / f"blocks-{p:04d}-{b:04d}.pkl")


# -- step 3: blocks of block partition b -> candidate pairs by pair partition -------------------------------

def block_candidates(b: int, cfg: Config, counts: CorpusCounts, folder: Path) -> int:
    """The candidate pairs of block partition ``b``'s blocks, sent to their pair partitions; returns how many
    blocks were too large to use."""
    P = cfg.runtime.graph_partitions
    members: dict[str, list[str]] = defaultdict(list)
    acronym_blocks: set[str] = set()
    for p in range(P):
        for k, node, tag in _load(folder / f"blocks-{p:04d}-{b:04d}.pkl"):
            members[k].append(node)
            if tag:
                acronym_blocks.add(k)
    rare_below, max_block = rare_threshold(counts.nodes), cfg.graph.resolve.max_block
    blocks = {k: sorted(ms) for k, ms in members.items()
              if not (k.startswith("a:") and k not in acronym_blocks)
              and not (k.startswith("r:") and counts.df.get(k[2:], 0) >= rare_below) and not k.startswith("e")}
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
        _dump(part, folder / f"pairs-{b:04d}-{c:04d}.pkl")
    return skipped


# -- step 4: pairs of pair partition c -> the pairs that can change the result -----------------------------

def pair_verdicts(c: int, cfg: Config, counts: CorpusCounts, folder: Path) -> int:
    """Keep the distinct pairs of pair partition ``c`` that the rules call SAME or UNSURE or that name an owned
    thing (its verdict changes once owners are clustered), and the pairs of close embeddings with their
    cosine; returns how many distinct candidate pairs there were."""
    P = cfg.runtime.graph_partitions
    pairs: set[Pair] = set()
    near: set[Pair] = set()
    for b in range(P):
        found, close = _load(folder / f"pairs-{b:04d}-{c:04d}.pkl")
        pairs.update(found)
        near.update(close)
    tables = NodeTables(folder, P)
    try:
        evidence = Evidence(None, {}, counts.corpus(tables))
        rows: dict[str, Any] = {}

        def row(key: str) -> Any:
            if key not in rows:
                rows[key] = tables.row(key)
            return rows[key]

        kept = []
        for a, b in sorted(pairs):
            pa, pb = row(a)[1], row(b)[1]
            if any(f.head for f in (*pa.forms, *pb.forms)) or evidence.verdict(pa, pb).kind in (SAME, UNSURE):
                kept.append((a, b))
        cosines = ((a, b, _cosine(row(a)[4], row(b)[4])) for a, b in sorted(near))
        similar = [(a, b, cosine) for a, b, cosine in cosines if cosine >= CLOSE_COSINE]
    finally:
        tables.close()
    _dump((kept, similar), folder / f"kept-{c:04d}.pkl")
    return len(pairs | {(a, b) for a, b, _ in similar})


def _cosine(x: list[float], y: list[float]) -> float:
    """As `blocking.vector_pairs` computes it."""
    unit = [hyperplane_codes(np.array([v], dtype=float))[0][0] for v in (x, y)]
    return float(unit[0] @ unit[1])


# -- step 5: one task decides the merges ------------------------------------------------------------------

@attrs.define
class Decisions:
    """What the re-keying needs: each merged node's kept key, and each kept key's members (most informative
    first) and rank (its smallest member: where the local engine lists the merged node)."""

    alias: dict[str, str] = attrs.field(factory=dict)
    members: dict[str, list[str]] = attrs.field(factory=dict)
    rank: dict[str, str] = attrs.field(factory=dict)


async def decide(cfg: Config, counts: CorpusCounts, pair_count: int, skipped: int, folder: Path,
                 scheduler: Scheduler | None, memo: AnswerMemo) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The local resolver over the kept pairs; writes the `Decisions`, returns the merge log and the stats."""
    P, rc, method = cfg.runtime.graph_partitions, cfg.graph.resolve, method_of(cfg)
    parts = [_load(folder / f"kept-{c:04d}.pkl") for c in range(P)]
    kept = sorted(pair for found, _ in parts for pair in found)
    similar = [close for _, found in parts for close in found]
    nodes = sorted({k for pair in kept for k in pair} | {k for a, b, _ in similar for k in (a, b)})
    index = {k: i for i, k in enumerate(nodes)}
    pairs = [(index[a], index[b]) for a, b in kept]
    tables = NodeTables(folder, P)
    try:
        stats = ResolutionStats(method=method, entities_before=counts.nodes, candidate_pairs=pair_count,
                                skipped_blocks=skipped)
        r = Resolver(nodes, [tables.row(k)[1] for k in nodes], counts.corpus(tables), TableFacts(tables))
        clusters, log = await trio.to_thread.run_sync(rule_clusters, r, pairs, stats)
        if method == "llm" and scheduler is not None:
            if rc.embeddings:
                close = mark_similar(r, sorted((index[a], index[b], cosine) for a, b, cosine in similar))
                pairs = sorted(set(pairs) | close)
            await llm_tier(r, clusters, pairs, log, scheduler, rc, memo, stats, cfg.llm.max_tokens)
        groups = merged_groups(r, clusters, log)
    finally:
        tables.close()
    decisions = Decisions()
    for group in groups:
        decisions.alias.update((m, group[0]) for m in group)
        decisions.members[group[0]] = group
        decisions.rank[group[0]] = min(group)
    stats.entities_after = counts.nodes - sum(len(g) - 1 for g in groups)
    _dump(decisions, folder / "decisions.pkl")
    return log, attrs.asdict(stats)


# -- step 6: nodes of key partition p combined and finished; edges of pair partition p re-keyed --------------

async def finish_nodes(p: int, cfg: Config, folder: Path, merge_dir: Path, scheduler: Scheduler | None,
                       tokenizer: Tokenizer, stats: GraphStats) -> None:
    """The nodes whose kept key is in partition ``p``: each cluster combined as the local engine combines it,
    then grounded and summarized; rows (with their rank) in rank order, names and dropped keys as
    `partitions` writes them. Then pair partition ``p``'s edges re-keyed to their new pair partitions."""
    P = cfg.runtime.graph_partitions
    decisions: Decisions = _load(folder / "decisions.pkl")
    tables = NodeTables(folder, P)
    graph: nx.Graph = nx.DiGraph() if cfg.graph.directed else nx.Graph()
    where: dict[str, Path] = {}
    try:
        combined = []
        for key, row in tables.rows(p):
            kept = decisions.alias.get(key, key)
            if kept != key:
                continue  # merged into a node kept elsewhere (or later in this partition)
            rows = [tables.row(m) for m in decisions.members[key]] if key in decisions.members else [row]
            members = decisions.members.get(key, [key])
            for r in rows:
                where.update((c, Path(f)) for c, f in r[3].items())
            node = combined_node(members, [r[0] for r in rows], [r[1].name for r in rows])
            combined.append((decisions.rank.get(key, key), key, node))
    finally:
        tables.close()
    graph.add_nodes_from((key, data) for _, key, data in sorted(combined, key=lambda t: t[0]))
    chunks = ShardChunks(where)
    try:
        before = set(graph.nodes)
        await finish_graph(graph, chunks, cfg, scheduler, tokenizer, stats, offline=scheduler is None)
    finally:
        chunks.close()
    rank = {n: decisions.rank.get(n, n) for n in graph.nodes}
    _write_ordered([(rank[row["id"]], row) for row in entity_rows(graph)], merge_dir / f"nodes-{p:04d}.jsonl")
    write_jsonl([{"id": n, "name": d.get("name", n)} for n, d in graph.nodes(data=True)],
                merge_dir / f"names-{p:04d}.jsonl")
    (merge_dir / f"dropped-{p:04d}.json").write_text(json.dumps(sorted(before - set(graph.nodes)),
                                                               ensure_ascii=False), encoding="utf-8")
    _rekey_edges(p, decisions, cfg, folder)


def new_pair(a: str, b: str, decisions: Decisions, directed: bool) -> tuple[str, str] | None:
    """Edge (a, b) between the kept nodes, as the local engine reports it (an undirected edge from its
    endpoint listed first); None for a self-loop only the merge made."""
    ca, cb = decisions.alias.get(a, a), decisions.alias.get(b, b)
    if ca == cb and a != b:
        return None
    if directed or decisions.rank.get(ca, ca) <= decisions.rank.get(cb, cb):
        return ca, cb
    return cb, ca


def _rekey_edges(q: int, decisions: Decisions, cfg: Config, folder: Path) -> None:
    P = cfg.runtime.graph_partitions
    out: list[list[Any]] = [[] for _ in range(P)]
    for (a, b), data in _load(folder / f"edges-{q:04d}.pkl"):
        pair = new_pair(a, b, decisions, cfg.graph.directed)
        if pair is not None:
            out[edge_partition(pair, P)].append((pair, (a, b), data))
    for r, part in enumerate(out):
        _dump(part, folder / f"rekeyed-{q:04d}-{r:04d}.pkl")


# -- step 7: edges of new pair partition r merged and finished --------------------------------------------

def merged_edges(entries: Iterable[tuple[Pair, Pair, dict[str, Any]]],
                 rank: Callable[[str], str]) -> list[tuple[tuple[str, str, str], Pair, dict[str, Any]]]:
    """Re-keyed edges merged in the order the local graph lists the original edges (pair order); each with
    its place in the local graph's edge order: (rank of its first endpoint, first original pair)."""
    merged: dict[Pair, list[Any]] = {}
    for pair, original, data in sorted(entries, key=lambda e: e[1]):
        if pair in merged:
            merged[pair][1] = merged_edge(merged[pair][1], data)
        else:
            merged[pair] = [original, dict(data)]
    return sorted(((rank(pair[0]), *first), pair, data) for pair, (first, data) in merged.items())


async def finish_edges(r: int, cfg: Config, folder: Path, merge_dir: Path, scheduler: Scheduler | None,
                       tokenizer: Tokenizer, stats: GraphStats) -> None:
    P = cfg.runtime.graph_partitions
    decisions: Decisions = _load(folder / "decisions.pkl")
    rank = lambda n: decisions.rank.get(n, n)  # noqa: E731
    entries = [e for q in range(P) for e in _load(folder / f"rekeyed-{q:04d}-{r:04d}.pkl")]
    edges = merged_edges(entries, rank)
    dropped: set[str] = set()
    for q in range(P):
        dropped.update(json.loads((merge_dir / f"dropped-{q:04d}.json").read_text(encoding="utf-8")))
    graph: nx.Graph = nx.DiGraph() if cfg.graph.directed else nx.Graph()
    # nodes in the local graph's order, edges in its edge order: so each is reported as the local graph does
    graph.add_nodes_from(sorted({n for _, pair, _ in edges for n in pair}, key=rank))
    graph.add_edges_from((a, b, data) for _, (a, b), data in edges)
    graph.remove_nodes_from([n for n in list(graph.nodes) if n in dropped])
    if scheduler is not None and graph.number_of_edges():
        for key, name in names_of(merge_dir, P)(set(graph.nodes)).items():
            graph.nodes[key]["name"] = name
    await finish_descriptions(graph, cfg, scheduler, tokenizer, stats, offline=scheduler is None)
    place = {pair: order for order, pair, _ in edges}
    _write_ordered([(place[(row["source"], row["target"])], row) for row in relationship_rows(graph)],
                   merge_dir / f"edges-{r:04d}.jsonl")


# -- the tables ---------------------------------------------------------------------------------------------

def _write_ordered(rows: list[tuple[Any, dict[str, Any]]], path: Path) -> None:
    with atomic_open(path) as f:
        for order, row in sorted(rows, key=lambda t: t[0]):
            f.write(json.dumps([order, row], ensure_ascii=False) + "\n")


def _ordered(path: Path) -> Iterator[tuple[Any, dict[str, Any]]]:
    with path.open(encoding="utf-8") as f:
        for line in f:
            order, row = json.loads(line)
            yield order, row


def ordered_table(paths: list[Path], out: Path) -> int:
    """The partitions' rows merged in the local graph's order (streaming); returns the row count."""
    count = 0
    with atomic_open(out) as f:
        for _, row in heapq.merge(*(_ordered(p) for p in paths), key=lambda t: t[0]):
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
            count += 1
    return count


# -- the steps as tasks, and the driver ---------------------------------------------------------------------
# Each task is ``work(*args, limiter)`` run under trio in a Ray worker (`ray_engine.stage_main`); ``limiter``
# is the worker's share of the global rate limit, used by the steps that call the LLM.

async def adjacency_task(dirs: list[str], q: int, cfg: Config, folder: str, limiter: Any) -> None:
    adjacency([Path(d) for d in dirs], q, cfg, Path(folder))


async def node_table_task(dirs: list[str], p: int, cfg: Config, folder: str,
                          limiter: Any) -> tuple[CorpusCounts, CallAccount]:
    async def work(scheduler: Scheduler | None) -> CorpusCounts:
        return await node_table([Path(d) for d in dirs], p, cfg, Path(folder), scheduler)

    return await _with_client(cfg, limiter, embedded(cfg), work)


async def _with_client(cfg: Config, limiter: Any, needed: bool,
                       work: Callable[[Scheduler | None], Awaitable[Any]]) -> tuple[Any, CallAccount]:
    """``work`` given a scheduler of its own when ``needed``; its result and the calls it made."""
    account = CallAccount()
    if not needed:
        return await work(None), account
    async with ChatClient.from_config(cfg.llm, count_tokens=Tokenizer(cfg.llm.model).count,
                                      limiter=limiter) as client:
        scheduler = Scheduler(client, fail_fast=cfg.fail_fast)
        result = await work(scheduler)
        for acc in scheduler.accounts.values():
            account.add(acc)
        return result, account


async def blocks_task(b: int, cfg: Config, counts: CorpusCounts, folder: str, limiter: Any) -> int:
    return block_candidates(b, cfg, counts, Path(folder))


async def pairs_task(c: int, cfg: Config, counts: CorpusCounts, folder: str, limiter: Any) -> int:
    return pair_verdicts(c, cfg, counts, Path(folder))


async def decide_task(cfg: Config, counts: CorpusCounts, pair_count: int, skipped: int, folder: str, store_dir: str,
                      limiter: Any) -> tuple[list[dict[str, Any]], dict[str, Any], CallAccount]:
    """`decide`, with a client of its own for the llm method; its answers are kept in a run store of the
    run's (``store_dir``), so a re-run asks nothing twice even with the response cache off."""
    store = RunStore(store_dir)

    async def save(key: str, answer: str) -> None:
        await store.save(PASS, key, answer)

    memo = AnswerMemo(store.load(PASS), save)
    try:
        (log, stats), account = await _with_client(
            cfg, limiter, method_of(cfg) == "llm",
            lambda scheduler: decide(cfg, counts, pair_count, skipped, Path(folder), scheduler, memo))
        return log, stats, account
    finally:
        store.close()


async def finish_task(finish: Callable[..., Awaitable[None]], p: int, cfg: Config, folder: str, merge_dir: str,
                      limiter: Any) -> tuple[dict[str, int], CallAccount]:
    """``finish`` (`finish_nodes` or `finish_edges`) of partition ``p``: the counts it adds, and its calls."""
    stats = GraphStats()

    async def work(scheduler: Scheduler | None) -> None:
        await finish(p, cfg, Path(folder), Path(merge_dir), scheduler, Tokenizer(cfg.llm.model), stats)

    _, account = await _with_client(cfg, limiter, llm_graph(cfg), work)
    return {"ungrounded": stats.ungrounded, "summarized_descriptions": stats.summarized_descriptions}, account


@attrs.define
class ResolvedMerge:
    found: dict[str, int]  # ungrounded, summarized_descriptions
    account: CallAccount  # the LLM calls of the merge (summaries, resolution)
    stats: dict[str, Any]  # `ResolutionStats`
    nodes: int = 0
    edges: int = 0


async def resolved_merge(wave: Wave, shard_dirs: list[Path], cfg: Config, merge_dir: Path, out: Path,
                         store_dir: Path) -> ResolvedMerge:
    """The partitioned merge with entity resolution: writes entities.jsonl, relationships.jsonl and
    resolution.jsonl into ``out`` (the local engine's files). ``wave(work, argsets)`` runs one task per
    argument set and returns their results in order."""
    P = cfg.runtime.graph_partitions
    folder = merge_dir / "resolve"
    folder.mkdir(parents=True, exist_ok=True)
    dirs, f, m = [str(d) for d in shard_dirs], str(folder), str(merge_dir)
    await wave(adjacency_task, [(dirs, q, cfg, f) for q in range(P)])
    counts, account = CorpusCounts(), CallAccount()
    for part, calls in await wave(node_table_task, [(dirs, p, cfg, f) for p in range(P)]):
        counts.add(part)
        account.add(calls)
    skipped = sum(await wave(blocks_task, [(b, cfg, counts, f) for b in range(P)]))
    pair_count = sum(await wave(pairs_task, [(c, cfg, counts, f) for c in range(P)]))
    [(log, stats, calls)] = await wave(decide_task, [(cfg, counts, pair_count, skipped, f, str(store_dir))])
    account.add(calls)
    write_jsonl(log, out / "resolution.jsonl")
    result = ResolvedMerge({"ungrounded": 0, "summarized_descriptions": 0}, account, stats)
    for finish in (finish_nodes, finish_edges):  # edges need every node partition's names and dropped keys
        for found, acc in await wave(finish_task, [(finish, p, cfg, f, m) for p in range(P)]):
            result.account.add(acc)
            for k, v in found.items():
                result.found[k] += v
    result.nodes = ordered_table([merge_dir / f"nodes-{p:04d}.jsonl" for p in range(P)], out / "entities.jsonl")
    result.edges = ordered_table([merge_dir / f"edges-{p:04d}.jsonl" for p in range(P)],
                                 out / "relationships.jsonl")
    return result
