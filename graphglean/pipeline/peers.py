"""The graph pass's peer indexes (``output.formats`` graphrag, lightrag) in a run: their vectors kept in the run
store, so a resumed or incremental run embeds only new or changed texts (and vectors no index uses any more
are dropped), and the communities the graph pass hands them."""

from __future__ import annotations

from typing import Any, Sequence

import networkx as nx

from ..core.errors import Contained
from ..llm.credentials import endpoint_key
from ..graph.formats.peers import Communities, VectorMemo, read_communities, write_peer_indexes
from ..graph.formats.peers.vectors import PASS as EMBED
from ..graph.formats.peers.write import peer_formats
from .context import RunContext, failure_row


def vector_memo(ctx: RunContext) -> VectorMemo:
    """Vectors of earlier runs (none when the embedding endpoint, model or size changed), read from the run store
    a part at a time as they are needed, and how to keep more."""
    store = ctx.store
    assert store is not None
    llm = ctx.cfg.llm
    deployment = llm.azure.embedding_deployment if llm.provider == "azure" else ""
    ctx.open_pass(EMBED, llm.provider, endpoint_key(llm.base_url), deployment, llm.embedding_model,
                  llm.embedding_dimensions, endpoint=False)

    async def save(found: dict[str, str]) -> None:
        await store.save_many(EMBED, found)

    return VectorMemo(save=save, known=lambda keys: store.known(EMBED, keys),
                      lookup=lambda keys: store.get_many(EMBED, keys))


def graph_communities(ctx: RunContext, graph: nx.Graph) -> Communities:
    """The seam where the graph pass hands its communities to the peer indexes: those it wrote to the output
    folder (``communities.jsonl``, ``community_reports.jsonl``) while communities are enabled."""
    if not ctx.cfg.graph.communities.enabled:
        return Communities()
    return read_communities(ctx.out_dir)


async def peer_indexes(ctx: RunContext, graph: nx.Graph,
                       documents: Sequence[Any]) -> tuple[list[str], list[dict[str, Any]], dict[str, Any]]:
    """Write the peer indexes the run asks for, of ``graph`` and the input's ``documents``: (files, failed
    items, report fields)."""
    formats = peer_formats(ctx.cfg)
    if not formats:
        return [], [], {}
    assert ctx.scheduler is not None and ctx.store is not None
    failed: list[dict[str, Any]] = []
    with Contained("peers", f"output.formats without {' and '.join(formats)} skips it", failed,
                   "the peer indexes are not written"):
        outcome = await write_peer_indexes(graph, ctx.chunks, documents, ctx.cfg, ctx.scheduler,
                                           vector_memo(ctx), ctx.out_dir, graph_communities(ctx, graph), ctx.notice)
    if failed:
        return [], failed, {}
    if not outcome.failed:
        await ctx.store.forget_others(EMBED, outcome.vector_keys)
    return outcome.files, [failure_row(item, error) for item, error in outcome.failed], outcome.extra
