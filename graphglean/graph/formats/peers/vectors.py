"""The embeddings a peer index needs, through the run's scheduler like every call: batched, each batch kept as it
arrives (``VectorMemo``: the run store), so a killed run, and a later run over more documents, embeds only the
texts it has no vector for. A text longer than an embedding model takes is embedded in overlapping pieces
whose vectors are averaged, as GraphRAG does; every vector is normalized (both engines' stores compare them as
unit vectors).
"""

from __future__ import annotations

import base64
import hashlib
from typing import Any, Awaitable, Callable, Iterable

import attrs
import numpy as np
import trio

from ....core.errors import LLMError
from ....core.tokens import Tokenizer
from ....scheduling.scheduler import Outcome, Scheduler

PASS = "graph.peers.embed"
EMBED_BATCH = 128  # texts a call, at most
BATCH_TOKENS = 100_000  # tokens a call, at most (OpenAI takes 300,000)
INPUT_TOKENS = 8191  # tokens one input may have (OpenAI's embedding models)
OVERLAP = 100  # tokens two pieces of a longer text share (GraphRAG's)


@attrs.define
class VectorMemo:
    """Vectors kept across runs: ``done`` maps `text_key` to a stored vector (`encode_vector`); ``save`` is
    awaited with each batch's new ones as it arrives."""

    done: dict[str, str] = attrs.field(factory=dict)
    save: Callable[[dict[str, str]], Awaitable[None]] | None = None

    async def keep(self, found: dict[str, str]) -> None:
        self.done.update(found)
        if self.save is not None and found:
            with trio.CancelScope(shield=True):  # a paid answer is always kept
                await self.save(found)


@attrs.define
class Embedded:
    vectors: dict[str, np.ndarray]  # text -> unit float32 vector
    reused: int = 0  # texts whose vector an earlier run (or batch) made
    asked: int = 0  # texts embedded by this run
    failed: list[Outcome[Any, Any]] = attrs.field(factory=list)  # batches that failed (their texts have none)
    keys: set[str] = attrs.field(factory=set)  # `text_key` of every text asked for

    @property
    def dimension(self) -> int:
        return len(next(iter(self.vectors.values()))) if self.vectors else 0


def text_key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def encode_vector(vector: np.ndarray) -> str:
    return base64.b64encode(np.asarray(vector, dtype="<f4").tobytes()).decode("ascii")


def decode_vector(text: str) -> np.ndarray:
    return np.frombuffer(base64.b64decode(text), dtype="<f4").astype(np.float32)


def unit(vector: Any) -> np.ndarray:
    v = np.asarray(vector, dtype=np.float64)
    norm = float(np.linalg.norm(v))
    return (v / norm if norm > 0 else v).astype(np.float32)


@attrs.frozen
class _Text:
    text: str
    key: str
    pieces: tuple[str, ...]
    tokens: int


def _pieces(text: str, tokenizer: Tokenizer) -> _Text:
    tokens = tokenizer.encode(text)
    if len(tokens) <= INPUT_TOKENS:
        return _Text(text, text_key(text), (text,), len(tokens))
    step = INPUT_TOKENS - OVERLAP
    parts = tuple(tokenizer.decode(tokens[i:i + INPUT_TOKENS]) for i in range(0, len(tokens) - OVERLAP, step))
    return _Text(text, text_key(text), parts, len(tokens))


def _batches(texts: list[_Text]) -> list[list[_Text]]:
    """Texts packed in order into calls of at most `EMBED_BATCH` inputs and `BATCH_TOKENS` tokens (a text's pieces
    stay in one call)."""
    batches: list[list[_Text]] = []
    inputs = tokens = 0
    for t in texts:
        if not batches or inputs + len(t.pieces) > EMBED_BATCH or tokens + t.tokens > BATCH_TOKENS:
            batches.append([])
            inputs = tokens = 0
        batches[-1].append(t)
        inputs += len(t.pieces)
        tokens += t.tokens
    return batches


async def embed_texts(texts: Iterable[str], scheduler: Scheduler, memo: VectorMemo,
                      tokenizer: Tokenizer | None = None) -> Embedded:
    """A unit vector for each distinct non-empty text: the stored one, else asked of ``llm.embedding_model``.
    Failed batches are in ``failed`` and their texts have no vector; errors fatal to the endpoint (no such
    model, a refused key) are raised."""
    wanted = [t for t in dict.fromkeys(texts) if t]
    found: dict[str, np.ndarray] = {}
    todo: list[str] = []
    for text in wanted:
        stored = memo.done.get(text_key(text))
        if stored is not None:
            found[text] = decode_vector(stored)
        else:
            todo.append(text)
    result = Embedded(found, reused=len(found), keys={text_key(t) for t in wanted})
    if not todo:
        return result
    tokenizer = tokenizer or Tokenizer.cl100k()  # OpenAI's embedding models' encoding
    split = await trio.to_thread.run_sync(lambda: [_pieces(t, tokenizer) for t in todo])
    llm = scheduler.llm(PASS)

    async def one(batch: list[_Text]) -> int:
        inputs = [p for t in batch for p in t.pieces]
        vectors = (await llm.embed(inputs)).vectors
        if len(vectors) != len(inputs):
            raise ValueError(f"the endpoint sent {len(vectors)} embeddings for {len(inputs)} texts")
        new, at = {}, 0
        for t in batch:
            piece_vectors = vectors[at:at + len(t.pieces)]
            at += len(t.pieces)
            found[t.text] = unit(np.mean(np.asarray(piece_vectors, dtype=np.float64), axis=0))
            new[t.key] = encode_vector(found[t.text])
        await memo.keep(new)
        return len(batch)

    outcomes = await scheduler.map(one, _batches(split), pass_name=PASS,
                                   weight=lambda b: float(sum(t.tokens for t in b)))
    result.asked = sum(o.value or 0 for o in outcomes if o.ok)
    result.failed = [o for o in outcomes if not o.ok]
    sizes = {len(v) for v in found.values()}
    if len(sizes) > 1:
        raise LLMError(f"llm.embedding_model: the endpoint's vectors have {len(sizes)} sizes ({sorted(sizes)}); "
                       f"one model gives one size")
    return result
