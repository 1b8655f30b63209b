"""CPU work that takes seconds on a large run happens in worker threads, never on the trio thread, where it
would hold up the requests other passes have in flight (figures: benchmarks/event_loop.py)."""

import io
import threading

from graphglean.core.config import Config
from graphglean.graph import extract
from graphglean.launch import run
from graphglean.llm import ChatClient
from graphglean.pipeline import communities as graph_files
from graphglean.scheduling.scheduler import Scheduler
from graphglean.testing import FakeLLMServer
from graphglean.testing.models.responders import synthetic
from graphglean.text.inputs import Document, Inputs

from .helpers import ThreadRecordingTokenizer, config


def spy(monkeypatch, module, name, seen):
    real = getattr(module, name)

    def wrapper(*args, **kw):
        seen.setdefault(name, set()).add(threading.get_ident())
        return real(*args, **kw)

    monkeypatch.setattr(module, name, wrapper)


async def test_graph_parse_merge_grounding_and_description_scan_run_off_the_event_loop(monkeypatch):
    seen = {}
    for name in ("parse_extraction", "accumulate", "ground"):
        spy(monkeypatch, extract, name, seen)
    tokenizer = ThreadRecordingTokenizer()
    text = "Alice Smith met Bob Jones. " * 3 + "\n" + "Alice Smith sailed with Bob Jones." * 3
    async with FakeLLMServer(synthetic).running() as s:
        cfg = config(s)
        cfg.graph.description_max_tokens = 10**6  # none over budget: the tokenizer only scans
        cfg.chunking.size, cfg.chunking.overlap = 12, 2
        chunks = Inputs(documents=[Document("d", text, "<text>")]).all_chunks(tokenizer, 12, 2)
        tokenizer.threads.clear()
        async with ChatClient(cfg.llm) as client:
            result = await extract.extract_with_llm(chunks, {}, cfg, Scheduler(client), tokenizer)
    assert result.output.number_of_nodes() > 0
    loop = threading.get_ident()
    assert set(seen) == {"parse_extraction", "accumulate", "ground"}
    assert all(loop not in threads for threads in seen.values()), seen
    assert tokenizer.threads and loop not in tokenizer.threads  # counting each joined description


async def test_graph_outputs_are_written_off_the_event_loop(tmp_path, monkeypatch):
    seen = {}
    spy(monkeypatch, graph_files, "write_graph_outputs", seen)
    cfg = Config()  # no endpoint: the offline method
    cfg.llm.model = "gpt-4"
    cfg.input.path = str(tmp_path / "in.txt")
    (tmp_path / "in.txt").write_text("Ebenezer Scrooge worked with Jacob Marley in London.")
    cfg.output.dir = str(tmp_path / "out")
    await run(cfg, notice=lambda m: None, out=io.StringIO())
    assert (tmp_path / "out" / "graph.graphml").exists()
    assert seen["write_graph_outputs"] and threading.get_ident() not in seen["write_graph_outputs"]


async def test_resolution_llm_tier_checks_pairs_off_the_event_loop(monkeypatch):
    import re

    from graphglean.graph.resolution import llm_tier as resolve_llm
    from graphglean.graph.resolution import resolve

    seen = {}
    for module, name in ((resolve, "_by_rules"), (resolve, "questions"), (resolve_llm, "vector_pairs"),
                         (resolve, "_combined")):
        spy(monkeypatch, module, name, seen)
    real_cluster = resolve.Resolver.cluster

    def cluster(self, *args):
        seen.setdefault("cluster", set()).add(threading.get_ident())
        return real_cluster(self, *args)

    monkeypatch.setattr(resolve.Resolver, "cluster", cluster)
    import networkx as nx

    g = nx.Graph()
    for name, text in (("Christmas", "Christmas is the holiday."), ("Christmas Eve", "The night before it."),
                       ("Jacob Marley", "Jacob Marley is the dead partner."), ("Marley", "Marley, the partner.")):
        g.add_node(name.casefold(), name=name, type="event", description=text)

    def model(req):
        return "\n".join(f"{n}: SAME" for n in re.findall(r"^Pair (\d+)$", req.last_user, re.M))

    async with FakeLLMServer(model).running() as s:
        result = await resolve.resolve_entities(g, config(s), method="llm")
    assert result.stats.llm_pairs > 0
    assert set(seen) == {"_by_rules", "questions", "vector_pairs", "cluster", "_combined"}
    assert all(threading.get_ident() not in threads for threads in seen.values()), seen
