"""How the original tools read an answer, written from their documented behaviour, to check that graphglean
recovers at least the names and pairs they do. Each returns (entity names, relationship pairs)."""

from __future__ import annotations

import html
import re


def _clean(text: str) -> str:
    return re.sub(r"[\x00-\x1f\x7f-\x9f]", "", html.unescape(text.strip()))


def _split(text: str, markers: list[str]) -> list[str]:
    return [p.strip() for p in re.split("|".join(map(re.escape, markers)), text) if p.strip()]


def tuple_style(answer: str, tuple_delimiter: str = "<|>", record_delimiter: str = "##",
                completion: str = "<|COMPLETE|>") -> tuple[list[str], list[tuple[str, str]]]:
    """nano-graphrag and LightRAG before 1.4: records split at the record and completion delimiters, the
    first parenthesized run of each line-bounded record read, kinds compared with their quotes."""
    names, pairs = [], []
    for record in _split(answer, [record_delimiter, completion]):
        found = re.search(r"\((.*)\)", record)
        if found is None:
            continue
        fields = found.group(1).split(tuple_delimiter)
        if len(fields) >= 4 and '"entity"' in fields[0]:
            name = _clean(fields[1]).strip('"')
            if name.strip():
                names.append(name)
        elif len(fields) >= 5 and '"relationship"' in fields[0]:
            a, b = _clean(fields[1]).strip('"'), _clean(fields[2]).strip('"')
            if a and b:
                pairs.append((a, b))
    return names, pairs


def line_style(answer: str, tuple_delimiter: str = "<|#|>",
               completion: str = "<|COMPLETE|>") -> tuple[list[str], list[tuple[str, str]]]:
    """LightRAG 1.4 and later: one record per line, kinds found as substrings of the first field, exactly four
    fields for an entity and five for a relation."""
    names, pairs = [], []
    for record in _split(answer, ["\n", completion, completion.lower()]):
        fields = [f.strip() for f in record.split(tuple_delimiter)]
        if len(fields) == 4 and "entity" in fields[0]:
            name = _clean(fields[1]).strip('"')
            kind = _clean(fields[2]).strip('"')
            if name and kind and not any(c in kind for c in "'()<>|/\\") and _clean(fields[3]):
                names.append(name)
        elif len(fields) == 5 and "relation" in fields[0]:
            a, b = _clean(fields[1]).strip('"'), _clean(fields[2]).strip('"')
            if a and b and a != b:
                pairs.append((a, b))
    return names, pairs
