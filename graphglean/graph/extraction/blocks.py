"""Records written as markdown tables (with a header row), as YAML-like ``key: value`` blocks, or as list items,
as small local models often write them instead of the asked format. Each row or block becomes a mapping of roles
(name, type, description, source, target, relation, keywords, strength) to values, each list item the fields of
a record; `RecordParser` turns those into records."""

from __future__ import annotations

import re
from typing import Callable, Iterator

from .fields import ARROW, arrow_pair, clean_field, is_abbreviation

_ROLES = {
    "name": "name", "entity": "name", "entity name": "name", "entity_name": "name", "title": "name",
    "名称": "name", "实体": "name", "實體": "name", "实体名称": "name", "이름": "name", "엔티티": "name",
    "개체": "name", "nama": "name", "entitas": "name", "பெயர்": "name",
    "type": "type", "entity type": "type", "category": "type", "kind": "type", "类型": "type", "類型": "type",
    "유형": "type", "타입": "type", "tipe": "type", "jenis": "type", "வகை": "type",
    "description": "description", "entity description": "description", "desc": "description",
    "relationship description": "description", "details": "description", "描述": "description",
    "설명": "description", "deskripsi": "description", "keterangan": "description", "விளக்கம்": "description",
    # a relationship's label: its relation under a schema with relations, else its description or keywords
    "relationship": "relation", "relation": "relation", "relation type": "relation", "relationship type": "relation",
    "predicate": "relation", "关系": "relation", "관계": "relation", "hubungan": "relation",
    "source": "source", "source entity": "source", "src id": "source", "from": "source", "head": "source",
    "subject": "source", "entity 1": "source", "entity1": "source", "源实体": "source", "源": "source",
    "소스": "source", "출발": "source", "sumber": "source",
    "target": "target", "target entity": "target", "tgt id": "target", "to": "target", "tail": "target",
    "object": "target", "entity 2": "target", "entity2": "target", "目标实体": "target", "目标": "target",
    "대상": "target", "타겟": "target", "tujuan": "target", "sasaran": "target",
    "keywords": "keywords", "relationship keywords": "keywords", "关键词": "keywords", "키워드": "keywords",
    "kata kunci": "keywords",
    "strength": "strength", "relationship strength": "strength", "weight": "strength", "score": "strength",
    "强度": "strength", "강도": "strength", "kekuatan": "strength",
}
# the same roles in more languages, as small models name a table's columns or an item's keys in the answer's language
_ROLES |= {k: role_ for role_, keys in {
    "name": "naam nom nombre nome név entitás tên igama jina nimi namn navn imię nazwa jméno název isim adı имя "
            "название сущность الاسم اسم שם नाम 名前 実体 entität entidade entidad entità entiteit entitet entiti",
    "type": "tipo typ típus loại uhlobo aina tyyppi rodzaj druh tür tip тип النوع סוג प्रकार 種類 类别 kategori "
            "kategorie categoría categoria catégorie",
    "description": "beschrijving descripción descrição descrizione beschreibung leírás incazelo maelezo kuvaus "
                   "beskrivning beskrivelse opis popis açıklama описание الوصف תיאור विवरण 説明",
    "source": "bron quelle origen origem fonte forrás nguồn chanzo lähde källa kilde źródło zdroj kaynak источник "
              "المصدر מקור स्रोत 始点",
    "target": "doel ziel destino destinazione cible cél đích lengo kohde mål cel cíl hedef цель الهدف יעד लक्ष्य 終点",
    "strength": "sterkte stärke fuerza força forza erősség nguvu vahvuus styrka styrke siła síla güç сила القوة "
                "חוזק शक्ति 強度",
}.items() for k in keys.split()} | {"mô tả": "description", "thực thể": "name", "độ mạnh": "strength"}
_SEPARATOR_ROW = re.compile(r"^\s*(?:\|\s*)?:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*(?:\|\s*)?$")  # no blank runs side by side
# blanks taken whole where a key or value could take them too: each way of splitting a run of thousands (JSON
# blanked out) was tried, for minutes
_KEY_VALUE = re.compile(r"^[ \t]*+(?:[-*\u2022][ \t]++)?(?:\*\*|__)?(?P<key>[^:：\n]{1,40}?)(?:\*\*|__)?[ \t]*[:：]"
                        r"(?:\*\*|__)?[ \t]*+(?P<value>(?:.*[^ \t])?)[ \t]*$")


