"""Names that agree, things that do not: a rule's SAME (accents, an article, a number written another way, a legal
form...) becomes a doubtful UNSURE, left to the LLM tier, when what else is known of the two nodes conflicts: a
person and a typed thing, places of different levels, defining clauses that place the two in different countries."""

from __future__ import annotations

import pytest

from graphglean.graph.resolution.verdicts import SAME, UNSURE

from .test_resolve_namesakes import merged, verdict

KEPT_APART = [  # (a, b, why)
    (("King George V", "person", "King George V was the British monarch from 1910 to 1936."),
     ("King George 5", "ship", "King George 5 is a battleship launched in 1939 on the Tyne."),
     "a person and a thing of another type"),
    (("Québec", "province", "Québec is the largest province of Canada by area."),
     ("Quebec", "city", "Quebec is the walled capital on the St. Lawrence River."),
     "places of different levels"),
    (("León", "city", "León es una ciudad española, capital de la provincia homónima."),
     ("Leon", "city", "Leon is a Mexican industrial city in the state of Guanajuato."),
     "described in different countries"),
    (("The Times", "organization", "The Times is a British daily newspaper founded in 1785."),
     ("Times", "newspaper", "Times is an Indian English-language daily published in Mumbai."),
     "described in different countries"),
    (("Liga Española", "organization", "La Liga Española es la primera división del fútbol de España."),
     ("Liga Espanola", "organization", "Liga Espanola is a Mexican amateur basketball league in Monterrey."),
     "described in different countries"),
    (("Çorum", "city", "Çorum is a city in the Black Sea region of Turkey."),
     ("Corum", "company", "Corum makes luxury watches in La Chaux-de-Fonds."),
     "a place and a thing made or sold"),
    (("Côte-d'Or", "geo", "La Côte-d'Or est un département dont le chef-lieu est Dijon."),
     ("Côte d'Or", "brand", "Côte d'Or is a Belgian chocolate brand with an elephant logo."),
     "a place and a thing made or sold"),
]
STILL_MERGED = [
    (("King George V", "person", "King George V was the British monarch from 1910 to 1936."),
     ("King George 5", "person", "King George 5 reigned through the First World War.")),
    (("Québec", "city", "Québec is the walled capital on the St. Lawrence River in Canada."),  # one country: one
     ("Quebec", "town", "Quebec is where Champlain founded a settlement in 1608, in today's Canada.")),
    (("Heineken", "company", "Heineken opened a brewery in Mexico and sells its beer in Italy."),  # no defining clause
     ("Heineken N.V.", "company", "Heineken N.V. is a Dutch brewing company based in Amsterdam.")),
    (("Bayern München", "organization", "Bayern München ist ein deutscher Fußballverein."),
     ("Bayern Munchen", "organization", "Bayern Munchen is a German football club from Munich.")),
    (("Ghost of Christmas Past", "event", "The Ghost of Christmas Past shows Scrooge his boyhood."),
     ("The Ghost of Christmas Past", "person", "The Ghost of Christmas Past is the first of three spirits.")),
    (("Élysée", "geo", "Élysée is the palace in Paris where the French president lives."),  # a body may be a place
     ("Elysee", "organization", "Elysee is the office of the president of France.")),
]
# one word with and without its accents and nothing that says one thing: a question for the LLM tier (`variants.accents`)
ACCENTS_ONLY = [
    (("Québec", "city", "Québec is the walled capital on the St. Lawrence River."),
     ("Quebec", "town", "Quebec is where Champlain founded a settlement in 1608.")),
    (("Élysée", "geo", "Élysée is the palace in Paris where the French president lives."),
     ("Elysee", "organization", "Elysee said the president would travel to Berlin.")),
]


@pytest.mark.parametrize("a,b", ACCENTS_ONLY, ids=lambda s: s[0])
def test_one_word_without_its_accents_and_no_agreement_is_a_question(a, b):
    v = verdict(a, b)
    assert v.kind == UNSURE and v.doubt and "accents" in v.rule, v
    assert not merged(a, b)


@pytest.mark.parametrize("a,b,why", KEPT_APART, ids=lambda s: s[0] if isinstance(s, tuple) else None)
def test_names_that_agree_with_conflicting_profiles_are_left_to_the_llm_tier(a, b, why):
    v = verdict(a, b)
    assert v.kind == UNSURE and v.doubt and v.rule.endswith(f"but {why}"), v
    assert not merged(a, b)


@pytest.mark.parametrize("a,b", STILL_MERGED, ids=lambda s: s[0])
def test_names_that_agree_without_conflict_still_merge(a, b):
    assert verdict(a, b).kind == SAME
    assert merged(a, b)


DEFINED_APART = [  # one name, two things each description defines in words the other never uses
    (("apollo.com", "website", "Apollo.com is the website of Apollo Global Management, where investors read reports."),
     ("Apollo", "company", "Apollo is a Norwegian chain of travel agencies headquartered in Oslo."),
     "a name and its web domain, defined as two different things"),
    (("jaguar.com", "website", "Jaguar.com is the site of Jaguar, a Swiss watchmaker selling chronographs online."),
     ("Jaguar", "company", "Jaguar is a British maker of luxury cars based in Coventry."),
     "a name and its web domain, defined as two different things"),
    (("Dr. John Taylor", "person", "Dr. John Taylor is a Scottish cardiologist at the Glasgow infirmary."),
     ("John Taylor", "person", "John Taylor is the bass guitarist of the pop group Duran Duran."),
     "same personal name, a title on one side only, defined as two different people"),
]
DEFINED_ALIKE = [
    (("spotify.com", "website", "Spotify.com is the website where users stream music and podcasts."),
     ("Spotify", "company", "Spotify is a Swedish audio streaming service founded in 2006.")),  # stream, streaming
    (("allegro.pl", "website", "Allegro.pl is the largest online marketplace in Poland."),
     ("Allegro", "company", "Allegro is a Polish e-commerce company listed in Warsaw.")),  # one country
    (("lidl.de", "website", "Lidl.de ist der Onlineshop von Lidl."),  # said plainly to be the other's
     ("Lidl", "company", "Lidl is a German discount supermarket chain based in Neckarsulm.")),
    (("Sir Elton John", "person", "Sir Elton John is an English singer and pianist who wrote Rocket Man."),
     ("Elton John", "person", "Elton John is a British pop singer with fifty top-forty hits.")),
    (("Mr. Robert Downey Jr.", "person", "Mr. Robert Downey Jr. was confirmed as the lead of a new film."),
     ("Robert Downey Jr.", "person", "Robert Downey Jr. is an American actor known for Iron Man.")),
]


@pytest.mark.parametrize("a,b,why", DEFINED_APART, ids=lambda s: s[0] if isinstance(s, tuple) else None)
def test_a_domain_or_a_title_with_two_definitions_apart_is_left_to_the_llm_tier(a, b, why):
    v = verdict(a, b)
    assert v.kind == UNSURE and v.doubt and v.rule == why, v
    assert not merged(a, b)


@pytest.mark.parametrize("a,b", DEFINED_ALIKE, ids=lambda s: s[0])
def test_a_domain_or_a_title_defined_alike_still_merges(a, b):
    assert verdict(a, b).kind == SAME
    assert merged(a, b)
