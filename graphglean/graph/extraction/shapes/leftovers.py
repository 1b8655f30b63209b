"""What no reading took from an answer, kept as malformed text unless it is chatter: the safety net under every
reading, so that a shape no reader knows is never lost silently.

Left out: blank lines, reasoning, the completion marker (blanked before), and chatter: prose ("Note: the
passage names two companies.", "I hope this helps!"), rules, headings, lead-ins ending in a colon ("Here are the
entities:"), labelled remarks ("Translation: 東京 → Tokyo"), a role with nothing after it ("Relationships:
none"), a description alone as a sentence ("설명: ..."), and list items the parser leaves unread on purpose
(beside records of another shape they are their explanation). Kept, as one text: each run of unread lines (less
the chatter that opens or closes it) holding a line with the marks of data (markup tags, attributes, braces, a
call with a quoted argument, a tab, two pipes, cells joined by commas or semicolons without a blank, a kind
opening the line; or, unlabelled, an arrow between two sides, a role or a type keyed to a value); and a run of
two or more lines that are names alone ("Wiktor Nowak" / "Jan Kowalski")."""

from __future__ import annotations

import re
from typing import Callable

from ..blocks import heading_type, named, role
from ..fields import ARROW, is_known_type

_STRONG = re.compile(r"</?[A-Za-z_][\w.:-]*+(?:\s++[^<>\n]*+)?/?>"  # <entity name="X">, </entity>, <x/>
                     r"|[\w.:-]=[ \t]*+[\"']"  # name="X"
                     r"|[{}]"
                     r"|[^\W\d_]\([ \t]*+[\"']"  # person("X")
                     r"|^[ \t]*+[(\[{\"'`*]*+(?:entit(?:y|ies)|relation(?:ship)?s?|node|edge)\b[\"'`*]*+[ \t]*+"
                     r"[(\[{<\"'=,;|]", re.I)
_PIPE = re.compile(r"[|\uff5c]")
# not before a quote that closes ("Scrooge," "Topper," said): prose's
_SEPARATOR = re.compile(r"(?<=\S)[,;\t](?=\S)(?![\"'\u201d\u2019](?:\s|$))")
_THOUSANDS = re.compile(r"\d,\d{3}(?!\d)")
_MARKS = re.compile(r"^[ \t]*+(?:>[ \t]*+)*(?:[-*+\u2022\u25cf]|\d+[.)])?[ \t]*+")
_KEYED = re.compile(r"^(?P<key>[^:\uff1a]{1,40}?)[ \t]*+[:\uff1a][ \t]*+(?P<value>.*)$")
_ARROWED = re.compile(rf"\S[ \t]*+(?:{ARROW})[ \t]*+\S")
_NOTHING = re.compile(r"(?:none|n/?a|nothing|null|nil|no\b|not\b|ninguno|ninguna|nada|aucun|aucune|rien|keine|nichts|"
                      r"nessuno|nenhum|nenhuma|geen|ingen|brak|нет|無|无|なし|없음|tidak ada|hakuna|-+|\u2014|\.\.\.)",
                      re.I)
_SENTENCE_END = tuple(".!?;,:\u3002\uff01\uff1f\uff1a\uff1b")


def unread(lines: list[str], read: list[bool], live: list[str], explained: Callable[[str], bool]) -> list[str]:
    """The runs of ``lines`` not ``read`` (nor blank in ``live``: the lines with reasoning blanked out) that are
    no chatter, each as one text; ``explained``: a line the parser leaves unread on purpose."""
    kept: list[str] = []
    k = 0
    while k < len(lines):
        if read[k] or not lines[k].strip() or not live[k].strip():
            k += 1
            continue
        j = k
        while j < len(lines) and not read[j] and lines[j].strip() and live[j].strip():
            j += 1
        run = [line.strip() for line in lines[k:j]]
        while run and _chatter_edge(run[0]):
            run.pop(0)
        while run and _chatter_edge(run[-1]):
            run.pop()
        if any(is_data(line) and not explained(line) and not _remark(line) for line in run) or (
                len(run) >= 2 and all(map(_name_alone, run))):
            kept.append("\n".join(run))
        k = j
    return kept


def is_data(line: str) -> bool:
    """Whether a line bears the marks of data rather than of prose (see the module's doc)."""
    if _STRONG.search(line) or len(_PIPE.findall(line)) >= 2 or _separated(line):
        return True
    plain = _plain(line)
    if not plain or plain.startswith("#") or plain.endswith((":", "\uff1a")):
        return False  # a heading, a lead-in
    keyed = _KEYED.match(plain)
    if keyed is not None and not _ARROWED.search(keyed.group("key")):
        key, value = keyed.group("key").strip(" *_`"), keyed.group("value").strip(" *_`")
        if not value or _NOTHING.match(value):
            return False
        if role(key.casefold()) is not None:  # "Type: person", "Description: ..."
            return True
        return _typed_key(key) and not _sentence(value)  # "Persons: Ada, Bo"; not "Datasets: X is critical."
    return _ARROWED.search(plain) is not None


def _remark(line: str) -> bool:
    """A description as a sentence ("설명: 삼성전자와 SK하이닉스는 경쟁 관계입니다."): a remark on the answer, or on
    something read, unless beside data."""
    keyed = _KEYED.match(_plain(line))
    return keyed is not None and role(keyed.group("key").strip(" *_`").casefold()) == "description" and \
        _sentence(keyed.group("value"), 1)


def _plain(line: str) -> str:
    return _MARKS.sub("", line.replace("**", "").replace("__", ""), count=1).strip()


def _sentence(text: str, words: int = 5) -> bool:
    return len(text.split()) >= words and text.rstrip(" *_`\"'\u201d)").endswith((".", "!", "?", "\u3002"))


def _chatter_edge(line: str) -> bool:
    """A line that opens or closes a run as chatter: a rule, a heading, a lead-in, a sentence with no mark of
    data."""
    plain = _plain(line)
    return not plain.strip("-*_=~ ") or plain.startswith("#") or plain.endswith((":", "\uff1a")) or (
        (_sentence(plain, 2) or plain.endswith(("!", "?", "\uff01", "\uff1f"))) and not is_data(line))


def _separated(line: str) -> bool:
    """Cells joined by a tab, or by commas or semicolons without a blank (two; not a number's thousands)."""
    return sum(2 if m.group() == "\t" else _THOUSANDS.match(line, m.start() - 1) is None
               for m in _SEPARATOR.finditer(line)) >= 2


def _typed_key(key: str) -> bool:
    """A key naming a kind or a type ("Relationships", "Persons"), not a label ("Note")."""
    return heading_type(key, lambda v: is_known_type(v, frozenset())) is not None or \
        key.casefold().rstrip("s") in ("entitie", "entity", "relationship", "relation", "node", "edge")


def _name_alone(line: str) -> bool:
    """A line that is a name and nothing else: a few words, no sentence's end, a capital or no case at all."""
    plain = _plain(line)
    if not plain or plain.endswith(_SENTENCE_END) or plain.startswith("#") or len(plain.split()) > 6 or \
            not named(plain):
        return False
    return any(w[:1].isupper() for w in plain.split()) or not any(c.isupper() or c.islower() for c in plain)
