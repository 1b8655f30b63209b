"""Look-alike classes of entity resolution (issue 33), from held-back set 28's first run: one name written
another way (dots, "&" and "and", a club's letters and founding year, titles stacked, NER labels as types),
described in two languages. Each class with its namesakes."""

from __future__ import annotations

import pytest

from .test_resolve_classes import compared, rules_verdict


@pytest.mark.parametrize("a,b", [
    (("I.B.M.", "ORGANIZATION", "Armonk, New York-based computer company that sold its PC business to Lenovo."),
     ("IBM", "entreprise", "Groupe informatique américain, spécialisé dans le cloud hybride.")),
    (("B.P.", "company", "London-based oil and gas major with fields in the North Sea."),
     ("BP", "Unternehmen", "Britischer Ölkonzern mit Sitz in London.")),
])
def test_one_short_abbreviation_with_and_without_dots_described_in_two_languages_in_one_country(a, b):
    assert rules_verdict(a, b).kind == "same"


@pytest.mark.parametrize("a,b", [
    # one language: descriptions that share nothing say two things
    (("T.I.", "organization", "Atlanta-based record label of the rapper Clifford Harris."),
     ("TI", "organization", "Dallas-based semiconductor maker.")),
    # two languages, two kinds
    (("A.P.", "agency", "US news agency headquartered in New York."),
     ("AP", "partido", "Partido político estadounidense.")),
    # a league and an association of lawyers: one of them is said to be about a sport
    (("N.B.A.", "ORGANIZATION", "American association of Black lawyers and judges founded in 1925."),
     ("NBA", "organisation", "Ligue professionnelle de basket-ball américaine.")),
    # two languages, two countries
    (("A.N.A.", "company", "ANA Aeroportos de Portugal, gestora dos aeroportos portugueses."),
     ("ANA", "company", "全日本空輸の略称で知られる日本の大手航空会社。")),
])
def test_short_abbreviations_of_namesakes_stay_apart(a, b):
    assert rules_verdict(a, b).kind != "same"


@pytest.mark.parametrize("a,b", [
    (("Prof. Dr. Christian Drosten", "PER", "Direktor des Instituts für Virologie der Charité in Berlin."),
     ("Christian Drosten", "PERSON", "German virologist at Berlin's Charité.")),
    (("U.S.A.", "COUNTRY", "North American federal republic whose tariffs hit European car exports."),
     ("USA", "Land", "Vereinigte Staaten von Amerika, größte Volkswirtschaft der Welt.")),
])
def test_types_written_as_ner_labels_or_in_german_are_read(a, b):
    assert rules_verdict(a, b).kind == "same"


def test_a_person_typed_per_is_read_as_one_typed_person():
    company = ("Christian Dior SE", "company", "Paris-based luxury goods group.")
    per, person = (rules_verdict(("Christian Dior", t, "French fashion designer who died in 1957."), company)
                   for t in ("PER", "PERSON"))
    assert per.kind != "same" and (per.kind, per.rule) == (person.kind, person.rule)


@pytest.mark.parametrize("a,b", [
    (("AT&T Inc.", "ORGANIZATION", "Dallas-based US telecommunications company."),
     ("AT and T", "COMPANY", "American wireless and broadband carrier headquartered in Dallas, Texas.")),
    (("B and Q", "company", "British retailer of tools and garden goods."),
     ("B & Q", "company", "British retailer of tools and garden goods.")),
    # a name led by the acronym of the words that follow it
    (("H & M Hennes & Mauritz AB", "företag", "Svensk klädhandelskedja med huvudkontor i Stockholm."),
     ("H&M", "ORGANIZATION", "Swedish fast-fashion retailer based in Stockholm.")),
    (("BMW Bayerische Motoren Werke AG", "company", "Münchner Autohersteller."),
     ("Bayerische Motoren Werke", "company", "German carmaker based in Munich.")),
])
def test_letters_joined_by_and_and_a_name_led_by_its_acronym_are_one(a, b):
    assert rules_verdict(a, b).kind == "same"


