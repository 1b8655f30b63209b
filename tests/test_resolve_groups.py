"""Look-alike classes of entity resolution added for issue 33's held-back sets: a brand and its corporate group,
titles after a name (CJK, Korean) and royal titles of other languages, scripts whose combining marks are
letters, letters with a stroke, an acronym that keeps its number. Each with the namesakes it must keep apart."""

from __future__ import annotations

import pytest

from graphglean.graph.resolution.names import key_of, read_name
from graphglean.text.words import strip_accents

from .test_resolve import together
from .test_resolve_classes import apart_rule, resolved


# -- a brand and its group ----------------------------------------------------------------------------------

@pytest.mark.parametrize("group,brand", [
    (("Alibaba Group Holding Limited", "company", "Alibaba Group Holding Limited is a Chinese e-commerce company."),
     ("Alibaba", "organization", "Alibaba reported revenue above expectations.")),
    (("ソニーグループ株式会社", "company", "ソニーグループ株式会社は東京都港区に本社を置く。"),
     ("ソニー", "company", "ソニーはゲーム機で知られる電機メーカーである。")),
    (("阿里巴巴集团", "company", "阿里巴巴集团是总部位于杭州的电子商务公司。"),
     ("阿里巴巴", "organization", "阿里巴巴发布了新的云计算服务。")),
    (("Grupo Bimbo", "company", "Grupo Bimbo is a Mexican bakery company."),
     ("Bimbo", "company", "Bimbo raised bread prices.")),
    (("삼성그룹", "company", "삼성그룹은 한국의 재벌이다."), ("삼성", "company", "삼성은 새 휴대폰을 발표했다.")),
    (("Volkswagen Gruppe", "company", "Die Volkswagen Gruppe ist ein Autokonzern."),
     ("Volkswagen", "company", "Volkswagen recalled cars.")),
])
def test_a_brand_and_its_group_are_one(group, brand):
    resolution = resolved(group, brand)
    assert together(resolution.graph, group[0], brand[0])
    assert resolution.merges[0]["rule"] == "with and without a group word"


@pytest.mark.parametrize("group,other,why", [
    # the bare name with a legal form is a legal entity of its own: the parent or a subsidiary
    (("Sony Group Corporation", "company", "Sony Group Corporation is the Tokyo-based conglomerate."),
     ("Sony Corporation", "company", "Sony Corporation makes televisions and cameras."), "legal form"),
    (("Sony Group", "company", "Sony Group reported a record profit."),
     ("Sony Corporation", "company", "Sony Corporation makes televisions."), "legal form"),
    # a holding described as holding the other
    (("Heineken Holding", "company", "Heineken Holding is the controlling shareholder of Heineken."),
     ("Heineken", "company", "Heineken is a Dutch brewer."), ""),
    (("ソニーグループ", "company", "ソニーグループはソニーの親会社である。"),
     ("ソニー", "company", "ソニーはテレビを作る。"), "another company"),
    # a group of another kind than its namesake
    (("Wagner Group", "organization", "The Wagner Group is a Russian mercenary company."),
     ("Wagner", "person", "Wagner composed the Ring cycle."), "another type"),
    (("Eurasia Group", "organization", "Eurasia Group is a political risk consultancy."),
     ("Eurasia", "geo", "Eurasia is the landmass of Europe and Asia."), "another type"),
    # two group words on one name: a holding and its group may be two companies
    (("Alibaba Group", "company", "Alibaba Group is a Chinese technology company."),
     ("Alibaba Group Holding Limited", "company", "Alibaba Group Holding Limited is listed in New York."),
     "other group words"),
])
def test_a_group_and_a_namesake_are_kept_apart(group, other, why):
    resolution = resolved(group, other)
    assert not together(resolution.graph, group[0], other[0])
    rule = apart_rule(resolution, group[0], other[0])
    assert rule.startswith("unsure: ") or rule.startswith("different: "), rule
    assert why in rule


