"""Running a configuration on a Ray cluster: shards, one global rate limit, a merge by key partition.

Nothing here is imported unless ``runtime.engine`` is ``ray``.
"""
