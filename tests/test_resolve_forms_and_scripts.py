"""Session 14's classes from the blind set of the issue's classes (heldback24), each with namesakes of my own:
a company's own legal form and the English word for it, or one more form, described in one country and no
other; "Ste" for "Sainte"; a club's founding year from 1800; a city typed in Urdu, Telugu, Hindi, Bengali or
Thai; a compass compound in an acronym ("ASEAN")."""

from __future__ import annotations

import pytest

from graphglean.graph.resolution.names import key_of
from graphglean.graph.resolution.variants.types import english_type

from graphglean.graph.resolution.verdicts import UNSURE

from .test_resolve_namesakes import merged, verdict

SAME_THING = [
    (("Kone Oyj", "yritys", "Suomalainen hissejä valmistava pörssiyhtiö, pääkonttori Espoossa."),
     ("KONE Corporation", "company", "Finnish elevator manufacturer headquartered in Espoo, Finland.")),
    (("Nokia Oyj", "company", "Finnish telecommunications company in Espoo."),
     ("Nokia Corporation", "company", "Finnish maker of network equipment.")),
    (("Zoho Corporation Pvt Ltd", "company", "Indian software company founded in 1996."),
     ("Zoho Corporation", "ORGANIZATION", "Chennai-based developer of cloud software for businesses.")),
    (("Ste-Anne-de-Beaupré", "ville", "Ville du Québec connue pour sa basilique."),
     ("Sainte-Anne-de-Beaupré", "city", "Small town east of Quebec City, home to a basilica.")),
    (("VfL Bochum 1848 e.V.", "Verein", "Fußballverein aus Bochum im Ruhrgebiet."),
     ("VfL Bochum", "club", "German football club from Bochum.")),
    (("TSV Nürnberg 1846", "Verein", "Turn- und Sportverein aus Nürnberg."),
     ("TSV Nürnberg", "club", "Sports club from Nuremberg, Bavaria.")),
    (("Hyderabad, Sindh", "شہر", "صوبہ سندھ کا دوسرا بڑا شہر"),
     ("Hyderabad", "city", "Second-largest city in Pakistan's Sindh province.")),
    (("PT Unilever Indonesia Tbk", "perusahaan", "Produsen barang konsumsi yang tercatat di Bursa Efek Indonesia."),
     ("Unilever Indonesia", "company", "Indonesian consumer goods maker listed in Jakarta.")),  # "bursa": exchange
    (("ASEAN", "ORGANIZATION", "Regional organization of Southeast Asian states, founded in Bangkok in 1967."),
     ("Association of Southeast Asian Nations", "organization", "Union established by the Bangkok Declaration.")),
]

NAMESAKES = [
    (("Siemens AG", "company", "German conglomerate headquartered in Munich."),
     ("Siemens Corporation", "company", "The American arm of Siemens, based in Washington, D.C.")),
    (("Robert Bosch GmbH", "company", "German engineering company in Gerlingen."),
     ("Robert Bosch Corporation", "company", "The German group's Japanese unit, based in Tokyo.")),  # two countries
    (("Unilever PLC", "company", "British consumer goods company."),
     ("Unilever N.V.", "company", "Dutch arm of the consumer goods group, in Rotterdam.")),
    (("Tata Motors Limited", "company", "Indian carmaker in Mumbai."),
     ("Tata Motors Pvt Ltd", "company", "Indian automobile maker.")),  # a public and a private company
    (("Ste. Anne", "city", "Town in Manitoba, Canada."), ("St. Anne", "city", "Village in Illinois.")),
    (("FC Barcelona 2009", "club", "The treble-winning squad of that season."),
     ("FC Barcelona", "club", "Catalan football club.")),  # a season's squad, not a founding year
    (("Hyderabad, Telangana", "నగరం", "తెలంగాణ రాష్ట్ర రాజధాని"),
     ("Hyderabad, Sindh", "city", "City in Sindh province, Pakistan.")),
    (("Müller GmbH", "company", "German dairy company in Aretsried."),
     ("Müller GmbH & Co. KG", "company", "German dairy company; Müller GmbH is its general partner.")),
    (("Nokia Corporation", "company", "Finnish telecommunications company."),
     ("Nokia Oy", "company", "Finnish company, a subsidiary of Nokia.")),
    (("Volvo AB", "company", "Swedish truck maker in Gothenburg, Sweden."),
     ("Volvo Corporation", "company", "Swedish car maker in Gothenburg, Sweden.")),  # AB Volvo, Volvo Cars
    (("NSA", "organization", "American signals intelligence agency."),
     ("Northeast Security Alliance", "organization", "Regional defense pact in Nigeria.")),
]


@pytest.mark.parametrize("a,b", SAME_THING, ids=[p[0][0] for p in SAME_THING])
def test_one_thing_merges(a, b):
    assert merged(a, b)


@pytest.mark.parametrize("a,b", NAMESAKES, ids=[p[0][0] for p in NAMESAKES])
def test_namesakes_stay_apart(a, b):
    assert not merged(a, b)


def test_the_words_read():
    assert key_of("Ste-Anne-de-Beaupré") == key_of("Sainte Anne de Beaupré")
    assert key_of("St. Anne") != key_of("Ste. Anne")  # a saint and a woman saint
    assert {english_type(w) for w in ("شہر", "నగరం", "नगर", "শহর", "เมือง")} == {"city"}


