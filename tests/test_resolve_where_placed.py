"""Look-alike classes of entity resolution (issue 33), session 21: where a description places a place. Countries
a table lacked (both Congos apart, Côte d'Ivoire, Chad, Guinea), countries by their own names ("Eesti"), a
country's adjective after a point of the compass as one word ("nordnorsk", "süddeutsche"), a place and "based"
as one word ("Stockholmsbaserat"), first-level regions of more countries ("Ashanti", "Noord-Holland", "Otago")
and one region's names in two languages as one ("Tuscany", "toscana"), a region before "'s" ("Oregon's largest
city"); where cargo is bound does not place a port ("bound for Uganda and Rwanda", the
whole list), and "European" places a place only outside Europe ("European Capital of Culture" is no Brazil, but
may be Norway). Who settled a place still places it: a reviewer's namesakes ("Scottish missionaries", "Spanish
colonists") were told apart by nothing else. Each class with its namesakes."""

from __future__ import annotations

import pytest

from graphglean.graph.resolution.variants.countries import countries_of

from .test_resolve import together
from .test_resolve_classes import resolved


@pytest.mark.parametrize("text,countries", [
    ("Oil port of the Republic of the Congo.", {"republic of the congo"}),
    ("Mining town of the Democratic Republic of the Congo.", {"congo"}),
    ("Ville de Côte d'Ivoire, sur la lagune.", {"ivory coast"}),
    ("Eesti suuruselt teine linn.", {"estonia"}),
    ("Nordnorsk by ved kysten.", {"norway"}),
    ("Eine süddeutsche Stadt an der Donau.", {"germany"}),
    ("Lake port whose ferries carry cargo bound for Uganda and Tanzania.", set()),
    ("Town bordering Chile, Peru and Bolivia.", set()),
    ("Town on the border with Poland, in Saxony, a German spa.", {"germany"}),
    ("Stockholmsbaserat klädföretag.", {"sweden"}),  # a place and "based" as one word
    ("Oslobasert rederi.", {"norway"}),
    ("Parisbaserat modehus.", {"france"}),  # the place's own "s" kept
    ("La universidad más antigua del país.", set()),  # Spanish "antigua" is no Antigua and Barbuda
    ("Palau de la Música, Barcelona.", {"spain"}),  # nor Catalan "palau" Palau
    ("Capital of the Ashanti Region.", {"ghana"}),  # first-level regions of more countries
    ("Dorp in Noord-Holland.", {"netherlands"}),
    ("Fife town with an old university.", {"scotland"}),
    ("Stolica województwa małopolskiego.", {"poland"}),  # a Polish division's word
    ("Port from which the railway runs to Zambia.", set()),
    ("Town on the lake shared with Albania.", set()),
    ("Port on the Elbe.", set()),  # of two  # Scotland's regions its, not the U.K.'s alone
    ("Große Kreisstadt im Ostalbkreis.", {"germany"}),  # a German district's word
    ("Kreis 4 von Zürich.", {"switzerland"}),
    ("Capitale économique congolaise.", set()),  # of either Congo
    ("Cidade da ilha do Fogo, em Cabo Verde.", {"cape verde"}),
    ("Papua New Guinean port.", {"papua new guinea"}),  # no Guinea
])
def test_a_description_places_what_it_names_where_it_is(text, countries):
    assert countries_of(text) == countries


@pytest.mark.parametrize("a,b", [
    (("Bodø, Norway", "GEO", "Arctic port city and 2024 European Capital of Culture."),
     ("Bodø", "by", "Nordnorsk by hvor FK Bodø/Glimt spiller sine hjemmekamper.")),
    (("Pärnu", "linn", "Eesti suvepealinn Pärnu lahe ääres."),
     ("Pärnu, Estonia", "LOCATION", "Estonian seaside resort town.")),
    (("Beira, Mozambique", "GEO", "Port city on the Indian Ocean."),
     ("Beira", "CITY", "Mozambican port whose corridor carries cargo bound for Zimbabwe and Malawi.")),
    (("Bodø", "CITY", "Arctic port, European Capital of Culture in 2024."),
     ("Bodo", "city", "Norwegian city north of the Arctic Circle.")),
    (("Obuasi", "CITY", "Gold-mining town in the Ashanti Region."),
     ("Obuasi, Ghana", "GEO", "West African mining town where AngloGold Ashanti operates.")),
    (("St Monans", "village", "Fishing village in Fife with a windmill above the salt pans."),
     ("St. Monans", "GEO", "Scottish coastal village in the East Neuk.")),
    (("Siena, Tuscany", "CITY", "Medieval city famous for the Palio horse race."),  # a region's own name
     ("Siena", "città", "Città toscana del Palio e del Duomo.")),
])
def test_a_place_placed_by_its_description_is_one_with_its_qualified_name(a, b):
    assert together(resolved(a, b).graph, a[0], b[0])


@pytest.mark.parametrize("a,b", [
    (("Saint-Louis", "ville", "Ancienne capitale du Sénégal, à l'embouchure du fleuve."),
     ("Saint Louis", "commune", "Commune de Marie-Galante, en Guadeloupe.")),
    (("Pointe-Noire", "CITY", "Oil port of the Republic of the Congo."),
     ("Pointe Noire", "commune", "Commune de la Basse-Terre, en Guadeloupe.")),
    (("Bergen, Netherlands", "GEO", "Dutch municipality in North Holland near the dunes."),
     ("Bergen", "by", "Vestnorsk by mellom sju fjell.")),
    (("Guimarães", "CITY", "Medieval city, European Capital of Culture in 2012."),
     ("Guimaraes", "município", "Município do Maranhão, no litoral norte do Brasil.")),
    (("St Andrews", "town", "Fife town, home to Scotland's oldest university."),
     ("St. Andrews", "town", "Resort town in New Brunswick, Canada, on Passamaquoddy Bay.")),
    (("Salem, Massachusetts", "CITY", "North Shore city known for its 1692 witch trials."),  # a region's
     ("Salem", "CITY", "Oregon's capital, on the Willamette River.")),  # possessive names it
    (("Santarém", "cidade", "Cidade paraense fundada no período do Brasil colonial."),  # Portuguese "Brasil
     ("Santarem", "city", "Portuguese city on the Tagus, capital of its district.")),  # colonial" is Brazil
    (("St. Andrew's Church", "church", "Presbyterian kirk built in 1821 by Scottish missionaries."),
     ("St Andrew's Church", "church", "Presbyterian church on King Street in downtown Toronto, Canada.")),
])
def test_a_place_and_a_namesake_described_in_another_country_stay_two(a, b):
    assert not together(resolved(a, b).graph, a[0], b[0])
