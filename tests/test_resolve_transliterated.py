"""Names in two scripts (issue 33, session 15): a name in an alphabet that transliterates letter by letter
(Cyrillic, Greek, Armenian, Georgian, Hangul) is read in Latin letters too, so the rules compare "Михаил
Горбачёв" with "Mikhail Gorbachev" as two Latin names; namesakes stay two, a Latin name misread from its
transliteration vetoes nothing, and a word of one language is no web domain of another. Examples are mine."""

from __future__ import annotations

import pytest

from graphglean.graph.resolution.lexicon.latin import latin_spellings, pinyin_readings
from graphglean.graph.resolution.verdicts import UNSURE

from .test_resolve import together
from .test_resolve_classes import compared, resolved, rules_verdict


@pytest.mark.parametrize("name,spelled", [
    ("Михаил Горбачёв", "Mikhail Gorbachyov"),  # "ё" both ways
    ("Михаил Горбачёв", "Mikhail Gorbachev"),
    ("Ελευθέριος Βενιζέλος", "Eleftherios Venizelos"),  # "ευ" before a voiceless consonant
    ("Αύγουστος", "Avgoustos"),
    ("Ντόρα Μπακογιάννη", "Dora Bakogianni"),  # "ντ", "μπ" at a word's start
    ("조성진", "Cho Seong Jin"),  # a Korean name's syllables apart, its family name as written
    ("부산", "Busan"),  # and joined
    ("თბილისი", "tbilisi"),
    ("ПАО «Магнит»", 'PAO "Magnit"'),
])
def test_latin_spellings(name, spelled):
    assert spelled in latin_spellings(name)


@pytest.mark.parametrize("name", ["東京", "القاهرة", "תל אביב", "मुंबई", "Zürich", "Hà Nội", ""])
def test_scripts_without_one_latin_reading_are_left_alone(name):
    assert latin_spellings(name) == ()


@pytest.mark.parametrize("a,b", [
    (("Михаил Горбачёв", "персона", "Генеральный секретарь ЦК КПСС, первый и последний президент СССР."),
     ("Mikhail Gorbachev", "PERSON", "Last leader of the Soviet Union, who won the Nobel Peace Prize in 1990.")),
    (("Ελευθέριος Βενιζέλος", "πρόσωπο", "Έλληνας πολιτικός, πρωθυπουργός της Ελλάδας."),
     ("Eleftherios Venizelos", "person", "Greek statesman and prime minister of Greece.")),
    (("ПАО «Магнит»", "компания", "Российская розничная сеть со штаб-квартирой в Краснодаре."),
     ("Magnit", "company", "Russian food retailer headquartered in Krasnodar.")),
    (("조성진", "인물", "대한민국의 피아니스트."), ("Seong-Jin Cho", "PERSON", "South Korean pianist who won the Chopin "
                                                                          "Competition in 2015.")),
    (("Медведев Д. А.", "персона", "Российский политик, председатель правительства в 2012–2020 годах."),
     ("Дмитрий Анатольевич Медведев", "персона", "Российский политик, президент России в 2008–2012 годах.")),
])
def test_one_name_in_two_scripts_is_one(a, b):
    assert together(resolved(a, b).graph, a[0], b[0])


@pytest.mark.parametrize("a,b", [
    (("김정일", "인물", "1994년부터 2011년까지 북한의 최고지도자."),
     ("Kim Jong-un", "PERSON", "Supreme leader of North Korea since 2011.")),  # father and son
    (("Вымпел", "компания", "Российская оборонная компания, разработчик ракет."),
     ("vympel.tv", "website", "Streaming site for children's cartoons.")),  # a word, and a site of that word
    (("Александр Невский", "персона", "Новгородский князь XIII века."),
     ("Aleksandr Nevsky", "ship", "Russian Borei-class nuclear submarine commissioned in 2013.")),  # a person, a ship
])
def test_namesakes_in_two_scripts_stay_apart(a, b):
    assert not together(resolved(a, b).graph, a[0], b[0])


@pytest.mark.parametrize("a,b", [
    (("Παναθηναϊκός", "ομάδα", "Ποδοσφαιρική ομάδα της Αθήνας."),
     ("Panathinaikos", "sports team", "Greek football club based in Athens.")),  # one word: a word of Greek?
    (("Звезда", "телеканал", "Российский телеканал Министерства обороны."),
     ("Zvezda", "company", "Russian shipyard in Bolshoy Kamen building tankers.")),  # Russian for a star
    (("Ленинский район", "район", "Район Минска, Беларусь."),
     ("Leninskiy rayon", "district", "District of Moscow, Russia.")),  # placed apart
])
def test_a_word_or_an_unplaced_name_read_in_two_scripts_is_a_question(a, b):
    assert rules_verdict(a, b).kind == UNSURE and not together(resolved(a, b).graph, a[0], b[0])


def test_people_of_one_name_born_in_other_years_stay_two():
    a = ("Михаил Горбачёв", "персона", "Российский хоккеист, родился в 1983 году.")
    b = ("Mikhail Gorbachev", "PERSON", "Last leader of the Soviet Union, born 1931.")
    assert not together(resolved(a, b).graph, a[0], b[0])


@pytest.mark.parametrize("a,b", [
    (("Сергей Лавров", "персона", "Российский хоккеист, нападающий."),
     ("Sergey Lavrov", "PERSON", "Russian foreign minister since 2004.")),  # callings read in Russian
    (("Γιώργος Νταλάρας", "πρόσωπο", "Έλληνας ποδοσφαιριστής."),
     ("Giorgos Dalaras", "person", "Greek singer of laiko and rebetiko.")),  # and in Greek
])
def test_namesakes_in_two_scripts_of_other_callings_stay_two(a, b):
    assert not together(resolved(a, b).graph, a[0], b[0])


PINYIN = [  # a name in Han characters and its pinyin: a question for the LLM tier, never a merge (many people
    # share one pinyin; Japanese reads the characters otherwise)
    (("王菲", "人物", "中国流行女歌手。"), ("Wang Fei", "person", "Chinese pop singer and actress.")),
    (("杭州", "城市", "浙江省省会。"), ("Hangzhou", "city", "Capital of Zhejiang province.")),
    (("李娜", "人物", "中国网球运动员，法网冠军。"), ("Li Na", "person", "Chinese singer who became a Buddhist nun.")),
]


@pytest.mark.parametrize("a,b", PINYIN, ids=[b[0] for _, b in PINYIN])
def test_a_han_name_and_its_pinyin_are_compared_and_asked_never_merged(a, b):
    assert compared(a, b)
    v = rules_verdict(a, b)
    assert v.kind == UNSURE and "pinyin" in v.rule
    assert not together(resolved(a, b).graph, a[0], b[0])


def test_japanese_names_in_kanji_and_other_han_words_are_not_read_in_pinyin():
    assert rules_verdict(("宮崎駿", "人物", "アニメ監督。"), ("Hayao Miyazaki", "person", "Japanese animator.")).kind \
        != UNSURE  # read "Gong Qijun", which matches nothing
    assert pinyin_readings("王") == () and pinyin_readings("中华人民共和国") == ()  # one character; five and more
    assert pinyin_readings("トヨタ") == () and pinyin_readings("习近平") == ("Xi Jinping", "Xijinping")
