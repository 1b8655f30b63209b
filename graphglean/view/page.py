"""The page: one self-contained HTML file holding the graph's data, the vendored layout code and the viewer.

Drawing is graphglean's own canvas code (2D canvas works where WebGL does not: headless browsers, VMs, remote
desktops); the force layout is d3-force (ISC licence, vendored in ``vendor/``). A Content-Security-Policy
forbids every network request, so the page shows the same thing offline.
"""

from __future__ import annotations

import html
import json
import re
from functools import cache
from importlib import resources
from typing import Any

VENDORED = ("d3-dispatch.min.js", "d3-timer.min.js", "d3-quadtree.min.js", "d3-force.min.js")
_PLACEHOLDER = re.compile(r"\{\{(\w+)\}\}")


@cache
def _asset(name: str) -> str:
    here = resources.files(__package__)
    return (here / name).read_text(encoding="utf-8")


def _script(source: str, kind: str = "") -> str:
    opening = f'<script class="{kind}">' if kind else "<script>"
    return opening + "\n" + source.replace("</script", "<\\/script") + "\n</script>"


def _json_in_html(data: Any) -> str:
    # "<" never ends a JSON string early, and escaping it keeps "</script>" in a description harmless
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False).replace("<", "\\u003c")


def render_page(payload: dict[str, Any]) -> str:
    """The HTML page for a payload made by `build_payload`."""
    scripts = "\n".join(_script(_asset("vendor/" + name), "gg-vendor") for name in VENDORED) + "\n" + _script(_asset("page.js"))
    values = {"title": html.escape(str(payload.get("title", "graph"))), "css": _asset("page.css"),
              "data": _json_in_html(payload), "scripts": scripts}
    return _PLACEHOLDER.sub(lambda m: values[m.group(1)], _asset("page.html"))
