"""The graph merged by key partition: node key ``crc32(key) mod P``, edge ``crc32(pair) mod P``.

Each shard splits its merged records (a `GraphAccumulator`) into P parts, sections of one file. Partition p is
then finished alone, with the local engine's own merge, description summaries and grounding: first its nodes (which
fixes their display names), then its edges (whose summaries name their endpoints). Every partition's rows
come out sorted by key, so the whole tables are a streaming merge of the partitions' files and equal the
local engine's row for row. Memory per partition task is about the graph's size / P.
"""

from __future__ import annotations

import contextlib
import gc
import heapq
import json
import sqlite3
import zlib
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping

import networkx as nx

from ...core.atomic import atomic_open
from ...core.config import Config
from ...core.tokens import Tokenizer
from ...graph.building.describe import within_budget
from ...graph.building.grounding import Placed
from ...graph.building.merge import GraphAccumulator, edge_attrs
from ...graph.extract import GraphStats, finish_descriptions, finish_graph
from ...graph.communities.network import Network, edge_info, node_info
from ...graph.formats.export import entity_rows
from ...scheduling.scheduler import Scheduler
from ...text.chunking import Chunk
from .json_rows import write_rows
from .stage_files import dump, dump_sections, load, load_section, read_only

PARTS = "graph-parts"
PARTS_FILE = "parts.pkl"
Edge = tuple[str, str, dict[str, Any]]
CHUNKS = "chunks.sqlite"


def _crc(text: str) -> int:
    return zlib.crc32(text.encode("utf-8", "surrogatepass"))


def node_partition(key: str, partitions: int) -> int:
    return _crc(key) % partitions


def edge_partition(pair: tuple[str, str], partitions: int) -> int:
    return _crc(pair[0] + "\x00" + pair[1]) % partitions


def split(acc: GraphAccumulator, partitions: int) -> list[GraphAccumulator]:
    """``acc`` cut into ``partitions`` accumulators by key; merging them all gives ``acc`` back."""
    parts = [GraphAccumulator(acc.directed) for _ in range(partitions)]
    for key, node in acc.nodes.items():
        parts[node_partition(key, partitions)].nodes[key] = node
    for pair, edge in acc.edges.items():
        parts[edge_partition(pair, partitions)].edges[pair] = edge
    return parts


def part_path(shard_dir: Path, partition: int, kind: str) -> Path:
    """The file of a shard's nodes (``kind`` "nodes") or edges ("edges") of one partition, as versions before
    `PARTS_FILE` wrote them."""
    return shard_dir / PARTS / f"{partition:04d}.{kind}.pkl"


def write_parts(acc: GraphAccumulator, partitions: int, shard_dir: Path) -> None:
    """The shard's nodes and edges of each partition, apart (a node partition's task reads no edges and an
    edge partition's no nodes), in one file of sections: a file each was two syncs a partition and shard."""
    def sections() -> Iterator[GraphAccumulator]:  # partition p's nodes are section 2p, its edges 2p + 1
        for part in split(acc, partitions):
            yield GraphAccumulator(acc.directed, nodes=part.nodes)
            yield GraphAccumulator(acc.directed, edges=part.edges)
    dump_sections(sections(), shard_dir / PARTS / PARTS_FILE)


def read_part(shard_dir: Path, partition: int, kind: str) -> GraphAccumulator:
    """The shard's nodes or edges of one partition (or an earlier version's file of them, or of both)."""
    whole = shard_dir / PARTS / PARTS_FILE
    # written by this package's own shard tasks in the run's output folder, which is trusted like run.sqlite
    with _collector_paused():
        if whole.exists():
            return load_section(whole, 2 * partition + (kind == "edges"))
        path = part_path(shard_dir, partition, kind)
        if not path.exists() and (shard_dir / PARTS / f"{partition:04d}.pkl").exists():
            path = shard_dir / PARTS / f"{partition:04d}.pkl"
        return load(path)


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """No garbage collection in the block (in the whole process, its other threads too): a part unpickles into
    hundreds of thousands of containers, none in a cycle, and the collections their allocation set off walked
    them again and again (half of the load's CPU)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def write_chunks(chunks: list[Chunk], shard_dir: Path) -> None:
    """The shard's chunks, by id, for grounding the merged nodes."""
    path = shard_dir / CHUNKS
    path.unlink(missing_ok=True)
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE chunks (id TEXT PRIMARY KEY, doc_id TEXT, idx INT, text TEXT, start INT, end_ INT, "
               "tokens INT)")
    db.executemany("INSERT OR REPLACE INTO chunks VALUES (?, ?, ?, ?, ?, ?, ?)",
                   ((c.id, c.doc_id, c.index, c.text, c.start, c.end, c.tokens) for c in chunks))
    db.commit()
    db.close()


