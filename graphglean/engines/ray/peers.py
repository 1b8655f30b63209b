"""The peer indexes of a Ray run (``output.formats`` graphrag, lightrag), written by the driver from the whole
graph as a local run writes them: embedded on a client of the driver's own (no shard runs by then), their
vectors kept in ``shards/peers/run.sqlite`` so a re-run embeds only new or changed texts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import networkx as nx

from ...core.config import Config
from ...core.tokens import Tokenizer
from ...graph.formats.peers.vectors import PASS as EMBED
from ...llm.client import ChatClient
from ...pipeline.context import RunContext
from ...pipeline.peers import peer_indexes
from ...pipeline.report import cost
from ...pipeline.runstore import RunStore
from ...scheduling.scheduler import Progress, Scheduler
from ...text.chunking import Chunk
from ...text.inputs import Document, Inputs
from .report import add_row


def documents_of(chunks: list[Chunk]) -> list[Document]:
    """Each document's text, put back together from its chunks' overlapping windows (by their offsets)."""
    by_doc: dict[str, list[Chunk]] = {}
    for c in chunks:
        by_doc.setdefault(c.doc_id, []).append(c)
    found = []
    for doc_id, own in by_doc.items():
        own.sort(key=lambda c: c.index)
        text = ""
        for c in own:
            if c.start > len(text) or c.end - c.start != len(c.text):  # not windows of one text (pre-chunked)
                text = "\n".join(x.text for x in own)
                break
            text += c.text[len(text) - c.start:]
        found.append(Document(doc_id, text, doc_id))
    return found


async def write_peer_indexes(cfg: Config, graph: nx.Graph, chunks: list[Chunk], out: Path, row: dict[str, Any],
                             failed: list[dict[str, Any]], progress: Progress) -> list[str]:
    """Write the indexes into ``out``; their calls, tokens and cost go into the graph pass's ``row``, their failed
    items into ``failed``."""
    store = RunStore(out / "shards" / "peers")
    tokenizer = Tokenizer(cfg.llm.model)
    try:
        async with ChatClient.from_config(cfg.llm, count_tokens=tokenizer.count, journal=store.journal(),
                                          contacted=True) as client:
            scheduler = Scheduler(client, fail_fast=cfg.fail_fast, progress=progress)
            ctx = RunContext(cfg, Inputs(chunks=chunks), chunks, tokenizer, out, store, scheduler=scheduler)
            files, missed, extra = await peer_indexes(ctx, graph, documents_of(chunks))
        account = scheduler.account(EMBED)
        snapshot = {k: v for k, v in account.snapshot().items() if not k.startswith("latency_")}
        add_row(row, {**snapshot, "cost_usd": cost(account, cfg.llm.embedding_model, cfg.prices)})
        row.update(extra)
        failed += [dict(f, **{"pass": "graph"}) for f in missed]
        if not missed:
            store.clear_journal()
    finally:
        store.close()
    return files
