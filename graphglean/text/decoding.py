"""Input bytes to text, decided on a file's whole content (`Tally`): whether it is text at all (a binary file
named ``.txt`` in a folder is skipped, not read), and how it is read (`Reading`). Errors and warnings name the
file and byte offset.

- Text: no binary format's signature; NUL bytes at most one in 1,000 (at least one: stray NULs in text are
  dropped, with a warning); other control bytes at most a tenth of the bytes.
- UTF-8, or UTF-16 and UTF-32 that say so with a byte-order mark. With ``encoding_errors: auto`` (the default):
  UTF-16 of mostly ASCII text without a byte-order mark (NULs at every other byte) is read as such; a file that
  is not UTF-8 but reads as Windows-1252 text (cp1252: Latin-1's letters and signs, and the quotes, dashes and
  euro of Windows) is read as cp1252; one that is UTF-8 but for a few bytes (`STRAY_SHARE`, at least
  `LEAST_INVALID`) has them replaced with U+FFFD; each with a warning. ``strict``: invalid UTF-8 is an error;
  ``replace``: it becomes U+FFFD, with a warning; neither guesses another encoding.
"""

from __future__ import annotations

import codecs
import re
from pathlib import Path

import attrs

from ..core.errors import InputError
from .notes import InputWarning, warn

SNIFF_BYTES = 65536  # of a file: where its byte-order mark, signature or UTF-16 pattern is looked for
# what binary formats that may hold no NUL byte near their start begin with
_SIGNATURES = ((b"%PDF-", "a PDF"), (b"\x89PNG\r\n\x1a\n", "a PNG image"), (b"\xff\xd8\xff", "a JPEG image"),
               (b"GIF87a", "a GIF image"), (b"GIF89a", "a GIF image"), (b"PK\x03\x04", "a ZIP archive"),
               (b"\x1f\x8b", "gzip data"), (b"\xfd7zXZ\x00", "xz data"), (b"7z\xbc\xaf\x27\x1c", "a 7z archive"),
               (b"\x28\xb5\x2f\xfd", "zstd data"), (b"\x7fELF", "an executable"),
               (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "an old Office document"), (b"SQLite format 3\x00", "SQLite"))
_BOMS = ((codecs.BOM_UTF32_LE, "UTF-32"), (codecs.BOM_UTF32_BE, "UTF-32"), (codecs.BOM_UTF16_LE, "UTF-16"),
         (codecs.BOM_UTF16_BE, "UTF-16"))
# control characters no text holds (tab, line and page breaks and escape are text's own; NUL is counted apart)
_CONTROLS = bytes(c for c in range(1, 32) if c not in b"\t\n\v\f\r\x1b") + b"\x7f"
MAX_CONTROL_SHARE = 0.1
STRAY_SHARE = 0.001  # NUL bytes, or bytes that are no UTF-8, that text may hold: one in 1,000
LEAST_INVALID = 4  # bytes that are no UTF-8 replaced in a file however short (a character cut, two stray bytes)
CP1252_SHARE = 0.8  # of a file's non-ASCII characters read as Windows-1252, those that must look like text
MAX_CHECKED = 20_000  # non-ASCII characters looked at to tell Windows-1252 text (the first)
_LEADS = bytes(range(0xC2, 0xF5))  # each character UTF-8 writes in several bytes starts with one of these
_NOT_ASCII = re.compile(r"[^\x00-\x7f]")
# the signs of Windows-1252's bytes 0x80-0xBF: what UTF-8's continuation bytes read as ('Ã©' is 'é', 'â€™' '’');
# not the no-break space, which French puts after a word ('allé ?'; UTF-8's own, c2 a0, is valid UTF-8)
_HIGH_SIGNS = frozenset(ch for ch in bytes(range(0x80, 0xC0)).decode("cp1252", "ignore")
                        if not ch.isalpha() and ch != "\xa0")


class NotDecodable(InputError):
    """Bytes that are no text in an encoding graphglean reads; ``reason`` says why, without the file's name."""

    def __init__(self, name: str, reason: str) -> None:
        super().__init__(f"{name}: {reason}")
        self.reason = reason


