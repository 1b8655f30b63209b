"""Shards: parts of a run's input that one worker reads and processes alone.

The driver plans them by streaming the input once, never holding it: a JSONL file (documents or chunks) is cut
into byte ranges at line ends, a folder into groups of files, a text file into byte ranges at line or sentence
ends whose token and character offsets are counted as it is streamed; a LoCoMo file or chat messages (whose
sessions must stay whole), or a text to be summarized whole, are one shard. A shard reads exactly what the
local engine would read for the same lines, files or text: line numbers, document ids, chunk indices and
offsets are those of the whole input.
"""

from __future__ import annotations

import bisect
import os
import pickle
import re
import sqlite3
import tempfile
from pathlib import Path
from typing import Iterable, Iterator

import attrs

from ...core.config import Config
from ...core.errors import InputError
from ...core.tokens import Tokenizer
from ...text.chunking import TextPart, chunk_count, token_chunks
from ...text.decoding import SNIFF_BYTES, UTF8, NotDecodable, Reading, reading_of_file, whole_only
from ...text.inputs import (
    Inputs,
    _detect,
    decode,
    duplicate_id,
    jsonl_documents,
    prechunked_lines,
    read_folder,
    read_inputs,
    read_jsonl,
    read_prechunked,
    text_files,
)
from ...text.notes import noted
from ...text.surrogates import Repairs

BYTES_PER_TOKEN = 4  # roughly, for English: a shard of JSONL documents is cut by size as well as by lines


@attrs.frozen
class ShardSpec:
    index: int
    kind: str  # lines | files | whole
    path: str
    start: int = 0  # lines: the byte range [start, end) of the file
    end: int = 0
    first_line: int = 1  # lines: line number of the first line, and how many chunk lines come before it
    first_item: int = 0
    files: tuple[str, ...] = ()  # files: paths relative to the folder
    first_token: int = 0  # text: the range's first token and character in the document, and its chunk count
    first_char: int = 0
    items: int = 0
    reading: Reading | None = None  # text: how the file's bytes are read (decided on the whole file), None: UTF-8

    @property
    def name(self) -> str:
        return f"{self.index:05d}"


class ShardPlan:
    """The shards of a run, planned once and kept in a temporary file, not in memory (a folder of millions of
    files plans millions of names): iterated as often as needed, in input order."""

    def __init__(self, specs: Iterable[ShardSpec]) -> None:
        self._file = tempfile.TemporaryFile(prefix="graphglean-shards-")
        self.count = 0
        for spec in specs:
            pickle.dump(spec, self._file, protocol=pickle.HIGHEST_PROTOCOL)
            self.count += 1
        self._file.flush()

    def __len__(self) -> int:
        return self.count

    def __iter__(self) -> Iterator[ShardSpec]:
        at = 0
        for _ in range(self.count):
            self._file.seek(at)  # each iteration keeps its own place
            spec = pickle.load(self._file)  # written above by this process
            at = self._file.tell()
            yield spec

    def close(self) -> None:
        self._file.close()


def plan_shards(cfg: Config) -> Iterator[ShardSpec]:
    """The shards of ``cfg.input``, in input order, planned as the input is streamed."""
    path = Path(cfg.input.path)
    if not path.exists():
        raise InputError(f"input.path: {path}: input not found")
    per_shard = cfg.runtime.shard_chunks
    max_bytes = per_shard * cfg.chunking.size * BYTES_PER_TOKEN
    if path.is_dir():
        yield from _file_groups(path, per_shard, max_bytes, cfg.input.encoding_errors)
        return
    fmt = _detect(path, None) if cfg.input.format == "auto" else cfg.input.format
    if fmt in ("jsonl", "chunks"):
        with _SeenIds(path, cfg, fmt) as seen:
            yield from _line_ranges(path, per_shard, max_bytes if fmt == "jsonl" else None, seen)
    elif fmt == "text" and not cfg.summary.enabled and not _whole_only(path, cfg):  # a summary is of the whole
        yield from _text_ranges(path, cfg)  # document: one shard then
    else:
        yield ShardSpec(0, "whole", str(path))


