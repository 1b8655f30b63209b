"""Input readers: text and Markdown files, folders, JSONL, pre-chunked JSONL, stdin, LoCoMo and message JSONL.

Every reader fails with an `InputError` that names the file (and the line or byte offset) and never drops
data silently: what is skipped or changed is said in an `InputWarning` naming it, and kept in ``Inputs.notes``.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any, Iterable, Iterator

import attrs

from ..core.config import InputConfig
from ..core.errors import InputError
from ..core.tokens import Tokenizer
from . import locomo
from .chunking import Chunk, token_chunks
from .decoding import NotDecodable, decode, sniff
from .messages import Left, message_content
from .notes import InputWarning, Notes, SkippedFiles, listed, noted, warn
from .surrogates import Repairs, repaired_line, repaired_text

TEXT_SUFFIXES = (".txt", ".md", ".markdown", ".rst", ".text")


@attrs.frozen
class Document:
    id: str
    text: str
    source: str
    metadata: dict[str, Any] = attrs.field(factory=dict, eq=False, hash=False)


@attrs.frozen
class Message:
    """One chat message, as the enrichment pass and the LoCoMo reader see it."""

    session_id: str
    role: str
    content: str
    created_at: str = ""
    metadata: dict[str, Any] = attrs.field(factory=dict, eq=False, hash=False)
    id: str = ""


@attrs.frozen
class Inputs:
    """What a run reads: documents to chunk, chunks given as they are, and/or chat messages."""

    documents: list[Document] = attrs.field(factory=list)
    chunks: list[Chunk] = attrs.field(factory=list)
    messages: list[Message] = attrs.field(factory=list)
    repairs: Repairs = attrs.field(factory=Repairs, eq=False)  # what the readers replaced (lone surrogates)
    notes: Notes = attrs.field(factory=Notes, eq=False)  # what the readers warned about, and the files skipped

    def all_chunks(self, tokenizer: Tokenizer, size: int, overlap: int) -> list[Chunk]:
        """The chunks given as they are, then every document's token chunks."""
        chunks = list(self.chunks)
        for doc in self.documents:
            chunks += token_chunks(doc.id, doc.text, tokenizer, size, overlap, doc.metadata)
        return chunks


def _read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise InputError(f"{path}: input not found") from None
    except PermissionError:
        raise InputError(f"{path}: permission denied") from None
    except OSError as e:
        raise InputError(f"{path}: cannot read: {e.strerror}") from None


def content_id(text: str) -> str:
    return "doc-" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def read_text_file(path: Path, doc_id: str, errors: str = "auto") -> Document | None:
    text = decode(_read_bytes(path), str(path), errors)
    if not text.strip():
        warn(InputWarning(f"{path}: empty input; nothing to read"))
        return None
    return Document(doc_id, text, str(path))


def text_files(root: Path, errors: str = "auto") -> list[Path]:
    """The text files under ``root``, sorted: named as text (`TEXT_SUFFIXES`) and holding text (`sniff`: a PDF
    or an image named ``.txt`` is not). One warning names the others, which are skipped."""
    texts, others = _listed(root, errors)
    _skipped(root, others)
    if not texts:
        raise InputError(f"{root}: no readable text files ({', '.join(TEXT_SUFFIXES)}) in this folder")
    return texts


def _listed(root: Path, errors: str) -> tuple[list[Path], list[tuple[Path, str]]]:
    """(the files under ``root`` that may be text, the others with why: "" for a name not of text)."""
    texts: list[Path] = []
    others: list[tuple[Path, str]] = []
    for p in sorted(p for p in root.rglob("*") if p.is_file()):
        if p.suffix.lower() not in TEXT_SUFFIXES:
            if not p.name.startswith("."):
                others.append((p, ""))
        elif (why := sniff(p, errors)) is not None:
            others.append((p, why))
        else:
            texts.append(p)
    return texts, others


def _skipped(root: Path, others: list[tuple[Path, str]]) -> None:
    """One warning naming the first files skipped, with why; its details (logs/run.log) and report.json's
    ``skipped`` name every one."""
    if others:
        others = sorted(others)
        shown = [f"{p.relative_to(root)} ({why})" if why else str(p.relative_to(root)) for p, why in others]
        suffixes = ", ".join(TEXT_SUFFIXES)
        warn(SkippedFiles(f"{root}: skipped {len(others)} file(s) that are not text ({suffixes}): {listed(shown)}",
                          [(str(p), why or f"its name ends in none of {suffixes}") for p, why in others]), stacklevel=3)


