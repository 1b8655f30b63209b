"""``OUTPUT/settings.yaml``: the settings a run used, written into its output folder when the run ends, so that
``graphglean query OUTPUT`` asks the same endpoint and model, through the same cache, with no second config file.

Paths inside the output folder are written relative to it (``output.dir`` is ``.``; the default cache is
``cache.sqlite``), so a copied or moved folder reads its own files, never the original's; other paths are
absolute. Secrets are never written: the API key is the environment variable that held it
(``${OPENAI_API_KEY:-}``), a base URL carrying credentials is ``${GRAPHGLEAN_BASE_URL:-}`` (or the variable that
held it), a key-like entry of ``extra_body`` (``token``, ``api_key``, as `redact` knows them) the variable that
held it (else one named after its key), and the text passes through `redact` as well."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, Callable, Mapping

import attrs
import yaml

from ..core.atomic import write_text
from ..core.config import NAME_OR_PATH, Config
from ..llm.credentials import has_credentials, is_secret_name, redact

SETTINGS = "settings.yaml"
KEY_NAMES = ("OPENAI_API_KEY", "AZURE_OPENAI_API_KEY", "GRAPHGLEAN_API_KEY")  # preferred, in this order
KEY_FALLBACK, URL_FALLBACK = "GRAPHGLEAN_API_KEY", "GRAPHGLEAN_BASE_URL"
EXTRA_PREFIX = "GRAPHGLEAN_EXTRA_"  # + the entry's key path: the variable a written extra_body secret is read from
REFERENCE = re.compile(r"^\$\{([A-Za-z_][A-Za-z0-9_]*):-\}$")  # a whole value that is a written reference
PathFn = Callable[[str, tuple[str, ...]], str]


def reference(name: str) -> str:
    return f"${{{name}:-}}"


def with_paths(obj: Any, fn: PathFn) -> Any:
    """A copy of the settings ``obj`` with each path setting's value ``v`` (a text, not one of its keywords nor
    a package name) replaced by ``fn(v, keywords)``."""
    changes = {}
    for f in attrs.fields(type(obj)):
        value, keywords = getattr(obj, f.name), f.metadata.get("path")
        if attrs.has(type(value)):
            changes[f.name] = with_paths(value, fn)
        elif keywords is not None and _is_path(value, keywords):
            changes[f.name] = fn(value, keywords)
    return attrs.evolve(obj, **changes)


def _is_path(value: Any, keywords: tuple[str, ...]) -> bool:
    if not isinstance(value, str) or not value or value in keywords or value == "-":
        return False
    return NAME_OR_PATH not in keywords or "/" in value or os.sep in value or value.startswith(("~", "."))


def inside(path: str, folder: str) -> bool:
    """Whether the absolute ``path`` is ``folder`` or under it."""
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def _written(out_dir: str) -> PathFn:
    """A path as written: relative to ``out_dir`` when inside it, else absolute."""
    def fn(value: str, _: tuple[str, ...]) -> str:
        absolute = os.path.abspath(os.path.expanduser(value))
        return os.path.relpath(absolute, out_dir) if inside(absolute, out_dir) else absolute
    return fn


def _holder(value: str, environ: Mapping[str, str], preferred: tuple[str, ...]) -> str | None:
    """The environment variable holding exactly ``value``: one of ``preferred`` first, else the first by name."""
    names = [n for n in preferred if environ.get(n) == value]
    return (names or sorted(n for n, v in environ.items() if v == value) or [None])[0]


def _extra_secrets(body: Any, environ: Mapping[str, str], notes: list[str], path: tuple[str, ...] = ()) -> Any:
    """``extra_body`` with each key-like entry's text (``token``, ``api_key``, ...) an environment reference."""
    if isinstance(body, list):
        return [_extra_secrets(v, environ, notes, path + (str(i),)) for i, v in enumerate(body)]
    if not isinstance(body, dict):
        return body
    out = {}
    for key, value in body.items():
        where = path + (str(key),)
        if isinstance(value, str) and value and is_secret_name(str(key)):
            name = _holder(value, environ, ())
            if name is None:
                name = EXTRA_PREFIX + re.sub(r"[^A-Za-z0-9]", "_", "_".join(where)).upper()
                notes.append(f"llm.extra_body.{'.'.join(where)} was written in the run's config, not read from "
                             f"the environment: set {name} to it before asking with an LLM (graphglean query)")
            out[key] = reference(name)
        else:
            out[key] = _extra_secrets(value, environ, notes, where)
    return out


def _secret_references(llm: dict[str, Any], environ: Mapping[str, str]) -> list[str]:
    """Put references in ``llm`` (plain data) for its secrets; the notes for those no variable held."""
    notes: list[str] = []
    if llm["api_key"]:
        name = _holder(llm["api_key"], environ, KEY_NAMES)
        if name is None:
            name = KEY_FALLBACK
            notes.append(f"llm.api_key was written in the run's config, not read from the environment: set {name} "
                         "to it before asking with an LLM (graphglean query)")
        llm["api_key"] = reference(name)
    if has_credentials(llm["base_url"]):
        name = _holder(llm["base_url"], environ, (URL_FALLBACK,))
        if name is None:
            name = URL_FALLBACK
            notes.append(f"llm.base_url carries credentials, which are never written: set {name} to it before "
                         "asking with an LLM (graphglean query)")
        llm["base_url"] = reference(name)
    llm["extra_body"] = _extra_secrets(llm["extra_body"], environ, notes)
    return notes


def settings_yaml(cfg: Config, environ: Mapping[str, str] | None = None) -> tuple[str, list[str]]:
    """The file's text and what a reader must set: the variables standing for secrets no variable held."""
    environ = os.environ if environ is None else environ
    out_dir = os.path.abspath(os.path.expanduser(cfg.output.dir or "."))
    data = attrs.asdict(with_paths(cfg, _written(out_dir)))
    if data["graph"]["schema"] is not None:
        del data["graph"]["entity_types"]  # the schema names the types: a config setting both is refused
    notes = _secret_references(data["llm"], environ)
    head = ["# The settings of the run that wrote this folder, read by graphglean query (docs/query.md).",
            "# Secrets are environment references, never values. Paths inside this folder are relative to it",
            "# (a copy of the folder reads its own files); others are absolute."]
    head += [f"# {note}." for note in notes]
    return "\n".join(head) + "\n" + redact(yaml.safe_dump(data, sort_keys=False, allow_unicode=True)), notes


def write_run_settings(cfg: Config) -> Path:
    """``cfg.output.dir/settings.yaml`` (the folder exists: a run made it)."""
    path = Path(cfg.output.dir) / SETTINGS
    text, _ = settings_yaml(cfg)
    write_text(path, text)
    return path
