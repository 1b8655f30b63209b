"""Communities on Ray: clustered in a task from the merged tables, reported level by level in tasks."""

from .stage import FOLDER, ray_communities

__all__ = ["FOLDER", "ray_communities"]
