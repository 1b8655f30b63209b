"""Batch mode on Ray: one `WaveHub` actor holds the run's waves and ledger; each task's client hands it its
requests through a `RemoteWaves`."""

from .hub import WaveHub
from .remote import RemoteWaves

__all__ = ["RemoteWaves", "WaveHub"]
