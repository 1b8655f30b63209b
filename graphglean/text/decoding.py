"""Input bytes to text: UTF-8, with an error (or, asked for, a warning) that names the file and byte offset; and
whether bytes are text at all (a binary file named ``.txt`` in a folder is skipped, not read)."""

from __future__ import annotations

import codecs
import warnings
from pathlib import Path

from ..core.errors import InputError

SNIFF_BYTES = 65536  # of a file: what tells whether it is text
# what binary formats that may hold no NUL byte near their start begin with
_SIGNATURES = ((b"%PDF-", "a PDF"), (b"\x89PNG\r\n\x1a\n", "a PNG image"), (b"\xff\xd8\xff", "a JPEG image"),
               (b"GIF87a", "a GIF image"), (b"GIF89a", "a GIF image"), (b"PK\x03\x04", "a ZIP archive"),
               (b"\x1f\x8b", "gzip data"), (b"\xfd7zXZ\x00", "xz data"), (b"7z\xbc\xaf\x27\x1c", "a 7z archive"),
               (b"\x28\xb5\x2f\xfd", "zstd data"), (b"\x7fELF", "an executable"),
               (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "an old Office document"), (b"SQLite format 3\x00", "SQLite"))
_BOMS = ((codecs.BOM_UTF32_LE, "UTF-32"), (codecs.BOM_UTF32_BE, "UTF-32"), (codecs.BOM_UTF16_LE, "UTF-16"),
         (codecs.BOM_UTF16_BE, "UTF-16"))
# control characters no text holds (tab, line and page breaks and escape are text's own)
_CONTROLS = bytes(c for c in range(32) if c not in b"\t\n\v\f\r\x1b") + b"\x7f"
MAX_CONTROL_SHARE = 0.1


class InputWarning(UserWarning):
    """Something in the input was skipped or changed; the message says what and where."""


def not_text(head: bytes) -> str | None:
    """Why bytes that begin with ``head`` are no text ("a PDF", "NUL byte at offset 12"), or None when they may
    be. Text in another Unicode encoding is text: `decode` says what to do with it."""
    if _bom(head):
        return None
    kind = next((what for start, what in _SIGNATURES if head.startswith(start)), None)
    if kind is not None:
        return kind
    nul = head.find(b"\x00")
    if nul >= 0:
        return f"NUL byte at offset {nul}"
    controls = sum(head.count(c) for c in _CONTROLS)
    if head and controls > MAX_CONTROL_SHARE * len(head):
        return f"{controls} control bytes in its first {len(head)}"
    return None


def sniff(path: Path) -> str | None:
    """`not_text` of the file's first `SNIFF_BYTES` (a file that cannot be read is left to the reading to name)."""
    try:
        with path.open("rb") as f:
            return not_text(f.read(SNIFF_BYTES))
    except OSError:
        return None


def _bom(data: bytes) -> str | None:
    return next((name for bom, name in _BOMS if data.startswith(bom)), None)


def decode(data: bytes, name: str, errors: str = "strict", offset: int = 0) -> str:
    """UTF-8 text of ``data``; an error names the file and byte offset, or (replace) a warning does. ``offset``:
    where ``data`` starts in the file (a byte-order mark is dropped only at the file's start)."""
    if offset == 0 and (encoding := _bom(data)):
        raise InputError(f"{name}: {encoding} text (byte-order mark); graphglean reads UTF-8: convert it first "
                         f"(iconv -f {encoding} -t UTF-8)")
    if offset == 0 and (why := not_text(data[:SNIFF_BYTES])):
        raise InputError(f"{name}: looks binary ({why}); graphglean reads UTF-8 text")
    nul = data.find(b"\x00")
    if nul >= 0:
        raise InputError(f"{name}: looks binary (NUL byte at offset {offset + nul}); graphglean reads UTF-8 text")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        if errors != "replace":
            raise InputError(f"{name}: invalid UTF-8 at byte offset {offset + e.start} "
                             f"(set input.encoding_errors: replace to read it anyway)") from None
        warnings.warn(f"{name}: invalid UTF-8 from byte offset {offset + e.start}; replaced with U+FFFD",
                      InputWarning, stacklevel=2)
        text = data.decode("utf-8", "replace")
    return text.removeprefix("\ufeff") if offset == 0 else text
