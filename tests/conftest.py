from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"


def shared_path(*parts: str) -> Path:
    """A file in ../shared, or a skip that says why when this checkout has none beside it."""
    p = SHARED.joinpath(*parts)
    if not p.exists():
        pytest.skip(f"{p} is absent: the shared test data lives beside the repository (../shared)")
    return p
