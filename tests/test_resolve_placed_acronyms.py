"""An acronym and a name of its letters (issue 33): descriptions alike only in where they place their nodes say
nothing, for an acronym's letters often name its country ("Qatar National Bank" and "Qatar National Bakery",
both "in Doha"); and one country with no word in common is no evidence either (a reviewer's 165 acronyms of one
country that spell other bodies: a rule merging them so merged 57). Each case with its namesakes."""

from __future__ import annotations

import pytest

from .test_resolve import together
from .test_resolve_classes import resolved


@pytest.mark.parametrize("a,b", [
    (("WHO", "organization", "UN agency for international public health, based in Geneva."),
     ("World Health Organization", "organization", "United Nations agency that coordinates public health.")),
    (("IMF", "organization", "The IMF approved a loan for Argentina."),
     ("International Monetary Fund", "organization", "Lender that approved a loan programme for Argentina.")),
])
def test_an_acronym_described_alike_beside_where_is_its_name(a, b):
    assert together(resolved(a, b).graph, a[0], b[0])


@pytest.mark.parametrize("a,b", [
    # alike only in where ("in the United Kingdom", "based in Hanoi")
    (("NHS", "organization", "Publicly funded healthcare system of the United Kingdom."),
     ("National Hedgehog Society", "organization", "Charity for hedgehogs in the United Kingdom.")),
    (("QNB", "bank", "Largest bank in Qatar, headquartered in Doha."),
     ("Qatar National Bakery", "company", "Bakery company in Doha, Qatar.")),
    (("VNA", "company", "Vietnam's national flag carrier airline, based in Hanoi."),
     ("Vietnam News Agency", "agency", "State news agency of Vietnam, based in Hanoi.")),
    (("S&W", "company", "American steakhouse chain based in Dallas."),  # an ampersand's letters too
     ("Smith & Wesson", "company", "American firearms maker based in Springfield, Massachusetts.")),
    (("AMA", "organization", "US professional association of physicians based in Chicago."),
     ("American Motorcyclist Association", "organization", "US association of motorcycle riders based in Ohio.")),
    # one country, nothing in common
    (("KLM", "company", "Dutch flag carrier based at Amsterdam Schiphol."),
     ("Koninklijke Landmacht", "organisatie", "De landmacht van Nederland.")),
    (("BfA", "Behörde", "Ehemalige Rentenversicherung für Angestellte in Deutschland mit Sitz in Berlin."),
     ("Bundesagentur für Arbeit", "agency", "German federal employment agency headquartered in Nuremberg.")),
    (("CGT", "syndicat", "Confédération syndicale française fondée en 1895."),
     ("Compagnie Générale Transatlantique", "company", "French shipping line that ran the liner Normandie.")),
])
def test_an_acronym_and_a_name_of_its_letters_alike_only_in_where_stay_two(a, b):
    assert not together(resolved(a, b).graph, a[0], b[0])
