"""Look-alike classes of entity resolution (issue 33), session 13, from the misses of a fifth blind set
(heldback22): a name whose elided article loses its apostrophe in ASCII text ("L'Oréal", "LOreal"); Italian
and German club forms ("US ... Calcio", "Sport-Club ... e.V."); association and Greek types; prepositions of
other languages left out of a name's initials ("für", "pour", "para"); an acronym and its name described in two
languages and placed in one country. Each class with its namesakes, which stay two."""

from __future__ import annotations

import pytest

from graphglean.graph.resolution.names import read_name
from graphglean.graph.resolution.variants.acronyms import content_initials
from graphglean.graph.resolution.variants.types import english_type

from .test_resolve import together
from .test_resolve_classes import resolved


@pytest.mark.parametrize("a,b", [
    (("L'Occitane en Provence", "company", "French retailer of body and home products."),
     ("LOccitane en Provence", "ORGANIZATION", "Cosmetics retailer founded in Manosque.")),
    (("D'Ieteren", "company", "Belgian car distributor."), ("DIeteren", "company", "Belgian car importer.")),
    (("L'Aquila", "city", "Capital of the Abruzzo region in Italy."), ("LAquila", "city", "City in Abruzzo, Italy.")),
])
def test_an_elided_article_without_its_apostrophe_is_the_same_name(a, b):
    assert resolved(a, b).graph.number_of_nodes() == 1  # (`together` reads names without their apostrophes)


@pytest.mark.parametrize("a,b", [
    (("US Lecce Calcio", "ORGANIZATION", "Football club from Apulia playing in Serie A."),
     ("Lecce", "squadra", "La squadra giallorossa gioca allo stadio Via del Mare.")),
    (("Sport-Club Paderborn e.V.", "Verein", "Fußballverein aus Ostwestfalen."),
     ("SC Paderborn", "ORGANIZATION", "SC Paderborn, coached by a former midfielder, won promotion.")),
])
def test_italian_and_german_club_forms_are_the_club(a, b):
    assert together(resolved(a, b).graph, a[0], b[0])


@pytest.mark.parametrize("a,b", [
    (("US Lecce Calcio", "ORGANIZATION", "Football club from Apulia playing in Serie A."),
     ("Lecce", "city", "Baroque city in Apulia, capital of its province.")),  # the club's city
    (("SC Paderborn", "ORGANIZATION", "SC Paderborn, coached by a former midfielder, won promotion."),
     ("Sport-Club Paderborn", "Unternehmen", "Softwarefirma in Paderborn, gegründet 1998.")),  # a firm of its name
])
def test_a_club_form_of_one_side_names_no_namesake_of_another_kind(a, b):
    assert not together(resolved(a, b).graph, a[0], b[0])


def test_us_leads_a_club_only_with_a_club_word_after_the_name():
    assert read_name("US Army").club == "" and read_name("US Lecce Calcio").team == "lecce"


@pytest.mark.parametrize("a,b", [
    (("Ε.Υ.Δ.Α.Π.", "οργανισμός", "Η Ε.Υ.Δ.Α.Π. παρέχει νερό στην Αθήνα."),
     ("ΕΥΔΑΠ", "ORGANIZATION", "ΕΥΔΑΠ, the Athens water utility, raised tariffs.")),
    (("Falun BK", "förening", "Fotbollsförening från Dalarna."),
     ("Falun Bollklubb", "ORGANIZATION", "Swedish football club from Falun.")),
])
def test_greek_types_and_associations_are_read_as_their_kinds(a, b):
    assert together(resolved(a, b).graph, a[0], b[0])


@pytest.mark.parametrize("greek,english", [("οργανισμός", "organization"), ("εταιρεία", "company"),
                                           ("κόμμα", "political party"), ("σύλλογος", "club"), ("förening", "organization")])
def test_greek_and_association_types_have_their_english_kind(greek, english):
    assert english_type(greek) == english