@attrs.frozen
class Reading:
    """How a file's bytes become its text, decided once on the whole file (`Tally.reading`): a part of the file
    is read the same way."""

    encoding: str = "utf-8"  # a Python codec
    errors: str = "strict"  # replace: where a few bytes are not valid
    drop_nul: bool = False  # stray NUL bytes left out

    def text(self, data: bytes, name: str, offset: int = 0) -> str:
        """``data`` (at ``offset`` in the file) read this way; `NotDecodable` names where it cannot be."""
        try:
            return self.finish(data.decode(self.encoding, self.errors), data, name, offset)
        except UnicodeDecodeError as e:
            raise NotDecodable(name, f"invalid {_label(self.encoding)} at byte offset {offset + e.start} (set "
                                     "input.encoding_errors: replace to read it anyway)") from None

    def finish(self, text: str, data: bytes, name: str, offset: int = 0) -> str:
        """``text``, decoded from ``data``, without its NULs (or `NotDecodable` for one not expected) and the
        byte-order mark at the file's start."""
        if "\x00" in text:
            if not self.drop_nul:
                raise NotDecodable(name, f"looks binary (NUL byte at offset {offset + data.find(0)}); graphglean "
                                         "reads text")
            text = text.replace("\x00", "")
        return text.removeprefix("\ufeff") if offset == 0 else text


UTF8 = Reading()


@attrs.define
class Tally:
    """A file's bytes counted as they are read, in blocks cut where no character is split (at line ends): what
    decides whether it is text and how it is read."""

    head: bytes = b""  # the first SNIFF_BYTES
    size: int = 0
    nul: int = 0
    first_nul: int = -1
    controls: int = 0
    invalid: int = 0  # bytes that are no UTF-8
    first_invalid: int = -1
    multibyte: int = 0  # characters UTF-8 writes in several bytes
    cp1252: bool = True  # every byte is a Windows-1252 character (0x81, 0x8D, 0x8F, 0x90 and 0x9D are none)
    checked: int = 0  # non-ASCII characters of the blocks that are no UTF-8, read as Windows-1252 ...
    textlike: int = 0  # ... and those among them that look like text

    def add(self, block: bytes) -> str | None:
        """Count ``block``, the file's next; its text when it is UTF-8, else None."""
        if len(self.head) < SNIFF_BYTES:
            self.head += block[:SNIFF_BYTES - len(self.head)]
        if (nul := block.count(0)) and self.first_nul < 0:
            self.first_nul = self.size + block.find(0)
        self.nul += nul
        self.controls += len(block) - len(block.translate(None, _CONTROLS))
        text = None
        try:
            text = block.decode("utf-8")
            if not text.isascii():
                self.multibyte += len(block) - len(block.translate(None, _LEADS))
        except UnicodeDecodeError as e:
            if self.first_invalid < 0:
                self.first_invalid = self.size + e.start
            escaped = block.decode("utf-8", "surrogateescape")  # each invalid byte one lone surrogate
            invalid = len(block) - len(escaped.encode("utf-8", "ignore"))  # the surrogates left out
            self.invalid += invalid
            self.multibyte += len(escaped) - len(escaped.encode("ascii", "ignore")) - invalid
            self._windows_1252(block)
        self.size += len(block)
        return text

    def _windows_1252(self, block: bytes) -> None:
        try:
            text = block.decode("cp1252")
        except UnicodeDecodeError:
            self.cp1252 = False
            return
        for m in _NOT_ASCII.finditer(text):
            if self.checked >= MAX_CHECKED:
                return
            self.checked += 1
            self.textlike += _looks_like_text(text, m.start())

    def binary(self, size: int | None = None, utf16_is_text: bool = False) -> str | None:
        """Why the file is no text ("a PDF", "9 NUL bytes ..."), or None. ``size``: the whole file's, where
        only its head was counted (then only what the whole would also be is said)."""
        size = max(size or 0, self.size)
        kind = next((what for start, what in _SIGNATURES if self.head.startswith(start)), None)
        if kind is not None:
            return kind
        utf16 = _utf16(self.head)
        if utf16 and utf16_is_text:
            return None
        if self.nul > max(1, int(size * STRAY_SHARE)):
            return (f"{self.nul} NUL bytes, the first at offset {self.first_nul}"
                    + (" (UTF-16 text without a byte-order mark?)" if utf16 else ""))
        if self.controls > MAX_CONTROL_SHARE * size:
            return f"{self.controls} control bytes in {size}"
        return None

    def reading(self, name: str, errors: str = "auto") -> Reading:
        """How the file counted is read, said in a warning where it is not plain UTF-8; `NotDecodable` when it is
        no text, or (``errors`` strict, or too many bytes that are no UTF-8 nor Windows-1252) not read."""
        if (why := self.binary()) is not None:
            raise NotDecodable(name, f"looks binary ({why}); graphglean reads text")
        how, at = UTF8, self.first_invalid
        if self.invalid and errors == "strict":
            raise NotDecodable(name, f"invalid UTF-8 at byte offset {at} (set input.encoding_errors: auto or "
                                     "replace to read it anyway)")
        if self.invalid and errors == "auto" and self._reads_as_windows_1252():
            how = Reading("cp1252")
            warn(InputWarning(f"{name}: not UTF-8 ({_count(self.invalid)} invalid, the first at byte offset {at}); "
                              "read as Windows-1252 (cp1252), in which it is text (input.encoding_errors: replace "
                              "reads it as UTF-8, strict refuses it)"), stacklevel=3)
        elif self.invalid and (errors == "replace" or self.invalid <= max(LEAST_INVALID, self.size * STRAY_SHARE)):
            how = Reading(errors="replace")
            warn(InputWarning(f"{name}: {_count(self.invalid)} of invalid UTF-8 from byte offset {at} replaced with "
                              "U+FFFD"), stacklevel=3)
        elif self.invalid:
            raise NotDecodable(name, f"not UTF-8 ({_count(self.invalid)} invalid, the first at byte offset {at}) nor "
                                     "Windows-1252 text (set input.encoding_errors: replace to read it as UTF-8 "
                                     "with U+FFFD)")
        if self.nul:
            warn(InputWarning(f"{name}: {_count(self.nul, 'stray NUL byte')} left out (the first at offset "
                              f"{self.first_nul})"), stacklevel=3)
            how = attrs.evolve(how, drop_nul=True)
        return how

    def _reads_as_windows_1252(self) -> bool:
        """Whether the file is more likely Windows-1252 than UTF-8 with a few stray bytes: it holds fewer UTF-8
        characters than bytes that are no UTF-8, and its non-ASCII characters read in cp1252 look like text."""
        return (self.cp1252 and self.multibyte < self.invalid and self.checked > 0
                and self.textlike >= CP1252_SHARE * self.checked
                and not self.head.startswith(codecs.BOM_UTF8))  # a file that says it is UTF-8