def test_a_group_word_alone_is_a_name():
    from graphglean.graph.resolution.organizations.written import without_group_words

    assert [without_group_words(k) for k in ("group", "集团", "grupo bimbo", "sony")] == ["", "", "bimbo", ""]


# -- titles after a name, royal titles of other languages ---------------------------------------------------

@pytest.mark.parametrize("titled,name", [
    ("習近平主席", "習近平"), ("문재인 대통령", "문재인"), ("El rey Juan Carlos I", "Juan Carlos I"),
    ("الأمير محمد بن سلمان", "محمد بن سلمان"), ("Der König Charles III", "Charles III"), ("田中さん", "田中"),
])
def test_a_name_with_a_title_of_another_language_is_the_name(titled, name):
    resolution = resolved((titled, "person", f"{titled} gave a speech."), (name, "person", f"{name} is a leader."))
    assert together(resolution.graph, titled, name)
    assert resolution.merges[0]["rule"].startswith("same personal name")


def test_a_title_is_read_off_a_cjk_name_only_when_a_name_is_left():
    assert read_name("習近平主席").person == ("習近平",) and read_name("習近平主席").honorifics == ("主席",)
    assert read_name("源氏").person == ("源氏",)  # one character left: a clan's name, not a title
    assert read_name("王女士").gender == "f" and read_name("Reina Sofía").gender == "f"


@pytest.mark.parametrize("a,b", [
    (("문재인 대통령", "person", "문재인 대통령은 평양을 방문했다."), ("김정은", "person", "김정은은 북한의 지도자이다.")),
    (("安倍首相", "person", "安倍首相は経済政策を推進した。"), ("安倍晋三", "person", "安倍晋三は日本の元首相である。")),
    (("La reina Sofía", "person", "La reina Sofía visitó Madrid."),
     ("Sofía Vergara", "person", "Sofía Vergara is a Colombian actress.")),
])
def test_a_titled_name_and_another_person_are_not_merged_by_rule(a, b):
    resolution = resolved(a, b)
    assert not together(resolution.graph, a[0], b[0])


def test_a_cjk_surname_alone_is_left_to_the_llm_tier():
    resolution = resolved(("安倍首相", "person", "安倍首相は経済政策を推進した。"),
                          ("安倍晋三", "person", "安倍晋三は日本の元内閣総理大臣である。"))
    assert apart_rule(resolution, "安倍首相", "安倍晋三").startswith("unsure: surname alone")


# -- scripts: marks that are letters, letters with a stroke -------------------------------------------------

def test_marks_of_indic_scripts_and_kana_voicing_are_letters_of_the_word():
    assert key_of("नरेंद्र मोदी") == "नरेंद्र मोदी" and read_name("नरेंद्र मोदी").person == ("नरेंद्र", "मोदी")
    assert key_of("グループ") != key_of("クループ")  # a voiced kana is another letter
    assert key_of("Crème Brûlée") == "creme brulee" and strip_accents("مُحَمَّد") == "محمد"


def test_indic_descriptions_do_not_look_alike_by_their_vowel_signs():
    # read as consonants alone, "के" and "का" were one word "क": any two Hindi descriptions looked alike
    resolution = resolved(("मोदी", "person", "मोदी ने नई संसद का उद्घाटन किया।"),
                          ("नरेंद्र मोदी", "person", "नरेंद्र मोदी भारत के प्रधानमंत्री हैं।"))
    assert apart_rule(resolution, "मोदी", "नरेंद्र मोदी").startswith("unsure: surname alone")


@pytest.mark.parametrize("a,b", [("Łódź", "Lodz"), ("Søren Kierkegaard", "Soren Kierkegaard"),
                                 ("Đà Nẵng", "Da Nang"), ("Æsir", "Aesir")])
def test_a_letter_with_a_stroke_is_its_base_letter(a, b):
    assert key_of(a) == key_of(b)


# -- an acronym that keeps its number -----------------------------------------------------------------------

