"""The embeddings a peer index needs, through the run's scheduler like every call: batched, each batch kept as it
arrives (``VectorMemo``: the run store), so a killed run, and a later run over more documents, embeds only the
texts it has no vector for. No vector is held once kept: the writers read them back from the memo a row group
at a time (`VectorSource`), so memory does not grow with the corpus. A text longer than an embedding model
takes is embedded in overlapping pieces whose vectors are averaged, as GraphRAG does; every vector is
normalized (both engines' stores compare them as unit vectors).
"""

from __future__ import annotations

import base64
import hashlib
from typing import Any, Awaitable, Callable, Iterable, Mapping, Protocol, Sequence

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
LOOKUP = 4096  # keys looked up in the store at a time
ROW_GROUP = 4096  # rows a writer reads the vectors of at a time (25 MB of 1,536-dimension vectors)


@attrs.define
class VectorMemo:
    """Vectors kept across runs, by `text_key` (each `encode_vector`-ed): ``done`` holds them in memory, or
    ``known`` and ``lookup`` read them a part at a time from where a run keeps them (its store: a corpus's
    vectors are never all in memory); ``save`` is awaited with each batch's new ones as it arrives."""

    done: dict[str, str] = attrs.field(factory=dict)
    save: Callable[[dict[str, str]], Awaitable[None]] | None = None
    known: Callable[[list[str]], set[str]] | None = None
    lookup: Callable[[list[str]], dict[str, str]] | None = None

    async def keep(self, found: dict[str, str]) -> None:
        if self.lookup is None:
            self.done.update(found)
        if self.save is not None and found:
            with trio.CancelScope(shield=True):  # a paid answer is always kept
                await self.save(found)

    def has(self, keys: list[str]) -> set[str]:
        """Which of ``keys`` have a vector."""
        found = {k for k in keys if k in self.done}
        if self.known is not None:
            found |= self.known([k for k in keys if k not in found])
        return found

    def get_many(self, texts: Sequence[str]) -> dict[str, np.ndarray]:
        """The vectors of those of ``texts`` that have one (what a peer index's writer reads, a row group at a
        time)."""
        by_key = {text_key(t): t for t in texts}
        stored = {k: self.done[k] for k in by_key if k in self.done}
        if self.lookup is not None:
            stored.update(self.lookup([k for k in by_key if k not in stored]))
        return {by_key[k]: decode_vector(v) for k, v in stored.items()}


class VectorSource(Protocol):
    """Where a writer reads its rows' vectors: a `VectorMemo`, or any object with ``get_many``."""

    def get_many(self, texts: Sequence[str]) -> dict[str, np.ndarray]: ...


@attrs.frozen
class InMemory:
    """Vectors given by text (`VectorSource` of a dict)."""

    vectors: Mapping[str, np.ndarray]

    def get_many(self, texts: Sequence[str]) -> dict[str, np.ndarray]:
        return {t: self.vectors[t] for t in texts if t in self.vectors}


def source_of(vectors: VectorSource | Mapping[str, np.ndarray]) -> VectorSource:
    return InMemory(vectors) if isinstance(vectors, Mapping) else vectors


@attrs.define
class Embedded:
    reused: int = 0  # texts whose vector an earlier run (or batch) made
    asked: int = 0  # texts embedded by this run
    failed: list[Outcome[Any, Any]] = attrs.field(factory=list)  # batches that failed (their texts have none)
    keys: set[str] = attrs.field(factory=set)  # `text_key` of every text asked for
    dimension: int = 0  # the vectors' size (0: none was seen)


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
    """A unit vector for each distinct non-empty text, kept in ``memo``: the stored one, else asked of
    ``llm.embedding_model`` (each batch's kept as it arrives, and not held: writers read them from ``memo``).
    Failed batches are in ``failed`` and their texts have no vector; errors fatal to the endpoint (no such
    model, a refused key) are raised."""
    wanted = {text_key(t): t for t in dict.fromkeys(texts) if t}
    keys = list(wanted)
    have: set[str] = set()
    for start in range(0, len(keys), LOOKUP):
        have |= memo.has(keys[start:start + LOOKUP])
    todo = [t for k, t in wanted.items() if k not in have]
    result = Embedded(reused=len(have), keys=set(keys))
    sizes: set[int] = set()
    if have:  # one stored vector tells their size
        sizes |= {len(v) for v in memo.get_many([wanted[next(iter(have))]]).values()}
    if todo:
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
                vector = unit(np.mean(np.asarray(piece_vectors, dtype=np.float64), axis=0))
                sizes.add(len(vector))
                new[t.key] = encode_vector(vector)
            await memo.keep(new)
            return len(batch)

        outcomes = await scheduler.map(one, _batches(split), pass_name=PASS,
                                       weight=lambda b: float(sum(t.tokens for t in b)))
        result.asked = sum(o.value or 0 for o in outcomes if o.ok)
        result.failed = [o for o in outcomes if not o.ok]
    if len(sizes) > 1:
        raise LLMError(f"llm.embedding_model: the endpoint's vectors have {len(sizes)} sizes ({sorted(sizes)}); "
                       f"one model gives one size")
    result.dimension = next(iter(sizes), 0)
    return result
