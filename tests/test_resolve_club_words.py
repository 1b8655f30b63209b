"""Look-alike classes of entity resolution (issue 33), session 21: a Hungarian club named by its place's adjective
("Ferencvárosi TC", "Debreceni VSC", "Zalaegerszegi TE") is the club called by the place's name where both are
said to be clubs. Portuguese and English generic words spelled out ("Clube Atlético", "Athletic Club") are not
read as a club's kind: a reviewer's namesakes showed the one word left is borne by many clubs ("Juventus" of
Mooca and of Turin, "Internacional" of Lages and of Porto Alegre) and states ("Detroit Athletic Club")."""

from __future__ import annotations

import pytest

from graphglean.graph.resolution.names import read_name

from .test_resolve import together
from .test_resolve_classes import resolved


@pytest.mark.parametrize("name,club,team", [
    ("Ferencvárosi TC", "tc", "ferencvarosi"),
    ("Debreceni VSC", "vsc", "debreceni"),
    ("Zalaegerszegi TE", "te", "zalaegerszegi"),
    ("BV De Graafschap", "bv", "de graafschap"),  # the club's own article stays
    ("TS Wisła Kraków", "ts", "wisla krakow"),  # Polish Towarzystwo Sportowe
    ("T. S. Eliot", "", ""),  # initials, no club
    ("Clube Atlético Juventus", "", ""),
    ("Detroit Athletic Club", "", ""),
])
def test_a_clubs_abbreviation_is_read_apart_from_its_name(name, club, team):
    form = read_name(name)
    assert (form.club, form.team) == (club, team)


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
    (("Clube Atlético Juventus", "clube", "Clube do bairro da Mooca, conhecido como Moleque Travesso."),
     ("Juventus", "club", "Turin club that has won Serie A a record number of times.")),
    (("Detroit Athletic Club", "ORGANIZATION", "Private social and athletic club in Midtown Detroit, founded in 1887."),
     ("Detroit", "ORGANIZATION", "NFL team that beat the Bears on Thanksgiving.")),
])
def test_a_club_and_a_namesake_of_its_name_stay_two(a, b):
    assert not together(resolved(a, b).graph, a[0], b[0])
