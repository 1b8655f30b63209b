"""Look-alike classes of entity resolution (issue 33), session 21: a person's style spelled out before the name
("His Excellency", "Her Excellency", "Su Excelencia") and Indonesian titles ("Ir.", "Bapak", "Ibu"): the name
without them is the person's, and namesakes told apart by number, realm or generation stay two; a given name's
English short form ("Bernie", "Bernard") is one person where both are described alike. Withdrawn after
reviewers' namesakes: "Dom" (a monk's, a Kongo king's), "Pak" (a Korean surname), "Alhaji" and "Hajji" (a father
and son, a folklore figure); a short form placed in one country ("Jim Webb", "James Webb") and an initial before
a name placed in one country ("L. Frank Baum" and his son)."""

from __future__ import annotations

import pytest

from graphglean.graph.resolution.names import read_name

from .test_resolve import together
from .test_resolve_classes import resolved


@pytest.mark.parametrize("name,person,honorifics", [
    ("His Excellency Paul Kagame", ("paul", "kagame"), ("excellency",)),  # as "H.E. Paul Kagame"
    ("Su Excelencia el Presidente Gustavo Petro", ("gustavo", "petro"), ("presidente",)),
    ("Bapak Joko Widodo", ("joko", "widodo"), ("bapak",)),
    ("Cumhurbaşkanı Recep Tayyip Erdoğan", ("recep", "tayyip", "erdogan"), ("cumhurbaskani",)),  # Turkish
    ("Pak Se-ri", ("pak", "se", "ri"), ()),  # a Korean surname, no title (a reviewer's)
    ("Dom Pedro II", ("dom", "pedro"), ()),  # a monk's, a prince's, a Kongo king's: withdrawn (a reviewer's)
    ("Her Majesty's Theatre", (), ()),  # a style in a possessive names no person
])
def test_a_style_and_a_title_are_read_apart_from_the_name(name, person, honorifics):
    form = read_name(name)
    assert (form.person, form.honorifics) == (person, honorifics)


@pytest.mark.parametrize("a,b", [
    (("His Excellency Paul Kagame", "PERSON", "Guest of honour who opened the summit in Kigali."),
     ("Paul Kagame", "PERSON", "President of Rwanda since 2000.")),
    (("Ir. Basuki Hadimuljono", "tokoh", "Menteri Pekerjaan Umum dan Perumahan Rakyat Indonesia."),
     ("Basuki Hadimuljono", "PERSON", "Indonesian public works minister who oversaw the new capital's works.")),
])
def test_a_person_with_and_without_a_style_or_title_is_one(a, b):
    assert together(resolved(a, b).graph, a[0], b[0])


@pytest.mark.parametrize("a,b", [
    (("Dom Pedro II", "pessoa", "Último imperador do Brasil, deposto em 1889."),
     ("Pedro II of Portugal", "PERSON", "King of Portugal from 1683 to 1706.")),
    (("Dom Pedro I", "pessoa", "Primeiro imperador do Brasil."),
     ("Pedro II of Brazil", "PERSON", "Second and last emperor of Brazil.")),
    (("His Excellency John Kufuor", "PERSON", "President of Ghana from 2001 to 2009."),
     ("John Kufuor Jr.", "PERSON", "Ghanaian businessman, the former president's son.")),
])
def test_namesakes_with_a_style_or_title_stay_two(a, b):
    assert not together(resolved(a, b).graph, a[0], b[0])


@pytest.mark.parametrize("a,b,one", [
    # a given name and its English short form: one person only where described alike (one country is not enough)
    (("Sen. Bernie Sanders", "PERSON", "Vermont senator who ran for the Democratic presidential nomination."),
     ("Bernard Sanders", "PERSON", "Independent Vermont senator, twice a Democratic presidential candidate."), True),
    (("Jim Webb", "PERSON", "Former Democratic senator from Virginia and Navy secretary."),
     ("James Webb", "PERSON", "NASA administrator during the Apollo programme."), False),  # a reviewer's
    (("Jim Smith", "PERSON", "Scottish football manager who took Oxford United up twice."),
     ("James Smith", "PERSON", "Pennsylvania lawyer who signed the Declaration of Independence in 1776."), False),
    (("Bob Marley", "PERSON", "Jamaican reggae singer."), ("Richard Marley", "PERSON", "Jamaican reggae singer."),
     False),  # another name, not its short form
])
def test_a_given_names_short_form_is_one_person_only_described_alike(a, b, one):
    assert together(resolved(a, b).graph, a[0], b[0]) == one
