"""Every benchmark answers --help with its usage and runs nothing (a benchmark takes minutes)."""

import subprocess
import sys

import pytest

from .conftest import ROOT

BENCHMARKS = sorted(p.name for p in (ROOT / "benchmarks").glob("*.py") if not p.name.startswith("_"))


@pytest.mark.slow
@pytest.mark.parametrize("name", ["lookalikes.py", "debris.py", "dry_run.py", "echoes.py", "ray_resolution.py",
                                  "recovery.py", "reliability.py", "resolution.py"])
def test_help_prints_the_usage_only(name):
    assert name in BENCHMARKS
    r = subprocess.run([sys.executable, str(ROOT / "benchmarks" / name), "--help"], capture_output=True, text=True,
                       timeout=60, cwd=ROOT)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    assert f"python benchmarks/{name}" in r.stdout or "usage:" in r.stdout
    assert "---" not in r.stdout  # no table: nothing ran
