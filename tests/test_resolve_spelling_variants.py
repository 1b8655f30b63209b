"""Look-alike classes of entity resolution (issue 33), session 15, from the misses of blind sets 26 and 27 (the
examples here are mine): a Spanish name without the mother's surname; names that sound alike, and a Chinese
given name in two romanizations, as questions for the LLM tier; German country adjectives as a subject's;
"antigua" is an old thing, not Antigua; a capital's people placing its country ("madrileño")."""

from __future__ import annotations

import pytest

from graphglean.graph.resolution.lexicon.spellings import sounded
from graphglean.graph.resolution.variants.countries import countries_of
from graphglean.graph.resolution.verdicts import UNSURE

from .test_resolve import together
from .test_resolve_classes import compared, resolved, rules_verdict


@pytest.mark.parametrize("a,b", [
    (("Gustavo Petro Urrego", "persona", "Presidente de Colombia desde 2022."),
     ("Gustavo Petro", "person", "Colombian president and former guerrilla.")),
    (("Claudia Sheinbaum Pardo", "persona", "Presidenta de México desde 2024."),
     ("Claudia Sheinbaum", "PERSON", "Mexican president, a climate scientist.")),
])
def test_a_spanish_name_without_the_mother_s_surname_is_a_question(a, b):
    """One person, or one of the many who bear the first surname ("Carlos Slim Domit", the son): the LLM tier's."""
    assert compared(a, b) and rules_verdict(a, b).kind == UNSURE


@pytest.mark.parametrize("a,b", [
    (("Luiz Inácio Lula da Silva", "pessoa", "Presidente do Brasil."), ("Luiz Inácio", "person", "Brazilian "
                                                                                           "president.")),
    (("José Luis Rodríguez", "persona", "Cantante venezolano."),
     ("José Luis", "persona", "Cantante venezolano de baladas.")),  # given names alone
    (("Carlos Slim Helú", "persona", "Empresario mexicano."), ("Carlos Slim", "person", "Brazilian footballer.")),
])
def test_no_mother_s_surname_left_out_where_the_name_or_the_place_says_otherwise(a, b):
    assert not together(resolved(a, b).graph, a[0], b[0])


@pytest.mark.parametrize("x,y", [("Gaddafi", "Qadhafi"), ("Mouammar", "Muammar"), ("Najib", "Naguib"),
                                 ("Mahfouz", "Mahfuz")])
def test_names_that_sound_alike(x, y):
    assert sounded(x.lower()) == sounded(y.lower())


@pytest.mark.parametrize("x,y", [("Maria", "Mariam"), ("Ivanov", "Ivanova"), ("Jong-il", "Jong-un")])
def test_names_that_do_not(x, y):
    assert sounded(x.lower()) != sounded(y.lower())


@pytest.mark.parametrize("a,b", [
    (("Abdelaziz Bouteflika", "PERSON", "President of Algeria from 1999 to 2019."),
     ("Abdulaziz Butaflika", "person", "Algerian head of state.")),
    (("Chou Enlai", "person", "First premier of the People's Republic of China."),
     ("Zhou Enlai", "person", "Chinese premier under Mao.")),
])
def test_names_that_sound_alike_are_a_question_broad_blocking_brings(a, b):
    assert compared(a, b, broad=True) and rules_verdict(a, b).kind == UNSURE


def test_a_chinese_given_name_in_two_romanizations_is_a_question():
    a = ("Sun Yat-sen", "person", "Chinese revolutionary and first president of the Republic of China.")
    b = ("Sun Zhongshan", "person", "Founding father of the Republic of China, born in Guangdong.")
    assert rules_verdict(a, b).kind == UNSURE


@pytest.mark.parametrize("text,country", [
    ("Ungarischer Schriftsteller und Dramatiker.", "hungary"), ("Österreichische Sängerin.", "austria"),
    ("Diario madrileño fundado en 1976.", "spain"), ("Empresa carioca de mídia.", "brazil"),
])
def test_country_adjectives_and_a_capital_s_people_place_the_subject(text, country):
    assert country in countries_of(text)


@pytest.mark.parametrize("text", ["Stadt an der polnischen Grenze.", "La ciudad más antigua del país.",
                                  "Una antigua colonia romana."])
def test_what_places_nothing(text):
    assert not countries_of(text) - {"italy"}


def test_a_description_opening_with_a_longer_name_of_its_own_says_a_namesake():
    a = ("Red Bull", "company", "Austrian energy drink maker based in Fuschl am See.")
    b = ("RedBull", "company", "RedBull Racing, the Formula One team, won the constructors' title.")
    assert not together(resolved(a, b).graph, a[0], b[0])
    c = ("RedBull", "company", "RedBull GmbH, the Austrian drinks maker, raised prices.")  # a legal form: no name more
    assert together(resolved(a, c).graph, a[0], c[0])


@pytest.mark.parametrize("a,b", [
    (("Fort St. George", "fort", "British fort founded in 1644 at Madras, India."),
     ("Fort Saint George", "fort", "Fort of the Popham Colony, built in 1607 in Maine.")),
    (("Fort St. John", "city", "City in northeastern British Columbia."),
     ("Fort Saint John", "trading post", "Fur-trading post on the Richelieu River in Quebec.")),
])
def test_a_saint_abbreviated_inside_a_name_is_no_key_of_its_own(a, b):
    # written out in the key, these namesakes were one name (a reviewer's, session 18): a question at most
    assert not together(resolved(a, b).graph, a[0], b[0])
