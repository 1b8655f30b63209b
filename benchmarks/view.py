"""graph.html in headless Chromium: time to the first full drawing, to the end of the force layout, and of one
redraw after a zoom, for synthetic knowledge graphs of 1k to 20k nodes (power-law degrees, 8 types, names
found in chunk texts, so every node has source sentences). Above output.view_max_nodes (10,000) the page draws
the top 10,000 nodes by degree.

    python benchmarks/view.py [--sizes 1000,10000,20000] [--screenshots DIR]
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from graphglean.core.config import OutputConfig  # noqa: E402
from graphglean.graph.building.grounding import ground  # noqa: E402
from graphglean.testing.chromium import HeadlessChromium  # noqa: E402
from graphglean.text.chunking import Chunk  # noqa: E402
from graphglean.view import ChunkText, write_view  # noqa: E402

TYPES = ["person", "organization", "geo", "event", "concept", "product", "date", "law"]
STATS = "(() => { const s = document.getElementById('gg-stats'); return s && s.dataset.drawnMs !== undefined " \
        "&& [Number(s.dataset.nodes), Number(s.dataset.edges), Number(s.dataset.drawnMs)]; })()"
ZOOM_FRAME = """new Promise(done => { const c = document.getElementById('gg-canvas'); const t = performance.now();
  c.dispatchEvent(new WheelEvent('wheel', {deltaY: -120, clientX: 600, clientY: 400, cancelable: true}));
  requestAnimationFrame(() => requestAnimationFrame(() => done(performance.now() - t))); })"""


def knowledge_graph(n: int, seed: int = 7) -> tuple[nx.Graph, list[Chunk]]:
    rng = random.Random(seed)
    g = nx.barabasi_albert_graph(n, 2, seed=seed)
    names = {v: f"Entity{v} {rng.choice(['Stone', 'Vale', 'Ash', 'Reed', 'Moor'])}" for v in g}
    chunks, start = [], 0
    for i in range(0, n, 20):  # 20 entities per chunk, each named in a sentence of its own
        text = " ".join(f"{names[v]} met {names[rng.randrange(n)]} at the old mill in spring."
                        for v in range(i, min(i + 20, n)))
        chunks.append(Chunk(f"chunk-{i}", "corpus.txt", i // 20, text, start, start + len(text), 200))
        start += len(text) + 1
    labelled = nx.relabel_nodes(g, {v: names[v].casefold() for v in g})
    for v, key in ((v, names[v].casefold()) for v in g):
        labelled.nodes[key].update(name=names[v], type=TYPES[v % len(TYPES)], description=f"{names[v]} is an "
                                   "entity of the synthetic benchmark graph.", source_ids=[f"chunk-{v // 20 * 20}"],
                                   type_conflict=v % 97 == 0, types=[TYPES[v % len(TYPES)]])
    for a, b in labelled.edges:
        labelled.edges[a, b].update(weight=float(rng.randint(1, 9)), description=f"{a} and {b} met.")
    ground(labelled, {c.id: c for c in chunks})
    return labelled, chunks


def measure(browser: HeadlessChromium, n: int, folder: Path, screenshots: Path | None) -> dict:
    graph, chunks = knowledge_graph(n)
    t0 = time.perf_counter()
    path = write_view(graph, [ChunkText(c.id, c.doc_id, c.index, c.start, c.text) for c in chunks],
                      folder / f"graph{n}.html", max_nodes=OutputConfig().view_max_nodes)
    build_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    page = browser.open(path.as_uri())
    nodes, edges, drawn_ms = page.wait_for(STATS, timeout_s=120)
    first_wall_s = time.perf_counter() - t0
    layout_ms = page.wait_for("document.getElementById('gg-stats').dataset.layoutMs", timeout_s=300)
    if screenshots:
        screenshots.mkdir(parents=True, exist_ok=True)
        page.screenshot(screenshots / f"view{n}.png")
    zoom_ms = page.evaluate(ZOOM_FRAME, await_promise=True)
    if page.errors:
        raise SystemExit(f"console errors at {n} nodes: {page.errors}")
    return {"nodes": n, "edges": graph.number_of_edges(), "drawn": f"{nodes}/{edges}",
            "html_MB": round(path.stat().st_size / 1e6, 1), "build_s": round(build_s, 2),
            "first_draw_s": round(drawn_ms / 1000, 2), "open_to_draw_s": round(first_wall_s, 2),
            "layout_s": round(int(layout_ms) / 1000, 1), "zoom_frame_ms": round(zoom_ms)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000,20000")
    parser.add_argument("--screenshots", type=Path, help="save a screenshot of each page, laid out, here")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp, HeadlessChromium() as browser:
        for n in map(int, args.sizes.split(",")):
            rows.append(measure(browser, n, Path(tmp), args.screenshots))
    keys = list(rows[0])
    widths = [max(len(k), *(len(str(r[k])) for r in rows)) for k in keys]
    print("  ".join(k.rjust(w) for k, w in zip(keys, widths)))
    print("  ".join("-" * w for w in widths))
    for r in rows:
        print("  ".join(str(r[k]).rjust(w) for k, w in zip(keys, widths)))
    print("first_draw_s: navigation start to the first frame with every node and edge (#gg-stats set); "
          "open_to_draw_s: the same seen from Python; layout_s: script start to the end of the force layout")


if __name__ == "__main__":
    main()
