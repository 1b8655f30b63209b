"""Records written as XML elements, as some models write them when asked for records: an element whose
attributes or field elements name an entity or a pair by role (``<entity name="X" type="person">what X
is</entity>``, ``<relationship source="A" target="B" strength="8">how</relationship>``, ``<entity><name>X</name>
<type>person</type></entity>``), an element of a kind or a type holding a name alone (``<entity>X</entity>``,
``<person>X</person>``). The text an element holds besides its fields is its description. Read leniently (no
parser: answers are seldom well-formed): a closing tag closes the nearest element of its name, an element left
open ends with its parent or the answer. Read elements, and the wrappers around them that hold nothing else, are
blanked out of the answer (positions kept) for the other readings; any other markup is left to them."""

from __future__ import annotations

import html
import re
from typing import Callable, Iterable

import attrs

from ..blocks import named, role
from ..fields import clean_field
from ..record_reader import RecordReader

# possessive throughout: a run of blanks is taken once (an unclosed tag before thousands of them cost each start)
_TAG = re.compile(r"<(?P<close>/?)(?P<tag>[A-Za-z_][\w.:-]*+)(?P<attrs>(?:\s++[\w.:-]++\s*+=\s*+"
                  r"(?:\"[^\"<>]*+\"|'[^'<>]*+'|[^\s\"'<>=/]++))*+)\s*+(?P<empty>/?)>")
_ATTR = re.compile(r"([\w.:-]+)\s*=\s*(?:\"([^\"]*)\"|'([^']*)'|([^\s\"'<>=/]+))")
_DEEPEST = 16
_PROLOG = re.compile(r"<\?xml[^<>]*\?>|<!--[^<>]*-->")  # to the next bracket at most: linear
_KINDS = {"entity": "entity", "entities": "entity", "node": "entity", "nodes": "entity", "relationship":
          "relationship", "relationships": "relationship", "relation": "relationship", "relations": "relationship",
          "edge": "relationship", "edges": "relationship", "link": "relationship", "links": "relationship"}


@attrs.define
class _Element:
    tag: str
    attributes: dict[str, str]
    start: int
    inner: int  # where its content starts
    end: int = -1
    inner_end: int = -1
    children: list["_Element"] = attrs.field(factory=list)
    closed: bool = False  # by its own closing tag, or empty (``<x/>``)
    spent: bool = False  # read, or holding nothing but read elements


def read_markup(text: str, read: RecordReader, is_type: Callable[[str], bool]) -> str:
    """Read the records of every XML element of ``text`` into ``read``'s result; ``text`` with the read elements
    (and the wrappers holding only those) blanked out, line breaks and positions kept."""
    if "</" not in text and "/>" not in text:
        return text
    roots = _elements(text)
    spans: list[tuple[int, int]] = []
    for element in roots:
        _read(element, text, read, is_type, spans)
    if not spans:
        return text
    return blanked(text, spans + [(m.start(), m.end()) for m in _PROLOG.finditer(text)])


def blanked(text: str, spans: Iterable[tuple[int, int]]) -> str:
    """``text`` with ``spans`` (start, end) blanked out, line breaks and positions kept."""
    chars = list(text)
    for a, b in spans:
        chars[a:b] = re.sub(r"[^\n]", " ", text[a:b])
    return "".join(chars)


def _elements(text: str) -> list[_Element]:
    """The elements of ``text`` as a forest, leniently closed."""
    roots: list[_Element] = []
    stack: list[_Element] = []

    def close(element: _Element, at: int, end: int, closed: bool = False) -> None:
        element.inner_end, element.end, element.closed = at, end, closed
        (stack[-1].children if stack else roots).append(element)

    for m in _TAG.finditer(text):
        tag = m.group("tag").lower()
        if m.group("close"):
            depth = next((i for i in range(len(stack) - 1, -1, -1) if stack[i].tag == tag), None)
            if depth is None:
                continue  # a closing tag of nothing open: text
            while len(stack) > depth + 1:
                close(stack.pop(), m.start(), m.start())
            close(stack.pop(), m.start(), m.end(), True)
            continue
        if len(stack) >= _DEEPEST and not m.group("empty"):
            continue  # deeper, an opening tag is text: records are never nested so (nor read at every depth)
        attributes = {a.group(1).lower(): html.unescape(next(g for g in a.groups()[1:] if g is not None))
                      for a in _ATTR.finditer(m.group("attrs"))}
        element = _Element(tag, attributes, m.start(), m.end())
        if m.group("empty"):
            close(element, m.end(), m.end(), True)
        else:
            stack.append(element)
    while stack:
        close(stack.pop(), len(text), len(text))
    return roots


def _own_text(element: _Element, text: str) -> str:
    """What an element holds besides its child elements, tags dropped and blanks collapsed."""
    parts, pos = [], element.inner
    for child in element.children:
        parts.append(text[pos:child.start])
        pos = max(pos, child.end)
    parts.append(text[pos:element.inner_end])
    return clean_field(" ".join(html.unescape(_TAG.sub(" ", "".join(parts))).split()))


def _fields(element: _Element, text: str) -> dict[str, str]:
    """An element's values by role: its attributes, then its field elements (``<name>X</name>``: no attributes,
    no elements inside, a tag naming a role and no kind)."""
    row = {r: v.strip() for k, v in element.attributes.items() if (r := role(k)) and v.strip()}
    for child in element.children:  # <entity>X</entity> is an entity of its own, <relation>X</relation> a field
        if not child.children and not child.attributes and (r := role(child.tag)) and \
                _KINDS.get(child.tag) != "entity":
            row.setdefault(r, _own_text(child, text))
    return row


def _read(element: _Element, text: str, read: RecordReader, is_type: Callable[[str], bool],
          spans: list[tuple[int, int]]) -> None:
    row = _fields(element, text)
    kind = _KINDS.get(element.tag)
    said = _own_text(element, text)
    alone = element.closed and not element.children and (kind == "entity" or (kind is None and is_type(element.tag)))
    if alone and not row.get("name") and not (row.get("source") and row.get("target")) and said and named(said):
        row = {**row, "name": said}  # <entity>X</entity>, <person>X</person>: the name alone
        said = ""
    if row.get("name") or (row.get("source") and row.get("target")):
        if kind is None and is_type(element.tag):
            row.setdefault("type", element.tag)
        if said and "description" not in row:
            row["description"] = said
        read.by_role(row, " ".join(text[element.start:element.end].split()))
        element.spent = True
        spans.append((element.start, element.end))
        return
    for child in element.children:
        _read(child, text, read, is_type, spans)
    if element.children and all(c.spent for c in element.children) and not said:
        element.spent = True  # a wrapper holding only records: <entities>...</entities>
        spans.append((element.start, element.end))
