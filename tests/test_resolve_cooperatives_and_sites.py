"""Look-alike classes of entity resolution (issue 33), session 21: a cooperative's word before a group word read
as one ("Fonterra Co-operative Group Limited" is "Fonterra"; "CHS Cooperative" is no other "CHS"), a website's
type in more languages (Finnish "verkkosivusto", Danish "websted", Hungarian "weboldal", Turkish "web sitesi"),
and a rare name's site and its owner, defined as two kinds of thing, one where both are placed in one country.
Each with its namesakes."""

from __future__ import annotations

import pytest

from graphglean.graph.resolution.organizations.written import without_group_words
from graphglean.graph.resolution.variants.types import english_type

from .test_resolve import together
from .test_resolve_classes import resolved


@pytest.mark.parametrize("key,stem", [
    ("fonterra co operative group", "fonterra"),
    ("arla foods cooperative group", "arla foods"),
    ("chs cooperative", ""),  # a cooperative's word alone is its name's: "CHS Cooperative" is no other CHS
    ("migros genossenschaft", ""),
    ("the co operative bank", ""),  # a bank of the cooperative movement: the cooperative is its name
    ("co operative", ""),
])
def test_a_cooperatives_word_is_a_group_word(key, stem):
    assert without_group_words(key) == stem


@pytest.mark.parametrize("written", ["verkkosivusto", "websted", "weboldal", "web sitesi", "ιστότοπος"])
def test_a_website_is_typed_so_in_more_languages(written):
    assert english_type(written) == "website"


@pytest.mark.parametrize("a,b", [
    (("Fonterra", "ORGANIZATION", "New Zealand dairy exporter that cut its milk price forecast."),
     ("Fonterra Co-operative Group Limited", "COMPANY", "Farmer-owned New Zealand dairy co-operative.")),
])
def test_a_cooperative_and_its_name_are_one(a, b):
    assert together(resolved(a, b).graph, a[0], b[0])


@pytest.mark.parametrize("a,b", [
    (("Mondragon", "city", "Town in Gipuzkoa, in the Basque Country."),
     ("Mondragon Cooperative", "ORGANIZATION", "Federation of worker cooperatives founded in 1956.")),
    (("CHS Cooperative", "ORGANIZATION", "Minnesota agricultural cooperative that trades grain and fuel."),
     ("CHS", "ORGANIZATION", "Hospital operator based in Franklin, Tennessee, formerly Community Health Systems.")),
    (("Desjardins", "PERSON", "Journalist who founded the first caisse populaire in Lévis in 1900."),
     ("Desjardins Cooperative", "ORGANIZATION", "Quebec financial cooperative, Canada's largest.")),
])
def test_a_cooperative_and_a_namesake_of_another_kind_stay_two(a, b):
    assert not together(resolved(a, b).graph, a[0], b[0])


@pytest.mark.parametrize("a,b,together_", [
    # a site and its owner are defined as two kinds of thing; a rare name placed in one country by both is one
    (("zalando.de", "WEBSITE", "German online fashion shop that cut its delivery fees."),
     ("Zalando", "ORGANIZATION", "Berlin-based fashion retailer listed in Frankfurt, with its logistics centres."),
     True),
    (("zalando.de", "WEBSITE", "German online fashion shop that cut its delivery fees."),
     ("Zalando", "ORGANIZATION", "Peruvian mining cooperative working the gold fields near Puno."), False),
])
def test_a_rare_names_site_and_a_company_defined_apart_are_one_where_placed_alike(a, b, together_):
    assert together(resolved(a, b).graph, a[0], b[0]) == together_
