"""Chunking: token windows with overlap and source offsets, and the summarization recipe's delimiter chunker."""

from __future__ import annotations

import hashlib
import itertools
from typing import Any

import attrs
import regex

from ..core.tokens import Tokenizer


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


def chunk_count(tokens: int, size: int, overlap: int) -> int:
    """How many windows `token_chunks` cuts a text of ``tokens`` tokens into."""
    return 0 if tokens <= 0 else 1 + max(0, -(-(tokens - size) // (size - overlap)))


@attrs.frozen
class TextPart:
    """A part of a document chunked alone: it starts at token ``first_token`` and character ``first_char`` of
    the document (a tokenizer piece boundary), and only the document's chunks ``indices`` are wanted."""

    first_token: int
    first_char: int
    indices: range


def token_chunks(doc_id: str, text: str, tokenizer: Tokenizer, size: int = 1200, overlap: int = 100,
                 metadata: dict[str, Any] | None = None, part: TextPart | None = None) -> list[Chunk]:
    """Split ``text`` into windows of ``size`` tokens, neighbours sharing ``overlap`` tokens. With ``part``,
    ``text`` is that part of the document, and the chunks are the document's (indices, offsets, ids)."""
    if overlap >= size:
        raise ValueError(f"overlap ({overlap}) must be less than size ({size})")
    tokens = tokenizer.encode(text)
    if not tokens:
        return []
    part = part or TextPart(0, 0, range(chunk_count(len(tokens), size, overlap)))
    bounds = [0, *itertools.accumulate(tokenizer.token_byte_lengths(tokens))]
    data = text.encode("utf-8", "surrogatepass")
    starts, ends = _ByteToChar(data), _ByteToChar(data)
    chunks: list[Chunk] = []
    for index in part.indices:
        first = index * (size - overlap) - part.first_token
        last = min(first + size, len(tokens))
        start = starts.at(bounds[first], round_up=False)
        end = ends.at(bounds[last], round_up=True)
        piece = text[start:end]
        chunks.append(Chunk(chunk_id(doc_id, piece), doc_id, index, piece, part.first_char + start,
                            part.first_char + end, last - first, dict(metadata or {})))
    return chunks


@attrs.frozen
class DelimiterChunks:
    chunks: list[str]
    indices: list[list[int]]
    dropped: int


class _RunningCount:
    """The token count of a text that only grows at its end, in time linear in its length.

    tiktoken cuts text into pieces with a regular expression and encodes each piece alone, so appending text can
    change only the last few pieces: the tokens before them are counted once and set aside.
    """

    KEEP = 3  # pieces kept open at the end; appending reaches back at most one piece (a run of whitespace)

    def __init__(self, tokenizer: Tokenizer) -> None:
        pattern = getattr(tokenizer.encoding, "_pat_str", None)
        self.pieces = regex.compile(pattern) if pattern else None  # None: count the whole text every time
        self.tokenizer, self.settled, self.tail = tokenizer, 0, ""
        self._tried: tuple[str, list[int]] = ("", [])

    def count_with(self, suffix: str) -> int:
        """The count of the text with ``suffix`` appended (not appended)."""
        tokens = self.tokenizer.encode(self.tail + suffix)
        self._tried = (suffix, tokens)
        return self.settled + len(tokens)

    def append(self, suffix: str) -> None:
        tried, tokens = self._tried
        if tried != suffix:
            tokens = self.tokenizer.encode(self.tail + suffix)
        self.tail += suffix
        if self.pieces is None:
            return
        starts = [m.start() for m in self.pieces.finditer(self.tail)]
        if len(starts) <= self.KEEP:
            return
        cut = starts[-self.KEEP]
        cut_bytes, seen, n = len(self.tail[:cut].encode("utf-8", "surrogatepass")), 0, 0
        for length in self.tokenizer.token_byte_lengths(tokens):
            if seen >= cut_bytes:
                break
            seen, n = seen + length, n + 1
        if seen == cut_bytes:  # a token never straddles two pieces; if one did, keep counting the whole tail
            self.settled, self.tail = self.settled + n, self.tail[cut:]


class _Joined:
    """Pieces joined by a delimiter, and the token count of the join."""

    def __init__(self, tokenizer: Tokenizer, delimiter: str, header: str | None) -> None:
        self.delimiter, self.parts, self.indices = delimiter, [], []
        self.count = _RunningCount(tokenizer)
        if header is not None:
            self.add(header)
        self.opening = len(self.parts)

    def _joint(self, piece: str) -> str:
        return self.delimiter + piece if self.parts else piece

    def count_with(self, piece: str) -> int:
        return self.count.count_with(self._joint(piece))

    def add(self, piece: str, index: int | None = None) -> None:
        self.count.append(self._joint(piece))
        self.parts.append(piece)
        if index is not None:
            self.indices.append(index)

    @property
    def text(self) -> str:
        return self.delimiter.join(self.parts)


def combine_pieces(pieces: list[str], max_tokens: int, tokenizer: Tokenizer, delimiter: str = "\n\n",
                   header: str | None = None, add_ellipsis_for_overflow: bool = False) -> DelimiterChunks:
    """Greedily join pieces into chunks of at most ``max_tokens``; a piece too large alone is dropped
    (marked with "..." when ``add_ellipsis_for_overflow`` and counted). Linear in the length of the text."""
    out: list[str] = []
    out_indices: list[list[int]] = []
    dropped = 0
    candidate = _Joined(tokenizer, delimiter, header)
    for i, piece in enumerate(pieces):
        alone = piece if header is None else header + delimiter + piece
        if tokenizer.count(alone) > max_tokens:
            if add_ellipsis_for_overflow and candidate.count_with("...") <= max_tokens:
                candidate.add("...")
                dropped += 1
            continue
        if candidate.count_with(piece) > max_tokens:
            out.append(candidate.text)
            out_indices.append(candidate.indices)
            candidate = _Joined(tokenizer, delimiter, header)
        candidate.add(piece, i)
    if len(candidate.parts) > candidate.opening:
        out.append(candidate.text)
        out_indices.append(candidate.indices)
    return DelimiterChunks(out, out_indices, dropped)


def chunk_on_delimiter(text: str, max_tokens: int, tokenizer: Tokenizer, delimiter: str = ".") -> DelimiterChunks:
    """Split on ``delimiter``, combine up to ``max_tokens`` and end each chunk with the delimiter."""
    combined = combine_pieces(text.split(delimiter), max_tokens, tokenizer, delimiter, add_ellipsis_for_overflow=True)
    return DelimiterChunks([c + delimiter for c in combined.chunks], combined.indices, combined.dropped)
