"""Where a description places its node: a country's plural adjective in Romance languages ("legislativas
portuguesas", "los españoles"), Romanian words; not a surname after a given name ("Luís Montenegro", Portugal's
prime minister; "Michael Jordan"). A short acronym and a name it spells out, each placed in another country, are
two parties ("PSD", Portugal and Romania). Examples are mine and a blind set's."""

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
    ("Partido de Luís Montenegro, primeiro-ministro.", set()),
    ("Team of Michael Jordan.", set()),
    ("Capital of Montenegro.", {"montenegro"}),
])
def test_where_a_description_places_its_node(description, countries):
    assert placed(description) == countries


def test_a_short_acronym_of_a_party_in_another_country_is_another_party():
    portugal = ("PSD", "partido", "Partido de Luís Montenegro que venceu as legislativas portuguesas.")
    romania = ("Partidul Social Democrat", "partid", "Partid românesc condus de Marcel Ciolacu.")
    assert rules_verdict(portugal, romania).kind != SAME
    assert rules_verdict(("PSD", "partid", "Partid românesc de centru-stânga."), romania).kind == SAME
