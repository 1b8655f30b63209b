"""Look-alike classes of entity resolution (issue 33), session 15: syllable acronyms ("Pemex", "Gestapo"), an
acronym leaving out one word of its name ("SNCF") or taking the first two letters of a word ("KEMRI"), capitals
with a joining word's small letter ("KfW"), and bodies typed by what they are ("trade union", "ministry").
Each class with its namesakes, which stay two. The examples are mine, not those of a blind set."""

from __future__ import annotations

import pytest

from graphglean.graph.resolution.blocking import candidate_pairs
from graphglean.graph.resolution.names import read_name
from graphglean.graph.resolution.profiles import Corpus, profile_of
from graphglean.graph.resolution.variants.acronyms import spells, syllables
from graphglean.graph.resolution.variants.types import english_type
from graphglean.graph.resolution.verdicts import UNSURE

from .test_resolve import graph_of, together
from .test_resolve_classes import resolved, rules_verdict


@pytest.mark.parametrize("word,name", [
    ("petrobras", "petroleo brasileiro s a"),  # a legal form gives nothing
    ("komintern", "kommunistische internationale"),
    ("texaco", "texas company"),
    ("nabisco", "national biscuit company"),
    ("sonatrach", "societe nationale de transport et de commercialisation des hydrocarbures"),
    ("mercosur", "mercado comun del sur"),  # the last word whole
    ("benelux", "belgique nederland luxembourg"),
    ("gestapo", "geheime staatspolizei"),  # a compound's later part gives its own beginning
])
def test_syllable_acronyms_are_read(word, name):
    assert syllables(word, name)


@pytest.mark.parametrize("word,name", [
    ("ryanair", "ryan air"),  # one name written with and without its space: both words whole
    ("volvo", "volvo cars"),  # a name and one of its words
    ("petrol", "petroleo brasileiro"),  # the second word gives nothing
    ("perobras", "petroleo brasileiro"),  # "per" is no beginning of "petroleo"
    ("texas", "texas company"),
])
def test_what_no_syllable_acronym_is(word, name):
    assert not syllables(word, name)


def test_an_acronym_read_loosely_leaves_out_one_word_only_when_it_has_four_letters_or_more():
    assert spells("ratp", "regie autonome des transports parisiens et cetera", loose=True)  # not the first word
    assert spells("ratp", "regie autonome transports parisiens publics", loose=True)
    assert not spells("ratp", "regie autonome transports parisiens publics")  # strictly, every word
    assert not spells("rtp", "regie autonome transports parisiens", loose=True)  # three letters: every word
    assert not spells("atp", "regie autonome transports parisiens", loose=True)  # the first word never
    assert not spells("ratp", "regie autonome des transports de paris banlieue nord", loose=True)  # two words


def test_the_first_two_letters_of_a_word_in_an_acronym_of_five_read_loosely():
    assert spells("kemsa", "kenya medical supplies authority", loose=True)
    assert not spells("kemsa", "kenya medical supplies authority")
    assert not spells("nasa", "national security agency", loose=True)  # four letters take no vowel inside


def test_capitals_around_a_small_letter_are_an_acronym():
    assert read_name("KfW").acronym == "kfw" and read_name("DfT").acronym == "dft"
    assert read_name("McCain").acronym == "" and read_name("iPhone").acronym == "" and read_name("Kfw").acronym == ""


@pytest.mark.parametrize("a,b", [
    (("RATP", "ORGANIZATION", "State-owned public transport operator of Paris, France."),
     ("Régie autonome des transports parisiens", "entreprise", "Entreprise publique de transport de la région "
                                                               "parisienne, en France.")),  # every word's letter
    (("FNV", "trade union", "Largest trade union federation in the Netherlands."),
     ("Federatie Nederlandse Vakbeweging", "ORGANIZATION", "Dutch federation of trade unions, the largest in the "
                                                          "Netherlands.")),
])
def test_acronyms_of_every_word_placed_alike_are_one(a, b):
    assert together(resolved(a, b).graph, a[0], b[0])