def role(key: str) -> str | None:
    k = clean_field(key).lower().replace("_", " ").strip()
    return _ROLES.get(k) or _ROLES.get(k.replace(" ", ""))


def _cells(line: str) -> list[str]:
    s = line.strip()
    s = s[1:] if s.startswith(("|", "\uff5c")) else s
    s = s[:-1] if s.endswith(("|", "\uff5c")) else s
    return [c.strip() for c in re.split(r"[|\uff5c]", s)]


def tables(lines: list[str]) -> Iterator[tuple[int, int, list[dict[str, str]] | None]]:
    """(first line, end line, rows) of each markdown table; rows is None when the header names no known role
    (the caller counts such rows as malformed)."""
    i = 0
    while i < len(lines):
        if i + 1 < len(lines) and lines[i].lstrip().startswith(("|", "\uff5c")) and _SEPARATOR_ROW.match(lines[i + 1]):
            header = [role(c) for c in _cells(lines[i])]
            end = i + 2
            while end < len(lines) and lines[end].lstrip().startswith(("|", "\uff5c")):
                end += 1
            known = "name" in header or ("source" in header and "target" in header)
            rows = [{r: v for r, v in zip(header, _cells(line)) if r} for line in lines[i + 2: end]] if known else None
            yield i, end, rows
            i = end
        else:
            i += 1


def key_value_blocks(lines: list[str], is_type: Callable[[str], bool] = lambda v: False,
                     ) -> Iterator[tuple[int, int, dict[str, str]]]:
    """(first line, end line, roles) of each run of ``key: value`` lines that names an entity or a pair. A
    block ends at a blank line, a line that is not ``key: value``, a repeated role or a new list item. Keys in a
    language no table knows are read by place where the second value is a type (``is_type``): name, type,
    description ("სახელი: ...", "ტიპი: organization", "აღწერა: ...")."""
    i = 0
    while i < len(lines):
        if (block := _by_place(lines, i, is_type)) is not None:
            yield i, i + 3, block
            i += 3
            continue
        block: dict[str, str] = {}
        start = j = i
        while j < len(lines):
            m = _KEY_VALUE.match(lines[j])
            inline = m is not None and len(_KEYED_COMMA.split(m.group("value"))) > 1  # "Jina: X, Aina: person, ..."
            r = role(m.group("key")) if m and not inline else None
            value = m.group("value").rstrip(",").strip() if m else ""  # JSON lines too
            pair = arrow_pair(value) if r == "relation" else None  # "Relationship: A -> B" opens a pair's block
            if r is None or r in block or (block and (pair or lines[j].lstrip().startswith(("- ", "* ", "\u2022 ")))):
                break
            if pair and "source" not in block:
                block["source"], block["target"] = pair
            else:
                block[r] = value
            j += 1
        if "name" in block or ("source" in block and "target" in block):
            yield start, j, block
            i = j
        else:
            i = max(j, i + 1)


# -- list items: one record a line, in the shapes small models write under "Entities:" and "Relationships:" ------

_MARK = re.compile(r"^[ \t]*(?:[-*+\u2022\u25cf]|\d+[.)\u3001]|\(\d+\))?[ \t]*")
_SPACED_DASH = re.compile(r"\s+[-\u2013\u2014]\s+")
_ARROWED = re.compile(rf"^(?P<a>.+?)\s*(?:{ARROW})\s*(?P<rest>.+)$")
# after the target: its description behind a colon, a spaced dash or in parentheses
_TARGET = re.compile(r"^(?P<b>.+?)(?:\s*[:\uff1a]\s*|\s+[-\u2013\u2014]\s+|\s*(?=[(\uff08]))(?P<rest>.*)$")
_STRENGTH = re.compile(r"\s*[(\uff08]\s*(?:[^()\uff08\uff09\d]{0,24}[:\uff1a]\s*)?(?P<n>\d{1,2}(?:\.\d+)?)\s*(?:/\s*10)?"
                       r"\s*[)\uff09]\s*$")
_PAREN_PAIR = re.compile(r"^[(\uff08](?P<d>.*?)(?:[,\uff0c]\s*(?P<n>\d{1,2}(?:\.\d+)?))?\s*[)\uff09]$")
_TYPED_NAME = re.compile(r"^(?P<name>[^()\[\]\uff08\uff09]+?)\s*[(\[\uff08](?P<type>[^()\[\]\uff08\uff09]{1,30})[)\]\uff09]"
                         r"\s*(?:(?:[:\uff1a]|[-\u2013\u2014])\s*(?P<d>.*))?$")
