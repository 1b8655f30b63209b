"""A name a node's description gives as its own ("Société Générale (SocGen)", "also known as VW", "englisch
Munich") merges it with the node of that name, found by blocking too; a parenthesis holding a place, an
employer or a ticker, a nickname read past its end, or types and descriptions that say two things do not."""

from __future__ import annotations

import pytest

from graphglean.graph.resolution.blocking import candidate_pairs
from graphglean.graph.resolution.descriptions.aliases import declared_aliases
from graphglean.graph.resolution.profiles import Corpus
from graphglean.graph.resolution.resolver import Resolver
from graphglean.graph.resolution.verdicts import SAME

from .test_resolve_namesakes import merged, verdict

GIVEN = [
    (("Big Blue", "organization", "Computer maker that reported higher profits."),
     ("International Business Machines", "organization", "International Business Machines, also known as Big "
                                                          "Blue, is an American computer company.")),
    (("VW", "organization", "Carmaker that recalled diesel cars."),
     ("Volkswagen AG", "organization", "German carmaker, also known as VW, based in Wolfsburg.")),
    (("MLK", "person", "Civil rights leader."),
     ("Martin Luther King Jr.", "person", "Martin Luther King Jr. (MLK) was an American civil rights leader.")),
    (("Munich", "city", "Bavarian capital."),
     ("München", "Stadt", "München, englisch Munich, ist die Landeshauptstadt Bayerns.")),
    (("Russian Railways", "organization", "State railway company."),
     ("ОАО «Российские железные дороги»", "organization", "ОАО «Российские железные дороги» (Russian Railways) — "
                                                           "государственная компания.")),
    (("Big Apple", "geo", "Nickname used in the article."),
     ("New York City", "city", "New York City, nicknamed the Big Apple, is the largest US city.")),
    (("Dubya", "person", "Nickname of the 43rd president."),
     ("George W. Bush", "person", "George W. Bush, called Dubya by critics, was the 43rd president.")),
    (("中石油", "组织", "中国的石油公司。"), ("中国石油天然气集团", "组织", "中国石油天然气集团（简称中石油）是国有石油公司。")),
]

KEPT = [
    (("Springfield", "city", "Springfield (Illinois) is the state capital."),
     ("Illinois", "state", "A US state in the Midwest.")),  # a place in parentheses: a qualifier
    (("Tim Cook", "person", "Tim Cook (Apple) spoke at the conference."),
     ("Apple", "organization", "American technology company.")),  # an employer
    (("Apple Inc.", "organization", "Apple Inc. (AAPL) is a US tech company."),
     ("AAPL", "organization", "Apple's ticker symbol on Nasdaq.")),  # letters the name does not abbreviate
    (("Elizabeth II", "person", "Elizabeth II, known as Lilibet to her family."),
     ("Lilibet Mountbatten-Windsor", "person", "Daughter of Prince Harry born in 2021.")),  # "Lilibet" only
    (("Bayern Munich", "club", "Bayern Munich, often called Bayern, won the league."),
     ("Bayern", "state", "German state whose capital is Munich.")),  # a club and a state
    # what a review of the rule found merged: "called" as a verb or for another thing, Russian "а также" (as well
    # as), a place's code, a code of one word, a country or region in another script, an office
    (("Alphabet", "organization", "American technology conglomerate that acquired an AI lab called DeepMind."),
     ("DeepMind", "organization", "AI research lab owned by Alphabet, based in London.")),
    (("Manchester United", "organization", "English football club whose rival is called Manchester City."),
     ("Manchester City", "organization", "English football club based in Manchester.")),
    (("Газпром", "organization", "Российская газовая компания. Основные конкуренты — Лукойл, а также Роснефть."),
     ("Роснефть", "organization", "Российская нефтяная компания.")),
    (("New York City", "location", "New York City (NY) is the most populous city in the United States."),
     ("NY", "location", "New York, a state in the northeastern United States.")),
    (("Frankfurt", "location", "Frankfurt (FRA) is a financial centre in Germany."),
     ("FRA", "location", "Frankfurt Airport, Germany's busiest airport.")),
    (("Москва", "location", "Москва (Russia) — столица России."),
     ("Russia", "location", "Country in Eastern Europe and Northern Asia.")),
    (("Boris Johnson", "person", "Boris Johnson, known as Prime Minister during Brexit, led the Conservatives."),
     ("Prime Minister", "person", "Head of the British government.")),
]


@pytest.mark.parametrize("a,b", GIVEN, ids=[p[0][0] for p in GIVEN])
def test_a_name_the_description_gives_merges(a, b):
    v = verdict(a, b)
    assert v.kind == SAME and v.rule == "its description gives the other's name", v
    assert merged(a, b)


@pytest.mark.parametrize("a,b", KEPT, ids=[p[0][0] for p in KEPT])
def test_what_a_description_names_otherwise_does_not_merge(a, b):
    assert verdict(a, b).rule != "its description gives the other's name"
    assert not merged(a, b)


def test_blocking_meets_a_node_with_the_name_its_description_gives():
    nodes = [("Société Générale", "organization", "Société Générale (SocGen) is a French bank."),
             ("SocGen", "organization", "French bank."), ("Crédit Agricole", "organization", "French bank.")]
    from .test_resolve import graph_of

    r = Resolver.of_graph(graph_of(nodes))
    pairs, _ = candidate_pairs(r.profiles, Corpus())
    names = {(r.profiles[i].name, r.profiles[j].name) for i, j in pairs}
    assert ("Société Générale", "SocGen") in names or ("SocGen", "Société Générale") in names


def test_the_aliases_read_from_a_description():
    assert declared_aliases("Volkswagen AG, also known as VW and Volkswagen Group.", ("Volkswagen AG",)) == {"vw"}
    assert declared_aliases("Toyota (トヨタ) is a carmaker.", ("Toyota",)) == {"トヨタ"}  # a gloss in another script
    assert declared_aliases("Toyota (Japan) is a carmaker.", ("Toyota",)) == frozenset()
    assert declared_aliases("Mary, known as the Queen of Scots, ruled.", ("Mary",)) == {"queen of scots"}
    assert declared_aliases("Known as nothing.", ("X",)) == {"nothing"}  # read, and met only by a node so named
