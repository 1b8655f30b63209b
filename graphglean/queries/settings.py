"""A run's settings as a query reads them: ``OUTPUT/settings.yaml`` (written by `pipeline.settings_file` when
the run ends), or the run's configuration file. Paths in ``settings.yaml`` are read against its own folder: a
copied or moved output folder uses its own cache and files (a file from before paths were written relative has
the paths under its old folder moved to where it is now)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Mapping

import attrs
import yaml

from ..core.config import Config
from ..core.config_loader import load_config
from ..core.errors import InputError
from ..pipeline.settings_file import REFERENCE, SETTINGS, inside, with_paths


@attrs.frozen
class RunSettings:
    """A run's settings as a query reads them: the configuration, its output folder, and the environment
    variables its secrets are read from (those not set are named by `missing`)."""

    cfg: Config
    out_dir: Path
    source: Path
    references: dict[str, str] = attrs.field(factory=dict)  # key under llm (api_key, base_url, ...) -> variable

    def missing(self, environ: Mapping[str, str] | None = None) -> list[str]:
        environ = os.environ if environ is None else environ
        return [f"llm.{key}: set {name} ({self.source} reads it)" for key, name in sorted(self.references.items())
                if not environ.get(name)]


def _references(value: Any, path: tuple[str, ...] = ()) -> dict[str, str]:
    """The written references (``${NAME:-}``) in ``value`` (the file's ``llm`` section), by dotted key."""
    if isinstance(value, dict):
        return {k: v for key, item in value.items() for k, v in _references(item, path + (str(key),)).items()}
    if isinstance(value, list):
        return {k: v for i, item in enumerate(value) for k, v in _references(item, path + (str(i),)).items()}
    found = REFERENCE.match(value) if isinstance(value, str) else None
    return {".".join(path): found.group(1)} if found else {}


def _moved(cfg: Config, folder: Path) -> Config:
    """``cfg`` read from ``folder``'s settings.yaml, its output folder ``folder`` and the paths under the one it
    names (written before paths were relative, and the folder copied or moved since) under ``folder``."""
    old, new = os.path.abspath(cfg.output.dir), os.path.abspath(folder)

    def fn(value: str, _: tuple[str, ...]) -> str:
        absolute = os.path.abspath(value)
        return os.path.normpath(os.path.join(new, os.path.relpath(absolute, old))) if inside(absolute, old) \
            else value

    return with_paths(cfg, fn)


def run_settings(target: str | os.PathLike[str]) -> RunSettings:
    """The settings of a run: an output folder's ``settings.yaml``, or the run's configuration file (then its
    ``output.dir``). `InputError` when ``target`` is neither."""
    path = Path(target)
    if path.is_dir():
        settings = path / SETTINGS
        if not settings.is_file():
            raise InputError(f"{path}: no {SETTINGS} here (a run since graphglean 0.1 writes it); is it a "
                             "graphglean output folder? Else give the run's configuration file instead")
        cfg = _moved(load_config(settings), path)
        data = yaml.safe_load(settings.read_text(encoding="utf-8"))
        llm = data.get("llm") if isinstance(data, dict) else None
        return RunSettings(cfg, path, settings, _references(llm))
    if not path.exists():
        raise InputError(f"{path}: no such output folder or configuration file")
    cfg = load_config(path)
    return RunSettings(cfg, Path(cfg.output.dir), path)