@pytest.mark.parametrize("a,b", [
    (("Tom and Jerry", "work", "American animated series about a cat and a mouse."),  # words, not letters
     ("T and J", "company", "Logistics firm in Leeds.")),
    (("ABC Alpha Beta", "company", "Greek supermarket chain."),  # its words' initials are not ABC
     ("ABC", "company", "American television network owned by Disney.")),
    (("ANA All Nippon Airways", "company", "Japanese airline based in Tokyo that flies to Europe and America."),
     ("ANA", "company", "Portuguese operator of ten airports, owned by the French group Vinci since 2013.")),
])
def test_namesakes_of_joined_letters_and_of_acronyms_stay_apart(a, b):
    assert rules_verdict(a, b).kind != "same"


def test_serbian_armenian_and_russian_names_read_as_english_writes_them():
    from graphglean.graph.resolution.lexicon.latin import latin_spellings
    assert "Crvena zvezda" in latin_spellings("Црвена звезда")  # besides the Russian reading, "Tsrvena"
    assert "Novak Djokovic" in latin_spellings("Новак Ђоковић")
    assert latin_spellings("Երևան") == ("Yerevan",)
    assert {"Boris Eltsin", "Boris Yeltsin"} <= set(latin_spellings("Борис Ельцин"))


@pytest.mark.parametrize("a,b", [
    (("Երևան", "քաղաք", "Հայաստանի մայրաքաղաքը և ամենամեծ քաղաքը։"),
     ("Yerevan", "CITY", "Capital and largest city of Armenia.")),
    (("თბილისი", "ქალაქი", "საქართველოს დედაქალაქი, მდინარე მტკვრის ნაპირზე."),
     ("Tbilisi", "CITY", "Capital of Georgia on the Kura river.")),
    (("부산", "도시", "대한민국 제2의 도시."), ("Busan", "city", "Port city in South Korea.")),
])
def test_a_place_named_in_its_countrys_own_alphabet_is_the_place_of_that_country(a, b):
    assert rules_verdict(a, b).kind == "same"


@pytest.mark.parametrize("a,b", [
    (("Москва", "город", "Столица России."), ("Moskva", "river", "River in central Russia.")),  # Cyrillic: many
    (("თბილისი", "ქალაქი", "საქართველოს დედაქალაქი."),  # not a place
     ("Tbilisi", "restaurant", "Georgian restaurant in Berlin.")),
    (("Λάρισα", "πόλη", "Πόλη της Θεσσαλίας."),  # a place of the other's name in another country
     ("Larisa", "city", "Town in Brazil's Paraná state.")),
])
def test_a_word_read_in_two_scripts_of_namesakes_stays_apart(a, b):
    assert rules_verdict(a, b).kind != "same"


@pytest.mark.parametrize("a,b", [
    (("BV Borussia 09 Dortmund", "Verein", "Ballspielverein aus Dortmund, spielt im Signal Iduna Park."),
     ("Borussia Dortmund", "SPORTS_TEAM", "German club from the Ruhr whose Yellow Wall stand is famous.")),
    (("TSG 1899 Hoffenheim", "club", "German football club from Sinsheim."), ("Hoffenheim", "club", "Bundesliga club.")),
    (("FC Schalke 04", "club", "Gelsenkirchen football club."), ("Schalke", "club", "German football club.")),
])
def test_a_club_with_and_without_its_founding_year_inside_its_name_is_one(a, b):
    assert rules_verdict(a, b).rule == "a club with and without its founding year"


@pytest.mark.parametrize("a,b", [
    (("FC 08 Homburg", "club", "German football club from Saarland."), ("Homburg", "city", "Town in Saarland.")),
    (("SV Darmstadt 98", "club", "German football club."), ("SV Darmstadt 99", "club", "Another sports club.")),
])
def test_a_year_in_a_clubs_name_does_not_make_it_a_town_or_another_years_club(a, b):
    assert rules_verdict(a, b).kind != "same"


