"""graphglean: text to entity graphs, episodic facts, summaries and enriched chat memory, with an LLM."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("graphglean")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+source"