def _looks_like_text(text: str, i: int) -> bool:
    """Whether the non-ASCII character at ``i`` looks like text: a letter in a word that also holds an ASCII
    letter ('café', 'Müller') or a letter alone ('à'), not followed by a sign of 0x80-0xBF; a sign (quotes,
    dashes, €, £, °, a no-break space) not right after a non-ASCII letter. UTF-8 read as cp1252 ('Ã©', 'â€™'),
    Cyrillic read as cp1252 ('Ïðèâåò') and stray bytes ('ÿþ') do not."""
    ch = text[i]
    if not ch.isalpha():
        before = text[i - 1:i]
        return ch == "\xa0" or not (before.isalpha() and not before.isascii())
    if text[i + 1:i + 2] in _HIGH_SIGNS:
        return False
    start, end = i, i + 1
    while start > max(0, i - 40) and text[start - 1].isalpha():
        start -= 1
    while end < min(len(text), i + 40) and text[end].isalpha():
        end += 1
    return end - start == 1 or any(c.isascii() for c in text[start:end])


def _count(n: int, what: str = "byte") -> str:
    return f"{n} {what}" + ("" if n == 1 else "s")


def _label(encoding: str) -> str:
    return {"utf-8": "UTF-8", "cp1252": "Windows-1252"}.get(encoding, encoding.upper())


def not_text(head: bytes, size: int | None = None, utf16_is_text: bool = False) -> str | None:
    """Why a file that begins with ``head`` (``size`` bytes in all) is no text ("a PDF", "9 NUL bytes, the first
    at offset 12"), or None when it may be. Text in another Unicode encoding is text: `decode` reads it."""
    if _bom(head):
        return None
    tally = Tally()
    tally.add(head)
    return tally.binary(size, utf16_is_text)


