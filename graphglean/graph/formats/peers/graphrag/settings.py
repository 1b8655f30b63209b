"""``settings.yaml`` of the GraphRAG project: its completion and embedding models are the run's endpoint and
models (an Azure deployment where the run used one), the key is GraphRAG's ``${GRAPHRAG_API_KEY}`` (never the
run's key), a base URL that carries credentials is ``${GRAPHRAG_API_BASE}`` (they are never written), and the
vector store is the LanceDB database the run wrote, with the size of its vectors. When the run asks the
embedding model for a size (``llm.embedding_dimensions``), so does GraphRAG's query embedding (``call_args``):
a query vector of another size would not match."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import yaml

from .....core.atomic import write_text
from .....core.config import LLMConfig
from .....llm.credentials import has_credentials

API_KEY = "${GRAPHRAG_API_KEY}"
API_BASE = "${GRAPHRAG_API_BASE}"  # in place of a base URL that carries credentials (they are never written)
SEAL = "# graphglean wrote this file; sha256 of the lines above: "
OUTPUT = "output"
VECTORS = "output/lancedb"


CREDENTIALS = ("llm.base_url carries credentials, which are never written: api_base is ${GRAPHRAG_API_BASE}; set "
               "GRAPHRAG_API_BASE to that URL before querying")


def _model(llm: LLMConfig, model: str, deployment: str) -> dict[str, Any]:
    entry: dict[str, Any] = {"model_provider": llm.provider, "model": model, "auth_method": "api_key",
                             "api_key": API_KEY}
    if llm.base_url:
        entry["api_base"] = API_BASE if has_credentials(llm.base_url) else llm.base_url.rstrip("/")
    if llm.provider == "azure":
        entry["api_version"] = llm.azure.api_version
        entry["azure_deployment_name"] = deployment or model
    entry["retry"] = {"type": "exponential_backoff"}
    return entry


def settings(llm: LLMConfig, dimension: int) -> dict[str, Any]:
    """The settings as data (what `settings_yaml` writes)."""
    embedding = _model(llm, llm.embedding_model, llm.azure.embedding_deployment)
    if llm.embedding_dimensions:
        embedding["call_args"] = {"dimensions": llm.embedding_dimensions}
    return {"completion_models": {"default_completion_model": _model(llm, llm.model, llm.azure.deployment)},
            "embedding_models": {"default_embedding_model": embedding},
            "output_storage": {"type": "file", "base_dir": OUTPUT},
            "vector_store": {"type": "lancedb", "db_uri": VECTORS, "vector_size": dimension}}


def _escaped(value: Any) -> Any:
    """GraphRAG reads the file through `string.Template`: a ``$`` of a value must be written ``$$``."""
    if isinstance(value, dict):
        return {k: _escaped(v) for k, v in value.items()}
    if isinstance(value, str) and value not in (API_KEY, API_BASE):
        return value.replace("$", "$$")
    return value


def settings_yaml(llm: LLMConfig, dimension: int) -> str:
    head = ("# A GraphRAG 3.3 project over graphglean's index (see graphglean's docs/peers.md). Set\n"
            "# GRAPHRAG_API_KEY (or write it in a .env file here), then:\n"
            "#   graphrag query --root THIS_FOLDER --method local \"...\"   (local, global, drift or basic)\n"
            "# Prompts and search settings not written here are GraphRAG's defaults.\n")
    if has_credentials(llm.base_url):
        head += f"# {CREDENTIALS}.\n"
    return head + yaml.safe_dump(_escaped(settings(llm, dimension)), sort_keys=False, allow_unicode=True)


def _sealed(text: str) -> str:
    return text + SEAL + hashlib.sha256(text.encode("utf-8")).hexdigest() + "\n"


def _unedited(text: str) -> bool:
    body, _, seal = text.rstrip("\n").rpartition("\n")
    return seal == SEAL + hashlib.sha256((body + "\n").encode("utf-8")).hexdigest()


def write_settings(root: Path, llm: LLMConfig, dimension: int) -> tuple[Path, str | None]:
    """``root/settings.yaml``, unless a settings.yaml graphglean did not write (or that was edited since) is
    there: it is kept, graphglean's goes to ``settings.graphglean.yaml``, and the second value says so."""
    path, text = root / "settings.yaml", _sealed(settings_yaml(llm, dimension))
    current = path.read_text(encoding="utf-8") if path.is_file() else None
    if current is not None and current != text and not _unedited(current):
        ours = root / "settings.graphglean.yaml"
        write_text(ours, text)
        return ours, f"{path}: kept as edited; graphglean's settings (vector_size {dimension}) are in {ours.name}"
    write_text(path, text)
    return path, None
