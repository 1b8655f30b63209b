"""A saint's abbreviation inside a name ("Sault Ste. Marie", "Mont-St-Michel") is the saint written out, as a
leading one is ("St. Louis"): one name, which the vetoes of one name then read. Things built in one place (forts,
bridges, churches) are placed by all their description says, a colonial power's adjective aside ("French colonial
fort ... in Texas"), and a town is no structure of its name (issue 33, session 20)."""

from __future__ import annotations

import pytest

from graphglean.graph.resolution.names import saints_written

from .test_resolve import together
from .test_resolve_classes import resolved


@pytest.mark.parametrize("key,written", [
    ("sault ste marie", "sault sainte marie"),
    ("mont st michel", "mont saint michel"),
    ("queen st west", "queen st west"),  # a street
    ("main st", "main st"),
    ("st", "st"),
])
def test_a_saints_abbreviation_inside_a_name_is_written_out(key, written):
    assert saints_written(key) == written


@pytest.mark.parametrize("a,b", [
    (("Bay St. Louis", "city", "City on the Gulf Coast of Mississippi."),
     ("Bay Saint Louis", "city", "Mississippi coastal city hit by Hurricane Katrina.")),
    (("Cap-St-Ignace", "municipality", "Municipalité du Québec sur le Saint-Laurent."),
     ("Cap-Saint-Ignace", "municipalité", "Village de la région de Chaudière-Appalaches, au Québec.")),
    (("Lake St. Clair", "lake", "Lake between Ontario and Michigan."),
     ("Lake Saint Clair", "lake", "Freshwater lake connecting the St. Clair and Detroit rivers in Michigan.")),
    (("Fort St. James", "town", "District municipality in central British Columbia."),
     ("Fort Saint James", "city", "Town on Stuart Lake in British Columbia, Canada.")),
])
def test_a_place_with_a_saint_abbreviated_inside_its_name_is_one(a, b):
    assert together(resolved(a, b).graph, a[0], b[0])


@pytest.mark.parametrize("a,b", [
    (("Lake St. Clair", "lake", "Lake between Ontario and Michigan in North America."),
     ("Lake Saint Clair", "lake", "Deepest lake in Australia, in the Tasmanian highlands.")),
    (("Pont-Ste-Maxence", "commune", "Commune de l'Oise, en France."),
     ("Pont Sainte-Maxence", "bridge", "Bridge over the Oise rebuilt after the war.")),  # the town's bridge
    (("Fort St. Jean", "fort", "French colonial fort on the Richelieu River in Quebec."),
     ("Fort Saint-Jean", "fort", "Fortress at the entrance of the Old Port of Marseille.")),
    (("Georges St-Pierre", "person", "Canadian mixed martial artist."),  # people: not read so
     ("Georges Saint-Pierre", "person", "French politician.")),
])
def test_namesakes_with_a_saint_abbreviated_inside_their_name_stay_two(a, b):
    assert not together(resolved(a, b).graph, a[0], b[0])


@pytest.mark.parametrize("a,b", [
    (("Fürth", "Stadt", "Kreisfreie Stadt in Bayern, Deutschland."), ("Furth", "town", "Town in Bavaria.")),
    (("Córdoba", "ciudad", "Ciudad andaluza de España, con su Mezquita."),
     ("Cordoba", "city", "City in Veracruz, Mexico.")),
    (("Zürich", "Stadt", "Die größte Stadt der Schweiz."),
     ("Zurich", "dorp", "Fries dorp vlak bij de Afsluitdijk.")),  # described in a language the rules cannot place
    (("Tábor", "město", "Historické město v jižních Čechách, v Česku."), ("Tabor", "city", "Small city in the Midwest.")),
    (("Münster", "Stadt", "Westfälische Universitätsstadt in Deutschland."),
     ("Munster", "cheese", "Soft washed-rind cheese.")),
    (("The Medium", "Medium", "Studentenzeitung der Universität Toronto Mississauga."),
     ("Medium", "website", "Online publishing platform founded by Evan Williams.")),
    (("E.ON", "Unternehmen", "Der Essener Energieversorger meldete mehr Netzanschlüsse."),
     ("Eon", "company", "London-based production company.")),
])
def test_namesakes_written_with_and_without_accents_or_dots_stay_two(a, b):
    # an accented name placed where its letters are written and the bare name placed nowhere in English was tried
    # and withdrawn (a reviewer's 30 namesakes: "Tábor" and "Tabor", Iowa; "Münster" and "Munster", a cheese)
    assert not together(resolved(a, b).graph, a[0], b[0])
