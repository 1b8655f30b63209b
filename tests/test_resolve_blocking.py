"""Blocking compares the pairs the rules can read: a pair no block brings together is never merged, nor asked of
the LLM tier, whatever the rules would say of it. A one-word name meets the longer names holding it (a surname
written with its particles, a middle word of a person's long name, a word of a company's legal name), so that the
rules merge it, keep it apart or leave it to the LLM tier."""

from __future__ import annotations

import pytest

from graphglean.graph.resolution.verdicts import SAME

from .test_resolve_classes import compared, resolved, rules_verdict
from .test_resolve import together

COMPARED = [  # (a, b): pairs the rules leave unsure or merge, which blocking once never compared
    (("von der Leyen", "person", "The Commission president said on Tuesday."),
     ("Ursula von der Leyen", "person", "President of the European Commission.")),
    (("Lula", "person", "Brazilian president."), ("Luiz Inácio Lula da Silva", "person", "Presidente do Brasil.")),
    (("Sheinbaum", "person", "Mexico's president."), ("Claudia Sheinbaum Pardo", "person", "Presidenta de México.")),
    (("Sheikha Hind bint Hamad Al Thani", "person", "Qatari executive."),
     ("Hind bint Hamad Al Thani", "person", "Head of Qatar Foundation.")),
    (("Vestas", "company", "Wind turbine maker."), ("Vestas Wind Systems A/S", "virksomhed", "Dansk producent.")),
    (("Lamborghini", "company", "Italian carmaker."), ("Automobili Lamborghini S.p.A.", "company", "Sports cars.")),
    (("Bosch", "company", "Engineering group."), ("Robert Bosch GmbH", "Unternehmen", "Automobilzulieferer.")),
]


@pytest.mark.parametrize("a,b", COMPARED, ids=[f"{a[0]} / {b[0]}" for a, b in COMPARED])
def test_a_name_meets_the_longer_names_that_hold_it(a, b):
    assert compared(a, b)


def test_a_surname_with_its_particles_is_merged_with_the_full_name_described_alike():
    a = ("von der Leyen", "person", "President of the European Commission since 2019, said on Tuesday.")
    b = ("Ursula von der Leyen", "person", "President of the European Commission since 2019.")
    assert rules_verdict(a, b).kind == SAME
    assert together(resolved(a, b).graph, "von der Leyen", "Ursula von der Leyen")


NAMESAKES = [  # now compared, and kept apart: the rules leave them to the LLM tier or tell them apart
    (("Luther", "person", "German reformer who posted the Ninety-five Theses in 1517."),
     ("Martin Luther King Jr.", "person", "American civil rights leader, born in 1929.")),
    (("Inácio", "person", "A farmer in the story."), ("Luiz Inácio Lula da Silva", "person", "President of Brazil.")),
]


@pytest.mark.parametrize("a,b", NAMESAKES, ids=[f"{a[0]} / {b[0]}" for a, b in NAMESAKES])
def test_namesakes_a_longer_name_holds_stay_apart(a, b):
    assert compared(a, b)
    assert not together(resolved(a, b).graph, a[0], b[0])


UNCOMPARED = [  # a word of a name without a legal form: a concept, a part, a product (questions an LLM tier
    # would be asked by the hundred in a corpus of papers)
    (("Night", "geo", "Time of darkness."), ("Dark Night", "category", "The dark night Scrooge walked in.")),
    (("Microsoft", "organization", "Software company."),
     ("Microsoft Research Asia", "organization", "Microsoft's research lab in Beijing.")),
    (("Google", "company", "Search company."), ("Google Maps", "product", "Web mapping service by Google.")),
]


@pytest.mark.parametrize("a,b", UNCOMPARED, ids=[f"{a[0]} / {b[0]}" for a, b in UNCOMPARED])
def test_a_word_of_a_name_without_a_legal_form_is_not_compared_with_it(a, b):
    assert not compared(a, b)
