"""Names that still hold pieces of the answer's format once read: delimiter fragments (``<|``, ``|>``, ``||``),
arrows (``->``) and quotes that the chunk's own text does not hold. A name that is the rest once such pieces are cut
from its ends keeps that rest, a name built from quoted fragments keeps the name they quote (both counted as
repaired); any other such record is set aside as malformed text. The parser reads what it can; this is the check,
per chunk, that nothing of the format became a node."""

from __future__ import annotations

import re
from collections import Counter

import regex

from ...text.language import script_of
from ...text.nfc import nfc
from ...text.words import LETTERS
from ..records import EntityRecord, ParseResult, RelationshipRecord
from .fields import clean_field, is_header_word, is_known_type

FRAGMENTS = ("|", "\uff5c", "<|", "->", "=>", "\u2192")  # a bar alone too: "Government|Offeror|evaluates"
_JUNK = r"[\s<>|#\\\-=\u2192\uff1c\uff1e\uff5c\"'`*\u201c\u201d]"  # what a format leaves at a name's edge
_EDGES = re.compile(rf"^{_JUNK}+|{_JUNK}+$")
_STRAIGHT, _CURLY = '"', "\u201c\u201d"
# A quote acting as one. A quote between two letters is part of its word: an apostrophe ("Priya's", "l'Étoile",
# "м'ята"), Hebrew's geresh and gershayim typed as quotes ("ג'ורג'", "ארה"ב", "צה"ל"); so is a single one after the
# s of a plural ("Grocers' Shops"). Letters with their marks, in every script (`text.words`).
_W = rf"[{LETTERS}\p{{N}}]"
_QUOTE = regex.compile(rf"(?<!{_W})[\"\u201c\u201d\u201e\u201f\u00ab\u00bb]|[\"\u201c\u201d\u201e\u201f\u00ab\u00bb](?!{_W})"
                       rf"|(?<!{_W})['\u2018\u2019]|(?<={_W})(?<![sS])['\u2018\u2019](?!{_W})")
_OPENING = "\u201c\u201e\u201f\u00ab\u2018"
_ESCAPED_QUOTE = re.compile(r"\\([\"'])")
# every mark that is, or stands for, a quote or an apostrophe: Hebrew's geresh and gershayim (and the primes
# typed for them), the modifier-letter apostrophe, the full-width quotes
_FOLD_QUOTES = str.maketrans(dict.fromkeys("\"'\u201c\u201d\u201e\u201f\u00ab\u00bb\u2018\u2019`\u05f3\u05f4\u2032\u2033"
                                           "\u02bc\uff02\uff07", '"'))
# what may stand between quoted alternatives ("X"/"Y", "X", "Y", "X" or "Y", "X" aka "Y") or after them
# ("X" (rumor)); anything else between quotes is part of the name (Dwayne "The Rock" Johnson)
_BRACKETED = re.compile(r"[(\[\uff08][^()\[\]\uff08\uff09]*[)\]\uff09]")
_BETWEEN = re.compile(r"(?:[\s/,;:|&+\-\u2013\u2014()\[\]\uff08\uff09.]|\b(?:or|and|aka|a\.k\.a|also|alias|formerly|"
                      r"vs|i\.e|e\.g|see)\b)*", re.I)


def _quoted(name: str) -> bool:
    return _QUOTE.search(name) is not None


def _piece(run: str) -> bool:
    """Whether an edge of a name is a piece of the format (a fragment or a quote), not a "#" or "-" of its own."""
    return any(f in run for f in FRAGMENTS) or any(q in run for q in _STRAIGHT + _CURLY)


def _fragment(run: str) -> bool:
    return any(f in run for f in FRAGMENTS)


class ChunkText:
    """A chunk's text as names are looked for in it: NFC, every quote one straight quote."""

    def __init__(self, text: str) -> None:
        self.text = nfc(text).translate(_FOLD_QUOTES)

    def holds(self, name: str) -> bool:
        """Whether the text holds ``name`` as written (any case, any quotes, its words wrapped anyhow)."""
        words = nfc(name).translate(_FOLD_QUOTES).split()
        return bool(words) and re.search(r"\s+".join(map(re.escape, words)), self.text, re.I) is not None


def _edge_quote(name: str) -> bool:
    """A quote at one end of a name that pairs with one inside (``"The Rock" Johnson``): merging names cuts
    quotes from their ends, and would leave its partner alone."""
    return _quoted(name[:1] + name[-1:]) and len(_QUOTE.findall(name)) > 1


def foreign(name: str, text: str | ChunkText) -> bool:
    """Whether ``name`` holds a piece of a format or a quote, and ``text`` does not hold the name as written (or
    does, with a quote at its end that pairs inside)."""
    if not (any(f in name for f in FRAGMENTS) or _quoted(name)):
        return False
    return _edge_quote(name) or not (text if isinstance(text, ChunkText) else ChunkText(text)).holds(name)