@pytest.mark.parametrize("a,b", [
    (("Al-Ahly SC", "نادي", "نادٍ رياضي مصري مقره القاهرة، الأكثر تتويجاً بدوري أبطال أفريقيا."),
     ("Ahly", "SPORTS_TEAM", "Cairo football club, record winner of the CAF Champions League.")),
    # an Italian description is no English one: two languages share no word whatever they say
    (("AC Milan", "ORGANIZATION", "Italian football club from Milan, seven-time European champion."),
     ("Associazione Calcio Milan", "squadra", "Società calcistica milanese fondata nel 1899, soprannominata il "
                                              "Diavolo.")),
])
def test_a_club_with_the_arabic_article_and_its_name_spelled_out_in_another_language_is_one(a, b):
    assert rules_verdict(a, b).kind == "same"


def test_a_club_of_the_name_in_another_city_stays_apart():
    assert rules_verdict(("Al-Ahly SC", "club", "Egyptian football club based in Cairo, record African champion."),
                         ("Ahly Tripoli", "club", "Libyan football club from Tripoli.")).kind != "same"


@pytest.mark.parametrize("a,b", [
    (("Banco Central do Brasil", "instituição", "Autoridade monetária brasileira, sediada em Brasília."),
     ("Central Bank of Brazil", "ORGANIZATION", "Brazil's monetary authority, which sets the Selic rate.")),
    (("Technische Universität München", "Universität", "Technische Universität mit Hauptsitz in München."),
     ("Technical University of Munich", "UNIVERSITY", "German public research university in Munich.")),
    (("中国人民银行", "机构", "中国的中央银行。"), ("People's Bank of China", "ORGANIZATION", "China's central bank.")),
    (("Copa do Mundo FIFA de 2014", "evento", "Torneio disputado no Brasil e vencido pela Alemanha."),
     ("2014 FIFA World Cup", "EVENT", "Football tournament held in Brazil, won by Germany.")),
    # a name of no place: one where both descriptions place it in one country; a German compound by its parts
    (("Bundesverfassungsgericht", "Organisation", "Oberstes Verfassungsorgan Deutschlands mit Sitz in Karlsruhe."),
     ("Federal Constitutional Court", "ORGANIZATION", "Germany's top court in Karlsruhe.")),
    # an acronym spelled out in its own language, the other name in another, both placed in one country
    (("CDU", "Partei", "Christlich Demokratische Union Deutschlands, Partei von Friedrich Merz."),
     ("Christian Democratic Union", "POLITICAL_PARTY", "German centre-right party led by Friedrich Merz.")),
])
def test_one_name_in_two_languages_word_for_word_is_one(a, b):
    assert rules_verdict(a, b).kind == "same"
    assert compared(a, b)


@pytest.mark.parametrize("a,b", [
    (("Banco Central de Chile", "banco", "Banco central chileno."),
     ("Central Bank of Brazil", "ORGANIZATION", "Brazil's monetary authority.")),
    (("Banco do Brasil", "banco", "Banco estatal brasileiro."),  # no "central"
     ("Central Bank of Brazil", "ORGANIZATION", "Brazil's monetary authority.")),
    (("Tribunal Supremo Electoral", "organismo", "Órgano electoral de Bolivia."),  # every country has one
     ("Supreme Electoral Tribunal", "organization", "Electoral body of Honduras.")),
    (("Copa do Mundo FIFA de 2018", "evento", "Torneio disputado na Rússia."),
     ("2014 FIFA World Cup", "EVENT", "Football tournament held in Brazil.")),
    (("U.S. Open", "event", "Tennis Grand Slam in New York."), ("US Open", "event", "Golf major championship.")),
    (("PSD", "party", "Partidul Social Democrat, Romania's largest party."),  # parties of two countries
     ("Partido Social Democrata", "partido", "Partido político português de centro-direita.")),
])
def test_namesakes_in_two_languages_stay_apart(a, b):
    assert rules_verdict(a, b).kind != "same"


