"""Neo4j export: ``nodes.csv`` and ``relationships.csv`` for ``neo4j-admin database import``, and
``import.cypher`` doing the same with ``LOAD CSV`` for users without admin access.

Headers are typed (``frequency:long``, ``aliases:string[]``, ...), each node carries the label ``Entity`` and
its type as a second label, and provenance spans become three parallel arrays (``span_chunk_ids``,
``span_starts``, ``span_ends``): Neo4j properties cannot nest lists. Values no Neo4j type holds are JSON text.

Every value reads back exactly under each reader's default settings, and the two differ. ``neo4j-admin
database import`` reads RFC 4180 (a quote inside quotes is doubled; a backslash is a character). ``LOAD CSV``
keeps ``dbms.import.csv.legacy_quote_escaping`` on: inside quotes, ``\\"`` is a quote and ``\\\\`` one
backslash, so a quoted value ending in a backslash, or holding one before a quote or another backslash, would
end early or lose a character. Both read a field that is not quoted as it stands (a quote not at its start, a
backslash anywhere), so a value is quoted only when it must be (a comma, a line break, a quote first,
whitespace at an edge). When some quoted value still holds such a backslash, ``LOAD CSV`` gets files of its
own, ``nodes.load.csv`` and ``relationships.load.csv``, where each such backslash is escaped by another, and
``import.cypher`` reads those.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Iterable, Iterator

import networkx as nx

from ...core.atomic import atomic_open
from ...text.words import words

BASE_LABEL = "Entity"
REL_TYPE = "RELATED_TO"
SPAN_COLUMNS = ("span_chunk_ids", "span_starts", "span_ends")
# an array delimiter that occurs in no array value is chosen, in this order
DELIMITERS = ("|", ";", "\u00a6", "\u001f", "\u001e", "\u001d")
_CYPHER_CONVERT = {"long": "toInteger({})", "double": "toFloat({})", "boolean": "({} = 'true')"}


def label_of(node_type: str) -> str:
    """A node type as a Neo4j label: words in CamelCase, only letters, digits and _, never empty."""
    label = "".join(w[:1].upper() + w[1:] for w in words(str(node_type)))
    if not label:
        return "Unknown"
    return "_" + label if label[0].isdigit() else label


def rel_type(row: dict[str, Any]) -> str:
    """An edge's relationship type: its ``relation`` (a schema's, as written), else the generic one."""
    relation = " ".join(str(row.get("relation") or "").split())
    return relation or REL_TYPE


def cypher_name(name: str) -> str:
    """A label or relationship type in Cypher: a plain identifier as written, anything else in backticks."""
    return name if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) else "`" + name.replace("`", "``") + "`"


def _kind(values: list[Any]) -> str:
    """The Neo4j type of a property from its values (None = absent)."""
    present = [v for v in values if v is not None]
    if not present:
        return "string"
    if all(isinstance(v, bool) for v in present):
        return "boolean"
    if all(isinstance(v, int) and not isinstance(v, bool) for v in present):
        return "long"
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in present):
        return "double"
    if all(isinstance(v, str) for v in present):
        return "string"
    if all(isinstance(v, (list, tuple)) for v in present):
        items = [i for v in present for i in v]
        inner = _kind(items) if items else "string"
        if inner in ("string", "long", "double", "boolean") and all(not isinstance(i, (list, tuple, dict))
                                                                     for i in items):
            return inner + "[]"
    return "json"


def _is_spans(values: list[Any]) -> bool:
    return all(v is None or (isinstance(v, (list, tuple)) and all(
        isinstance(s, (list, tuple)) and len(s) == 3 and isinstance(s[0], str)
        and isinstance(s[1], int) and isinstance(s[2], int) for s in v)) for v in values)


class _Columns:
    """The typed columns of one CSV, built from the attribute dicts of its rows."""

    def __init__(self, rows: list[dict[str, Any]], reserved: Iterable[str]) -> None:
        keys: dict[str, None] = {}
        for row in rows:
            keys.update(dict.fromkeys(row))
        self.kinds: dict[str, str] = {}
        self.spans = False
        for key in keys:
            if key in reserved:
                continue
            values = [row.get(key) for row in rows]
            if key == "spans" and _is_spans(values):
                self.spans = True
                continue
            self.kinds[key] = _kind(values)

    def header(self) -> list[str]:
        cols = [f"{k}:{'string' if kind == 'json' else kind}" for k, kind in self.kinds.items()]
        if self.spans:
            cols += ["span_chunk_ids:string[]", "span_starts:long[]", "span_ends:long[]"]
        return cols

    def cells(self, row: dict[str, Any], delimiter: str) -> list[str]:
        out = [_cell(row.get(k), kind, delimiter) for k, kind in self.kinds.items()]
        if self.spans:
            spans = row.get("spans") or []
            out += [_cell([s[i] for s in spans], kind, delimiter) if spans else ""
                    for i, kind in enumerate(("string[]", "long[]", "long[]"))]
        return out

    def array_values(self, rows: list[dict[str, Any]]) -> Iterable[str]:
        for row in rows:
            for k, kind in self.kinds.items():
                if kind.endswith("[]") and row.get(k):
                    yield from map(str, row[k])
            if self.spans:
                yield from (str(s[0]) for s in row.get("spans") or [])


def _scalar(value: Any, kind: str) -> str:
    if kind.startswith("boolean"):
        return "true" if value else "false"
    if kind.startswith("double"):
        return repr(float(value))
    return str(value)


def _cell(value: Any, kind: str, delimiter: str) -> str:
    if value is None:
        return ""
    if kind == "json":
        return json.dumps(value, ensure_ascii=False)
    if kind.endswith("[]"):
        return delimiter.join(_scalar(v, kind) for v in value) if value else ""
    return _scalar(value, kind)


def _delimiter(values: Iterable[str]) -> str:
    text = "".join(values)
    used = set(text)
    # then a private-use character: names from a model's answer may hold every control character
    for d in (*DELIMITERS, *map(chr, range(0xE000, 0xF900))):
        if d not in used:
            return d
    raise ValueError("every candidate array delimiter occurs in the graph's list values")


_MUST_QUOTE = re.compile(r'[,\r\n]|^"|^\s|\s\Z')
_LEGACY_ESCAPE = re.compile(r'\\(?=["\\]|\Z)')  # a backslash LOAD CSV would read as an escape inside quotes


def csv_field(value: str, load_csv: bool = False) -> str:
    """``value`` as a CSV field that Neo4j reads back as it is: quoted only when it must be, a quote inside
    doubled; ``load_csv``: for LOAD CSV's legacy quote escaping, a backslash before a quote, a backslash or the
    end escaped by another."""
    if not _MUST_QUOTE.search(value):
        return value
    if load_csv:  # any other backslash stays as it is: LOAD CSV reads it so
        value = _LEGACY_ESCAPE.sub(r"\\\\", value)
    return '"' + value.replace('"', '""') + '"'


def _misread_by_load_csv(field: str) -> bool:
    """A field that LOAD CSV would read otherwise than neo4j-admin: quoted, with a backslash it takes for an escape."""
    return field.startswith('"') and _LEGACY_ESCAPE.search(field, 1, len(field) - 1) is not None


def _write_csv(path: Path, rows: Iterable[list[str]], load_csv: bool) -> bool:
    """Write the rows; whether any field would be misread by LOAD CSV (checked in the neo4j-admin files)."""
    misread = False
    with atomic_open(path, "w") as f:  # "\n" ends every row; a line break inside a value is quoted
        for row in rows:
            fields = [csv_field(v, load_csv) for v in row]
            misread = misread or (not load_csv and any(map(_misread_by_load_csv, fields)))
            f.write(",".join(fields) + "\n")
    return misread


def write_neo4j(graph: nx.Graph, folder: str | Path) -> list[Path]:
    """``nodes.csv``, ``relationships.csv`` and ``import.cypher`` in ``folder`` (and the LOAD CSV copies
    when some value needs them); returns their paths."""
    folder = Path(folder)
    node_rows = [{"id": str(n), **d} for n, d in graph.nodes(data=True)]
    edge_rows = [dict(d) for _, _, d in graph.edges(data=True)]
    node_cols = _Columns(node_rows, reserved=("id",))
    edge_cols = _Columns(edge_rows, reserved=())
    labels = {str(d.get("type") or "unknown"): label_of(str(d.get("type") or "unknown")) for d in node_rows}
    d = _delimiter([*node_cols.array_values(node_rows), *edge_cols.array_values(edge_rows), *labels.values()])

    def nodes() -> Iterator[list[str]]:
        yield ["id:ID", ":LABEL", *node_cols.header()]
        for row in node_rows:
            label = labels[str(row.get("type") or "unknown")]
            yield [row["id"], f"{BASE_LABEL}{d}{label}", *node_cols.cells(row, d)]

    def edges() -> Iterator[list[str]]:
        yield [":START_ID", ":END_ID", ":TYPE", *edge_cols.header()]
        for (a, b, _), row in zip(graph.edges(data=True), edge_rows):
            yield [str(a), str(b), rel_type(row), *edge_cols.cells(row, d)]

    paths = [folder / "nodes.csv", folder / "relationships.csv"]
    load = [folder / "nodes.load.csv", folder / "relationships.load.csv"]
    misread = [_write_csv(path, rows(), load_csv=False) for path, rows in zip(paths, (nodes, edges))]
    if any(misread):
        for path, rows in zip(load, (nodes, edges)):
            _write_csv(path, rows(), load_csv=True)
        paths += load
    else:
        for path in load:  # an earlier run's copies would be read instead of this graph
            path.unlink(missing_ok=True)
    with atomic_open(folder / "import.cypher") as f:
        f.write(_cypher(node_cols, edge_cols, labels, d, load if any(misread) else paths[:2],
                        sorted({rel_type(row) for row in edge_rows})))
    return [*paths, folder / "import.cypher"]


def _cypher_value(column: str, delimiter: str) -> str:
    kind = column.rsplit(":", 1)[1]
    field = f"row.`{column}`"
    if kind.endswith("[]"):
        inner = kind[:-2]
        items = f"split({field}, {_cypher_string(delimiter)})"
        if inner in _CYPHER_CONVERT:
            items = f"[x IN {items} | {_CYPHER_CONVERT[inner].format('x')}]"
        return f"CASE WHEN {field} IS NULL OR {field} = '' THEN null ELSE {items} END"
    if kind in _CYPHER_CONVERT:
        return _CYPHER_CONVERT[kind].format(field)
    return field


def _cypher_string(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace("'", "\\'")
    return "'" + "".join(c if c.isprintable() else f"\\u{ord(c):04x}" for c in escaped) + "'"


def _sets(var: str, header: list[str], delimiter: str) -> str:
    return ",\n      ".join(f"{var}.`{c.rsplit(':', 1)[0]}` = {_cypher_value(c, delimiter)}" for c in header)


def _map(header: list[str], delimiter: str) -> str:
    """The properties of a row as a Cypher map."""
    return "{" + ",\n      ".join(f"`{c.rsplit(':', 1)[0]}`: {_cypher_value(c, delimiter)}" for c in header) + "}"


def _relationship_loads(header: list[str], delimiter: str, files: list[Path], types: list[str]) -> str:
    """The LOAD CSV statement of the relationships, one pass over the file. Cypher names a created
    relationship's type in the query, and the importing ``WITH`` of a ``CALL`` subquery takes no ``WHERE``, so
    each type's ``CREATE`` stands in a ``FOREACH`` over a list that holds one element only for rows of that type
    (plain Cypher since Neo4j 4: no APOC, no dynamic types)."""
    load = f"""LOAD CSV WITH HEADERS FROM 'file:///{files[1].name}' AS row