def read_folder(root: Path, errors: str = "auto", files: list[Path] | None = None) -> list[Document]:
    """Every text file under ``root`` (or the given ``files`` of it) as a document named by its path; a file that
    turns out not to decode is skipped, named in the folder's one warning with why."""
    texts, others = _listed(root, errors) if files is None else (files, [])
    docs, undecodable = [], 0
    for p in texts:
        try:
            doc = read_text_file(p, p.relative_to(root).as_posix(), errors)
        except NotDecodable as e:
            others.append((p, e.reason))
            undecodable += 1
            continue
        if doc is not None:
            docs.append(doc)
    _skipped(root, others)
    if files is None and undecodable == len(texts):
        raise InputError(f"{root}: no readable text files ({', '.join(TEXT_SUFFIXES)}) in this folder")
    return docs


def _jsonl_lines(data: bytes, name: str, errors: str, first_line: int = 1,
                 repairs: Repairs | None = None) -> Iterable[tuple[int, dict[str, Any]]]:
    text = decode(data, name, errors)
    for lineno, line in enumerate(text.splitlines(), first_line):
        if not line.strip():
            continue
        if "\\u" in line:  # only an escape can be a lone surrogate
            line = repaired_line(line, name, lineno, repairs)
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as e:
            raise InputError(f"{name}:{lineno}: invalid JSON: {e.msg} (column {e.colno})") from None
        if type(obj) is not dict:  # json.loads makes no subclass
            raise InputError(f"{name}:{lineno}: expected a JSON object, got {type(obj).__name__}")
        yield lineno, obj


def _field(obj: dict[str, Any], key: str, name: str, lineno: int, required: bool = True) -> str | None:
    value = obj.get(key)
    if type(value) is str:  # the usual case, first: every line of a corpus passes here
        return value
    if value is None:
        if required:
            raise InputError(f"{name}:{lineno}: missing field {key!r}")
        return None
    if not isinstance(value, (str, int, float)) or isinstance(value, bool):
        raise InputError(f"{name}:{lineno}: field {key!r} must be a string, got {type(value).__name__}")
    return str(value)


def duplicate_id(name: str, lineno: int, kind: str, item_id: str) -> InputError:
    return InputError(f"{name}:{lineno}: duplicate {kind} id {item_id!r}")


def jsonl_documents(data: bytes, name: str, cfg: InputConfig, first_line: int = 1,
                    repairs: Repairs | None = None) -> Iterator[tuple[int, Document]]:
    """Each line's document with its line number (empty ones warned about and skipped); ids not checked."""
    for lineno, obj in _jsonl_lines(data, name, cfg.encoding_errors, first_line, repairs):
        text = _field(obj, cfg.text_field, name, lineno)
        if not text.strip():
            warn(InputWarning(f"{name}:{lineno}: empty {cfg.text_field!r}; line skipped"))
            continue
        doc_id = _field(obj, cfg.id_field, name, lineno, required=False) or f"{Path(name).name}:{lineno}"
        meta = {k: obj[k] for k in cfg.metadata_fields if k in obj}
        yield lineno, Document(doc_id, text, f"{name}:{lineno}", meta)


def read_jsonl(data: bytes, name: str, cfg: InputConfig, first_line: int = 1,
               repairs: Repairs | None = None) -> list[Document]:
    """One document per line; ``first_line`` numbers the lines of a part of a file as in the whole."""
    docs, seen = [], set()
    for lineno, doc in jsonl_documents(data, name, cfg, first_line, repairs):
        if doc.id in seen:
            raise duplicate_id(name, lineno, "document", doc.id)
        seen.add(doc.id)
        docs.append(doc)
    return docs


def prechunked_lines(data: bytes, name: str, errors: str = "auto", first_line: int = 1,
                     repairs: Repairs | None = None) -> Iterator[tuple[int, str, str, str, dict[str, Any]]]:
    """Each line's (line number, chunk id, text, document id, metadata); ids not checked."""
    for lineno, obj in _jsonl_lines(data, name, errors, first_line, repairs):
        cid = _field(obj, "id", name, lineno)
        text = _field(obj, "text", name, lineno)
        doc_id = _field(obj, "doc_id", name, lineno, required=False) or cid
        meta = obj.get("metadata")
        if type(meta) is not dict:
            meta = {}
        yield lineno, cid, text, doc_id, meta


def read_prechunked(data: bytes, name: str, tokenizer: Tokenizer, errors: str = "auto", first_line: int = 1,
                    first_index: int = 0, repairs: Repairs | None = None) -> list[Chunk]:
    """``{"id", "text"}`` lines used as chunks exactly as given (a part of a file: its first line number and
    the index of its first chunk in the whole)."""
    chunks, seen = [], set()
    for lineno, cid, text, doc_id, meta in prechunked_lines(data, name, errors, first_line, repairs):
        if cid in seen:
            raise duplicate_id(name, lineno, "chunk", cid)
        seen.add(cid)
        chunks.append(Chunk(cid, doc_id, first_index + len(chunks), text, 0, len(text), tokenizer.count(text), meta))
    return chunks