@pytest.mark.parametrize("short,long,one", [
    ("WWII", "World War II", True), ("WW2", "World War II", True), ("WW2", "World War 2", True),
    ("WWI", "World War II", False), ("WWII", "World War I", False),
])
def test_an_acronym_with_its_number(short, long, one):
    resolution = resolved((short, "event", f"{short} ended in 1945."),
                          (long, "event", f"{long} was a global conflict."))
    assert together(resolution.graph, short, long) is one


# -- a club's word, an elided article -----------------------------------------------------------------------

def test_olympique_is_a_clubs_word_and_the_city_stays_apart():
    club = ("Olympique de Marseille", "organization", "Olympique de Marseille is a French football club.")
    assert together(resolved(club, ("Marseille", "organization", "Marseille won the league title.")).graph,
                    club[0], "Marseille")
    city = ("Marseille", "geo", "Marseille is a port city on the Mediterranean coast of France.")
    assert not together(resolved(club, city).graph, club[0], "Marseille")


def test_an_elided_article_is_no_initial():
    assert read_name("Organisation du traité de l'Atlantique nord").initials == "otan"


# -- legal forms of more scripts, and written between quotes or parentheses ---------------------------------

@pytest.mark.parametrize("name,trade,legal", [
    ("บริษัท ปตท. จำกัด (มหาชน)", "ปตท", "pcl company"),
    ('טבע תעשיות פרמצבטיות בע"מ', "טבע תעשיות פרמצבטיות", "limited"),
    ("टाटा मोटर्स लिमिटेड", "टाटा मोटर्स", "limited"),
    ("Telefonaktiebolaget LM Ericsson (publ)", "telefonaktiebolaget lm ericsson", "publ"),
    ("Maybank Berhad", "maybank", "bhd"),
    ("Grupo Televisa, S.A.B.", "grupo televisa", "sab"),
])
def test_legal_forms_of_more_scripts(name, trade, legal):
    form = read_name(name)
    assert (form.trade, form.legal) == (trade, legal)


def test_a_company_of_an_indic_script_with_and_without_its_legal_form_is_one():
    long, short = "टाटा मोटर्स लिमिटेड", "टाटा मोटर्स"
    resolution = resolved((long, "company", f"{long} एक कंपनी है।"), (short, "company", f"{short} ने नई कार पेश की।"))
    assert together(resolution.graph, long, short)


# -- club abbreviations of more languages; umlauts written out ---------------------------------------------

@pytest.mark.parametrize("club,bare", [
    (("ФК «Спартак» Москва", "organization", "ФК «Спартак» Москва — российский футбольный клуб."),
     ("Спартак Москва", "organization", "Спартак Москва выиграл матч в воскресенье.")),
    (("KKS Lech Poznań", "organization", "KKS Lech Poznań to polski klub piłkarski z Poznania."),
     ("Lech Poznań", "organization", "Lech Poznań zdobył mistrzostwo Polski.")),
    (("ΠΑΕ ΑΕΚ", "organization", "Η ΠΑΕ ΑΕΚ είναι ποδοσφαιρικός σύλλογος της Αθήνας."),
     ("ΑΕΚ", "organization", "Η ΑΕΚ κέρδισε το πρωτάθλημα.")),
])
def test_a_club_with_and_without_its_abbreviation_in_other_languages_is_one(club, bare):
    resolution = resolved(club, bare)
    assert together(resolution.graph, club[0], bare[0])
    assert resolution.merges[0]["rule"] == "with and without its club's abbreviation"


def test_a_short_club_abbreviation_before_a_place_s_name_is_no_club_of_it():
    club = ("KS Cracovia", "organization", "KS Cracovia to klub piłkarski z Krakowa.")
    place = ("Cracovia", "geo", "Cracovia is the Latin name of the city of Kraków in Poland.")
    assert not together(resolved(club, place).graph, club[0], place[0])