CALL {{
  WITH row
  MATCH (a:{BASE_LABEL} {{id: row.`:START_ID`}}), (b:{BASE_LABEL} {{id: row.`:END_ID`}})
"""
    if not types:
        return ""
    if types == [REL_TYPE]:
        return load + f"""  CREATE (a)-[r:{REL_TYPE}]->(b)
  SET {_sets("r", header, delimiter)}
}} IN TRANSACTIONS OF 1000 ROWS;
"""
    creates = "\n".join(
        f"  FOREACH (x IN CASE WHEN kind = {_cypher_string(kind)} THEN [1] ELSE [] END |\n"
        f"    CREATE (a)-[r:{cypher_name(kind)}]->(b) SET r = props)" for kind in types)
    return load + f"""  WITH a, b, row.`:TYPE` AS kind, {_map(header, delimiter)} AS props
{creates}
}} IN TRANSACTIONS OF 1000 ROWS;
"""


def _cypher(node_cols: _Columns, edge_cols: _Columns, labels: dict[str, str], delimiter: str,
            files: list[Path], types: list[str]) -> str:
    admin_delimiter = delimiter if delimiter.isascii() and delimiter.isprintable() else f"U+{ord(delimiter):04X}"
    node_sets = _sets("n", node_cols.header(), delimiter)
    by_label: dict[str, list[str]] = {}
    for node_type, label in sorted(labels.items()):
        by_label.setdefault(label, []).append(node_type)
    said = _types_said(types)
    label_lines = "\n".join(
        f"MATCH (n:{BASE_LABEL}) WHERE n.type IN [{', '.join(map(_cypher_string, types))}] SET n:`{label}`;"
        for label, types in by_label.items())
    return f"""// graphglean graph for Neo4j.
//
// With admin access (an empty database, fastest):
//   neo4j-admin database import full --nodes=nodes.csv --relationships=relationships.csv \\
//     --array-delimiter='{admin_delimiter}' --multiline-fields=true neo4j
//
// Without: copy {files[0].name} and {files[1].name} into the server's import folder and run this file,
//   cypher-shell -f import.cypher
// Array values are separated by {_cypher_string(delimiter)}. Relationships are {said}; in an undirected graph
// their direction means nothing.

CREATE CONSTRAINT graphglean_entity_id IF NOT EXISTS FOR (n:{BASE_LABEL}) REQUIRE n.id IS UNIQUE;

LOAD CSV WITH HEADERS FROM 'file:///{files[0].name}' AS row
CALL {{
  WITH row
  MERGE (n:{BASE_LABEL} {{id: row.`id:ID`}})
  SET {node_sets}
}} IN TRANSACTIONS OF 1000 ROWS;

{label_lines}

{_relationship_loads(edge_cols.header(), delimiter, files, types)}"""


def _types_said(types: list[str]) -> str:
    if types in ([], [REL_TYPE]):
        return REL_TYPE
    return f"typed by their relation ({', '.join(types[:5])}{', ...' if len(types) > 5 else ''})"