def read_chunks(shard_dir: Path) -> list[Chunk]:
    """The shard's chunks in the order it wrote them (the order of the input)."""
    db = sqlite3.connect(shard_dir / CHUNKS)
    try:
        try:
            rows = db.execute("SELECT id, doc_id, idx, text, start, end_, tokens FROM chunks ORDER BY rowid").fetchall()
        except sqlite3.OperationalError:  # written by an earlier version, without the token counts
            rows = [(*r, 0) for r in db.execute("SELECT id, doc_id, idx, text, start, end_ FROM chunks ORDER BY rowid")]
    finally:
        db.close()
    return [Chunk(*row) for row in rows]


class ShardChunks(Mapping[str, Chunk]):
    """Chunks read on demand from the shards that hold them (``where``: chunk id -> shard folder)."""

    def __init__(self, where: dict[str, Path]) -> None:
        self.where = where
        self._dbs: dict[Path, sqlite3.Connection] = {}

    def __getitem__(self, cid: str) -> Chunk:
        db = self._db(self.where[cid])
        row = db.execute("SELECT doc_id, idx, text, start, end_ FROM chunks WHERE id = ?", (cid,)).fetchone()
        if row is None:
            raise KeyError(cid)
        return Chunk(cid, row[0], row[1], row[2], row[3], row[4], 0)

    def get_many(self, ids: Iterable[str]) -> dict[str, Placed]:
        """The texts of the chunks of ``ids`` that are known (what echo removal asks)."""
        found: dict[str, Placed] = {}
        for texts in self.by_store(ids):
            found.update(texts)
        return found

    def by_store(self, ids: Iterable[str]) -> Iterator[dict[str, Placed]]:
        """The texts of the chunks of ``ids`` that are known, one shard at a time: each shard is asked once, in
        statements of 500 ids (what grounding asks)."""
        by_folder: dict[Any, list[str]] = {}
        where = self.where.get
        for cid in ids:
            folder = where(cid)
            if folder is not None:
                cids = by_folder.get(folder)
                if cids is None:
                    by_folder[folder] = [cid]
                else:
                    cids.append(cid)
        for folder, cids in by_folder.items():
            db = self._db(folder)
            cids.sort()  # ids in index order: SQLite's lookups walk the index forward
            found: dict[str, Placed] = {}
            for start in range(0, len(cids), 500):  # SQLite caps the parameters of one statement
                part = cids[start:start + 500]
                rows = db.execute(f"SELECT id, text, start FROM chunks WHERE id IN ({','.join('?' * len(part))})",
                                  part).fetchall()
                found.update({cid: Placed(text, at) for cid, text, at in rows})
            yield found

    def __iter__(self) -> Iterator[str]:
        return iter(self.where)

    def __len__(self) -> int:
        return len(self.where)

    def _db(self, folder: Path) -> sqlite3.Connection:
        db = self._dbs.get(folder)
        if db is None:
            db = self._dbs[folder] = read_only(folder / CHUNKS)  # grounding reads in a worker thread
        return db

    def close(self) -> None:
        for db in self._dbs.values():
            db.close()


def merge_nodes(shard_dirs: Iterable[Path], partition: int,
                directed: bool) -> tuple[GraphAccumulator, dict[str, Path]]:
    """The nodes of one partition merged over every shard, and which shard holds each of their chunks."""
    acc, where = GraphAccumulator(directed), {}
    for folder in shard_dirs:
        part = read_part(folder, partition, "nodes")
        part.edges = {}
        for node in part.nodes.values():
            where.update(dict.fromkeys(node.sources, folder))
        acc.absorb(part)
    return acc, where


def merge_edges(shard_dirs: Iterable[Path], partition: int, directed: bool) -> GraphAccumulator:
    acc = GraphAccumulator(directed)
    for folder in shard_dirs:
        part = read_part(folder, partition, "edges")
        part.nodes = {}
        acc.absorb(part)
    return acc


async def finish_nodes(acc: GraphAccumulator, chunks: Mapping[str, Chunk], cfg: Config, scheduler: Scheduler | None,
                       tokenizer: Tokenizer, stats: GraphStats) -> tuple[nx.Graph, set[str]]:
    """The partition's nodes as the local engine finishes them; returns them and the keys dropped. The engine
    gives a ``scheduler`` only to the LLM method: None = the offline method."""
    graph = GraphAccumulator(acc.directed, nodes=acc.nodes).to_graph()
    await finish_graph(graph, chunks, cfg, scheduler, tokenizer, stats, offline=scheduler is None)
    return graph, set(acc.nodes) - set(graph.nodes)


