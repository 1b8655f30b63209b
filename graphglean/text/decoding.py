"""Input bytes to text: UTF-8 (or UTF-16 and UTF-32 that say so with a byte-order mark), with an error (or, asked
for, a warning) that names the file and byte offset; and whether bytes are text at all (a binary file named
``.txt`` in a folder is skipped, not read)."""

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


class NotDecodable(InputError):
    """Bytes that are no text in an encoding graphglean reads; ``reason`` says why, without the file's name."""

    def __init__(self, name: str, reason: str) -> None:
        super().__init__(f"{name}: {reason}")
        self.reason = reason


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
        return f"NUL byte at offset {nul}" + (" (UTF-16 text without a byte-order mark?)" if _utf16(head) else "")
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


def _utf16(head: bytes) -> bool:
    """Whether bytes look like UTF-16 of mostly ASCII text: NULs at nearly every odd (or every even) offset."""
    pairs = len(head) // 2
    return pairs >= 8 and any(head[i::2].count(0) >= 0.9 * pairs for i in (0, 1))


def decode(data: bytes, name: str, errors: str = "strict", offset: int = 0) -> str:
    """The text of ``data``: UTF-8, or UTF-16 or UTF-32 after their byte-order mark; `NotDecodable` names the file
    and byte offset, or (replace) a warning does. ``offset``: where ``data`` starts in the file (a byte-order
    mark is read only at the file's start)."""
    encoding = _bom(data) if offset == 0 else None
    if encoding is None and offset == 0 and (why := not_text(data[:SNIFF_BYTES])):
        raise NotDecodable(name, f"looks binary ({why}); graphglean reads UTF-8 text")
    nul = data.find(b"\x00") if encoding is None else -1
    if nul >= 0:
        raise NotDecodable(name, f"looks binary (NUL byte at offset {offset + nul}); graphglean reads UTF-8 text")
    encoding = encoding or "UTF-8"
    try:
        text = data.decode(encoding.lower())  # utf-16 and utf-32 read the byte-order mark, and drop it
    except UnicodeDecodeError as e:
        if errors != "replace":
            raise NotDecodable(name, f"invalid {encoding} at byte offset {offset + e.start} (set "
                                     "input.encoding_errors: replace to read it anyway)") from None
        warnings.warn(f"{name}: invalid {encoding} from byte offset {offset + e.start}; replaced with U+FFFD",
                      InputWarning, stacklevel=2)
        text = data.decode(encoding.lower(), "replace")
    return text.removeprefix("\ufeff") if offset == 0 else text