_NUMERIC = re.compile(r"\d{1,2}(?:\.\d+)?(?:\s*/\s*10)?")
_PAIR_SEPARATOR = re.compile(r"\s*[;\uff1b]\s*")
_KEYED_COMMA = re.compile(r"[,\uff0c]\s*(?=[^,\uff0c:\uff1a]{1,24}[:\uff1a])")


def list_records(line: str, kind_of: Callable[[str], str],
                 is_type: Callable[[str], bool]) -> list[tuple[str, list[str]]]:
    """The records a list item holds, each as (kind, fields with the kind first), or none: a tab-separated row
    or a row of spaced dashes that opens with its kind ("entity - Joko Widodo - person - ..."); a name with its
    type in brackets ("Name (person): ..."); spaced dashes with a type second; an arrow between two names ("A ->
    B: what joins them (8)", "A → B (description, 8)"); a line of typed names after a heading ("Entities: jess
    (person), Kailua (geo)"); spaced dashes with a strength last; ``key: value`` pairs on one line whose second
    value is a type ("名称：X；类型：人物；描述：..."). ``is_type`` says a word is an entity type, so prose is no
    record; the first reading that takes the line wins."""
    item = _MARK.sub("", line.replace("**", "").replace("__", ""), count=1).strip()
    if not item:
        return []
    if "\t" in item:
        return _tab_row([c.strip() for c in item.split("\t")], kind_of, is_type)
    item = " ".join(item.split())  # one blank between words: no pattern below splits a run of them (square time)
    for read in (_kind_first, _typed_item, _typed_dashes, _arrowed, _typed_list, _weighted_dashes, _keyed_item):
        if found := read(item, kind_of, is_type):
            return found
    return []


Found = list[tuple[str, list[str]]]


def _tab_row(cells: list[str], kind_of: Callable[[str], str], is_type: Callable[[str], bool]) -> Found:
    kind = kind_of(cells[0].lower())
    if (kind == "entity" and len(cells) >= 3 and is_type(clean_field(cells[2]))) or (
            kind in ("relationship", "relation") and len(cells) >= 4):
        return [(kind, cells)]
    # rows under a header in the answer's language: a type second, or a strength last
    if len(cells) >= 3 and is_type(clean_field(cells[1])) and named(cells[0]):
        return [("entity", ["entity", *cells])]
    if len(cells) >= 4 and _NUMERIC.fullmatch(cells[-1]) and named(cells[0]) and named(cells[1]):
        return [("relationship", ["relationship", *cells])]
    return []


def _kind_first(item: str, kind_of: Callable[[str], str], is_type: Callable[[str], bool]) -> Found:
    dashed = _SPACED_DASH.split(item)
    kind = kind_of(clean_field(dashed[0]).lower())
    return [(kind, dashed)] if len(dashed) >= 3 and _recorded(kind) and named(dashed[1]) else []


def _typed_item(item: str, kind_of: Callable[[str], str], is_type: Callable[[str], bool]) -> Found:
    typed = _typed(item, is_type)
    return [typed] if typed is not None else []


def _typed_dashes(item: str, kind_of: Callable[[str], str], is_type: Callable[[str], bool]) -> Found:
    dashed = _SPACED_DASH.split(item)
    if len(dashed) >= 3 and is_type(clean_field(dashed[1])) and named(dashed[0]):
        return [("entity", ["entity", dashed[0], dashed[1], " - ".join(dashed[2:])])]
    return []


def _arrowed(item: str, kind_of: Callable[[str], str], is_type: Callable[[str], bool]) -> Found:
    arrowed = _ARROWED.match(item)
    pair = _pair(arrowed.group("a"), arrowed.group("rest")) if arrowed else None
    return [("relationship", ["relationship", *pair])] if pair else []


def _typed_list(item: str, kind_of: Callable[[str], str], is_type: Callable[[str], bool]) -> Found:
    _, colon, listed = item.partition(":")
    found = [_typed(part.strip(), is_type) for part in listed.split(",")] if colon and "," in listed else []
    return [f for f in found if f] if len(found) >= 2 and all(found) else []


def _weighted_dashes(item: str, kind_of: Callable[[str], str], is_type: Callable[[str], bool]) -> Found:
    dashed = _SPACED_DASH.split(item)
    if len(dashed) >= 4 and _NUMERIC.fullmatch(dashed[-1].strip()) and named(dashed[0]) and named(dashed[1]):
        return [("relationship", ["relationship", dashed[0], dashed[1], " - ".join(dashed[2:-1]), dashed[-1]])]
    return []