@pytest.mark.parametrize("a,b", [("Thomas Müller", "Thomas Mueller"), ("Søren Kierkegaard", "Soeren Kierkegaard"),
                                 ("Jürgen Klopp", "Juergen Klopp"), ("Ålesund", "Aalesund")])
def test_a_name_with_its_umlauts_written_out_goes_to_the_llm_tier_not_apart(a, b):
    # the same name as a writer without the letters spells it, or a namesake who spells it so ("Gerd Müller" the
    # footballer, "Gerd Mueller" the minister): the rules cannot tell, the LLM tier decides
    resolution = resolved((a, "person", f"{a} is mentioned in the text."), (b, "person", f"{b} is mentioned too."))
    line = next(line for line in resolution.kept_apart if {line["a"], line["b"]} == {a, b})
    assert line["verdict"] == "unsure" and "umlauts written out" in line["rule"]


def test_letters_alike_but_no_umlaut_are_no_written_out_name():
    assert key_of("Sue") != key_of("Su") and not read_name("Sue").umlauts
    resolution = resolved(("Sue", "person", "Sue is a nurse."), ("Su", "person", "Su is a Chinese surname."))
    assert not together(resolution.graph, "Sue", "Su") and not apart_rule(resolution, "Sue", "Su").count("umlaut")


@pytest.mark.parametrize("a,b", [("Bong Joon-ho", "Joon-ho Bong"), ("Lee Jae-myung", "Jae-myung Lee")])
def test_a_hyphenated_given_name_in_another_order_is_one_person(a, b):
    # the lower-case part of "Joon-ho" is no common word that would make the name no proper name
    resolution = resolved((a, "person", f"{a} is a South Korean film director."),
                          (b, "person", f"{b}, the South Korean director, won an award in 2020."))
    assert together(resolution.graph, a, b) and "another order" in resolution.merges[0]["rule"]
    other = ("Kim Jong-un", "person", "Kim Jong-un is the leader of North Korea.")
    assert not together(resolved(other, ("Kim Jong-il", "person", "Kim Jong-il led North Korea until 2011.")).graph,
                        "Kim Jong-un", "Kim Jong-il")


def test_an_acronym_and_its_name_typed_as_kinds_of_one_kind_are_one():
    short = ("UNAM", "organization", "La UNAM es la mayor universidad pública de México.")
    long = ("Universidad Nacional Autónoma de México", "university", "Fundada en 1910 en la Ciudad de México.")
    assert together(resolved(short, long).graph, short[0], long[0])
    additive = ("MSG", "concept", "MSG is a flavour enhancer used in cooking.")
    arena = ("Madison Square Garden", "geo", "Madison Square Garden is an arena in New York.")
    assert not together(resolved(additive, arena).graph, additive[0], arena[0])


def test_an_acronym_its_description_spells_out_as_another_name_is_left_to_the_llm_tier():
    short = ("NTU", "university", "NTU, National Taiwan University, is a public university in Taipei.")
    other = ("Nanyang Technological University", "university", "A public research university in Singapore.")
    resolution = resolved(short, other)
    assert not together(resolution.graph, short[0], other[0])
    assert apart_rule(resolution, short[0], other[0]) == "unsure: acronym, but spelled out as another name"
    same = ("NTU", "university", "NTU, Nanyang Technological University, is a research university in Singapore.")
    assert together(resolved(same, other).graph, same[0], other[0])


def test_a_particle_of_a_surname_is_no_given_name_in_the_description():
    # "Le" of "Le Pen" (the father) is no "rest of the name" of "Marine Le Pen"
    father = ("Le Pen", "person", "Le Pen, who co-founded the Front National in 1972, died in January 2025.")
    daughter = ("Marine Le Pen", "person", "Marine Le Pen leads the Rassemblement National group.")
    assert not together(resolved(father, daughter).graph, father[0], daughter[0])
    named = ("Le Pen", "person", "Le Pen, Marine to her voters, leads the Rassemblement National group.")
    assert together(resolved(named, daughter).graph, named[0], daughter[0])


