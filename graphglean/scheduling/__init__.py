"""The one scheduler of a run: item slots, per-pass accounts and progress, and the priority gate that hands request
slots out by critical path."""
