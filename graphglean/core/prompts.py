"""Prompt templates from ``prompts/`` (shipped inside the wheel as ``graphglean/prompts``)."""

from __future__ import annotations

import functools
import re
from pathlib import Path

from .errors import ConfigError

_FIELD = re.compile(r"\{([a-z_][a-z0-9_]*)\}")


def prompt_dirs() -> list[Path]:
    """Where shipped templates live: inside the installed package, or the source tree's ``prompts/``."""
    package = Path(__file__).resolve().parent.parent
    return [p for p in (package / "prompts", package.parent / "prompts") if p.is_dir()]


def _read(path: Path) -> str:
    stat = path.stat()  # a file edited since it was read (a notebook re-run) is read again
    return _read_version(path, stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=256)
def _read_version(path: Path, mtime_ns: int, size: int) -> str:
    return path.read_text(encoding="utf-8")


def load_template(name: str, override_dir: str | Path | None = None) -> str:
    """The text of template ``name`` (without ``.txt``); a file in ``override_dir`` wins."""
    dirs = ([Path(override_dir)] if override_dir else []) + prompt_dirs()
    for d in dirs:
        path = d / f"{name}.txt"
        if path.is_file():
            return _read(path)
    raise ConfigError(f"prompt template {name}.txt not found in {', '.join(map(str, dirs)) or 'any prompts folder'}")


def render(template: str, **values: object) -> str:
    """Fill ``{name}`` fields; braces that name no given value (JSON examples) stay as they are."""
    return _FIELD.sub(lambda m: str(values[m.group(1)]) if m.group(1) in values else m.group(0), template)
