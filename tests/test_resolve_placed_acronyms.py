"""An acronym and the name it spells, described in words they do not share (issue 33): one where both
descriptions place them in one country and do not say two things; a question where English says two things, the
acronym's own description names another body, or the two are placed apart. Each case with its namesakes."""

from __future__ import annotations

import pytest

from .test_resolve import together
from .test_resolve_classes import resolved


@pytest.mark.parametrize("a,b", [
    # three letters, each a word's initial, the descriptions in two languages
    (("SAS", "company", "Scandinavian airline based at Copenhagen Airport."),
     ("Scandinavian Airlines System", "selskab", "Flyselskab med hovedsæde i Danmark, grundlagt i 1946.")),
    (("PKP", "spółka", "Polski państwowy przewoźnik kolejowy z siedzibą w Warszawie."),
     ("Polskie Koleje Państwowe", "company", "Polish state railway group.")),
    (("CTT", "empresa", "Empresa portuguesa de correios privatizada em 2013."),
     ("Correios Telégrafos Telefones", "company", "Portuguese postal operator.")),
    # three letters, some of them inside one word's parts, its own description naming no other body
    (("ÖGB", "ORGANIZATION", "Austrian trade union federation."),
     ("Österreichischer Gewerkschaftsbund", "Verband", "Dachverband der Gewerkschaften in Österreich.")),
    (("SNB", "Organisation", "Zentralbank der Schweiz mit Sitz in Bern und Zürich."),
     ("Schweizerische Nationalbank", "ORGANIZATION", "Swiss central bank that sets the franc's interest rate.")),
])
def test_an_acronym_placed_in_one_country_with_its_name_is_one(a, b):
    assert together(resolved(a, b).graph, a[0], b[0])


@pytest.mark.parametrize("a,b", [
    # both in English, nothing in common beside where: two bodies of one country
    (("AA", "organization", "Fellowship for people recovering from alcoholism, founded in Akron, Ohio."),
     ("American Airlines", "company", "Major US airline headquartered in Fort Worth, Texas.")),
    (("CIA", "organization", "US foreign intelligence agency headquartered in Langley, Virginia."),
     ("Culinary Institute of America", "organization", "Private culinary college in Hyde Park, New York.")),
    # placed in two countries
    (("SVP", "Partei", "Schweizerische Volkspartei, stärkste Partei im Nationalrat."),
     ("Südtiroler Volkspartei", "party", "Regional party of South Tyrol in Italy.")),
    (("CNR", "ente", "Ente pubblico di ricerca italiano con sede a Roma."),
     ("Canadian National Railway", "company", "Montreal-based freight railway in Canada.")),
    # the acronym's description names another body, in English
    (("BfV", "ORGANIZATION", "Germany's Federal Office for the Protection of the Constitution."),
     ("Bundesamt für Verfassungsschutz und Verwaltung", "Behörde", "Deutsche Bundesbehörde in Köln.")),
])
def test_an_acronym_and_a_name_of_its_letters_said_or_placed_apart_stay_two(a, b):
    assert not together(resolved(a, b).graph, a[0], b[0])
