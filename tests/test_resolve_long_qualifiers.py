"""Look-alike classes of entity resolution (issue 33), session 20: a comma qualifier of more than three words or
joined by "and" where it is a known region or country ("Rio Grande do Sul", "Trinidad and Tobago"), a country
that descriptions name but names rarely do ("Costa Rica"), a place's country after "de" ("Santiago de Chile"),
more clubs' abbreviations spelled out (Norwegian "Ballklubb", Polish "KP"), and a band against a craft of one
name. Each class with its namesakes."""

from __future__ import annotations

import pytest

from graphglean.graph.resolution.names import read_name

from .test_resolve import together
from .test_resolve_classes import resolved


@pytest.mark.parametrize("name,core,qualifier", [
    ("Pelotas, Rio Grande do Sul", "pelotas", "rio grande do sul"),
    ("Port of Spain, Trinidad and Tobago", "port of spain", "trinidad and tobago"),
    ("Portland, OR", "portland", "or"),
    ("Smith, Jones and Partners", "smith jones and partners", ""),  # a firm of partners: no place after the comma
    ("Bath, Somerset and Avon", "bath somerset and avon", ""),
])
def test_a_long_qualifier_is_read_only_where_it_is_a_known_place(name, core, qualifier):
    form = read_name(name)
    assert (form.core, form.qualifier) == (core, qualifier)


@pytest.mark.parametrize("a,b", [
    (("Pelotas (RS)", "city", "Cidade do Rio Grande do Sul às margens da Lagoa dos Patos."),
     ("Pelotas, Rio Grande do Sul", "city", "City in southern Brazil known for its sweets.")),
    (("Limón, Costa Rica", "city", "Port city on the Caribbean coast."),
     ("Limón", "ciudad", "Ciudad portuaria costarricense, cabecera de la provincia del mismo nombre.")),
    (("Port of Spain, Trinidad and Tobago", "city", "Capital city on the Gulf of Paria."),
     ("Port of Spain", "city", "The capital of Trinidad and Tobago hosted the carnival.")),
    (("Santiago de Cuba", "city", "Ciudad del oriente cubano, cuna del son."),
     ("Santiago, Cuba", "city", "Cuba's second-largest city.")),
    (("Mérida de Yucatán", "ciudad", "Ciudad colonial, capital del estado de Yucatán."),
     ("Mérida, Yucatán", "ciudad", "Capital colonial del estado, conocida como la Ciudad Blanca.")),
])
def test_a_place_and_its_country_or_region_written_otherwise_are_one(a, b):
    assert together(resolved(a, b).graph, a[0], b[0])


@pytest.mark.parametrize("a,b", [
    (("Limón, Costa Rica", "city", "Port city on the Caribbean coast."),
     ("Limón", "ciudad", "Municipio hondureño del departamento de Colón.")),  # Limón in Honduras
    (("Santiago de Cuba", "city", "Ciudad del oriente cubano."), ("Santiago, Chile", "city", "Chilean capital.")),
    (("Santiago de Compostela", "city", "Galician pilgrimage city."), ("Santiago, Chile", "city", "Chilean capital.")),
    (("Vila Boa de Goiás", "cidade", "Antigo nome da Cidade de Goiás, capital da capitania no século XVIII."),
     ("Vila Boa, Goiás", "município", "Pequeno município do leste goiano, próximo a Formosa.")),  # a region's
    # "de" form not described alike: an old name of another town
    (("Georgetown, Guyana", "city", "Capital of Guyana."),
     ("Georgetown", "city", "Neighborhood of Washington, D.C., home to a Jesuit university.")),
])
def test_a_place_and_a_namesake_elsewhere_stay_two(a, b):
    assert not together(resolved(a, b).graph, a[0], b[0])


@pytest.mark.parametrize("a,b", [
    (("Odds BK", "club", "Norwegian football club from Skien."),
     ("Odds Ballklubb", "fotballklubb", "Klubben fra Skien spiller på Skagerak Arena.")),
    (("KP Legia Warszawa", "klub", "Klub piłkarski z Warszawy."), ("Legia Warszawa", "club", "Polish football club.")),
])
def test_a_club_and_its_abbreviation_spelled_out_or_left_out_are_one(a, b):
    assert together(resolved(a, b).graph, a[0], b[0])


def test_a_firm_with_a_clubs_letters_is_no_club():
    a, b = ("KP Snacks", "company", "British maker of crisps and nuts."), \
        ("Snacks", "product", "Food eaten between meals.")
    assert not together(resolved(a, b).graph, a[0], b[0])


@pytest.mark.parametrize("a,b", [
    (("U2", "band", "Irish rock band from Dublin."), ("U-2", "aircraft", "American high-altitude spy plane.")),
    (("T. Rex", "band", "English glam rock band led by Marc Bolan."),
     ("T-Rex", "vehicle", "Three-wheeled roadster built by Campagna Motors in Quebec.")),
])
def test_a_band_and_a_craft_of_one_name_stay_two(a, b):
    assert not together(resolved(a, b).graph, a[0], b[0])


