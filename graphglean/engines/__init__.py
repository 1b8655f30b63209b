"""The engines that execute a run's plan: local (one process) and ray (a cluster); peers that never import each
other."""
