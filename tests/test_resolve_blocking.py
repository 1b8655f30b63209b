"""Blocking compares the pairs the rules can read: a pair no block brings together is never merged, nor asked of
the LLM tier, whatever the rules would say of it. A company's one-word name meets the words of legal names (so
that the rules merge it, keep it apart or leave it to the LLM tier); a place's or a concept's does not, nor does a
surname written with its particles meet the full names ending in it (relatives: "von Braun", "Magnus von Braun").
Examples are mine and a reviewer's."""

from __future__ import annotations

import pytest

from .test_resolve import together
from .test_resolve_classes import compared, resolved

COMPARED = [  # (a, b): pairs the rules leave unsure or merge, which blocking once never compared
    (("Vestas", "company", "Wind turbine maker."), ("Vestas Wind Systems A/S", "virksomhed", "Dansk producent.")),
    (("Lamborghini", "company", "Italian carmaker."), ("Automobili Lamborghini S.p.A.", "company", "Sports cars.")),
    (("Bosch", "company", "Engineering group."), ("Robert Bosch GmbH", "Unternehmen", "Automobilzulieferer.")),
    (("Sheikha Hind bint Hamad Al Thani", "person", "Qatari executive."),
     ("Hind bint Hamad Al Thani", "person", "Head of Qatar Foundation.")),  # "Sheikha", a title as "Sheikh" is
]


@pytest.mark.parametrize("a,b", COMPARED, ids=[f"{a[0]} / {b[0]}" for a, b in COMPARED])
def test_a_company_meets_its_legal_name(a, b):
    assert compared(a, b)


UNCOMPARED = [  # a word of a legal name that names a place, a material, a concept; a particle surname
    (("Steel", "material", "Alloy of iron."), ("Nippon Steel Corporation", "company", "Japanese steelmaker.")),
    (("Toyota", "city", "City in Aichi."), ("Toyota Motor Corporation", "company", "Japanese carmaker.")),
    (("Night", "geo", "Time of darkness."), ("Dark Night", "category", "The dark night Scrooge walked in.")),
    (("Google", "company", "Search company."), ("Google Maps", "product", "Web mapping service by Google.")),
    (("von Braun", "person", "Rocket engineer, said the report."),
     ("Magnus von Braun", "person", "Wernher's younger brother, who surrendered to the US Army in 1945.")),
]


@pytest.mark.parametrize("a,b", UNCOMPARED, ids=[f"{a[0]} / {b[0]}" for a, b in UNCOMPARED])
def test_a_word_of_another_kind_of_name_is_not_compared_with_it(a, b):
    assert not compared(a, b)


NAMESAKES = [  # typed as a calling ("defendant", "artista") a company or a band stays apart from its namesake
    (("Dell", "defendant", "The computer maker, founded by Michael Dell, was sued in Texas."),
     ("Michael Dell", "person", "Founder and chief executive of Dell Technologies.")),
    (("Bon Jovi", "artista", "Banda estadounidense de rock de Nueva Jersey."),
     ("Jon Bon Jovi", "person", "Singer and founder of the band Bon Jovi.")),
    (("Santander", "company", "Spanish bank."), ("Santander Consumer Bank AG", "company", "German consumer lender.")),
]


@pytest.mark.parametrize("a,b", NAMESAKES, ids=[f"{a[0]} / {b[0]}" for a, b in NAMESAKES])
def test_namesakes_stay_apart(a, b):
    assert not together(resolved(a, b).graph, a[0], b[0])
