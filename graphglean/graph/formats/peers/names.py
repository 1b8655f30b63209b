"""Names and types as each peer engine writes them itself, so a node graphglean found is the node the engine
would have made of the same answer (its own searches, merges and later inserts then meet it):

- GraphRAG 3.3 (`graphrag.index.utils.string.clean_str` of the upper-cased field): HTML entities unescaped,
  control characters removed, outer space stripped; names and types in upper case.
- LightRAG 1.5 (`lightrag.utils.normalize_entity_name`): case kept; HTML entities, control characters,
  surrogates, paragraph tags, full-width letters, digits and symbols, Chinese brackets and dashes, spaces
  between Chinese characters, outer quotes and Chinese quotes all normalized; types lower case, without
  spaces (`_normalize_and_validate_entity_type`).
"""

from __future__ import annotations

import html
import re

_GRAPHRAG_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")

_SURROGATES = re.compile(r"[\uD800-\uDFFF\uFFFE\uFFFF]")
_CONTROL = re.compile(r"[\x00-\x08\x0B\x0C\x0E-\x1F\x7F]")
_PARAGRAPH = re.compile(r"</p\s*>|<p\s*>|<p/>|</br\s*>|<br\s*>|<br/>", re.IGNORECASE)
_FULL_WIDTH = str.maketrans({chr(wide): chr(wide - 0xFEE0) for wide in  # Ａ-Ｚ ａ-ｚ ０-９
                             [*range(0xFF21, 0xFF3B), *range(0xFF41, 0xFF5B), *range(0xFF10, 0xFF1A)]})
_SYMBOLS = (("－", "-"), ("＋", "+"), ("／", "/"), ("＊", "*"), ("（", "("), ("）", ")"), ("—", "-"),
            ("　", " "))
_HAN = "\u4e00-\u9fa5"
_HAN_SPACE = re.compile(rf"(?<=[{_HAN}])\s+(?=[{_HAN}])")
_HAN_THEN_LATIN = re.compile(rf"(?<=[{_HAN}])\s+(?=[a-zA-Z0-9\(\)\[\]@#$%!&\*\-=+_])")
_LATIN_THEN_HAN = re.compile(rf"(?<=[a-zA-Z0-9\(\)\[\]@#$%!&\*\-=+_])\s+(?=[{_HAN}])")
_QUOTES_BEFORE_HAN = re.compile(rf"['\"]+(?=[{_HAN}])")
_QUOTES_AFTER_HAN = re.compile(rf"(?<=[{_HAN}])['\"]+")
_OUTER_PAIRS = (('"', '"'), ("'", "'"), ("“", "”"), ("‘", "’"), ("《", "》"))
_BAD_TYPE_CHARACTERS = re.compile(r"['()<>|/\\]")
# JavaScript prototype member names LightRAG refuses as a type (its web UI keys objects by type)
_RESERVED_TYPES = {"__proto__", "constructor", "prototype", "hasownproperty", "isprototypeof", "tostring",
                   "valueof", "tolocalestring", "propertyisenumerable", "__definegetter__", "__definesetter__",
                   "__lookupgetter__", "__lookupsetter__"}


def graphrag_name(text: str) -> str:
    """An entity title (or type) as GraphRAG's extractor writes it."""
    return _GRAPHRAG_CONTROL.sub("", html.unescape(text.upper().strip()))


def lightrag_text(text: str) -> str:
    """`lightrag.utils.sanitize_text_for_encoding`: what LightRAG keeps of any text it stores."""
    text = text.strip()
    if not text:
        return text
    return _CONTROL.sub("", _SURROGATES.sub("", html.unescape(text))).strip()


def lightrag_name(text: str) -> str:
    """An entity name as LightRAG's extractor writes it; the text itself when LightRAG would keep nothing of it
    (a bare number such as "12": LightRAG drops it, graphglean keeps the node)."""
    name = _PARAGRAPH.sub("", lightrag_text(text)).translate(_FULL_WIDTH)
    for wide, narrow in _SYMBOLS:
        name = name.replace(wide, narrow)
    name = _LATIN_THEN_HAN.sub("", _HAN_THEN_LATIN.sub("", _HAN_SPACE.sub("", name)))
    if len(name) >= 2:
        for first, last in _OUTER_PAIRS:
            inner = name[1:-1]
            if name.startswith(first) and name.endswith(last) and first not in inner and last not in inner:
                name = inner
    name = name.replace("“", "").replace("”", "").replace("‘", "").replace("’", "")
    name = _QUOTES_AFTER_HAN.sub("", _QUOTES_BEFORE_HAN.sub("", name)).replace("\u00a0", " ")
    name = re.sub(r"(?<=[^\d])\u202F", " ", name).strip()
    return name or text.strip()


def lightrag_type(text: str) -> str:
    """An entity type as LightRAG keeps it: its first comma-separated part, lower case, without spaces;
    characters LightRAG refuses in a type are dropped (it would drop the entity), ``other`` when none is left."""
    kind = lightrag_name(text)
    kind = next((part for part in (p.strip() for p in kind.split(",")) if part), "")
    kind = _BAD_TYPE_CHARACTERS.sub("", kind).replace(" ", "").lower()
    return "other" if not kind or kind in _RESERVED_TYPES else kind