# Where a text may be cut so that the tokens of both sides are the tokens of the whole: after a line break
# (best a blank line) or a sentence's end, before a printable ASCII character. tiktoken's pre-tokenizer ends a
# piece there (a run of line breaks is one piece; a space joins the word after it), and a token never spans
# two pieces. Tried in this order, each on the second half of a block.
_TEXT_CUTS = [re.compile(rb"\n[ \t\r]*\n(?=[!-~])"), re.compile(rb"\n(?=[!-~])"), re.compile(rb"[.!?](?= [A-Z])")]
TEXT_BLOCK = 1 << 20  # bytes decoded and counted at a time, at most


# where a long run of text with none of those is cut: after a letter or digit, before a space and a lower-case
# letter, where every tokenizer's pre-split already parts words ("met| the"), so token counts add up
_WORD_CUT = re.compile(rb"[A-Za-z0-9](?= [a-z])")


def _text_cut(buf: bytes, long: bool = False) -> int | None:
    """Where ``buf`` is cut: after its last paragraph, line or sentence end in its second half; ``long`` (a
    buffer of several blocks with none: one line of tens of MiB), between two words too."""
    for pattern in _TEXT_CUTS + ([_WORD_CUT] if long else []):
        last = None
        for last in pattern.finditer(buf, len(buf) // 2):
            pass
        if last is not None:
            return last.end()
    return None


def _whole_only(path: Path, cfg: Config) -> bool:
    """UTF-16 and UTF-32 text is read whole (its line breaks are no byte 0x0A to cut at)."""
    with path.open("rb") as f:
        return whole_only(f.read(min(SNIFF_BYTES, TEXT_BLOCK)), cfg.input.encoding_errors)


def _text_ranges(path: Path, cfg: Config) -> Iterator[ShardSpec]:
    """A text file cut into ranges of ``shard_chunks`` chunks each, streaming: blocks cut at `_TEXT_CUTS` are
    decoded and their tokens counted, so each range starts at a known token and character of the document and
    chunks exactly as the whole does. A text of one shard's chunks (or none) stays whole. Blocks are read as
    UTF-8 until one is not (or holds a NUL byte): then the whole file decides how it is read (`reading_of_file`,
    as the local engine reads it) and the counting starts over."""
    size, overlap, per_shard = cfg.chunking.size, cfg.chunking.overlap, cfg.runtime.shard_chunks
    step = size - overlap
    try:
        reading, (cuts, tokens) = None, _text_cuts(path, cfg, None)
    except NotDecodable:
        reading = reading_of_file(path, cfg.input.encoding_errors)  # not text: its error, naming the file
        cuts, tokens = _text_cuts(path, cfg, reading)
    total = chunk_count(tokens, size, overlap)
    if total <= per_shard:
        yield ShardSpec(0, "whole", str(path))
        return
    at_token = [t for _, t, _ in cuts]
    for index, first in enumerate(range(0, total, per_shard)):
        stop = min(total, first + per_shard)
        start = cuts[bisect.bisect_right(at_token, first * step) - 1]
        end = cuts[bisect.bisect_left(at_token, min((stop - 1) * step + size, tokens))]
        yield ShardSpec(index, "text", str(path), start[0], end[0], first_item=first, first_token=start[1],
                        first_char=start[2], items=stop - first, reading=reading)


def _text_cuts(path: Path, cfg: Config, reading: Reading | None) -> tuple[list[tuple[int, int, int]], int]:
    """(the (byte, token, character) where each block starts, the text's tokens), the blocks read as
    ``reading`` says (None: UTF-8, no NUL byte, else `NotDecodable`)."""
    size, overlap, per_shard = cfg.chunking.size, cfg.chunking.overlap, cfg.runtime.shard_chunks
    tokenizer = Tokenizer(cfg.llm.model)
    block = min(TEXT_BLOCK, max(4096, per_shard * (size - overlap) * BYTES_PER_TOKEN // 8))
    cuts = [(0, 0, 0)]
    buf, pos, tokens, chars = b"", 0, 0, 0
    with path.open("rb") as f:
        while True:
            data = f.read(block)
            buf += data
            while buf and (not data or len(buf) >= block):
                end = len(buf) if not data else _text_cut(buf, len(buf) >= 4 * block)
                if end is None:
                    break  # no place to cut yet: read on
                text = decode(buf[:end], str(path), offset=pos, how=reading or UTF8)
                tokens, chars, pos, buf = tokens + len(tokenizer.encode(text)), chars + len(text), pos + end, buf[end:]
                cuts.append((pos, tokens, chars))
            if not data:
                break
    return cuts, tokens


def _file_groups(root: Path, per_shard: int, max_bytes: int, errors: str) -> Iterator[ShardSpec]:
    group: list[str] = []
    size = index = 0
    for p in text_files(root, errors):
        n = p.stat().st_size
        if group and (len(group) >= per_shard or size + n > max_bytes):
            yield ShardSpec(index, "files", str(root), files=tuple(group))
            index, group, size = index + 1, [], 0
        group.append(p.relative_to(root).as_posix())
        size += n
    if group:
        yield ShardSpec(index, "files", str(root), files=tuple(group))


def _line_count(raw: bytes) -> int:
    """Lines as ``str.splitlines`` counts them in the decoded file (it also splits at \\r, \\x1c, U+2028 ...)."""
    return max(1, len(raw.decode("utf-8", "replace").splitlines()))


def _line_ranges(path: Path, per_shard: int, max_bytes: int | None, seen: "_SeenIds") -> Iterator[ShardSpec]:
    index, start, offset, line, items = 0, 0, 0, 1, 0
    first_line, first_item, in_shard = 1, 0, 0
    with path.open("rb") as f:
        for raw in f:
            if in_shard and (in_shard >= per_shard or (max_bytes is not None and offset - start >= max_bytes)):
                seen.flush()
                yield ShardSpec(index, "lines", str(path), start, offset, first_line, first_item)
                index, start, first_line, first_item, in_shard = index + 1, offset, line, items, 0
            seen.line(raw, line)
            offset += len(raw)
            line += _line_count(raw)
            if raw.strip():
                items += 1
                in_shard += 1
    seen.flush()
    if in_shard or index == 0:
        yield ShardSpec(index, "lines", str(path), start, offset, first_line, first_item)


class _SeenIds:
    """The ids of a JSONL input as the planner streams it, in a temporary SQLite file (the driver's memory stays
    flat): an id met again in any shard is the local engine's error, naming the line, before any work starts.
    Lines are read by the local readers, so a malformed line before it is that line's error, as locally."""

    BUFFER = 4 << 20  # bytes of lines read in one go

    def __init__(self, path: Path, cfg: Config, fmt: str) -> None:
        self.name, self.cfg, self.fmt = str(path), cfg.input, fmt
        self.kind = "chunk" if fmt == "chunks" else "document"
        self._lines: list[bytes] = []
        self._size, self._first = 0, 1
        self._dir = tempfile.TemporaryDirectory(prefix="graphglean-ids-")
        self._db = sqlite3.connect(Path(self._dir.name) / "ids.sqlite", isolation_level=None)
        self._db.execute("PRAGMA journal_mode=OFF")
        self._db.execute("CREATE TABLE ids (id TEXT PRIMARY KEY) WITHOUT ROWID")

    def __enter__(self) -> "_SeenIds":
        return self

    def __exit__(self, *exc: object) -> None:
        self._db.close()
        self._dir.cleanup()

    def line(self, raw: bytes, lineno: int) -> None:
        if not self._lines:
            self._first = lineno
        self._lines.append(raw)
        self._size += len(raw)
        if self._size >= self.BUFFER:
            self.flush()

    def flush(self) -> None:
        if not self._lines:
            return
        data, self._lines, self._size = b"".join(self._lines), [], 0
        repairs = Repairs()  # warned about here, in the driver; the shards count them
        if self.fmt == "chunks":
            ids = [(lineno, cid) for lineno, cid, *_ in prechunked_lines(data, self.name, self.cfg.encoding_errors,
                                                                            self._first, repairs)]
        else:
            ids = [(lineno, doc.id) for lineno, doc in jsonl_documents(data, self.name, self.cfg, self._first,
                                                                       repairs)]
        self._add(ids)

    def _add(self, ids: list[tuple[int, str]]) -> None:
        try:
            self._db.execute("BEGIN")
            self._db.executemany("INSERT INTO ids VALUES (?)", ((i,) for _, i in ids))
            self._db.execute("COMMIT")
            return
        except sqlite3.IntegrityError:
            self._db.execute("ROLLBACK")
        for lineno, item_id in ids:  # the first line whose id was met before, in input order
            try:
                self._db.execute("INSERT INTO ids VALUES (?)", (item_id,))
            except sqlite3.IntegrityError:
                raise duplicate_id(self.name, lineno, self.kind, item_id) from None


def read_shard(spec: ShardSpec, cfg: Config, tokenizer: Tokenizer) -> Inputs:
    """What the local engine would read for the shard's part of the input (with what was said reading it)."""
    with noted() as notes:
        inputs = _read_shard(spec, cfg, tokenizer)
    return attrs.evolve(inputs, notes=notes)


def _read_shard(spec: ShardSpec, cfg: Config, tokenizer: Tokenizer) -> Inputs:
    c = cfg.input
    if spec.kind == "whole":
        return read_inputs(c, tokenizer)
    root = Path(spec.path)
    if spec.kind == "text":
        with root.open("rb") as f:
            f.seek(spec.start)
            text = decode(f.read(spec.end - spec.start), str(root), offset=spec.start,
                          how=spec.reading or UTF8)
        part = TextPart(spec.first_token, spec.first_char, range(spec.first_item, spec.first_item + spec.items))
        return Inputs(chunks=token_chunks(root.name, text, tokenizer, cfg.chunking.size, cfg.chunking.overlap,
                                          part=part))
    if spec.kind == "files":
        return Inputs(documents=read_folder(root, c.encoding_errors, [root / f for f in spec.files]))
    with root.open("rb") as f:
        f.seek(spec.start)
        data = f.read(spec.end - spec.start)
    fmt = _detect(root, None) if c.format == "auto" else c.format
    repairs = Repairs(warn=False)  # the planner warned about them, reading the same lines
    if fmt == "chunks":
        return Inputs(chunks=read_prechunked(data, str(root), tokenizer, c.encoding_errors, spec.first_line,
                                             spec.first_item, repairs), repairs=repairs)
    return Inputs(documents=read_jsonl(data, str(root), c, spec.first_line, repairs), repairs=repairs)


def absolute_paths(cfg: Config) -> Config:
    """A copy of ``cfg`` whose paths do not depend on the working folder (a worker's is not the driver's)."""
    cfg = attrs.evolve(cfg, input=attrs.evolve(cfg.input), output=attrs.evolve(cfg.output),
                       llm=attrs.evolve(cfg.llm, cache=attrs.evolve(cfg.llm.cache)), graph=attrs.evolve(cfg.graph),
                       episodic=attrs.evolve(cfg.episodic))
    cfg.input.path = os.path.abspath(cfg.input.path)
    cfg.output.dir = os.path.abspath(cfg.output.dir)
    cfg.llm.cache.path = os.path.abspath(cfg.llm.cache.path)
    if cfg.graph.examples not in ("default", "none"):
        cfg.graph.examples = os.path.abspath(cfg.graph.examples)
    if cfg.episodic.templates:
        cfg.episodic.templates = os.path.abspath(cfg.episodic.templates)
    return cfg


PARTITION_CHUNKS = 62_500  # the chunks whose records a partition's task holds, at least


def with_partitions(cfg: Config, shards: int) -> Config:
    """``cfg`` with ``runtime.graph_partitions`` set, if 0 (auto), from the planned corpus (``shards`` of up to
    ``shard_chunks`` chunks each): 16, doubled each time the corpus doubles past 1M chunks, so a partition's task
    holds the records of 62,500-125,000 chunks at every size (its CPU a record grew with the partition: memory
    caches, the collector: +30% for 8x the partition). In steps, so that a corpus growing a little keeps the
    count that its finished shards' fingerprints hold."""
    rt = cfg.runtime
    if rt.graph_partitions:
        return cfg
    chunks, partitions = shards * rt.shard_chunks, 16
    while chunks >= 2 * partitions * PARTITION_CHUNKS:
        partitions *= 2
    return attrs.evolve(cfg, runtime=attrs.evolve(rt, graph_partitions=partitions))
