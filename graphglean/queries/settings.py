"""``OUTPUT/settings.yaml``: the settings a run used, written into its output folder so that ``graphglean query
OUTPUT`` asks the same endpoint and model, through the same cache, with no second config file.

Every path is absolute, so the file reads the same from any folder. Secrets are never written: the API key is
the environment variable that held it (``${OPENAI_API_KEY:-}``), a base URL carrying credentials is
``${GRAPHGLEAN_BASE_URL:-}`` (or the variable that held it), and the text passes through `redact` as well."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, Mapping

import attrs
import yaml

from ..core.atomic import write_text
from ..core.config import NAME_OR_PATH, Config
from ..core.config_loader import load_config
from ..core.errors import InputError
from ..llm.credentials import has_credentials, redact

SETTINGS = "settings.yaml"
KEY_NAMES = ("OPENAI_API_KEY", "AZURE_OPENAI_API_KEY", "GRAPHGLEAN_API_KEY")  # preferred, in this order
KEY_FALLBACK, URL_FALLBACK = "GRAPHGLEAN_API_KEY", "GRAPHGLEAN_BASE_URL"
_REFERENCE = re.compile(r"^\s*(api_key|base_url): ['\"]?\$\{([A-Za-z_][A-Za-z0-9_]*):-\}", re.M)


def _holder(value: str, environ: Mapping[str, str], preferred: tuple[str, ...]) -> str | None:
    """The environment variable holding exactly ``value``: one of ``preferred`` first, else the first by name."""
    names = [n for n in preferred if environ.get(n) == value]
    return (names or sorted(n for n, v in environ.items() if v == value) or [None])[0]


def _absolute(value: Any, keywords: tuple[str, ...]) -> Any:
    if not isinstance(value, str) or not value or value in keywords or value == "-":
        return value
    if NAME_OR_PATH in keywords and not ("/" in value or os.sep in value or value.startswith(("~", "."))):
        return value  # a package name (a spaCy pipeline), not a path
    return os.path.abspath(os.path.expanduser(value))


def _data(obj: Any) -> Any:
    """``obj`` (a settings section) as plain data, its paths absolute."""
    if not attrs.has(type(obj)):
        if isinstance(obj, dict):
            return {k: _data(v) for k, v in obj.items()}
        return list(obj) if isinstance(obj, (list, tuple)) else obj
    out = {}
    for f in attrs.fields(type(obj)):
        value = _data(getattr(obj, f.name))
        keywords = f.metadata.get("path")
        out[f.name] = _absolute(value, keywords) if keywords is not None else value
    return out


def settings_yaml(cfg: Config, environ: Mapping[str, str] | None = None) -> tuple[str, list[str]]:
    """The file's text and what a reader must set: the variables standing for secrets no variable held."""
    environ = os.environ if environ is None else environ
    data = _data(cfg)
    llm, notes = data["llm"], []
    if llm["api_key"]:
        name = _holder(llm["api_key"], environ, KEY_NAMES)
        if name is None:
            name = KEY_FALLBACK
            notes.append(f"llm.api_key was written in the run's config, not read from the environment: set {name} "
                         "to it before asking with an LLM (graphglean query)")
        llm["api_key"] = f"${{{name}:-}}"
    if has_credentials(llm["base_url"]):
        name = _holder(llm["base_url"], environ, (URL_FALLBACK,))
        if name is None:
            name = URL_FALLBACK
            notes.append(f"llm.base_url carries credentials, which are never written: set {name} to it before "
                         "asking with an LLM (graphglean query)")
        llm["base_url"] = f"${{{name}:-}}"
    head = ["# The settings of the run that wrote this folder, read by graphglean query (docs/query.md).",
            "# Secrets are environment references, never values. Paths are absolute."]
    head += [f"# {note}." for note in notes]
    return "\n".join(head) + "\n" + redact(yaml.safe_dump(data, sort_keys=False, allow_unicode=True)), notes


def write_run_settings(cfg: Config) -> Path:
    """``cfg.output.dir/settings.yaml`` (the folder exists: a run made it)."""
    path = Path(cfg.output.dir) / SETTINGS
    text, _ = settings_yaml(cfg)
    write_text(path, text)
    return path


@attrs.frozen
class RunSettings:
    """A run's settings as a query reads them: the configuration, its output folder, and the environment
    variables its secrets are read from (those not set are named by `missing`)."""

    cfg: Config
    out_dir: Path
    source: Path
    references: dict[str, str] = attrs.field(factory=dict)  # key (api_key, base_url) -> variable

    def missing(self, environ: Mapping[str, str] | None = None) -> list[str]:
        environ = os.environ if environ is None else environ
        return [f"llm.{key}: set {name} ({self.source} reads it)" for key, name in sorted(self.references.items())
                if not environ.get(name)]


def run_settings(target: str | os.PathLike[str]) -> RunSettings:
    """The settings of a run: an output folder's ``settings.yaml``, or the run's configuration file (then its
    ``output.dir``). `InputError` when ``target`` is neither."""
    path = Path(target)
    if path.is_dir():
        settings = path / SETTINGS
        if not settings.is_file():
            raise InputError(f"{path}: no {SETTINGS} here (a run since graphglean 0.1 writes it); is it a "
                             "graphglean output folder? Else give the run's configuration file instead")
        text = settings.read_text(encoding="utf-8")
        refs = {m.group(1): m.group(2) for m in _REFERENCE.finditer(text)}
        return RunSettings(load_config(settings), path, settings, refs)
    if not path.exists():
        raise InputError(f"{path}: no such output folder or configuration file")
    cfg = load_config(path)
    return RunSettings(cfg, Path(cfg.output.dir), path)