def sniff(path: Path, errors: str = "auto") -> str | None:
    """`not_text` of the file's first `SNIFF_BYTES` (a file that cannot be read is left to the reading to name)."""
    try:
        with path.open("rb") as f:
            return not_text(f.read(SNIFF_BYTES), path.stat().st_size, errors == "auto")
    except OSError:
        return None


def _bom(data: bytes) -> str | None:
    return next((name for bom, name in _BOMS if data.startswith(bom)), None)


def _utf16(head: bytes) -> str | None:
    """The UTF-16 of bytes that look like UTF-16 of mostly ASCII text without a byte-order mark (NULs at nearly
    every odd, or every even, offset), else None."""
    pairs = len(head) // 2
    if pairs < 8:
        return None
    return next((order for i, order in ((1, "utf-16-le"), (0, "utf-16-be")) if head[i::2].count(0) >= 0.9 * pairs),
                None)


def _unicode_without_bom(data: bytes, name: str) -> str | None:
    """The text of UTF-16 without a byte-order mark (said in a warning), or None when ``data`` is none."""
    order = _utf16(data[:SNIFF_BYTES])
    if order is None:
        return None
    try:
        text = data.decode(order)
    except UnicodeDecodeError:
        return None
    if "\x00" in text or sum(text.count(chr(c)) for c in _CONTROLS) > MAX_CONTROL_SHARE * len(text):
        return None
    warn(InputWarning(f"{name}: read as {order.upper()} (it has no byte-order mark)"), stacklevel=3)
    return text


def decode(data: bytes, name: str, errors: str = "auto", offset: int = 0, how: Reading | None = None) -> str:
    """The text of ``data``, a whole file (or, at ``offset``, a part of one read as ``how`` says, UTF-8 where it
    says nothing): decided on the whole content (`Tally`); `NotDecodable` names the file and byte offset, a
    warning what was replaced or guessed."""
    if how is not None or offset:
        return (how or UTF8).text(data, name, offset)
    if encoding := _bom(data):
        try:
            return data.decode(encoding.lower())  # utf-16 and utf-32 read the byte-order mark, and drop it
        except UnicodeDecodeError as e:
            if errors != "replace":
                raise NotDecodable(name, f"invalid {encoding} at byte offset {e.start} (set "
                                         "input.encoding_errors: replace to read it anyway)") from None
            warn(InputWarning(f"{name}: invalid {encoding} from byte offset {e.start}; replaced with U+FFFD"))
            return data.decode(encoding.lower(), "replace")
    if errors == "auto" and (text := _unicode_without_bom(data, name)) is not None:
        return text
    tally = Tally()
    text = tally.add(data)
    how = tally.reading(name, errors)
    if text is not None and how.encoding == "utf-8":  # decoded already
        return how.finish(text, data, name)
    return how.text(data, name)


def reading_of_file(path: Path, errors: str = "auto") -> Reading:
    """How the file at ``path`` is read (`Tally.reading` on the whole file, streamed in blocks cut after a line
    break), said once; `NotDecodable` when it is no text."""
    tally, rest = Tally(), b""
    with path.open("rb") as f:
        while data := f.read(1 << 20):
            rest += data
            cut = rest.rfind(b"\n") + 1 or (_boundary(rest) if len(rest) >= 1 << 20 else 0)
            if cut:
                tally.add(rest[:cut])
                rest = rest[cut:]
    if rest:
        tally.add(rest)
    return tally.reading(str(path), errors)


def _boundary(data: bytes) -> int:
    """Where a block with no line break is cut, so that a file of one long line is not copied again with each
    block: before its last byte that begins a UTF-8 character (none of a character's later bytes, 0x80-0xBF, nor
    after a CR); 0 when its last bytes have none."""
    for i in range(len(data) - 1, max(0, len(data) - 8), -1):
        if not 0x80 <= data[i] <= 0xBF and data[i - 1] != 0x0D:
            return i
    return 0


def whole_only(head: bytes, errors: str = "auto") -> bool:
    """Whether a text that begins with ``head`` can only be read whole: UTF-16 or UTF-32 (with a byte-order
    mark, or UTF-16 without one that ``errors`` auto reads), whose line breaks are not the byte 0x0A."""
    return _bom(head) is not None or (errors == "auto" and _utf16(head) is not None)
