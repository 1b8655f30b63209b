"""Look-alike classes of entity resolution (issue 33), session 21: a club's generic words written out in
Portuguese, English and Hungarian ("Clube de Regatas", "Esporte Clube", "Sociedade Esportiva", "Athletic Club",
"Torna Club"), and "do"/"de" between them and the name read as no part of it ("Clube de Regatas do Flamengo" is
"Flamengo") unless what follows is a city that names other clubs too ("Club Atlético de Madrid" is no "Madrid");
a Hungarian club named by its place's adjective ("Ferencvárosi TC", "Debreceni VSC") is the club called by the
place's name, where both are said to be clubs. Each class with its namesakes."""

from __future__ import annotations

import pytest

from graphglean.graph.resolution.names import read_name

from .test_resolve import together
from .test_resolve_classes import resolved


@pytest.mark.parametrize("name,club,team", [
    ("Clube de Regatas do Flamengo", "cr", "flamengo"),
    ("Wydad Athletic Club", "ac", "wydad"),
    ("Esporte Clube Bahia", "ec", "bahia"),
    ("Sociedade Esportiva Palmeiras", "se", "palmeiras"),
    ("Club Atlético de Madrid", "ca", "de madrid"),  # a city's name alone is another club's too
    ("Athletic Club", "", ""),  # the generic words alone are the name
])
def test_a_clubs_generic_words_are_read_apart_from_its_name(name, club, team):
    form = read_name(name)
    assert (form.club, form.team) == (club, team)


@pytest.mark.parametrize("a,b", [
    (("Botafogo", "club", "Rio de Janeiro side that won the 2024 Copa Libertadores."),
     ("Clube de Regatas do Botafogo", "clube", "Clube carioca fundado como clube de remo em 1894.")),
    (("Raja", "club", "Casablanca football club whose fans fill the Curva Sud."),
     ("Raja Athletic Club", "ORGANIZATION", "Moroccan football club founded in 1949, rival of Wydad.")),
    (("Palmeiras", "club", "São Paulo football club, Brazilian champions in 2022 and 2023."),
     ("Sociedade Esportiva Palmeiras", "clube", "Clube de futebol paulista fundado por imigrantes italianos.")),
])
def test_a_club_and_its_name_with_its_generic_words_are_one(a, b):
    assert together(resolved(a, b).graph, a[0], b[0])


@pytest.mark.parametrize("a,b", [
    (("Botafogo", "neighborhood", "Bairro da Zona Sul do Rio de Janeiro, às margens da baía."),
     ("Clube de Regatas do Botafogo", "clube", "Clube carioca fundado como clube de remo em 1894.")),
    (("Bahia", "state", "Brazilian state whose capital is Salvador."),
     ("Esporte Clube Bahia", "clube", "Clube de futebol de Salvador.")),
    (("Madrid", "club", "Real Madrid, called Madrid by its fans, won the Champions League."),
     ("Club Atlético de Madrid", "club", "Madrid's second club, coached by Diego Simeone.")),
])
def test_a_club_and_a_namesake_of_its_name_stay_two(a, b):
    assert not together(resolved(a, b).graph, a[0], b[0])


@pytest.mark.parametrize("a,b", [
    (("Debreceni VSC", "sportegyesület", "Debreceni labdarúgóklub, háromszoros magyar bajnok."),
     ("Debrecen", "club", "Hungarian football club that plays at the Nagyerdei Stadion.")),
    (("Zalaegerszegi TE", "club", "Hungarian football club from Zala County, cup winners in 2023."),
     ("Zalaegerszeg", "ORGANIZATION", "NB I football club whose fans sang through the cup final.")),
])
def test_a_club_named_by_its_places_adjective_is_the_club_called_by_the_place(a, b):
    assert together(resolved(a, b).graph, a[0], b[0])


@pytest.mark.parametrize("a,b", [
    (("Debreceni VSC", "club", "Hungarian football club, three-time national champions."),
     ("Debrecen", "city", "Hungary's second-largest city, in the Northern Great Plain.")),
    (("Ferencvárosi TC", "club", "Budapest football club known as Fradi."),
     ("Ferencváros", "district", "The ninth district of Budapest, on the Pest side.")),
])
def test_a_club_named_by_its_places_adjective_and_the_place_stay_two(a, b):
    assert not together(resolved(a, b).graph, a[0], b[0])
