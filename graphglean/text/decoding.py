"""Input bytes to text: UTF-8, with an error (or, asked for, a warning) that names the file and byte offset."""

from __future__ import annotations

import warnings

from ..core.errors import InputError


class InputWarning(UserWarning):
    """Something in the input was skipped or changed; the message says what and where."""


def decode(data: bytes, name: str, errors: str = "strict", offset: int = 0) -> str:
    """UTF-8 text of ``data``; an error names the file and byte offset, or (replace) a warning does. ``offset``:
    where ``data`` starts in the file (a byte-order mark is dropped only at the file's start)."""
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