def test_a_company_and_its_name_without_a_hyphen_stay_one():
    a, b = ("Wal-Mart", "company", "American retailer."), ("Walmart", "organization", "Retail chain based in Arkansas.")
    assert together(resolved(a, b).graph, a[0], b[0])


@pytest.mark.parametrize("a,b", [
    (("Nokian Tyres plc", "company", "Finnish tyre maker listed in Helsinki."),
     ("Nokian", "organization", "Finnish maker of winter tyres for cars and trucks.")),
    (("Otis Elevator Company", "company", "Elevator manufacturer founded in 1853."),
     ("Otis", "company", "American elevator and escalator manufacturer based in Connecticut.")),
    (("Feyenoord Rotterdam", "club", "Club uit Rotterdam-Zuid."), ("Feyenoord", "club", "Won the Eredivisie title.")),
])
def test_a_legal_name_and_its_trade_name_said_to_make_the_rest_are_one(a, b):
    assert together(resolved(a, b).graph, a[0], b[0])


@pytest.mark.parametrize("a,b", [
    (("Siemens Energy AG", "company", "German maker of gas turbines, spun off in 2020."),
     ("Siemens", "company", "German conglomerate whose businesses span energy, healthcare and trains.")),
    (("Tata Steel Limited", "company", "Indian steelmaker with plants in Jamshedpur."),
     ("Tata", "organization", "Indian group making steel, cars and software.")),
    (("Orange Polska S.A.", "company", "Polish telecom operator."), ("Orange", "company", "Telecom operator.")),
    (("Samsung Electro-Mechanics Co., Ltd.", "company", "Maker of capacitors and camera modules."),
     ("Samsung", "company", "South Korean electronics maker of phones and chips.")),
    (("Daimler Truck AG", "company", "Maker of heavy trucks."),
     ("Daimler", "company", "German maker of Mercedes-Benz cars.")),
    (("Ford Motor Credit Company", "company", "Finance arm of a carmaker."),
     ("Ford", "person", "Industrialist who founded the Ford Motor Company and made motor cars affordable.")),
    (("Otis Elevator Company", "company", "American elevator manufacturer founded in Yonkers."),
     ("Otis", "company", "Swiss elevator maker based in Ebikon.")),  # placed apart
    (("Feyenoord Rotterdam", "club", "Club uit Rotterdam-Zuid."),
     ("Feyenoord", "club", "Won the Allsvenskan title.")),  # another country's league
])
def test_a_legal_name_and_a_group_or_unit_or_namesake_stay_two(a, b):
    assert not together(resolved(a, b).graph, a[0], b[0])


@pytest.mark.parametrize("a,b", [
    (("KP Wisła Płock", "klub piłkarski", "Klub piłkarski z Płocka grający w Ekstraklasie."),
     ("Wisła Płock", "club", "Handball club from Płock, several times Polish champion.")),  # two sports
    (("Santa Teresa, Espírito Santo", "city", "Municipality in the mountains of Espírito Santo, Brazil."),
     ("Santa Teresa", "bairro", "Bairro boêmio do Rio de Janeiro, famoso pelo bonde.")),  # a town, a neighbourhood
])
def test_a_club_or_town_and_a_namesake_of_another_sport_or_level_stay_two(a, b):
    assert not together(resolved(a, b).graph, a[0], b[0])


@pytest.mark.parametrize("a,b", [
    (("Nokia Oyj Abp", "company", "Finnish maker of telecom network equipment."),
     ("Nokia", "yritys", "Nokia kertoi uusista verkkosopimuksista.")),  # a Finnish and a Swedish form together
    (("Le Figaro", "journal", "Quotidien français fondé en 1826."),
     ("lefigaro.fr", "website", "The site's English edition ran the interview.")),  # a language, not England
])
def test_a_company_with_two_legal_forms_and_a_site_with_an_edition_in_a_language_are_one(a, b):
    assert together(resolved(a, b).graph, a[0], b[0])


def test_a_place_described_by_its_own_name_is_not_placed_by_it():
    a = ("London, Ontario", "city", "Port city on the Thames, home to Western University in Ontario.")
    b = ("London, ON", "geo", "Police in London, ON investigated the collision.")  # "London": no U.K. here
    assert together(resolved(a, b).graph, a[0], b[0])


def test_a_neighbourhood_and_its_name_qualified_by_its_city_are_one():
    a = ("Trastevere, Rome", "city", "Rione on the west bank of the Tiber.")
    b = ("Trastevere", "neighborhood", "Bohemian district of Rome, across the Tiber.")
    assert together(resolved(a, b).graph, a[0], b[0])
    a = ("Hollywood, Florida", "city", "City in Broward County, Florida.")  # a town qualified by its state
    b = ("Hollywood", "neighborhood", "District of Los Angeles, home of the American film industry.")
    assert not together(resolved(a, b).graph, a[0], b[0])
    a = ("Flamengo, Rio de Janeiro", "city", "Beachside area of the city.")  # a city qualifies it; the bairro
    b = ("Flamengo", "bairro", "Bairro de Porto Alegre, no Brasil.")  # is described in another city
    assert not together(resolved(a, b).graph, a[0], b[0])
