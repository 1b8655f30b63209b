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
]
STILL_MERGED = [
    (("King George V", "person", "King George V was the British monarch from 1910 to 1936."),
     ("King George 5", "person", "King George 5 reigned through the First World War.")),
    (("Québec", "city", "Québec is the walled capital on the St. Lawrence River."),
     ("Quebec", "town", "Quebec is where Champlain founded a settlement in 1608.")),
    (("Heineken", "company", "Heineken opened a brewery in Mexico and sells its beer in Italy."),  # no defining clause
     ("Heineken N.V.", "company", "Heineken N.V. is a Dutch brewing company based in Amsterdam.")),
    (("Bayern München", "organization", "Bayern München ist ein deutscher Fußballverein."),
     ("Bayern Munchen", "organization", "Bayern Munchen is a German football club from Munich.")),
    (("Ghost of Christmas Past", "event", "The Ghost of Christmas Past shows Scrooge his boyhood."),
     ("The Ghost of Christmas Past", "person", "The Ghost of Christmas Past is the first of three spirits.")),
]


@pytest.mark.parametrize("a,b,why", KEPT_APART, ids=lambda s: s[0] if isinstance(s, tuple) else None)
def test_names_that_agree_with_conflicting_profiles_are_left_to_the_llm_tier(a, b, why):
    v = verdict(a, b)
    assert v.kind == UNSURE and v.doubt and v.rule.endswith(f"but {why}"), v
    assert not merged(a, b)


@pytest.mark.parametrize("a,b", STILL_MERGED, ids=lambda s: s[0])
def test_names_that_agree_without_conflict_still_merge(a, b):
    assert verdict(a, b).kind == SAME
    assert merged(a, b)
