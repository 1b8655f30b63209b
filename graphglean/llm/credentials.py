"""Credentials out of everything graphglean writes or shows: files (settings, report.json), the output folder's
lock note, progress, warnings and errors. `redact` is the one function every writer of such text uses.

It takes out, wherever they occur: the user info of a URL (``http://user:secret@host``), the value of a
key-like query parameter or ``name=value`` argument (``api-key=``, ``key=``, ``token=``, ``sig=``, ...; a query's
``code=``), a bearer or basic token, an ``sk-`` key, and the secrets of every endpoint configured in this process
(its API key, the user info and key-like parameters of its base URL), also in their JSON-escaped and URL-encoded
forms, as whole tokens; a configured value that is a plain word (``ollama``, ``EMPTY``: a local server's
placeholder key) is no secret. Texts are redacted whole, then cut.
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterable
from urllib.parse import parse_qsl, quote, unquote, urlsplit, urlunsplit

REDACTED = "[redacted]"
SHORTEST = 6  # a configured secret shorter than this is not looked for in free text (it would match anywhere)
_NAMES = r"(?:api[_\-]?key|key|token|sig|signature|secret|password|passwd|pwd|auth|credentials?|sas|jwt)"
_QUERY_NAMES = rf"(?:{_NAMES}|code)"  # a query's code (Azure Functions' key, OAuth's), not an error_code= in prose
# a URL's user info: up to its "@", or, for a user and password, up to the last "@" of the URL (a password may
# hold "/" or "@" unencoded)
_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.\-]*://)(?:[^\s:/?#@'\"<>\\]*:(?!\d{1,5}/)[^\s'\"<>\\]*|"
                       r"[^/\s?#@'\"<>\\]+)@")
_HOST_THEN_PATH = re.compile(r"[^:/@]*:\d{1,5}/")  # "host:8000/v1/@x": a path's "@" after a port, no user info
# a parameter of a query (after ? & ;) or an argument (--api-key=...): its name ends in a key-like word
_PARAM = re.compile(rf"(?i)((?:[?&;]|(?<![\w.\-]))-{{0,2}}(?:[\w.\-]*[_.\-])?{_NAMES}=)[^&#\s'\"<>\\]+")
_CODE = re.compile(r"(?i)([?&]code=)[^&#\s'\"<>\\]+")
# a plain word, or words joined by - _ . or a space, each in one case or capitalized: a local server's documented
# key (ollama, lm-studio, EMPTY, none, dummy, sk-no-key-required), never a secret
_PLAIN = re.compile(r"(?:[a-z]{1,20}|[A-Z][a-z]{0,19}|[A-Z]{1,20})(?:[-_. ](?:[a-z]{1,20}|[A-Z][a-z]{0,19}|[A-Z]{1,20}))*")
# an opaque token (a digit, a symbol or a capital inside it), not the word after "basic" in prose
_TOKEN = re.compile(r"\b((?i:bearer|basic))\s+(?=[\w.~+/\-]*(?:[\d.~+/_\-]|[a-z][A-Z]))[\w.~+/\-]{8,}=*")
_SK = re.compile(r"\bsk-[\w\-]{6,}")
_known: set[str] = set()
_known_pattern: re.Pattern[str] | None = None


def redact(text: str) -> str:
    """``text`` without credentials (see the module's docstring)."""
    if not text:
        return text
    if _known_pattern is not None:
        text = _known_pattern.sub(REDACTED, text)
    text = _USERINFO.sub(rf"\1{REDACTED}@", text)
    text = _PARAM.sub(rf"\1{REDACTED}", text)
    text = _CODE.sub(rf"\1{REDACTED}", text)
    text = _TOKEN.sub(rf"\1 {REDACTED}", text)
    return _SK.sub(REDACTED, text)


def redact_data(value: Any) -> Any:
    """``value`` (JSON-like data: mappings, lists, strings) with every string `redact`-ed, keys too."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {redact(k) if isinstance(k, str) else k: redact_data(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact_data(v) for v in value]
    return value


def looks_secret(value: str) -> bool:
    """Whether a configured value is a secret to look for in free text: not a plain word (see `_PLAIN`), which a
    local server's documented placeholder key is and which would match ordinary text."""
    return len(value) >= SHORTEST and _PLAIN.fullmatch(value) is None


def remember(secrets: Iterable[str]) -> None:
    """Look for these secrets in every text `redact` is given from now on (this process), where they stand as a
    whole token (not inside a longer word or number)."""
    global _known_pattern
    before = len(_known)
    for secret in secrets:
        if secret and looks_secret(secret):
            _known.update({secret, json.dumps(secret, ensure_ascii=False)[1:-1], json.dumps(secret)[1:-1],
                           quote(secret, safe=""), unquote(secret)})
    _known.discard("")
    if len(_known) != before:
        alternatives = "|".join(map(re.escape, sorted(_known, key=len, reverse=True)))
        _known_pattern = re.compile(rf"(?<![A-Za-z0-9])(?:{alternatives})(?![A-Za-z0-9])")


def url_secrets(url: str) -> list[str]:
    """The credentials ``url`` carries: its user info (whole, and its user name and password), and the values
    of its key-like query parameters."""
    found = []
    userinfo = url.strip().partition("://")[2].rpartition("@")[0]  # a password may hold "/" or "@" unencoded
    if userinfo and (":" in userinfo or "/" not in userinfo) and not _HOST_THEN_PATH.match(userinfo):
        found += [userinfo, userinfo.partition(":")[2]]  # whole, and the password (a user name is often a word)
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return found
    found += [value for name, value in parse_qsl(parts.query, keep_blank_values=True)
              if is_secret_name(name, query=True)]
    return [s for s in found if s]


def is_secret_name(name: str, query: bool = False) -> bool:
    """Whether a parameter or field named ``name`` holds a credential (``api_key``, ``token``, ``x-auth``; in a
    URL's query also ``code``)."""
    return bool(re.fullmatch(rf"(?i)(?:[\w.\-]*[_.\-])?{_QUERY_NAMES if query else _NAMES}", name))


def body_secrets(body: Any) -> list[str]:
    """The texts of a request body's key-like entries (an ``extra_body`` ``token``), at any depth."""
    if isinstance(body, dict):
        return [s for k, v in body.items()
                for s in ([v] if isinstance(v, str) and is_secret_name(str(k)) else body_secrets(v))]
    return [s for v in body for s in body_secrets(v)] if isinstance(body, list) else []


def without_credentials(url: str) -> str:
    """``url`` without its user info and key-like query parameters (the same text when it has none): what keys
    made of an endpoint use, so that a rotated key finds the answers the old one paid for."""
    if not has_credentials(url):
        return url
    parts = urlsplit(url)
    netloc = parts.netloc.rpartition("@")[2]
    query = "&".join(pair for pair in parts.query.split("&")
                     if pair and not is_secret_name(unquote(pair.partition("=")[0]), query=True))
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


_THIS_MACHINE = frozenset({"localhost", "127.0.0.1", "::1", "[::1]"})
_DEFAULT_PORTS = {"http": 80, "https": 443}


def endpoint_key(url: str) -> str:
    """``url`` as the keys of stored answers and results name its endpoint: `without_credentials`, and one
    spelling of one server (scheme and host in lower case, this machine as 127.0.0.1 whether written localhost
    or ::1, no default port, no trailing slash), so that another spelling finds what the first paid for."""
    plain = without_credentials(url.strip())
    try:
        parts = urlsplit(plain)
        host, port = (parts.hostname or "").lower(), parts.port
    except ValueError:
        return plain.rstrip("/")
    if not host:
        return plain.rstrip("/")
    scheme = parts.scheme.lower()
    host = "127.0.0.1" if host in _THIS_MACHINE else f"[{host}]" if ":" in host else host
    netloc = host if port in (None, _DEFAULT_PORTS.get(scheme)) else f"{host}:{port}"
    return urlunsplit((scheme, netloc, parts.path.rstrip("/"), parts.query, parts.fragment))


def has_credentials(url: str) -> bool:
    """Whether ``url`` carries credentials (user info, a key-like query parameter)."""
    return bool(url_secrets(url))


def endpoint_secrets(api_key: str, base_url: str) -> list[str]:
    """An endpoint's secrets: its API key and what its base URL carries."""
    return [api_key, *url_secrets(base_url)]