def read_messages_jsonl(data: bytes, name: str, errors: str = "auto",
                        repairs: Repairs | None = None) -> list[Message]:
    """``{"session_id", "role", "content", "created_at"?, "metadata"?}`` lines; ``content`` a string or OpenAI's
    list of parts (`messages.message_content`): a message without text is skipped, with a warning naming it."""
    out, left = [], Left()
    for lineno, obj in _jsonl_lines(data, name, errors, repairs=repairs):
        meta = obj.get("metadata") or {}
        if not isinstance(meta, dict):
            raise InputError(f"{name}:{lineno}: field 'metadata' must be an object")
        session, role = _field(obj, "session_id", name, lineno), _field(obj, "role", name, lineno)
        content = message_content(obj, name, lineno, left)
        if content is None:
            continue
        out.append(Message(session, role, content, _field(obj, "created_at", name, lineno, required=False) or "",
                           meta, _field(obj, "uuid", name, lineno, required=False) or ""))
    left.warn(name)
    return out


def _detect(path: Path, data: bytes | None) -> str:
    suffix = path.suffix.lower()
    if suffix == ".jsonl":
        return "jsonl"
    if suffix == ".json":
        return "locomo"
    return "text"


def read_inputs(cfg: InputConfig, tokenizer: Tokenizer, stdin: Any = None) -> Inputs:
    """Read what ``cfg`` names. Raises `InputError` with the file (and line) on anything unreadable. Lone
    surrogates in JSON are replaced with U+FFFD (a warning names each line; ``Inputs.repairs`` counts them).
    ``Inputs.notes`` keeps every warning said and the files skipped (report.json's ``warnings``, ``skipped``)."""
    with noted() as notes:
        inputs = _read_inputs(cfg, tokenizer, stdin)
    return attrs.evolve(inputs, notes=notes)


def _read_inputs(cfg: InputConfig, tokenizer: Tokenizer, stdin: Any) -> Inputs:
    repairs = Repairs()
    if cfg.path == "-":
        data = (stdin or sys.stdin.buffer).read()
        name = "<stdin>"
        fmt = "text" if cfg.format == "auto" else cfg.format
    else:
        path = Path(cfg.path)
        if not path.exists():
            default = cfg.path == attrs.fields(InputConfig).path.default  # not set: the source tree's sample folder
            raise InputError(f"input.path: {path}: input not found" + (
                " (examples/ is input.path's default, the sample folder of graphglean's source: set input.path to "
                "a file or folder of your texts)" if default else ""))
        if path.is_dir():
            if cfg.format not in ("auto", "text"):
                raise InputError(f"{path}: is a folder; input.format {cfg.format} needs a file")
            return Inputs(documents=_nonempty(read_folder(path, cfg.encoding_errors), str(path)))
        data, name = _read_bytes(path), str(path)
        fmt = _detect(path, data) if cfg.format == "auto" else cfg.format
    if not data.strip():
        raise InputError(f"{name}: empty input")
    if fmt == "text":
        text = decode(data, name, cfg.encoding_errors)
        doc_id = Path(name).name if name != "<stdin>" else content_id(text)
        return Inputs(documents=[Document(doc_id, text, name)])
    if fmt == "jsonl":
        return Inputs(documents=_nonempty(read_jsonl(data, name, cfg, repairs=repairs), name), repairs=repairs)
    if fmt == "chunks":
        return Inputs(chunks=read_prechunked(data, name, tokenizer, cfg.encoding_errors, repairs=repairs),
                      repairs=repairs)
    if fmt == "messages":
        return Inputs(messages=read_messages_jsonl(data, name, cfg.encoding_errors, repairs), repairs=repairs)
    if fmt == "locomo":
        text = repaired_text(decode(data, name, cfg.encoding_errors), name, repairs)
        conversations = locomo.parse_locomo(text, name)
        return Inputs(chunks=locomo.to_chunks(conversations, tokenizer, cfg.locomo_granularity),
                      messages=locomo_messages(conversations), repairs=repairs)
    raise InputError(f"{name}: unknown input format {fmt!r}")


def locomo_messages(conversations: list[locomo.Conversation]) -> list[Message]:
    """Each LoCoMo turn as a message: role = speaker, session = the conversation's session, created_at = its date."""
    return [Message(session_id, t.speaker, t.text, date, {"dia_id": t.dia_id}, f"{sample_id}:{t.dia_id}")
            for sample_id, session_id, date, t in locomo.turns(conversations)]


def _nonempty(docs: list[Document], name: str) -> list[Document]:
    if not docs:
        raise InputError(f"{name}: every input is empty")
    return docs
