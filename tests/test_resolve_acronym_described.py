"""Look-alike classes of entity resolution (issue 33), session 21: an acronym whose own description uses two or
more of its expansion's own words ("ASEAN", a "Southeast Asian bloc") is the expansion, though a body of many
countries is placed in none; words any body's name holds ("national", "union", "bank") do not count, nor does
an acronym read loosely."""

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
