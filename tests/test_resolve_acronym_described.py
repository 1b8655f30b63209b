"""Look-alike classes of entity resolution (issue 33), session 21: an acronym whose own description uses two or
more of its expansion's own words ("ASEAN", a "Southeast Asian bloc") is the expansion, though a body of many
countries is placed in none; words any body's name holds ("national", "union", "bank") do not count, nor does
an acronym read loosely. An abbreviation with its ampersand spaced or not ("AT&T", "AT & T") is one name unless each
is defined as another thing."""

from __future__ import annotations

import pytest

from .test_resolve import together
from .test_resolve_classes import resolved


@pytest.mark.parametrize("a,b", [
    (("ASEAN", "ORGANIZATION", "Southeast Asian bloc that admitted Timor-Leste as its eleventh member."),
     ("Association of Southeast Asian Nations", "ORGANIZATION", "Regional grouping founded in Bangkok in 1967.")),
    (("OPEC", "ORGANIZATION", "Cartel of petroleum exporting countries that agreed to cut output."),
     ("Organization of the Petroleum Exporting Countries", "ORGANIZATION", "Intergovernmental body based in Vienna.")),
])
def test_an_acronym_described_by_its_expansions_words_is_one_with_it(a, b):
    assert together(resolved(a, b).graph, a[0], b[0])


@pytest.mark.parametrize("a,b", [
    (("ASA", "ORGANIZATION", "Professional society of American statisticians, publisher of JASA."),
     ("Acoustical Society of America", "ORGANIZATION", "Scientific society for acoustics founded in 1929.")),
])
def test_an_acronym_and_a_namesake_described_with_other_words_stay_two(a, b):
    assert not together(resolved(a, b).graph, a[0], b[0])


@pytest.mark.parametrize("a,b,one", [
    # an abbreviation with its ampersand spaced or not is one name, unless each is defined as another thing
    (("M&S", "ORGANIZATION", "British retailer that raised its profit forecast."),
     ("M & S", "COMPANY", "Clothing and food chain whose chief executive is Stuart Machin."), True),
    (("A&E", "ORGANIZATION", "A&E is an American cable television network owned by A+E Networks."),
     ("A & E", "ORGANIZATION", "A & E is the accident and emergency department of a British hospital."), False),
])
def test_an_abbreviation_spaced_otherwise_is_one_name(a, b, one):
    assert together(resolved(a, b).graph, a[0], b[0]) == one
