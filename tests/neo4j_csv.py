"""Neo4j's CSV reading, as its BufferedCharSeeker does it with the default settings of each importer, to check
graphglean's files against (Python's csv module reads otherwise).

- A field is quoted only when its first character is the quote; a quote later in an unquoted field, and a
  backslash anywhere in one, are characters. After a closing quote only the delimiter or a line end may follow.
- Inside quotes a doubled quote is one quote. With legacy quote escaping (LOAD CSV's default,
  ``dbms.import.csv.legacy_quote_escaping=true``; neo4j-admin's ``--legacy-style-quoting`` is false), a
  backslash before a quote or a backslash is an escape: the next character is taken as it is.
- Line breaks inside quotes are allowed (LOAD CSV; neo4j-admin with ``--multiline-fields=true``, as
  import.cypher's command says). Strings are not trimmed (both defaults).
- An empty field that is not quoted is absent (None); a quoted one is the empty string.
"""

from __future__ import annotations


class CsvError(ValueError):
    pass


def read_rows(text: str, legacy: bool) -> list[list[str | None]]:
    rows: list[list[str | None]] = []
    row: list[str | None] = []
    i, n = 0, len(text)
    while i < n:
        if text[i] == '"':
            i += 1
            value = []
            while True:
                if i >= n:
                    raise CsvError("missing end quote")
                c = text[i]
                if c == '"':
                    if text[i + 1:i + 2] == '"':
                        value.append('"')
                        i += 2
                        continue
                    i += 1
                    break
                if legacy and c == "\\" and text[i + 1:i + 2] in ('"', "\\"):
                    value.append(text[i + 1])
                    i += 2
                    continue
                value.append(c)
                i += 1
            if i < n and text[i] not in ",\r\n":
                raise CsvError(f"data after the closing quote: {text[i:i + 20]!r}")
            field: str | None = "".join(value)
        else:
            j = i
            while j < n and text[j] not in ",\r\n":
                j += 1
            field = text[i:j] or None
            i = j
        row.append(field)
        if i < n and text[i] == ",":
            i += 1
            if i == n:
                row.append(None)
            continue
        if i < n and text[i] == "\r" and text[i + 1:i + 2] == "\n":
            i += 1
        i += 1
        rows.append(row)
        row = []
    return rows


def read_file(path, legacy: bool) -> list[list[str | None]]:
    with open(path, encoding="utf-8", newline="") as f:
        return read_rows(f.read(), legacy)
