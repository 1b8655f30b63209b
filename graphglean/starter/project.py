"""``graphglean init [DIR]``: a starter ``graphglean.yaml`` for the endpoint found, and ``input/`` holding the
bundled sample, so that ``graphglean run graphglean.yaml`` works at once. Nothing that exists is overwritten:
an existing config or input is named and left as it is."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable, Mapping

import attrs

from ..core.errors import InputError
from .probe import USUAL_PORTS, Found, find_endpoints, usual_name
from .template import CONFIG_NAME, INPUT_DIR, Choice, choose, key_advice, starter_yaml

SAMPLE = "a_christmas_carol_stave1.txt"  # the first stave of Dickens' A Christmas Carol (public domain)


def sample_path() -> Path:
    """The bundled sample: inside the installed package (the wheel's ``graphglean/examples``), or the source
    tree's ``examples/``."""
    package = Path(__file__).resolve().parent.parent
    for folder in (package / "examples", package.parent / "examples"):
        if (folder / SAMPLE).is_file():
            return folder / SAMPLE
    raise InputError(f"the bundled sample {SAMPLE} is missing from this installation of graphglean "
                     f"(looked in {package / 'examples'}); reinstall graphglean")


@attrs.define
class Initialized:
    """What ``init`` did: the lines it says, the files it wrote and those it left as they were."""

    choice: Choice
    lines: list[str] = attrs.field(factory=list)
    written: list[Path] = attrs.field(factory=list)
    kept: list[Path] = attrs.field(factory=list)


def _folder(path: Path, what: str) -> None:
    if path.exists() and not path.is_dir():
        raise InputError(f"{path}: {what} exists and is not a folder")


def _create(path: Path, data: bytes) -> bool:
    """Write ``path`` unless it exists (exclusive create: never over a file, even one made meanwhile)."""
    try:
        with open(path, "xb") as f:
            f.write(data)
    except FileExistsError:
        return False
    except OSError as e:
        raise InputError(f"{path}: cannot write ({e.strerror or type(e).__name__})") from None
    return True


def _found_lines(found: Found, choice: Choice) -> list[str]:
    ports = ", ".join(f"{p} ({usual_name(p)})" if p in dict(USUAL_PORTS) else str(p) for p in found.ports)
    lines = []
    if choice.kind == "offline":
        lines.append("no OPENAI_API_KEY, and no OpenAI-compatible server with a model answered /v1/models on "
                     f"127.0.0.1 port{'s' if len(found.ports) != 1 else ''} {ports}: {choice.said()}")
    else:
        lines.append(choice.said())
    lines += [f"also found {s.describe()}; graphglean.yaml names it in a comment"
              for s in found.servers if s is not choice.server and s.chat_model]
    lines += [f"found {s.describe()}: pull or load a model there, then run graphglean init again"
              for s in found.servers if not s.chat_model and not s.needs_key]
    lines += [f"also found {s.describe()}; {key_advice(s)}" for s in found.locked if s is not choice.server]
    return lines


def _input(folder: Path, result: Initialized) -> None:
    inputs = folder / INPUT_DIR
    _folder(inputs, f"{INPUT_DIR}/")
    target = inputs / SAMPLE
    held = sorted(p.name for p in inputs.iterdir()) if inputs.is_dir() else []
    if held and SAMPLE not in held:  # the user's own texts: the sample is not mixed into them
        result.kept.append(inputs)
        result.lines.append(f"{inputs}/ holds {len(held)} file{'s' if len(held) != 1 else ''} already: left as it "
                            f"is (graphglean.yaml reads it)")
        return
    try:
        inputs.mkdir(exist_ok=True)
    except OSError as e:
        raise InputError(f"{inputs}: cannot make the folder ({e.strerror or type(e).__name__})") from None
    if _create(target, sample_path().read_bytes()):
        result.written.append(target)
    else:
        result.kept.append(target)
        result.lines.append(f"{target} exists: left as it is")


async def init_folder(directory: str | os.PathLike[str] = ".", *, ports: Iterable[int] | None = None,
                      environ: Mapping[str, str] | None = None) -> Initialized:
    """Write the starter ``graphglean.yaml`` and ``input/`` into ``directory`` (made if missing) for the endpoint
    found (``environ``: os.environ; ``ports``: the usual local ports). `InputError` when ``directory`` or its
    ``input`` is not a folder or cannot be written."""
    folder = Path(directory)
    _folder(folder, "the folder to initialize")
    _folder(folder / INPUT_DIR, f"{INPUT_DIR}/")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise InputError(f"{folder}: cannot make the folder ({e.strerror or type(e).__name__})") from None
    found = await find_endpoints(os.environ if environ is None else environ,
                                 ports if ports is not None else [p for p, _ in USUAL_PORTS])
    choice = choose(found)
    result = Initialized(choice)
    config = folder / CONFIG_NAME
    if _create(config, starter_yaml(found, choice).encode("utf-8")):
        result.written.append(config)
        result.lines += _found_lines(found, choice)
    else:  # what was found is not what the kept config uses: said as what a new one would use
        result.kept.append(config)
        result.lines.append(f"{config} exists: left as it is (remove it and run graphglean init again for one "
                            f"that uses what was found: {choice.uses()})")
    _input(folder, result)
    if result.written:
        result.lines.append("wrote " + ", ".join(str(p) for p in result.written))
    return result
