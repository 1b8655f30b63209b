"""Names one entity shares with others: a surname or a given name alone against a full name, a title with an
article against the bare word or an acronym in capitals, a name written surname first. A false merge destroys
data: what the names alone cannot settle goes to the LLM tier (UNSURE), never into one node by the rules."""

from __future__ import annotations

import pytest

from graphglean.graph.resolution.resolve import resolve_entities, resolve_entities_sync
from graphglean.graph.resolution.resolver import Resolver
from graphglean.graph.resolution.verdicts import SAME, UNSURE
from graphglean.testing import FakeLLMServer

from .helpers import config
from .test_resolve import graph_of, together


def verdict(a: tuple[str, str, str], b: tuple[str, str, str], edges=()):
    g = graph_of([a, b], edges)
    return Resolver.of_graph(g).verdict(0, 1)


def merged(a, b, edges=()) -> bool:
    return together(resolve_entities_sync(graph_of([a, b], edges), method="rules").graph, a[0], b[0])


SURNAME_ALONE = [  # one of a family or a namesake: the descriptions say nothing alike
    (("Bhutto", "person", "Bhutto founded the Pakistan Peoples Party."),
     ("Benazir Bhutto", "person", "Benazir Bhutto was the first woman elected to lead a Muslim-majority country.")),
    (("Castro", "person", "Castro nationalised the sugar mills."),
     ("Raúl Castro", "person", "Raúl Castro signed a thaw with Washington.")),
    (("Ельцин", "person", "Ельцин стоял на танке у Белого дома."),
     ("Борис Ельцин", "person", "Борис Ельцин — первый президент России.")),
    (("Sr. Kirchner", "person", "El Sr. Kirchner pagó la deuda con el FMI."),
     ("Máximo Kirchner", "person", "Máximo Kirchner es diputado nacional.")),
    (("Koizumi", "person", "Koizumi privatised the postal service."),
     ("Shinjiro Koizumi", "person", "Shinjiro Koizumi is a minister of agriculture.")),
]
GIVEN_ALONE = [
    (("Salman", "person", "Salman is the king of Saudi Arabia."),
     ("Salman Rushdie", "person", "Salman Rushdie wrote Midnight's Children.")),
    (("Giuseppe", "person", "Giuseppe carved a wooden puppet in the workshop."),
     ("Giuseppe Verdi", "person", "Giuseppe Verdi composed the opera Aida.")),
    (("Мария", "person", "Мария подарила сыну икону."),
     ("Мария Шарапова", "person", "Мария Шарапова выиграла Уимблдон.")),
]


@pytest.mark.parametrize("a,b", SURNAME_ALONE + GIVEN_ALONE, ids=lambda s: s[0])
def test_a_surname_or_a_given_name_alone_not_described_alike_is_left_to_the_llm_tier(a, b):
    v = verdict(a, b)
    assert v.kind == UNSURE and v.reading and " alone, " in v.rule
    assert not merged(a, b)


def test_a_surname_alone_described_alike_merges():
    a = ("Sibelius", "person", "Sibelius composed the symphonic poem Finlandia for orchestra.")
    b = ("Jean Sibelius", "person", "Jean Sibelius composed Finlandia, a symphonic poem for orchestra.")
    assert verdict(a, b).kind == SAME and merged(a, b)


def test_a_titled_surname_described_alike_in_other_years_is_a_relative_or_a_namesake():
    son = ("George Papandreou", "person", "George Papandreou was prime minister of Greece from 2009 to 2011.")
    father = ("Mr. Papandreou", "person", "Mr. Papandreou was prime minister of Greece from 1981 to 1989.")
    assert verdict(father, son).kind == UNSURE and not merged(father, son)
    same_year = ("Mr. Papandreou", "person", "Mr. Papandreou, prime minister of Greece, asked for a loan in 2010.")
    son = ("George Papandreou", "person", "George Papandreou was prime minister of Greece; he asked for a loan in 2010.")
    assert merged(same_year, son)


def test_a_given_name_beside_the_same_people_as_the_full_name_merges():
    lizzy = ("Lizzy", "person", "Lizzy laughs at the proposal she receives.")
    full = ("Lizzy Bennet", "person", "Lizzy Bennet is the second daughter of the family at Longbourn.")
    collins = ("Mr. Collins", "person", "Mr. Collins is a clergyman who proposes marriage.")
    g = graph_of([lizzy, full, collins], [("Lizzy", "Mr. Collins"), ("Lizzy Bennet", "Mr. Collins")])
    assert together(resolve_entities_sync(g, method="rules").graph, "Lizzy", "Lizzy Bennet")


def test_a_surname_of_several_fuller_names_merges_with_none_even_when_one_is_described_alike():
    g = graph_of([("Karamazov", "person", "Karamazov is the eldest brother, a passionate army officer."),
                  ("Dmitri Karamazov", "person", "Dmitri Karamazov is the eldest brother, a passionate army officer."),
                  ("Alyosha Karamazov", "person", "Alyosha Karamazov is the youngest brother, a novice monk.")])
    out = resolve_entities_sync(g, method="rules").graph
    assert out.number_of_nodes() == 3