async def finish_edges(acc: GraphAccumulator, names: Callable[[set[str]], dict[str, str]],
                       kept: Callable[[list[Edge]], list[Edge]], cfg: Config, scheduler: Scheduler | None,
                       tokenizer: Tokenizer, stats: GraphStats) -> list[dict[str, Any]]:
    """The partition's relationship rows: the edges ``kept`` (those of dropped nodes removed, held to the
    schema: `schema_parts.schema_edges`), long descriptions finished (`finish_edge_descriptions`), in key order:
    the order, and for an undirected edge the endpoint it is reported from, of the local graph (whose nodes are
    added in key order, then its edges in pair order)."""
    edges = kept([(a, b, edge_attrs(acc.edges[a, b])) for a, b in sorted(acc.edges)])
    await finish_edge_descriptions(edges, names, cfg, scheduler, tokenizer, stats)
    flag = {"directed": True} if cfg.graph.directed else {}  # as `relationship_rows` writes them
    return [{"source": a, "target": b, **flag, **data} for a, b, data in edges]


async def finish_edge_descriptions(edges: list[tuple[str, str, dict[str, Any]]],
                                   names: Callable[[set[str]], dict[str, str]], cfg: Config,
                                   scheduler: Scheduler | None, tokenizer: Tokenizer, stats: GraphStats,
                                   node_order: Callable[[str], Any] | None = None) -> None:
    """Finish the descriptions of ``edges`` (their data changed in place) as the local engine does: long ones
    summarized when a ``scheduler`` is given (``names`` gives their endpoints' display names, which live in
    other partitions), else the offline method's quotes cut to the budget. Only the edges whose descriptions
    may exceed the budget take part: a graph of those alone, its nodes in the local graph's order
    (``node_order``, a sort key; None: key order) and its edges in the order of ``edges`` (the local graph's),
    lists them as the whole graph would."""
    budget = cfg.graph.description_max_tokens
    longer = [(a, b, data) for a, b, data in edges if not within_budget(data["descriptions"], budget)]
    if not longer:
        return
    graph: nx.Graph = nx.DiGraph() if cfg.graph.directed else nx.Graph()
    graph.add_nodes_from(sorted({k for a, b, _ in longer for k in (a, b)}, key=node_order))
    graph.add_edges_from(longer)
    if scheduler is not None:
        for key, name in names(set(graph.nodes)).items():
            graph.nodes[key]["name"] = name
    await finish_descriptions(graph, cfg, scheduler, tokenizer, stats, offline=scheduler is None)
    for a, b, data in longer:
        data.update(graph.edges[a, b])


def write_node_rows(graph: nx.Graph, folder: Path, partition: int) -> None:
    """The partition's entity rows, their display names and types (`name_rows`), and what clustering reads of
    them (`network_part`)."""
    rows = entity_rows(graph)
    write_rows(rows, folder / f"nodes-{partition:04d}.jsonl")
    write_rows(name_rows(graph), folder / f"names-{partition:04d}.jsonl")
    dump([(row["id"], node_info(row)) for row in rows], network_part(folder, partition, "nodes"))


def name_rows(graph: nx.Graph) -> Iterator[dict[str, Any]]:
    """What edges read of the finished nodes of another partition: display name and type."""
    return ({"id": n, "name": d.get("name", n), "type": d.get("type") or ""} for n, d in graph.nodes(data=True))


def write_edge_rows(rows: list[dict[str, Any]], folder: Path, partition: int) -> None:
    write_rows(rows, folder / f"edges-{partition:04d}.jsonl")
    dump([edge_info(row) for row in rows], network_part(folder, partition, "edges"))


def network_part(folder: Path, partition: int, kind: str) -> Path:
    """The file of a partition's nodes or edges as clustering reads them (`graph.communities.network`): what the
    communities' task loads instead of decoding every row of the tables."""
    return folder / f"{kind}-{partition:04d}.network.pkl"


def network_of_parts(folder: Path, partitions: int, directed: bool) -> Network | None:
    """The whole graph's `Network` from its partitions' files, in the tables' order (None: a partition has none,
    as after entity resolution, whose steps write the tables their own way)."""
    paths = [[network_part(folder, p, kind) for p in range(partitions)] for kind in ("nodes", "edges")]
    if not all(p.exists() for kind in paths for p in kind):
        return None
    nodes = dict(heapq.merge(*(load(p) for p in paths[0]), key=lambda n: n[0]))
    edges = list(heapq.merge(*(load(p) for p in paths[1]), key=lambda e: (e[0], e[1])))
    return Network(nodes, edges, directed)