@pytest.mark.parametrize("a,b", [
    (("Hillary Rodham", "PERSON", "Yale law student who married Bill Clinton in 1975."),
     ("Hillary Clinton", "PERSON", "Former US Secretary of State, wife of Bill Clinton.")),
    (("Jacqueline Bouvier", "PERSON", "Photographer who married Senator John F. Kennedy in 1953."),
     ("Jacqueline Kennedy Onassis", "PERSON", "Former US First Lady who later married Aristotle Onassis.")),
    (("Cherie Booth", "PERSON", "British barrister, wife of Prime Minister Tony Blair."),
     ("Cherie Blair", "PERSON", "Lawyer.")),
    (("Jacqueline Kennedy", "PERSON", "First Lady of the United States, née Bouvier."),
     ("Jacqueline Bouvier", "PERSON", "Debutante from New York.")),
])
def test_a_woman_by_her_birth_name_and_by_her_married_name_is_one(a, b):
    assert rules_verdict(a, b).kind == "same"
    assert compared(a, b)


@pytest.mark.parametrize("a,b", [
    (("John Smith", "PERSON", "Engineer, husband of Mary Jones."), ("John Jones", "PERSON", "Welsh poet.")),
    (("Hillary Rodham", "PERSON", "Yale law student who married Bill Clinton in 1975."),  # another given name
     ("Chelsea Clinton", "PERSON", "Daughter of Bill and Hillary Clinton.")),
    (("Anna Weber", "PERSON", "Teacher in Graz."),  # no spouse named
     ("Anna Huber", "PERSON", "Austrian skier.")),
])
def test_namesakes_and_relatives_of_one_given_name_stay_apart(a, b):
    assert rules_verdict(a, b).kind != "same"


def test_a_chinese_name_of_three_characters_is_read_in_pinyin():
    assert rules_verdict(("习近平", "人物", "中国共产党中央委员会总书记、国家主席。"),
                         ("Xi Jinping", "PERSON", "President of China.")).kind == "same"


@pytest.mark.parametrize("a,b", [
    (("李娜", "人物", "中国网球运动员。"), ("Li Na", "PERSON", "Chinese diver, Olympic champion in 2000.")),  # too common
    (("菅義偉", "人物", "日本の政治家。"), ("Jian Yiwei", "PERSON", "Japanese politician.")),  # Japanese: Suga Yoshihide
    (("王秀英", "人物", "中国足球运动员。"), ("Wang Xiuying", "PERSON", "Chinese pianist.")),  # other callings
])
def test_chinese_names_too_common_japanese_or_of_other_callings_stay_apart(a, b):
    assert rules_verdict(a, b).kind != "same"


@pytest.mark.parametrize("a,b", [
    # the country beyond a border places nothing
    (("Frankfurt (Oder)", "Stadt", "Brandenburgische Stadt an der Grenze zu Polen, gegenüber von Słubice."),
     ("Frankfurt an der Oder", "CITY", "German border town on the Oder river.")),
    # nor the country of the one who fined it ("was fined by Spain's ...")
    (("Booking.com B.V.", "company", "Amsterdam-based online travel agency, a subsidiary of Booking Holdings."),
     ("booking.com", "ORG", "Hotel reservation platform headquartered in Amsterdam that was fined by Spain's "
                             "competition authority.")),
])
def test_a_country_named_beyond_a_border_or_as_an_agent_places_nothing(a, b):
    assert rules_verdict(a, b).kind == "same"


def test_a_town_placed_in_another_country_still_is_another_town():
    assert rules_verdict(("Frankfurt (Oder)", "Stadt", "Stadt in Brandenburg an der Grenze zu Polen."),
                         ("Frankfurt an der Oder", "CITY", "Village in Poland's Lubusz Voivodeship.")).kind != "same"


@pytest.mark.parametrize("a,b", [
    (("OTAN", "organisation", "Alliance militaire atlantique."), ("NATO", "ORGANIZATION", "Western military alliance.")),
    (("ООН", "организация", "Международная организация."), ("UN", "ORGANIZATION", "The United Nations.")),
    (("FMI", "institución", "Fondo Monetario Internacional."), ("IMF", "ORGANIZATION", "International Monetary Fund.")),
])
def test_an_international_bodys_acronym_in_another_language_is_that_body(a, b):
    assert rules_verdict(a, b).kind == "same"
    assert compared(a, b)


