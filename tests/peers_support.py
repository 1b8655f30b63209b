"""What tests of the peer indexes share: where the peers' own engines are installed (each in a venv of its own,
outside the repository), an environment in which they never reach the network, and the fixtures of their
real output."""

from __future__ import annotations

import gzip
import hashlib
import os
from pathlib import Path

import pytest

from graphglean.core.tokens import _vocabulary_file

DATA = Path(__file__).resolve().parent / "data" / "peers"
VENVS = {"graphrag": ("GRAPHRAG_VENV", "/work/scratch-graphrag", "bin/graphrag", "graphrag==3.3.*"),
         "lightrag": ("LIGHTRAG_VENV", "/work/scratch-lightrag", "bin/python", "lightrag-hku==1.5.*")}


def peer_venv(engine: str) -> Path:
    """The venv of ``engine`` (graphrag or lightrag): $GRAPHRAG_VENV / $LIGHTRAG_VENV, else /work/scratch-ENGINE;
    a skip saying how to make one when there is none."""
    variable, default, probe, requirement = VENVS[engine]
    venv = Path(os.environ.get(variable, default))
    if not (venv / probe).exists():
        pytest.skip(f"{engine} is not installed: python3 -m venv {venv} && {venv}/bin/pip install '{requirement}' "
                    f"(or set {variable})")
    return venv


def tiktoken_cache(folder: Path) -> Path:
    """A tiktoken cache holding cl100k and o200k (from graphglean's own hash-checked files), so the peers'
    tokenizers load without downloading them."""
    folder.mkdir(parents=True, exist_ok=True)
    for encoding in ("cl100k_base", "o200k_base"):
        url = f"https://openaipublic.blob.core.windows.net/encodings/{encoding}.tiktoken"
        target = folder / hashlib.sha1(url.encode()).hexdigest()
        if not target.exists():
            target.write_bytes(gzip.decompress(_vocabulary_file(encoding).read_bytes()))
    return folder


def peer_env(cache: Path) -> dict[str, str]:
    """The environment the peers run in: their tokenizers from ``cache``, LiteLLM's price list from its own
    copy, no proxy, a GraphRAG key for the fake server (never a real one)."""
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower() and not k.endswith("_API_KEY")}
    env.update(TIKTOKEN_CACHE_DIR=str(cache), LITELLM_LOCAL_MODEL_COST_MAP="True", GRAPHRAG_API_KEY="fake-key",
               NO_PROXY="127.0.0.1,localhost", HF_HUB_OFFLINE="1", PYTHONUNBUFFERED="1")
    return env
