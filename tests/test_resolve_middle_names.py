"""Whole middle names on one side only (issue 33) stay a question for the LLM tier, however alike the two are
placed and described: a son is named after his father and a dynasty's country and field are one (a reviewer's
177 namesakes: 135 merged by a rule that asked for one country and one field). Blocking still compares a long
full name with its short form, so the question is asked."""

from __future__ import annotations

import pytest

from .test_resolve import together
from .test_resolve_classes import compared, resolved, rules_verdict


@pytest.mark.parametrize("a,b", [
    (("Charles Darwin", "person", "English naturalist who proposed the theory of evolution by natural selection."),
     ("Charles Galton Darwin", "person", "English physicist who directed the National Physical Laboratory.")),
    (("Georgios Papandreou", "politician", "Greek prime minister in 1944 and from 1963 to 1965."),
     ("Georgios Andreas Papandreou", "politician", "Greek prime minister from 2009 to 2011.")),
    (("Eduardo Frei", "persona", "Presidente de Chile entre 1964 y 1970."),
     ("Eduardo Nicanor Frei", "person", "President of Chile from 1994 to 2000.")),
    (("Don Felipe de Borbón", "persona", "Infante de España, padre del rey Felipe Carlos."),
     ("Don Felipe Carlos de Borbón", "persona", "Rey de España, jefe de la Casa Real española.")),
    (("Robert T. Walker", "person", "American novelist from Ohio, author of three books."),  # an initial
     ("Robert Walker", "person", "American novelist from Ohio.")),
])
def test_a_middle_name_on_one_side_only_stays_a_question(a, b):
    res = resolved(a, b)
    assert not together(res.graph, a[0], b[0])
    assert any(k["rule"] == "a middle name on one side only" for k in res.kept_apart)


def test_blocking_compares_a_full_name_of_five_words_and_more_with_its_short_form():
    a = ("Olusegun Matthew Okikiola Aremu Obasanjo", "person", "Nigerian general and president.")
    b = ("Olusegun Obasanjo", "person", "Former Nigerian president.")
    assert compared(a, b) and rules_verdict(a, b).rule == "a middle name on one side only"
