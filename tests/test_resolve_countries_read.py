"""Where a description places its node: a country's plural adjective in Romance languages ("legislativas
portuguesas", "los españoles"; not a country's own name in the plural: "las Indias", "las dos Chinas"), Romanian
words. A party's short acronym and the name it spells out, each placed in another country, are two parties ("PSD",
Portugal and Romania); an international body described in two countries is not ("WHO"); institutions of one
name in two regions of one country are two ("University of St. Thomas", Minnesota and Texas). Examples are mine,
a blind set's and a reviewer's."""

from __future__ import annotations

import pytest

from graphglean.graph.resolution.profiles import profile_from
from graphglean.graph.resolution.variants.countries import described_in
from graphglean.graph.resolution.verdicts import SAME

from .test_resolve_classes import rules_verdict


def placed(description: str) -> set[str]:
    return set(described_in(profile_from("x", {"name": "X", "type": "organization", "description": description}, [])))


@pytest.mark.parametrize("description,countries", [
    ("Partido que venceu as legislativas portuguesas.", {"portugal"}),
    ("Los españoles votaron en julio.", {"spain"}),
    ("Grupo de empresas mexicanas.", {"mexico"}),
    ("Partid românesc de stânga.", {"romania"}),
    ("Conquista de las Indias.", set()),
    ("Madrid de los Austrias, barrio histórico.", {"spain"}),
    ("San José, Costa Rica.", {"costa rica"}),  # a given name before a country leaves it a country
    ("Capital of Montenegro.", {"montenegro"}),
    ("Highest peak of the Olympic Mountains in Washington state.", {"us"}),  # not "Washington" alone: a name
    ("Denzel Washington starred in the film.", set()),
])
def test_where_a_description_places_its_node(description, countries):
    assert placed(description) == countries


def test_a_short_acronym_of_a_party_in_another_country_is_another_party():
    portugal = ("PSD", "partido", "Partido de Luís Montenegro que venceu as legislativas portuguesas.")
    romania = ("Partidul Social Democrat", "partid", "Partid românesc condus de Marcel Ciolacu.")
    assert rules_verdict(portugal, romania).kind != SAME
    assert rules_verdict(("PSD", "partid", "Partid românesc de centru-stânga."), romania).kind == SAME
    assert rules_verdict(("WHO", "organization", "UN agency whose team arrived in Nigeria."),
                         ("World Health Organization", "organization", "Agency based in Geneva, Switzerland.")
                         ).kind != "different"


@pytest.mark.parametrize("a,b,same", [
    (("Córdoba, Andalucía", "ciudad", "Ciudad andaluza famosa por su Mezquita."),
     ("Córdoba, Spain", "GEO", "Spanish city on the Guadalquivir river."), True),
    (("Hyderabad, Telangana", "city", "Capital of Telangana."), ("Hyderabad, India", "GEO", "Indian city."), True),
    (("Hyderabad, Sindh", "city", "City on the Indus."), ("Hyderabad, India", "GEO", "Indian city."), False),
    (("Paris, Texas", "city", "Town in Texas."), ("Paris, USA", "city", "Town in Tennessee."), False),
])
def test_a_region_and_its_country_qualify_one_place(a, b, same):
    assert (rules_verdict(a, b).kind == SAME) == same


@pytest.mark.parametrize("a,b,one", [
    (("University of St. Thomas", "university", "Private Catholic university in Saint Paul, Minnesota."),
     ("University of Saint Thomas", "university", "Catholic university in Houston, Texas."), False),
    (("Cathedral of St. Paul", "church", "Catholic cathedral in Saint Paul, Minnesota."),
     ("Cathedral of Saint Paul", "church", "Catholic cathedral in Birmingham, Alabama."), False),
    (("WSU", "university", "Public research university in Pullman, Washington."),
     ("Wichita State University", "university", "Public university in Wichita, Kansas."), False),
    (("University of St. Thomas", "university", "Private Catholic university in Saint Paul, Minnesota."),
     ("University of Saint Thomas", "university", "Minnesota's largest private university."), True),  # one state
])
def test_institutions_of_one_name_in_two_regions_of_one_country_are_two(a, b, one):
    from .test_resolve import together
    from .test_resolve_classes import resolved
    assert together(resolved(a, b).graph, a[0], b[0]) == one