def _unquoted(name: str, text: ChunkText) -> str:
    """The name that quoted fragments stand for: the name without its quotes, or without one stray quote, where
    the text holds that; else, for alternatives (``X"/"Y``, ``"X", "Y"``, ``"X" or "Y"``, ``"X" (rumor)``) and a
    quoted start (``"X" shop``), the first quoted part the text holds, or the first; for any other name
    (``Ada "Countess" Byron``) the name without its quotes."""
    plain = clean_field(" ".join(_QUOTE.sub(" ", name).split()))
    quoted, outside, starts_quoted = _quoted_parts(name)
    if text.holds(plain) or not quoted:
        return plain
    for m in _QUOTE.finditer(name):  # one stray quote in a name the text quotes (Ada "Countess" "Byron)
        one_less = clean_field(name[:m.start()] + name[m.end():])
        if not _edge_quote(one_less) and len(_QUOTE.findall(one_less)) % 2 == 0 and text.holds(one_less):
            return one_less
    if starts_quoted or all(_BETWEEN.fullmatch(_BRACKETED.sub(" ", p)) for p in outside):
        return next((q for q in quoted if text.holds(q)), quoted[0])
    return plain


def _quoted_parts(name: str) -> tuple[list[str], list[str], bool]:
    """The quoted parts of ``name`` (cleaned, empty ones left out), the parts around them, and whether the name
    starts with a quoted part. The first quote closes when it follows a word (``X"/"Y``: the outer quotes were
    cut as a pair)."""
    parts = _QUOTE.split(name)
    first = _QUOTE.search(name)
    at = first.start() if first else 0
    opened = at == 0 or name[at - 1].isspace() or name[at - 1] in "([{/,;:" or first.group() in _OPENING
    inside = [clean_field(p) for p in parts[1 if opened else 0::2]]
    return [q for q in inside if q], parts[0 if opened else 1::2], not (opened and parts[0].strip())


def _trimmed(name: str, text: ChunkText) -> str | None:
    """``name`` with foreign pieces cut from its ends, quoted fragments read (`_unquoted`) and stray quotes
    dropped; None when pieces remain inside."""
    fixed = _ESCAPED_QUOTE.sub(r"\1", name)  # \"X\": quotes escaped as in JSON
    fixed = clean_field(_EDGES.sub(lambda m: "" if _fragment(m.group()) else m.group(), fixed))
    if _quoted(fixed) and foreign(fixed, text):
        fixed = _unquoted(fixed, text)
    fixed = clean_field(_EDGES.sub(lambda m: "" if _piece(m.group()) else m.group(), fixed))
    if foreign(fixed, text) and _quoted(fixed):
        fixed = clean_field(" ".join(_QUOTE.sub(" ", fixed).split()))
    return None if not fixed or foreign(fixed, text) else fixed


def clean_names(result: ParseResult, text: str) -> None:
    """Check every name of ``result`` (the records of one chunk) against the chunk's ``text``, in place."""
    suspects = [n for n in result.names() if any(f in n for f in FRAGMENTS) or _quoted(n)]
    if not suspects:
        return
    chunk = ChunkText(text)
    if not any(foreign(n, chunk) for n in suspects):
        return
    entities: list[EntityRecord] = []
    for e in result.entities:
        name = _checked(e.name, chunk, result)
        if name is None:
            result.malformed.append(" | ".join(("entity", e.name, e.type, e.description)))
        elif name:
            entities.append(e if name == e.name else EntityRecord(name, e.type, e.description, e.source))
    relationships: list[RelationshipRecord] = []
    for r in result.relationships:
        source, target = _checked(r.source_name, chunk, result), _checked(r.target_name, chunk, result)
        if source is None or target is None:
            result.malformed.append(" | ".join(("relationship", r.source_name, r.target_name, r.description)))
        elif source and target:
            relationships.append(r if (source, target) == (r.source_name, r.target_name) else RelationshipRecord(
                source, target, r.description, r.weight, r.keywords, r.source, r.relation))
    result.entities, result.relationships = entities, relationships


def _checked(name: str, text: ChunkText, result: ParseResult) -> str | None:
    """The name to keep: as it is, repaired (counted), "" for a placeholder it turned out to be (counted), or
    None when it cannot be repaired."""
    if not foreign(name, text):
        return name
    fixed = _trimmed(name, text)
    if fixed is not None and is_header_word(fixed):  # -> "target_entity": the prompt's format line
        result.placeholders += 1
        return ""
    if fixed is not None:
        result.repaired_names += 1
    return fixed


_ELIDED = "'\u2019\u2018`"


