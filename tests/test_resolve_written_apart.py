"""Look-alike classes of entity resolution (issue 33), from held-back set 28's first run: one name written
another way (dots, "&" and "and", a club's letters and founding year, titles stacked, NER labels as types),
described in two languages. Each class with its namesakes."""

from __future__ import annotations

import pytest

from .test_resolve_classes import rules_verdict


@pytest.mark.parametrize("a,b", [
    (("I.B.M.", "ORGANIZATION", "Armonk, New York-based computer company that sold its PC business to Lenovo."),
     ("IBM", "entreprise", "Groupe informatique américain, spécialisé dans le cloud hybride.")),
    (("B.P.", "company", "London-based oil and gas major with fields in the North Sea."),
     ("BP", "Unternehmen", "Britischer Ölkonzern mit Sitz in London.")),
])
def test_one_short_abbreviation_with_and_without_dots_described_in_two_languages_in_one_country(a, b):
    assert rules_verdict(a, b).kind == "same"


@pytest.mark.parametrize("a,b", [
    # one language: descriptions that share nothing say two things
    (("T.I.", "organization", "Atlanta-based record label of the rapper Clifford Harris."),
     ("TI", "organization", "Dallas-based semiconductor maker.")),
    # two languages, two kinds
    (("A.P.", "agency", "US news agency headquartered in New York."),
     ("AP", "partido", "Partido político estadounidense.")),
    # a league and an association of lawyers: one of them is said to be about a sport
    (("N.B.A.", "ORGANIZATION", "American association of Black lawyers and judges founded in 1925."),
     ("NBA", "organisation", "Ligue professionnelle de basket-ball américaine.")),
    # two languages, two countries
    (("A.N.A.", "company", "ANA Aeroportos de Portugal, gestora dos aeroportos portugueses."),
     ("ANA", "company", "全日本空輸の略称で知られる日本の大手航空会社。")),
])
def test_short_abbreviations_of_namesakes_stay_apart(a, b):
    assert rules_verdict(a, b).kind != "same"


@pytest.mark.parametrize("a,b", [
    (("Prof. Dr. Christian Drosten", "PER", "Direktor des Instituts für Virologie der Charité in Berlin."),
     ("Christian Drosten", "PERSON", "German virologist at Berlin's Charité.")),
    (("U.S.A.", "COUNTRY", "North American federal republic whose tariffs hit European car exports."),
     ("USA", "Land", "Vereinigte Staaten von Amerika, größte Volkswirtschaft der Welt.")),
])
def test_types_written_as_ner_labels_or_in_german_are_read(a, b):
    assert rules_verdict(a, b).kind == "same"


def test_a_person_typed_per_is_read_as_one_typed_person():
    company = ("Christian Dior SE", "company", "Paris-based luxury goods group.")
    per, person = (rules_verdict(("Christian Dior", t, "French fashion designer who died in 1957."), company)
                   for t in ("PER", "PERSON"))
    assert per.kind != "same" and (per.kind, per.rule) == (person.kind, person.rule)


@pytest.mark.parametrize("a,b", [
    (("AT&T Inc.", "ORGANIZATION", "Dallas-based US telecommunications company."),
     ("AT and T", "COMPANY", "American wireless and broadband carrier headquartered in Dallas, Texas.")),
    (("B and Q", "company", "British retailer of tools and garden goods."),
     ("B & Q", "company", "British retailer of tools and garden goods.")),
    # a name led by the acronym of the words that follow it
    (("H & M Hennes & Mauritz AB", "företag", "Svensk klädhandelskedja med huvudkontor i Stockholm."),
     ("H&M", "ORGANIZATION", "Swedish fast-fashion retailer based in Stockholm.")),
    (("BMW Bayerische Motoren Werke AG", "company", "Münchner Autohersteller."),
     ("Bayerische Motoren Werke", "company", "German carmaker based in Munich.")),
])
def test_letters_joined_by_and_and_a_name_led_by_its_acronym_are_one(a, b):
    assert rules_verdict(a, b).kind == "same"


@pytest.mark.parametrize("a,b", [
    (("Tom and Jerry", "work", "American animated series about a cat and a mouse."),  # words, not letters
     ("T and J", "company", "Logistics firm in Leeds.")),
    (("ABC Alpha Beta", "company", "Greek supermarket chain."),  # its words' initials are not ABC
     ("ABC", "company", "American television network owned by Disney.")),
    (("ANA All Nippon Airways", "company", "Japanese airline based in Tokyo that flies to Europe and America."),
     ("ANA", "company", "Portuguese operator of ten airports, owned by the French group Vinci since 2013.")),
])
def test_namesakes_of_joined_letters_and_of_acronyms_stay_apart(a, b):
    assert rules_verdict(a, b).kind != "same"