@pytest.mark.parametrize("a,b", [
    (("Petrobras", "company", "Brazilian state-controlled oil company based in Rio de Janeiro."),
     ("Petróleo Brasileiro S.A.", "empresa", "Empresa brasileira de petróleo com sede no Rio de Janeiro, Brasil.")),
    (("Komintern", "organization", "International organization of communist parties founded in Moscow, Russia, in "
                                   "1919."),
     ("Kommunistische Internationale", "Organisation", "1919 in Moskau gegründete Vereinigung kommunistischer "
                                                       "Parteien, Russland.")),
    (("BfArM", "ORGANIZATION", "German federal regulator of medicines and medical devices, based in Bonn."),
     ("Bundesinstitut für Arzneimittel und Medizinprodukte", "Behörde", "Bundesoberbehörde in Bonn, Deutschland, "
                                                                        "zuständig für die Zulassung von "
                                                                        "Arzneimitteln.")),
])
def test_syllable_and_loosely_read_acronyms_are_questions_even_placed_alike(a, b):
    """They spell many names of one country ("Petrobras", "Petroquímica Brasileira"): the LLM tier decides."""
    assert rules_verdict(a, b).kind == UNSURE and not together(resolved(a, b).graph, a[0], b[0])


@pytest.mark.parametrize("a,b", [
    (("Texaco", "company", "American oil company founded in Beaumont, Texas, now part of Chevron."),
     ("Texas Commerce Bank", "bank", "American bank based in Houston, Texas, later part of Chase.")),  # a word more
    (("Pemex", "company", "Mexican state-owned petroleum company."),
     ("Pemex Exploración y Producción", "empresa", "Subsidiaria de Petróleos Mexicanos para la exploración, "
                                                   "México.")),  # the parent and its unit
    (("Sunmi", "company", "Chinese maker of point-of-sale terminals based in Shanghai, China."),
     ("Sun Microsystems", "company", "American computer company that created Java, based in Santa Clara.")),
    (("RATP", "ORGANIZATION", "State-owned public transport operator of Paris, France."),
     ("Régie autonome des transports publics", "empresa", "Operador público de transporte urbano de Montevideo, "
                                                          "Uruguay.")),  # placed apart
])
def test_namesakes_of_syllable_and_word_leaving_acronyms_stay_apart(a, b):
    assert not together(resolved(a, b).graph, a[0], b[0])


def test_a_syllable_acronym_and_its_name_are_compared():
    g = graph_of([("Gazprom", "company", "Russian energy company."),
                  ("Gazovaya Promyshlennost", "company", "Soviet gas ministry turned company."),
                  ("Gazeta Prawna", "newspaper", "Polish daily."), ("Globo", "company", "Brazilian media group.")])
    profiles = [profile_of(g, n) for n in g.nodes]
    pairs, _ = candidate_pairs(profiles, Corpus.of(g, profiles))
    names = {frozenset((profiles[i].name, profiles[j].name)) for i, j in pairs}
    assert frozenset(("Gazprom", "Gazovaya Promyshlennost")) in names
    assert frozenset(("Gazovaya Promyshlennost", "Gazeta Prawna")) not in names  # long names meet no long name


@pytest.mark.parametrize("written,kind", [
    ("trade union", "organization"), ("ministry", "organization"), ("political movement", "organization"),
    ("stock exchange", "organization"), ("record label", "company"), ("celestial body", "celestial body"),
    ("art movement", "art movement"),
])
def test_bodies_typed_by_what_they_are(written, kind):
    assert english_type(written) == kind



@pytest.mark.parametrize("written,kind", [
    ("kementerian", "organization"), ("министерство", "organization"), ("uczelnia", "university"),
    ("partai politik", "political party"), ("พรรคการเมือง", "political party"), ("spor kulübü", "club"),
    ("บริษัท", "company"), ("situs web", "website"),
])
def test_kinds_written_in_more_languages(written, kind):
    assert english_type(written) == kind


def test_two_parties_of_one_abbreviation_are_no_one_party_by_their_kind_alone():
    a = ("P.S.L.", "partia polityczna", "Polska partia ludowa założona w 1990 roku.")
    b = ("PSL", "partai politik", "Partai kecil yang didirikan di Jawa Timur.")
    assert not together(resolved(a, b).graph, a[0], b[0])