def test_a_company_of_the_letters_is_no_international_body():
    assert rules_verdict(("OMS", "empresa", "Empresa de software de gestión de pedidos en Madrid."),
                         ("WHO", "ORGANIZATION", "UN agency for public health in Geneva.")).kind != "same"


def test_a_type_written_as_a_constant_is_read_as_its_words():
    from graphglean.graph.resolution.variants.types import english_type
    assert english_type("sitio_web") == english_type("sitio web") == "website"
    assert rules_verdict(("mercadolibre.com", "SITIO_WEB", "Plataforma de comercio electrónico fundada en Argentina."),
                         ("MercadoLibre, Inc.", "ORGANIZATION", "E-commerce company founded in Buenos Aires.")
                         ).kind == "same"


def test_two_given_names_as_initials_and_written_out_in_two_languages_are_one_person():
    assert rules_verdict(("M. S. Dhoni", "PERSON", "Former India cricket captain who won the 2011 World Cup."),
                         ("Mahendra Singh Dhoni", "व्यक्ति", "भारतीय क्रिकेट टीम के पूर्व कप्तान।")).kind == "same"
    # one initial is many people's: two languages that share nothing still leave it a question
    assert rules_verdict(("J. Smith", "PERSON", "English footballer who played for Everton in the 1990s."),
                         ("John Smith", "व्यक्ति", "अमेरिकी अभिनेता और गायक।")).kind != "same"


def test_a_surname_alone_described_in_two_languages_by_one_calling_and_one_place_is_the_person():
    assert rules_verdict(("Ludwig van Beethoven", "Person", "Deutscher Komponist, geboren 1770 in Bonn."),
                         ("Beethoven", "PERSON", "Composer of nine symphonies, born in Bonn.")).kind == "same"


@pytest.mark.parametrize("a,b", [
    (("Johann Strauss", "Person", "Österreichischer Komponist, geboren 1825 in Wien."),  # another place and year
     ("Strauss", "PERSON", "German composer born in Munich in 1864.")),
    (("Ludwig van Beethoven", "Person", "Deutscher Komponist, geboren 1770 in Bonn."),  # another calling
     ("Beethoven", "PERSON", "Footballer born in Bonn who played for Bayer Leverkusen.")),
])
def test_a_surname_alone_of_another_calling_place_or_year_stays_a_question(a, b):
    assert rules_verdict(a, b).kind != "same"


@pytest.mark.parametrize("a,b", [
    (("ФСБ", "организация", "Федеральная служба безопасности Российской Федерации."),
     ("FSB", "ORGANIZATION", "Russia's Federal Security Service, the main successor to the KGB.")),
    (("ФК Црвена звезда", "клуб", "Фудбалски клуб из Београда, освајач Купа шампиона 1991. године."),
     ("FK Crvena zvezda", "SPORTS_TEAM", "Belgrade football club that won the European Cup in 1991.")),
])
def test_an_acronym_or_a_name_read_across_scripts_placed_in_one_country_by_inflected_names_is_one(a, b):
    assert rules_verdict(a, b).kind == "same"


def test_places_are_read_in_inflected_russian_and_in_unspaced_scripts():
    from graphglean.graph.resolution.variants.placing import countries_placing
    assert countries_placing("Федеральная служба безопасности Российской Федерации.") == {"russia"}
    assert countries_placing("愛知県豊田市に本社を置く日本最大の自動車メーカー") == {"japan"}
    assert countries_placing("中国的中央银行") == {"china"}


def test_an_acronym_read_across_scripts_of_a_body_of_another_country_stays_apart():
    assert rules_verdict(("ФСБ", "организация", "Федеральная служба безопасности Российской Федерации."),
                         ("FSB", "ORGANIZATION", "Financial Stability Board, a body based in Basel, Switzerland.")
                         ).kind != "same"