def test_an_abbreviation_typed_in_greek_as_a_body_is_no_city_of_its_letters():
    a = ("Ε.Υ.Δ.Α.Π.", "οργανισμός", "Η Ε.Υ.Δ.Α.Π. παρέχει νερό στην Αθήνα.")
    b = ("ΕΥΔΑΠ", "city", "A fictional city in a game.")
    assert not together(resolved(a, b).graph, a[0], b[0])


@pytest.mark.parametrize("long,initials", [
    ("Bundesamt für Migration und Flüchtlinge", "bmf"),
    ("Institut pour la Recherche Agronomique", "ira"),
    ("Instituto para la Diversificación", "id"),
    ("Stichting voor Vluchtelingen", "sv"),
    ("Amt im Bundesministerium zur Sicherung", "abs"),
])
def test_prepositions_of_other_languages_give_no_initial_an_acronym_needs(long, initials):
    assert content_initials(read_name(long)) == initials


@pytest.mark.parametrize("a,b", [
    (("BMF", "ORGANIZATION", "Germany's Federal Ministry of Finance, based in Berlin."),
     ("Bundesamt für Migration und Flüchtlinge", "Behörde", "Deutsche Bundesbehörde in Nürnberg für Asylverfahren.")),
    (("DB", "ORGANIZATION", "Germany's national railway company."),
     ("Deutsche Bank", "Bank", "Größte Bank Deutschlands mit Sitz in Frankfurt am Main.")),
])
def test_one_country_and_two_languages_do_not_make_an_acronym_the_name_it_spells(a, b):
    assert not together(resolved(a, b).graph, a[0], b[0])  # a question for the LLM tier, as two languages share no word


@pytest.mark.parametrize("a,b", [
    (("Partido Acción Nacional", "partido político", "El Partido Acción Nacional gobernó México de 2000 a 2012."),
     ("PAN", "ORGANIZATION", "PAN, a Portuguese animal-welfare party, won a seat in Lisbon.")),  # placed apart
    (("Partido Acción Nacional", "partido político", "El Partido Acción Nacional gobernó México de 2000 a 2012."),
     ("PAN", "partido", "El PAN de México perdió votos en Jalisco.")),  # one language: the descriptions decide
])
def test_an_acronym_placed_elsewhere_or_described_in_one_language_is_not_merged_by_the_country(a, b):
    resolution = resolved(a, b)
    assert not any("placed in one country in two languages" in str(m.get("rule")) for m in resolution.merges)


# -- heldback23's misses (a sixth blind set): qualifiers in other languages and scripts, clubs, initials --------

@pytest.mark.parametrize("a,b", [
    (("Dunedin (Nouvelle-Zélande)", "lieu", "Ville de l'île du Sud de la Nouvelle-Zélande."),
     ("Dunedin", "city", "City in Otago, New Zealand, founded by Scottish settlers.")),  # a country in French
    (("中央区 (東京都)", "地名", "東京都の特別区で、銀座がある。"), ("中央区", "GEO", "東京都の特別区。築地市場があった。")),
    (("Железногорск (Курская область)", "GEO", "Город в Курской области."),
     ("Железногорск", "город", "Город под Курском, центр добычи железной руды.")),  # the region's word left out
])
def test_a_place_and_its_qualifier_in_another_language_or_script_are_one(a, b):
    assert together(resolved(a, b).graph, a[0], b[0])


@pytest.mark.parametrize("a,b", [
    (("Dunedin (Nouvelle-Zélande)", "lieu", "Ville de l'île du Sud de la Nouvelle-Zélande."),
     ("Dunedin", "city", "City in Pinellas County, Florida, on the Gulf Coast.")),
    (("中央区 (大阪市)", "地名", "大阪市の行政区。"), ("中央区", "GEO", "東京都の特別区。築地市場があった。")),
    (("Железногорск (Курская область)", "GEO", "Город в Курской области."),
     ("Железногорск", "город", "ЗАТО под Красноярском, где расположен Горно-химический комбинат.")),
])
def test_a_place_qualified_elsewhere_in_another_language_or_script_stays_two(a, b):
    assert not together(resolved(a, b).graph, a[0], b[0])