def restore_names(result: ParseResult, text: str) -> None:
    """Names as the chunk writes them, in place (counted as repaired): a name with a gloss in brackets that the
    chunk does not write, in another script or a note or a type ("晴海ふ頭 (Harumi Pier)", "Rourke (rumor)",
    "Дюков [person]"; not "Frankfurt (Oder)", which it writes, nor an alias or expansion: "DHF (Dengue
    Hemorrhagic Fever)") is the name it glosses;
    a name that lost the apostrophe opening it ("s-Hertogenbosch" of "'s-Hertogenbosch", "t Hooft") takes it
    back where the chunk writes it so, unquoted."""
    names = [n for n in result.names() if _base(n) or ELIDED_START.match(n)]
    if not names:  # most chunks: nothing to read the chunk's text for
        return
    chunk = ChunkText(text)
    bases = Counter(_base(n) for n in names if _base(n))  # "Georgia (state)", "Georgia (country)": two kept
    fixed = {n: f for n in names if (f := (_glossed(n, chunk) if bases[_base(n)] < 2 else "") or _elided(n, text))
             and f != n}
    if fixed:
        result.repaired_names += len(fixed)
        result.rename(fixed)


def _split_gloss(name: str) -> tuple[str, str]:
    """(name, gloss) of "name (gloss)" or "name [gloss]", else ("", "") (by the last bracket: no pattern)."""
    name = name.strip()
    closer = name[-1:]
    opener = {")": "(", "\uff09": "\uff08", "]": "["}.get(closer)
    at = name.rfind(opener) if opener else -1
    if at <= 0 or any(c in name[at + 1:-1] for c in "()[]\uff08\uff09"):
        return "", ""
    return name[:at].strip(), name[at + 1:-1].strip()


def _base(name: str) -> str:
    return _split_gloss(name)[0].casefold()


def _glossed(name: str, chunk: ChunkText) -> str:
    base, gloss = _split_gloss(name)
    if not base or not gloss or chunk.holds(name) or not chunk.holds(base):
        return ""
    other_script = script_of(gloss) not in ("", script_of(base))
    note = " " not in gloss and gloss.islower()  # "(rumor)", "(person)"; not "(Dengue)", an alias or expansion
    return base if other_script or note or is_known_type(gloss, frozenset()) else ""


# a name's start after an apostrophe that stands for letters left out: Dutch 's (des), 't (het), 'n (een)
ELIDED_START = re.compile(r"^[stn][- ]\w")


def _elided(name: str, text: str) -> str:
    if not ELIDED_START.match(name):
        return ""
    m = re.search(rf"(?<!\w)([{_ELIDED}]){re.escape(name)}(?!\w)(?![{_ELIDED}](?!s\b))", nfc(text))  # 's: no quote
    return m.group(1) + name if m else ""


_UNSPACED = regex.compile(r"[\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}\p{Thai}]")


def snap_endpoints(result: ParseResult) -> None:
    """Relationship ends that name none of the answer's own entities but one of them as the model misspelled it
    ("Kementrian" of "Kementerian": a letter left out of a long word; "Organisation" of "Organization", "Real
    World" of "Real-World": spelling only): the entity's name, in place (counted as repaired). Never where a
    number or a letter of a short word differs ("Apollo 12", "Henry VII", "Joan", "Homburg" are others), nor into
    a loop; two entities that would fit leave the end as it is, and so does a shorter name ("Scrooge" of
    "Ebenezer Scrooge", "Tokyo" of "World Athletics Championship Tokyo": resolution reads those)."""
    declared = {e.name.casefold(): e.name for e in result.entities}
    ends = {n for r in result.relationships for n in (r.source_name, r.target_name) if n.casefold() not in declared}
    fixed = {n: match for n in ends if (match := _one_fitting(n, declared))}
    if fixed:
        result.repaired_names += len(fixed)
        result.rename(fixed, loops=False)


def _one_fitting(end: str, declared: dict[str, str]) -> str:
    folded = end.casefold().strip()
    fits = [name for key, name in declared.items() if misspelt(folded, key)]
    return fits[0] if len(fits) == 1 else ""


_SPELLING = str.maketrans({"z": "s", "-": None, " ": None, "'": None, "\u2019": None, ".": None})


def misspelt(end: str, name: str) -> bool:
    """``end`` is ``name`` spelt another way (hyphens, blanks, apostrophes, dots, s for z) or with a letter left
    out or added inside a word of eight letters or more, the words and numbers otherwise the same."""
    if end == name or len(end) > 200 or len(name) > 200 or _UNSPACED.search(end):
        return False
    if end.translate(_SPELLING) == name.translate(_SPELLING):
        return True
    ew, nw = end.split(), name.split()
    if len(ew) != len(nw):
        return False
    differ = [(a, b) for a, b in zip(ew, nw) if a != b]
    if len(differ) != 1:
        return False
    a, b = differ[0]
    short, long_ = sorted((a, b), key=len)
    return len(long_) == len(short) + 1 and len(short) >= 8 and not any(c.isdigit() for c in long_) and \
        long_ not in (short + "s", short + "es") and any(long_[:i] + long_[i + 1:] == short for i in range(len(long_)))