@pytest.mark.parametrize("titled,name", [("Ông Phạm Minh Chính", "Phạm Minh Chính"),
                                         ("Cumhurbaşkanı Recep Tayyip Erdoğan", "Recep Tayyip Erdoğan")])
def test_a_title_no_lexicon_holds_before_a_full_name_still_meets_it(titled, name):
    resolution = resolved((titled, "person", f"{titled} chaired the meeting."),
                          (name, "person", f"{name} chaired the meeting of the cabinet."))
    assert together(resolution.graph, titled, name)
    other = ("Mehmet Tayyip Erdoğan", "person", "Mehmet Tayyip Erdoğan is a footballer from Izmir.")
    assert not together(resolved((titled, "person", f"{titled} chaired the meeting."), other).graph, titled, other[0])


@pytest.mark.parametrize("name,trade,legal", [
    ("ORLEN Spółka Akcyjna", "orlen", "sa"), ("Siemens Aktiengesellschaft", "siemens", "ag"),
    ("Koç Holding Anonim Şirketi", "koc holding", "as"), ("Volvo Aktiebolag", "volvo", "ab"),
    ("Koninklijke Philips Naamloze Vennootschap", "philips", "nv"),  # the royal title is no part of the name
])
def test_a_legal_form_written_in_full_is_the_legal_form(name, trade, legal):
    assert (read_name(name).trade, read_name(name).legal) == (trade, legal)


def test_a_club_abbreviation_written_in_full_is_the_same_club():
    short = ("Fenerbahçe SK", "sports team", "Fenerbahçe SK won the Süper Lig title.")
    full = ("Fenerbahçe Spor Kulübü", "organization", "Fenerbahçe Spor Kulübü is a sports club in Istanbul.")
    resolution = resolved(short, full)
    assert together(resolution.graph, short[0], full[0])
    assert resolution.merges[0]["rule"] == "same club abbreviation written another way"


@pytest.mark.parametrize("name,person,generation", [
    ("Lucas Cranach d. Ä.", ("lucas", "cranach"), "sr"), ("Lucas Cranach der Ältere", ("lucas", "cranach"), "sr"),
    ("Hans Holbein der Jüngere", ("hans", "holbein"), "jr"), ("Pliny the Elder", ("pliny",), "sr"),
    # surnames that read like a generation elsewhere stay names
    ("Hugo de Jonge", ("hugo", "de", "jonge"), ""), ("Leonardo Del Vecchio", ("leonardo", "del", "vecchio"), ""),
    ("Claude Le Jeune", ("claude", "le", "jeune"), ""), ("Henry the Eighth", ("henry",), ""),
])
def test_generational_markers_of_other_languages(name, person, generation):
    form = read_name(name)
    assert (form.person, form.generation) == (person, generation)


@pytest.mark.parametrize("a,b", [("Paul Thomas", "Thomas Paul"), ("Henry James", "James Henry"),
                                 ("Sarah Jessica Parker", "Jessica Parker"), ("Mary Ann Evans", "Ann Evans")])
def test_given_names_in_another_order_or_one_given_name_more_are_no_rule_merge(a, b):
    resolution = resolved((a, "person", f"{a} is a writer."), (b, "person", f"{b} is a writer."))
    assert not together(resolution.graph, a, b)


def test_club_abbreviations_written_apart_need_a_club_and_the_same_ordinal():
    firm = ("S.C. Johnson", "company", "S.C. Johnson makes household cleaning products.")
    team = ("Johnson SC", "sports team", "Johnson SC won the county football league.")
    assert not together(resolved(firm, team).graph, firm[0], team[0])
    first = ("1. FC Nürnberg", "sports team", "1. FC Nürnberg plays football in the second division.")
    other = ("2. F.C. Nürnberg", "sports team", "2. F.C. Nürnberg is an amateur football club.")
    assert not together(resolved(first, other).graph, first[0], other[0])
