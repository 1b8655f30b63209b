"""The parts the configuration schema is written with: `setting` (a field with its documentation, its check and
how a repr shows it), `section`, the value checks, and the check of a ``graph.schema`` value's shape."""

from __future__ import annotations

import re
import unicodedata
import urllib.parse
from typing import Any, Callable

import attrs

Check = Callable[[Any], "str | tuple[tuple[str, ...], str] | None"]


NAME_OR_PATH = "<name>"  # in setting(path=...): a value with no folder part is a name, left as it is


def setting(default: Any, doc: str, check: Check | None = None, path: tuple[str, ...] | None = None,
            shown: Callable[[Any], str] | None = None) -> Any:
    """A configuration field with its documentation and an optional check (it returns what the value should have
    been, "a positive", or for a structured value (key path inside it, what)). ``path``: the value is a file or
    folder (relative to the configuration file's folder) unless it is one of these words. ``shown``: how the
    configuration's repr shows the value (a secret's is never its value)."""
    metadata = {"doc": doc, "check": check, "path": path}
    if isinstance(default, (list, dict)):
        factory = (lambda d=default: type(d)(d))
        return attrs.field(factory=factory, metadata=metadata, repr=shown or True)
    return attrs.field(default=default, metadata=metadata, repr=shown or True)


def secret_shown(value: Any) -> str:
    return "'[redacted]'" if value else "''"


def url_shown(url: str) -> str:
    """A URL as a repr shows it: its user info (all before its last "@", which a password may hold, with "/" or
    a space) and its query (where credentials go) out."""
    scheme, rest = re.match(r"([A-Za-z][A-Za-z0-9+.\-]*://)?(.*)", url, re.S).groups()  # type: ignore[union-attr]
    if "@" in rest and not re.match(r"[^:/@]*:\d{1,5}/", rest):  # (not a path's "@" after host:port)
        rest = "[redacted]@" + rest.rpartition("@")[2]
    return repr((scheme or "") + rest.split("?", 1)[0] + ("?[redacted]" if "?" in rest else ""))


def url_problem(url: str) -> str | None:
    """Why ``url`` is no endpoint root, ``http(s)://HOST[:PORT]/...`` (credentials left out); None: it is one, or empty."""
    try:  # (a port that is no number, or out of range, is a ValueError)
        fine = (parts := urllib.parse.urlsplit(url)).scheme in ("http", "https") and bool(parts.hostname) and (
            parts.port == parts.port and not re.search(r"\s", url)) and _host_readable(url)
    except ValueError:
        fine = False
    return None if fine or not url else f"not a URL: {url_shown(url)[1:-1]}{_hint(url)}; expected " \
        "http(s)://HOST[:PORT]/v1"


def _hint(url: str) -> str:
    if "://" not in url:
        return " (no http:// before the host)"
    if any(c != " " and unicodedata.category(c) in ("Cf", "Cc", "Zs") for c in url):
        return " (it holds an invisible character, as a copy from a web page may)"
    if re.search(r"[/\s@]", url.partition("://")[2].rpartition("@")[0]):
        return " (a '/', '@' or space in a user name or password is written %2F, %40, %20)"
    return ""


def _host_readable(url: str) -> bool:
    """Whether the HTTP client can read the URL's host (a zero-width space or an emoji in it is no host name)."""
    import httpx  # the transport's own reading of a URL, where the run would first meet it

    try:
        httpx.URL(url)
    except httpx.InvalidURL:
        return False
    return True


def keys_shown(body: dict) -> str:
    return "{" + ", ".join(f"{k!r}: ..." for k in body) + "}"  # tokens ride in extra_body too


def section(cls: type, doc: str) -> Any:
    return attrs.field(factory=cls, metadata={"doc": doc, "check": None})


def positive(v: Any) -> str | None:
    return None if v > 0 else "a positive"


def non_negative(v: Any) -> str | None:
    return None if v >= 0 else "a non-negative"


def unit_interval(v: Any) -> str | None:
    return None if 0.0 <= v <= 1.0 else "a number in [0, 1], i.e. a"


def string_mapping(v: Any) -> str | None:
    return None if all(isinstance(k, str) and isinstance(x, str) for k, x in v.items()) else "a {LABEL: type} (strings)"


SCHEMA_MODES = ("open", "flag", "strict")


def schema_shape(value: Any) -> tuple[tuple[str, ...], str] | None:
    """What is wrong with the shape of a ``graph.schema`` value, as (key path inside it, what), or None; a text is
    the path of a YAML file holding the mapping. (Its types are matched in `graph.schema.ontology`.)"""
    if isinstance(value, str):
        return None if value.strip() else ((), "expected a mapping or the path of a YAML file, got an empty text")
    if not isinstance(value, dict):
        return (), "expected a mapping (entities, relationships, mode) or the path of a YAML file holding one"
    if unknown := [k for k in value if k not in ("entities", "relationships", "mode")]:
        return (str(unknown[0]),), "unknown key (known keys here: entities, relationships, mode)"
    entities = value.get("entities")
    if not isinstance(entities, dict) or not entities:
        return ("entities",), "expected a mapping of types to their descriptions, e.g. {PERSON: a human being}"
    for name, doc in entities.items():
        if not re.fullmatch(r"[^\n]*[^\W_][^\n]*", str(name)) or (doc is not None and not isinstance(doc, str)):
            return ("entities", str(name)), "expected TYPE: description, a one-line name and a text (empty for none)"
    patterns = value.get("relationships")
    for i, pattern in enumerate(patterns if isinstance(patterns, list) else [] if patterns is None else [None]):
        if not (isinstance(pattern, list) and len(pattern) == 3 and all(isinstance(p, str) and p.strip()
                                                                         for p in pattern)):
            return ("relationships", str(i)), "expected [source type, relation, target type], three names"
    if value.get("mode", "open") not in SCHEMA_MODES:
        return ("mode",), f"expected one of {', '.join(SCHEMA_MODES)}, got {value.get('mode')!r}"
    return None


def window(v: Any) -> str | None:
    return None if re.fullmatch(r"[1-9][0-9]*h", v) else "a number of hours written like 24h as the"
