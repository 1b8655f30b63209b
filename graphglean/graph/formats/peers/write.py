"""The peer indexes ``output.formats`` asks for, written from the finished graph: each format says which texts
it needs embedded, the texts of all of them are embedded once (`vectors.embed_texts`), then each is written in
a worker thread. A batch whose embedding failed leaves its texts out of the vector stores, and is reported so
that a re-run embeds just those."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Protocol, Sequence

import attrs
import networkx as nx
import trio

from ....core.config import PEER_FORMATS, Config
from ....scheduling.scheduler import Scheduler
from ....text.chunking import Chunk
from .communities import Communities
from .index import documents_of
from .vectors import PASS, VectorMemo, VectorSource, embed_texts

# the size of a model's vectors when no vector came back to say it (settings.yaml still needs one)
KNOWN_DIMENSIONS = {"text-embedding-3-small": 1536, "text-embedding-3-large": 3072, "text-embedding-ada-002": 1536}


class _Plan(Protocol):
    merged_edges: int  # edges between two nodes the engine names alike: no place for them
    notes: list[str]  # lines for the run to say, once written

    def texts(self) -> list[str]: ...
    def write(self, vectors: VectorSource, dimension: int) -> list[Path]: ...


@attrs.define
class PeerOutcome:
    files: list[str] = attrs.field(factory=list)
    failed: list[tuple[str, BaseException]] = attrs.field(factory=list)  # (item, error) of failed embedding batches
    extra: dict[str, Any] = attrs.field(factory=dict)
    vector_keys: set[str] = attrs.field(factory=set)  # the vectors the indexes use (`vectors.text_key`)


def peer_formats(cfg: Config) -> list[str]:
    return [f for f in cfg.output.formats if f in PEER_FORMATS]


def _plans(cfg: Config, graph: nx.Graph, chunks: list[Chunk], documents: Sequence[Any], communities: Communities,
           out_dir: Path) -> list[_Plan]:
    docs = documents_of(documents, chunks)
    plans: list[_Plan] = []
    if "graphrag" in cfg.output.formats:
        from .graphrag.write import plan_graphrag

        plans.append(plan_graphrag(graph, docs, chunks, communities, cfg.llm, out_dir))
    if "lightrag" in cfg.output.formats:
        from .lightrag.write import plan_lightrag

        plans.append(plan_lightrag(graph, docs, chunks, out_dir, (cfg.chunking.size, cfg.chunking.overlap)))
    return plans


def _dimension(cfg: Config, found: int) -> int:
    return found or cfg.llm.embedding_dimensions or KNOWN_DIMENSIONS.get(cfg.llm.embedding_model, 1536)


async def write_peer_indexes(graph: nx.Graph, chunks: list[Chunk], documents: Sequence[Any], cfg: Config,
                             scheduler: Scheduler, memo: VectorMemo, out_dir: str | Path,
                             communities: Communities = Communities(),
                             notice: Callable[[str], None] = print) -> PeerOutcome:
    """Write every peer index ``cfg.output.formats`` names into ``out_dir``; ``documents``: the input's
    (``id``, ``text``, ``metadata``), whose ``chunks`` the graph's provenance names."""
    out = Path(out_dir)
    plans = await trio.to_thread.run_sync(_plans, cfg, graph, chunks, documents, communities, out)
    if not plans:
        return PeerOutcome()
    texts = [t for p in plans for t in p.texts()]
    embedded = await embed_texts(texts, scheduler, memo)
    dimension = _dimension(cfg, embedded.dimension)
    files = await trio.to_thread.run_sync(lambda: [str(f) for p in plans for f in p.write(memo, dimension)])
    for line in (line for p in plans for line in p.notes):
        notice(line)
    failed = [(f"{PASS} batch {o.index}", o.error) for o in embedded.failed if o.error is not None]
    extra = {"peer_index": {"formats": peer_formats(cfg), "texts": len(set(t for t in texts if t)),
                            "embedded": embedded.asked, "reused": embedded.reused,
                            "unembedded_batches": len(failed), "dimension": dimension,
                            "merged_edges": sum(p.merged_edges for p in plans)}}
    return PeerOutcome(files, failed, extra, embedded.keys)