@pytest.mark.parametrize("text,country", [
    ("Первый президент Казахстана", "kazakhstan"), ("Город в Швейцарии", "switzerland"), ("Китая", "china"),
    ("в Германии", "germany"), ("السلطة الوطنية الفلسطينية", "palestine"), ("في ألمانيا", "germany"),
    ("التركية", "turkey"), ("Канады", "canada")])
def test_countries_named_in_cyrillic_and_arabic_script(text, country):
    from graphglean.graph.resolution.variants.countries import countries_of

    assert countries_of(text) == {country}


@pytest.mark.parametrize("text", ["федеральный телевизионный канал", "перевозка груза", "в пользу", "кита",
                                  "Латинской Америки", "Данияр", "هند", "تركي"])
def test_words_that_only_begin_like_a_country_name_none(text):
    from graphglean.graph.resolution.variants.countries import countries_of

    assert countries_of(text) == frozenset()


ROMANIZED = [
    (("Nursultan Nazarbayev", "person", "First President of Kazakhstan until 2019."),
     ("Nursultan Nazarbaev", "person", "Первый президент Казахстана, руководивший республикой с 1990 года.")),
    (("Alexei Navalny", "person", "Russian opposition leader who died in prison in 2024."),
     ("Aleksei Navalnyy", "person", "Russian anti-corruption activist and opposition politician.")),
    (("Volodymyr Zelenskyy", "person", "President of Ukraine since 2019."),
     ("Volodymyr Zelenskiy", "person", "Ukrainian president, a former comedian.")),
]

# written alike by a broader reading that also joins names two in their own language (pinyin's Zhou and Zhu):
# a question for the LLM tier, never a merge by the rules
ROMANIZED_ASKED = [
    (("Mahmoud Abbas", "person", "Palestinian politician, President of the Palestinian Authority since 2005."),
     ("Mahmud Abbas", "person", "رئيس السلطة الوطنية الفلسطينية منذ عام 2005.")),
    (("Fyodor Dostoevsky", "person", "Russian novelist, author of Crime and Punishment."),
     ("Fiodor Dostoïevski", "person", "Écrivain russe, auteur de Crime et Châtiment.")),
    (("Zhou Wei", "person", "Chinese politician."), ("Zhu Wei", "person", "Chinese politician.")),
    (("Ryo Ishikawa", "person", "Japanese golfer."), ("Rio Ishikawa", "person", "Japanese golfer.")),
]

ROMANIZED_APART = [
    (("Carl Philips", "person", "American actor known for television dramas."),
     ("Carl Phillips", "person", "American poet and professor of English.")),  # one country, two callings
    (("Sergei Ivanov", "person", "Russian politician, former defence minister."),
     ("Sergey Ivanov", "person", "Russian footballer who played for Zenit.")),
    (("Mahmoud Abbas", "person", "Palestinian president."),
     ("Mahmud Abbas", "person", "Egyptian footballer born in Cairo.")),  # two countries: a question at most
]


@pytest.mark.parametrize("a,b", ROMANIZED, ids=[p[0][0] for p in ROMANIZED])
def test_one_name_romanized_two_ways_merges_where_placed_in_one_country(a, b):
    assert merged(a, b)


@pytest.mark.parametrize("a,b", ROMANIZED_ASKED, ids=[p[1][0] for p in ROMANIZED_ASKED])
def test_a_broader_romanization_is_a_question(a, b):
    v = verdict(a, b)
    assert v.kind == UNSURE and v.rule.startswith("one name romanized two ways"), v
    assert not merged(a, b)


@pytest.mark.parametrize("a,b", ROMANIZED_APART, ids=[p[1][0] for p in ROMANIZED_APART])
def test_romanized_namesakes_stay_apart(a, b):
    assert not merged(a, b)


def test_what_romanization_keeps_apart():
    from graphglean.graph.resolution.lexicon.spellings import romanized

    from graphglean.graph.resolution.lexicon.spellings import transliterated

    assert transliterated("Zelenskyy") == transliterated("Zelenskiy") == transliterated("Zelensky")
    assert transliterated("Tchaikovsky") == transliterated("Chaikovsky")
    assert transliterated("Xu") != transliterated("Ksu")  # pinyin's x
    for a, b in (("Zhou", "Zhu"), ("Lyu", "Liu"), ("Wang", "Vang"), ("Luis", "Louis"), ("Bayer", "Baer")):
        assert transliterated(a) != transliterated(b)
    for a, b in (("Maria", "Mario"), ("Ivanov", "Ivanova"), ("John", "Jon"), ("Mohammed", "Muhammad")):
        assert romanized(a) != romanized(b)
    assert romanized("Путин") == "путин"  # another script as it is


def test_malay_titles_and_a_person_typed_in_malay():
    assert merged(("Datuk Seri Anwar Ibrahim", "orang", "Perdana Menteri Malaysia yang kesepuluh."),
                  ("Anwar Ibrahim", "PERSON", "Malaysian politician who became prime minister in 2022."))
    assert not merged(("Tan Sri Muhyiddin Yassin", "orang", "Perdana Menteri Malaysia kelapan."),
                      ("Muhyiddin", "PERSON", "Sultan of a Malay state in the 16th century."))