def _keyed_item(item: str, kind_of: Callable[[str], str], is_type: Callable[[str], bool]) -> Found:
    pairs = _PAIR_SEPARATOR.split(item)
    if len(pairs) < 3:  # "Jina: Samia Suluhu Hassan, Aina: person, Maelezo: ..."
        pairs = _KEYED_COMMA.split(item)
    if len(pairs) < 3 or not all(re.search("[:\uff1a]", p) for p in pairs):
        return []
    keys, values = zip(*(re.split("[:\uff1a]", p, maxsplit=1) for p in pairs))
    values = tuple(v.strip() for v in values)
    if values[0] and is_type(clean_field(values[1])) and named(values[0]) and not _label(keys[0]):
        return [("entity", ["entity", values[0], values[1], "; ".join(values[2:])])]
    return []


def _recorded(kind: str) -> bool:
    return kind in ("entity", "relationship", "relation")


# words that label a line of an explanation, never a name ("Note - ...", "Summary - event - ...")
_LABELS = frozenset("""note notes summary overall total timeline explanation comment comments confidence reason result
results example examples step answer question analysis translation legend key none nothing n/a na unknown wait so
therefore thus here allowed types type entities entity relationships relationship relations relation people
persons organizations organisations places locations events she he it they we i you this that these those""".split())


def _label(text: str) -> bool:
    return clean_field(text).casefold().rstrip(":") in _LABELS


def named(text: str) -> bool:
    """A name as a list item holds one: a few words, no heading mark, no label before a colon, no sentence in it
    (punctuation of one but after an initial or abbreviation, or three lower-case words but joining ones),
    brackets closed, no pronoun or article first."""
    name = clean_field(text)
    words = name.split()
    if not words or name[0] in "#>" or _label(name) or len(words) > 8 or words[0].casefold() in _ARTICLES:
        return False
    if re.search(r"[:\uff1a]|[?!]\s", name) or re.search(ARROW, name) or name.count("(") != name.count(")"):
        return False
    if any(w.endswith(".") and not is_abbreviation(w) for w in words[:-1]):  # a sentence's stop; not "Li, R. M."
        return False
    return sum(w[:1].islower() and w not in _JOINING for w in words) <= 2


_ARTICLES = frozenset("the a an this that my our your his her their its".split())
_JOINING = frozenset("of and for the de del della la le les du des da di do dos van von und y et e i dan & a".split())


def _typed(item: str, is_type: Callable[[str], bool]) -> tuple[str, list[str]] | None:
    m = _TYPED_NAME.match(item)
    if m is None or not is_type(m.group("type").strip()) or not named(m.group("name")):
        return None
    if is_type(clean_field(m.group("name"))):  # "Allowed types: person (person)", "People (person)"
        return None
    return "entity", ["entity", m.group("name"), m.group("type"), m.group("d") or ""]


def _pair(source: str, rest: str) -> list[str] | None:
    """[source, target, description, strength] of what follows an arrow, or None when no target is named."""
    m = _TARGET.match(rest)
    target, after = (m.group("b"), m.group("rest")) if m else (rest, "")
    if not named(source) or not named(target) or not clean_field(target).strip(".\"'"):
        return None
    strength = ""
    if (whole := _PAREN_PAIR.match(after.strip())) and whole.group("n"):  # "(friends chatting, 5)"
        after, strength = whole.group("d"), whole.group("n")
    elif found := _STRENGTH.search(after):  # ": what joins them (strength: 9)"
        after, strength = after[:found.start()], found.group("n")
    elif whole:  # "(friends chatting)"
        after = whole.group("d")
    return [source, target, after.strip(), *([strength] if strength else [])]


def _by_place(lines: list[str], i: int, is_type: Callable[[str], bool]) -> dict[str, str] | None:
    """Three ``key: value`` lines of unknown keys whose second value is a type: an entity by place."""
    found = [_KEY_VALUE.match(line) for line in lines[i:i + 3]]
    if len(found) < 3 or not all(found) or any(role(m.group("key")) for m in found if m):  # type: ignore[union-attr]
        return None
    name, kind, said = (m.group("value").strip() for m in found if m)
    return {"name": name, "type": kind, "description": said} if name and is_type(clean_field(kind)) else None


LIST_LINE = re.compile(r"^[ \t]*(?:[-*+\u2022]|\d+[.)])[ \t]")


