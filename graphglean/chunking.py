"""Chunking: token windows with overlap and source offsets, and the summarization recipe's delimiter chunker."""

from __future__ import annotations

import hashlib
import itertools
from typing import Any

import attrs

from .tokens import Tokenizer


@attrs.frozen
class Chunk:
    """A piece of a document, carrying where it came from."""

    id: str
    doc_id: str
    index: int
    text: str
    start: int  # character offsets into the document: doc.text[start:end] == text
    end: int
    tokens: int
    metadata: dict[str, Any] = attrs.field(factory=dict, eq=False, hash=False)


def chunk_id(doc_id: str, text: str) -> str:
    """A content hash, stable across runs and machines."""
    digest = hashlib.sha256(f"{doc_id}\x00{text}".encode("utf-8", "surrogatepass")).hexdigest()
    return f"chunk-{digest[:32]}"


def _is_continuation(byte: int) -> bool:
    return byte & 0xC0 == 0x80


class _ByteToChar:
    """Maps increasing UTF-8 byte offsets to character offsets, snapping to character boundaries."""

    def __init__(self, data: bytes) -> None:
        self.data, self.byte, self.char = data, 0, 0

    def at(self, b: int, round_up: bool) -> int:
        data = self.data
        while 0 < b < len(data) and _is_continuation(data[b]):
            b += 1 if round_up else -1
        if b < self.byte:  # windows overlap: restart from the beginning of this stretch
            self.byte, self.char = 0, 0
        self.char += len(data[self.byte:b].decode("utf-8", "surrogatepass"))
        self.byte = b
        return self.char


def token_chunks(doc_id: str, text: str, tokenizer: Tokenizer, size: int = 1200, overlap: int = 100,
                 metadata: dict[str, Any] | None = None) -> list[Chunk]:
    """Split ``text`` into windows of ``size`` tokens, neighbours sharing ``overlap`` tokens."""
    if overlap >= size:
        raise ValueError(f"overlap ({overlap}) must be less than size ({size})")
    tokens = tokenizer.encode(text)
    if not tokens:
        return []
    bounds = [0, *itertools.accumulate(tokenizer.token_byte_lengths(tokens))]
    data = text.encode("utf-8", "surrogatepass")
    starts, ends = _ByteToChar(data), _ByteToChar(data)
    chunks: list[Chunk] = []
    step = size - overlap
    for index, first in enumerate(range(0, len(tokens), step)):
        last = min(first + size, len(tokens))
        start = starts.at(bounds[first], round_up=False)
        end = ends.at(bounds[last], round_up=True)
        piece = text[start:end]
        chunks.append(Chunk(chunk_id(doc_id, piece), doc_id, index, piece, start, end, last - first,
                            dict(metadata or {})))
        if last == len(tokens):
            break
    return chunks


@attrs.frozen
class DelimiterChunks:
    chunks: list[str]
    indices: list[list[int]]
    dropped: int


def combine_pieces(pieces: list[str], max_tokens: int, tokenizer: Tokenizer, delimiter: str = "\n\n",
                   header: str | None = None, add_ellipsis_for_overflow: bool = False) -> DelimiterChunks:
    """Greedily join pieces into chunks of at most ``max_tokens``; a piece too large alone is dropped
    (marked with "..." when ``add_ellipsis_for_overflow`` and counted)."""
    count = tokenizer.count
    out: list[str] = []
    out_indices: list[list[int]] = []
    dropped = 0
    candidate: list[str] = [] if header is None else [header]
    candidate_indices: list[int] = []
    for i, piece in enumerate(pieces):
        with_header = [piece] if header is None else [header, piece]
        if count(delimiter.join(with_header)) > max_tokens:
            if add_ellipsis_for_overflow and count(delimiter.join([*candidate, "..."])) <= max_tokens:
                candidate.append("...")
                dropped += 1
            continue
        if count(delimiter.join([*candidate, piece])) > max_tokens:
            out.append(delimiter.join(candidate))
            out_indices.append(candidate_indices)
            candidate, candidate_indices = with_header, [i]
        else:
            candidate.append(piece)
            candidate_indices.append(i)
    if len(candidate) > (0 if header is None else 1):
        out.append(delimiter.join(candidate))
        out_indices.append(candidate_indices)
    return DelimiterChunks(out, out_indices, dropped)


def chunk_on_delimiter(text: str, max_tokens: int, tokenizer: Tokenizer, delimiter: str = ".") -> DelimiterChunks:
    """Split on ``delimiter``, combine up to ``max_tokens`` and end each chunk with the delimiter."""
    combined = combine_pieces(text.split(delimiter), max_tokens, tokenizer, delimiter, add_ellipsis_for_overflow=True)
    return DelimiterChunks([c + delimiter for c in combined.chunks], combined.indices, combined.dropped)