@pytest.mark.parametrize("a,b,one", [
    (("CD Leganés de Madrid", "ORGANIZATION", "Club de fútbol de la Comunidad de Madrid."),
     ("Leganés", "team", "Madrid football club playing in the Segunda División."), True),  # its city after "de"
    (("CD Leganés de Madrid", "ORGANIZATION", "Club de fútbol de la Comunidad de Madrid."),
     ("Leganés", "city", "Municipality south-west of Madrid."), False),
    (("IFK Norrköping", "ORGANIZATION", "Swedish football club from Norrköping."),
     ("Norrköping", "lag", "Fotbollslag från Norrköping som spelar i Allsvenskan."), True),  # a team typed in Swedish
    (("IFK Norrköping", "ORGANIZATION", "Swedish football club from Norrköping."),
     ("Norrköping", "stad", "Stad i Östergötland vid Motala ström."), False),
    (("HC Lugano", "ORGANIZATION", "Swiss ice hockey club playing in the National League."),
     ("Hockey Club Lugano", "Eishockeyclub", "Eishockeyverein aus dem Tessin."), True),  # a compound type
])
def test_clubs_with_their_city_after_a_joining_word_or_typed_in_other_words(a, b, one):
    assert together(resolved(a, b).graph, a[0], b[0]) == one


@pytest.mark.parametrize("a,b,one", [
    (("Толстой Л. Н.", "писатель", "Автор романа «Война и мир»."),
     ("Лев Николаевич Толстой", "PERSON", "Русский писатель, автор «Анны Карениной»."), True),
    (("Толстой А. Н.", "писатель", "Советский писатель, автор «Хождения по мукам»."),
     ("Лев Николаевич Толстой", "PERSON", "Русский писатель, автор «Анны Карениной»."), False),  # other initials
])
def test_a_surname_before_its_initials_is_read_as_the_name_it_abbreviates(a, b, one):
    assert together(resolved(a, b).graph, a[0], b[0]) == one


@pytest.mark.parametrize("written,english", [("ΟΡΓΑΝΙΣΜΟΣ", "organization"), ("organização", "organization"),
                                             ("lag", "sports team"), ("ΚΟΜΜΑ", "political party"),
                                             ("ЛИЦО", "person")])
def test_types_in_capitals_without_accents_and_in_more_languages_have_their_kind(written, english):
    assert english_type(written.lower()) == english


@pytest.mark.parametrize("a,b,one", [
    (("Die Welt", "Zeitung", "Überregionale Tageszeitung aus Berlin."),  # (no paper word to leave out: "welt")
     ("welt.de", "website", "Nachrichtenportal der Tageszeitung Die Welt."), True),
    (("Märkische Allgemeine Zeitung", "Zeitung", "Tageszeitung aus Potsdam."),
     ("maerkischeallgemeine.de", "website", "Nachrichtenportal der Märkische Allgemeine Zeitung."), True),  # umlaut
    (("Basler Zeitung", "Zeitung", "Tageszeitung aus Basel."),
     ("basler.ch", "website", "Website der Basler Versicherung in Basel."), False),  # the site names no paper
    (("The Economic Times", "ORGANIZATION", "Indian English-language business daily."),
     ("economictimes.indiatimes.com", "website", "News website of The Economic Times."), True),  # a subdomain
    (("Frankfurter Rundschau", "Zeitung", "Tageszeitung aus Frankfurt am Main."),
     ("frankfurter.de", "website", "Online-Shop für Würstchen aus Frankfurt."), False),  # not its paper word
    (("German Wikipedia", "website", "The German-language edition of Wikipedia."),
     ("de.wikipedia.org", "website", "Die deutschsprachige Ausgabe der Wikipedia."), False),  # a two-letter label
])
def test_a_paper_and_its_site_without_its_kind_or_on_a_subdomain(a, b, one):
    assert together(resolved(a, b).graph, a[0], b[0]) == one