def names_of(folder: Path, partitions: int, field: str = "name") -> Callable[[set[str]], dict[str, str]]:
    """Display names (or another ``field`` of `name_rows`) of the given node keys, read from the node partitions
    that hold them."""

    def lookup(keys: set[str]) -> dict[str, str]:
        wanted: dict[int, set[str]] = {}
        for key in keys:
            wanted.setdefault(node_partition(key, partitions), set()).add(key)
        found = {}
        for p, ks in wanted.items():
            with (folder / f"names-{p:04d}.jsonl").open(encoding="utf-8") as f:
                for line in f:
                    row = json.loads(line)
                    if row["id"] in ks:
                        found[row["id"]] = row[field]
        return found

    return lookup


KEYED_BLOCK = 1 << 16  # characters of a partition file read at a time: the driver holds one block of each


def _keyed(path: Path, key: Callable[[str], Any]) -> Iterator[tuple[Any, str]]:
    """The file's lines with their keys, read a block at a time (keys made by ``map``, pairs by ``zip``: no
    Python step per line)."""
    with path.open(encoding="utf-8") as f:
        while lines := f.readlines(KEYED_BLOCK):
            yield from zip(map(key, lines), lines)


def leading_strings(*fields: str) -> Callable[[str], Any]:
    """The sort key of a row line: its first one or two fields, string-valued (one: the value; two: a pair).
    They are read with JSON's own string scanner, without decoding the rest of the line (the whole line is
    decoded if it starts otherwise)."""
    scan = json.decoder.scanstring
    first = '{"%s": "' % fields[0]
    if len(fields) == 1:
        def key(line: str) -> Any:
            if line.startswith(first):
                return scan(line, len(first))[0]
            return json.loads(line)[fields[0]]
        return key
    second = ', "%s": "' % fields[1]

    def pair(line: str) -> Any:
        if line.startswith(first):
            a, at = scan(line, len(first))
            if line.startswith(second, at):
                return a, scan(line, at + len(second))[0]
        row = json.loads(line)
        return row[fields[0]], row[fields[1]]

    return pair


ENTITY_KEY = leading_strings("id")  # entity_rows: the id first
RELATIONSHIP_KEY = leading_strings("source", "target")  # relationship_rows: the pair first


def merged_table(paths: list[Path], key: Callable[[str], Any], out: Path) -> int:
    """The partitions' sorted rows merged into one sorted table, streaming; returns the row count. ``key``
    reads a row line's sort key (`ENTITY_KEY`, `RELATIONSHIP_KEY`). A key is in one partition only, so the
    (key, line) pairs are merged as they are: no two compare equal on their keys."""
    count = 0
    with atomic_open(out) as f, _collector_paused():  # pairs of strings only: nothing for it to find
        batch: list[str] = []
        for _, line in heapq.merge(*(_keyed(p, key) for p in paths)):
            batch.append(line)
            if len(batch) >= 1000:
                f.write("".join(batch))
                count, batch = count + len(batch), []
        f.write("".join(batch))
        count += len(batch)
    return count


def write_tables(merge_dir: Path, partitions: int, entities: Path, relationships: Path) -> tuple[int, int]:
    """The node and edge partitions' rows merged into the two tables; returns their row counts."""
    return (merged_table([merge_dir / f"nodes-{p:04d}.jsonl" for p in range(partitions)], ENTITY_KEY, entities),
            merged_table([merge_dir / f"edges-{p:04d}.jsonl" for p in range(partitions)], RELATIONSHIP_KEY,
                         relationships))


def graph_of_tables(entities: Path, relationships: Path, directed: bool) -> nx.Graph:
    """The whole graph from its two tables (rows in key order, as the local engine builds it)."""
    graph: nx.Graph = nx.DiGraph() if directed else nx.Graph()
    for row in table_rows(entities):
        graph.add_node(row.pop("id"), **row)
    for row in table_rows(relationships):
        row.pop("directed", None)
        graph.add_edge(row.pop("source"), row.pop("target"), **row)
    return graph


def table_rows(path: Path) -> Iterator[dict[str, Any]]:
    """A row table's rows, one JSON line each, as they are read."""
    with path.open(encoding="utf-8") as f:
        for line in f:
            yield json.loads(line)
