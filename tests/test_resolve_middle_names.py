"""Whole middle names on one side only (issue 33): one person where both descriptions place the name in one
country and its person in one field, and say something alike beside where; a question otherwise. Each case with
its namesakes."""

from __future__ import annotations

import pytest

from graphglean.graph.resolution.variants.definitions import plainly_english

from .test_resolve import together
from .test_resolve_classes import resolved


@pytest.mark.parametrize("a,b", [
    (("Nelson Rolihlahla Mandela", "person", "First president of South Africa elected in a democratic vote."),
     ("Nelson Mandela", "politician", "South African president and anti-apartheid leader jailed for 27 years.")),
    (("Angela Dorothea Merkel", "Person", "Deutsche Politikerin, von 2005 bis 2021 Bundeskanzlerin."),
     ("Angela Merkel", "politician", "German chancellor who led the CDU for eighteen years.")),
    (("Jorge Mario Bergoglio", "person", "Argentine Jesuit and cardinal, archbishop of Buenos Aires."),
     ("Jorge Bergoglio", "persona", "Cardenal argentino elegido papa en 2013.")),
    (("Emmanuel Jean-Michel Frédéric Macron", "personne", "Président de la République française depuis 2017."),
     ("Emmanuel Macron", "person", "French president and former economy minister.")),
    # five words and more: blocking compares the long name with its first and last words
    (("Adebayo Oluwaseun Olumide Adewale Ogunleye", "person", "Nigerian novelist and essayist from Ibadan."),
     ("Adebayo Ogunleye", "writer", "Nigerian novelist whose books are set in Ibadan.")),
])
def test_whole_middle_names_on_one_side_are_one_person_placed_and_described_alike(a, b):
    res = resolved(a, b)
    assert together(res.graph, a[0], b[0])
    assert any(m["rule"].startswith("whole middle names on one side only") for m in res.merges)


@pytest.mark.parametrize("a,b", [
    # one country, one field, nothing else in common: a grandson of the name
    (("Charles Darwin", "person", "English naturalist who proposed the theory of evolution by natural selection."),
     ("Charles Galton Darwin", "person", "English physicist who directed the National Physical Laboratory.")),
    # a father named in the son's description ("padre del rey")
    (("Don Felipe de Borbón", "persona", "Infante de España, padre del rey Felipe Carlos."),
     ("Don Felipe Carlos de Borbón", "persona", "Rey de España, jefe de la Casa Real española.")),
    # one description places no country
    (("Ana Lucía Torres", "person", "Chilean poet who won the national prize for literature."),
     ("Ana Torres", "person", "Poet whose verse is taught in schools.")),
    # two countries
    (("Carlos Eduardo Mendes", "person", "Brazilian footballer who played as a striker for Santos."),
     ("Carlos Mendes", "person", "Portuguese footballer who played as a striker for Benfica.")),
    # two fields
    (("Peter James Walsh", "person", "Irish politician and member of the Dáil for Cork."),
     ("Peter Walsh", "person", "Irish painter whose landscapes of Cork hang in the National Gallery.")),
    # a middle initial, and the surname repeated: a son's name
    (("Robert Walker", "person", "American novelist from Ohio."),
     ("Robert T. Walker", "person", "American novelist from Ohio, author of three books.")),
    (("Sir Ketumile Masire", "person", "Second president of Botswana."),
     ("Ketumile Masire Ian Masire", "person", "Botswana politician and president of the party.")),
])
def test_a_middle_name_on_one_side_stays_a_question_where_the_descriptions_do_not_agree(a, b):
    assert not together(resolved(a, b).graph, a[0], b[0])


@pytest.mark.parametrize("text,english", [
    ("French president and former economy minister.", True),
    ("Ex-presidente do Brasil entre 2019 e 2022.", False),  # no function word of English's own
    ("Presidente da República Portuguesa e antigo comentador televisivo.", False),
    ("Deutsche Politikerin und Bundeskanzlerin.", False),
])
def test_plainly_english_wants_a_function_word_only_english_writes(text, english):
    assert plainly_english(text) is english