@pytest.mark.parametrize("bare,generational", [
    (("Hamlin", "person", "Hamlin ran the family bank for thirty years."),
     ("Rufus Hamlin Jr.", "person", "Rufus Hamlin Jr. took over the bank.")),
    (("Mr. Hamlin", "person", "Mr. Hamlin ran the family bank for thirty years."),
     ("Rufus Hamlin Jr.", "person", "Rufus Hamlin Jr. took over the family bank from his father.")),
    (("Herr Wendt", "person", "Herr Wendt leitete das Orchester."),
     ("Kurt Wendt Sr.", "person", "Kurt Wendt Sr. founded the orchestra.")),
])
def test_a_surname_alone_is_not_one_generation_of_a_family(bare, generational):
    assert verdict(bare, generational).kind != SAME and not merged(bare, generational)


ARTICLE_APART = [  # a title made of a common word, and the word for a thing of another kind
    (("The Mirror", "organization", "The Mirror is a British tabloid newspaper."),
     ("Mirror", "object", "A mirror hangs above the fireplace in the hall.")),
    (("La Repubblica", "organization", "La Repubblica è un quotidiano italiano."),
     ("Repubblica", "concept", "La repubblica è una forma di governo.")),
    (("The Doors", "organization", "The Doors were an American rock band from Los Angeles."),
     ("Doors", "object", "Doors of oak closed the courtyard.")),
    # a title with an article, and the word in capitals: an acronym
    (("The Verge", "organization", "The Verge is an American technology news website."),
     ("VERGE", "organization", "VERGE is a consortium that funds power grid research.")),
    (("El Tiempo", "organization", "El Tiempo es un periódico de Bogotá."),
     ("TIEMPO", "organization", "TIEMPO es un programa de becas para docentes.")),
    (("Die Ärzte", "organization", "Die Ärzte sind eine Punkband aus Berlin."),
     ("ÄRZTE", "organization", "ÄRZTE ist ein Verband niedergelassener Mediziner.")),
]
ARTICLE_SAME = [
    (("The Kinks", "organization", "The Kinks were an English rock band."),
     ("Kinks", "organization", "Kinks released You Really Got Me in 1964.")),
    (("Der Spiegel", "organization", "Der Spiegel ist ein Nachrichtenmagazin aus Hamburg."),
     ("Spiegel", "organization", "Spiegel berichtete über die Affäre.")),
    (("THE KINKS", "organization", "THE KINKS WERE AN ENGLISH ROCK BAND."),  # a graph written in capitals
     ("KINKS", "organization", "KINKS RELEASED YOU REALLY GOT ME.")),
    (("The Innkeeper", "category", "The Innkeeper keeps the tavern by the road."),  # a catch-all type
     ("Innkeeper", "person", "Innkeeper pours ale for the travellers.")),
]


@pytest.mark.parametrize("a,b", ARTICLE_APART, ids=lambda s: s[0])
def test_a_title_with_an_article_and_a_word_of_another_kind_or_an_acronym_stay_apart(a, b):
    v = verdict(a, b)
    assert v.kind == UNSURE and v.doubt
    assert not merged(a, b)


@pytest.mark.parametrize("a,b", ARTICLE_SAME, ids=lambda s: s[0])
def test_a_name_with_and_without_its_article_merges(a, b):
    assert merged(a, b)


def test_a_name_written_surname_first_is_the_name():
    a = ("Lagerlöf, Selma", "person", "Lagerlöf, Selma: Swedish author of the Nils Holgersson books.")
    b = ("Selma Lagerlöf", "person", "Selma Lagerlöf was a Swedish author who wrote about Nils Holgersson.")
    assert merged(a, b)
    md = ("Maria Gonzalez, MD", "person", "Maria Gonzalez, MD, runs the clinic.")
    other = ("MD Maria", "person", "MD Maria is a singer.")
    assert not merged(md, other)
    places = (("Springfield, Illinois", "geo", "Springfield, Illinois is a state capital."),
              ("Illinois Springfield", "geo", "Illinois Springfield is a university campus."))
    assert not merged(*places)


async def test_the_llm_tier_decides_a_surname_alone_and_says_why():
    a, b = SURNAME_ALONE[0]
    async with FakeLLMServer(lambda req: "1: DIFFERENT - Zulfikar Ali Bhutto, her father").running() as s:
        cfg = config(s)
        cfg.graph.resolve.embeddings = False
        resolution = await resolve_entities(graph_of([a, b]), cfg, method="llm")
    assert resolution.graph.number_of_nodes() == 2 and resolution.stats.llm_pairs == 1
    [line] = resolution.kept_apart
    assert line["tier"] == "llm" and line["answer"] == "1: DIFFERENT - Zulfikar Ali Bhutto, her father"