def test_korean_titles_after_the_name_compound_ones_too():
    assert read_name("문재인 국무총리").honorifics and read_name("문재인 국무총리").person == read_name("문재인").person


@pytest.mark.parametrize("a,b,one", [
    (("PT Bank Negara Indonesia (Persero) Tbk", "ORGANIZATION", "Indonesian state-owned bank."),
     ("Bank Negara Indonesia", "bank", "Bank milik negara Indonesia yang berkantor pusat di Jakarta."), True),
    (("Philips Holding N.V.", "ORGANIZATION", "Dutch holding company listed in Amsterdam."),
     ("Philips", "organization", "A Nigerian consulting firm in Lagos."), False),
])
def test_legal_forms_in_parentheses_and_a_group_placed_apart(a, b, one):
    assert together(resolved(a, b).graph, a[0], b[0]) == one


@pytest.mark.parametrize("a,b,one", [
    (("Sheffield, South Yorkshire", "GEO", "Sheffield, South Yorkshire is a city known for its steel."),
     ("Sheffield", "city", "English city in the north, home of two football clubs."), True),  # a British region
    (("Sheffield, South Yorkshire", "GEO", "City known for its steel."),
     ("Sheffield", "city", "Town in Colbert County, Alabama, on the Tennessee River."), False),
])
def test_a_british_region_after_a_place_is_read_as_the_uk(a, b, one):
    assert together(resolved(a, b).graph, a[0], b[0]) == one


@pytest.mark.parametrize("a,b", [  # the namesakes a reviewer found, each kept apart by the narrowed rule
    (("L'Union", "newspaper", "Regional daily newspaper published in Reims, France."),
     ("Lunion", "company", "Lunion is a Chinese lighting manufacturer in Shenzhen.")),
    (("L'Anse", "village", "Village in Baraga County, Michigan."),
     ("Lanse", "place", "Census-designated place in Clearfield County, Pennsylvania.")),
    (("CD Universidad de Chile", "ORGANIZATION", "Chilean football club from Santiago, Chile."),
     ("Universidad", "ORGANIZATION", "Universidad Católica, Chilean football club from Santiago.")),  # a country
    (("府中市 (東京都)", "地名", "東京都多摩地域の市。"), ("府中市", "GEO", "広島県の市。東京都府中市と同名。")),
    (("本町 (京都府)", "地名", "京都府の町名。"), ("本町", "GEO", "東京都府中市の町名。")),
    (("Jefferson (Jefferson County)", "city", "City in Jefferson County, Wisconsin."),
     ("Jefferson", "city", "Jefferson is a city in Marion County, Texas, named for Thomas Jefferson.")),
    (("Kirov (Kaluga Oblast)", "town", "Town in Kaluga Oblast, Russia."),
     ("Kirov", "city", "City on the Vyatka River, centre of Kirov Oblast, 150 km from Kaluga.")),
    (("Jay Z", "PERSON", "American rapper and businessman."), ("Zach Jay", "PERSON", "American actor.")),
    (("이태석 신부", "PERSON", "남수단에서 봉사한 가톨릭 사제."), ("이태석", "PERSON", "대한민국의 축구 선수.")),
    (("Space Daily", "website", "Online news publication covering the space industry."),
     ("space.com", "website", "Space and astronomy news website owned by Future plc.")),
    (("gemini.google.com", "website", "Google's AI chatbot web app."),
     ("Gemini", "company", "US cryptocurrency exchange founded by the Winklevoss twins in New York.")),
])
def test_the_reviewers_namesakes_of_this_sessions_rules_stay_two(a, b):
    assert resolved(a, b).graph.number_of_nodes() == 2
