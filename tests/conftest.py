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


@pytest.fixture(scope="session")
def cluster():
    """One small local Ray cluster for every Ray test of the session (Ray has no local mode)."""
    import logging

    ray = pytest.importorskip("ray", reason="Ray is not installed (pip install '.[ray]')")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level=logging.WARNING)
    try:
        yield ray.get_runtime_context().gcs_address
    finally:
        ray.shutdown()
