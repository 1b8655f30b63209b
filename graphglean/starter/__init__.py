"""``graphglean init``: a new project's folder, set up for the endpoint this machine offers."""

from .probe import USUAL_PORTS, Found, Server, find_endpoints, parse_ports
from .project import Initialized, init_folder, sample_path

__all__ = ["USUAL_PORTS", "Found", "Initialized", "Server", "find_endpoints", "init_folder", "parse_ports",
           "sample_path"]