def titled_item(lines: list[str], k: int, is_type: Callable[[str], bool]) -> tuple[list[str], int] | None:
    """An entity written as a list item holding its name alone, its type on the next line as ``key: value`` and
    its description on the line after, both indented under it ("1. **Petrobras**", "   Tipo: organização", "
    Empresa estatal"): its fields (the kind first) and the lines it takes; None for any other line."""
    if not LIST_LINE.match(lines[k]) or k + 1 >= len(lines) or not _under(lines[k + 1], lines[k]):
        return None
    name = _MARK.sub("", lines[k].replace("**", "").replace("__", ""), count=1).strip()
    typed = _KEY_VALUE.match(lines[k + 1])
    if not named(name) or typed is None or not (role(typed.group("key")) == "type" or
                                                 is_type(clean_field(typed.group("value")))):
        return None
    if k + 2 >= len(lines) or not _under(lines[k + 2], lines[k]):
        return ["entity", name, typed.group("value"), ""], 2
    said = _KEY_VALUE.match(lines[k + 2])
    text = said.group("value") if said and role(said.group("key")) == "description" else lines[k + 2].strip()
    return ["entity", name, typed.group("value"), text], 3


def _under(line: str, item: str) -> bool:
    """``line`` is written, and indented deeper than the list ``item`` above it."""
    return bool(line.strip()) and len(line) - len(line.lstrip()) > len(item) - len(item.lstrip())


_HEADING_MARK = re.compile(r"^(?:#{1,6}|[-*+\u2022]|\d+[.)])\s*")
_PLURAL = (("ies", "y"), ("es", ""), ("s", ""))
# a list item opening with its name marked bold or italic, then what it is: "- **Hu** (author of a 2023 study)",
# "- *Babylonian Journal* (a journal).", "- **Kigali** - capital of Rwanda"
_MARKED_NAME = re.compile(r"^[ \t]*(?:[-*+\u2022]|\d+[.)])[ \t]+(?P<m>\*\*|__|\*|_)(?P<name>[^*_\n]+?)(?P=m)"
                          r"[ \t]*(?P<rest>.*)$")


def heading_type(line: str, is_type: Callable[[str], bool]) -> str | None:
    """The entity type a heading or a list item holding a type alone names ("### **Persons**", "1. **Person**",
    "#### Geos (Locations)", "**Organizations:**"), its plural read as the singular; None for any other line."""
    words = line.replace("**", "").replace("__", "").split()
    if not words or len(words) > 5:  # a heading is short: read no further (and no run of blanks)
        return None
    text = _HEADING_MARK.sub("", " ".join(words), count=1)
    text = re.sub(r" ?[(\uff08][^()\uff08\uff09]*[)\uff09] ?", " ", text).strip(" :\uff1a")
    if not text or len(text.split()) > 2:
        return None
    if text.lower() == "people":
        return "person"
    return next((word for word in (text, *(text[:-len(end)] + to for end, to in _PLURAL
                                           if text.lower().endswith(end))) if is_type(word)), None)


def marked_item(line: str) -> tuple[str, str] | None:
    """(name, what follows it) of a list item opening with a name in bold or italics, or None."""
    m = _MARKED_NAME.match(line)
    if m is None or not named(m.group("name")) or re.search(ARROW, m.group("rest")):  # "(2019) → **IEEE**": a
        return None  # relationship
    rest = m.group("rest").strip()
    if whole := re.fullmatch(r"[(\uff08](.*)[)\uff09]\.?", rest):
        rest = whole.group(1)
    return m.group("name").strip(), unlabelled(re.sub(r"^(?:[-\u2013\u2014:\uff1a]\s*)", "", rest))


def unlabelled(text: str) -> str:
    """``text`` without the label of a description before it ("*Description:* A pre-trained model")."""
    labelled = _KEY_VALUE.match(text.replace("*", ""))
    return labelled.group("value") if labelled and role(labelled.group("key")) in ("description", "relation") \
        else text.strip()


def details_below(lines: list[str], k: int) -> tuple[dict[str, str], int]:
    """The ``key: value`` lines indented under list item ``k`` whose keys name a role ("- *Description*: ...",
    "- *Strength*: 7"), by role, and how many lines they take."""
    found: dict[str, str] = {}
    j = k + 1
    while j < len(lines) and _under(lines[j], lines[k]) and (m := _KEY_VALUE.match(lines[j].replace("*", ""))) \
            and (r := role(m.group("key"))) in ("description", "relation", "strength", "keywords"):
        found.setdefault("description" if r == "relation" else r, m.group("value").strip())
        j += 1
    return found, j - k - 1
