"""Sentence boundaries (the view's highlights, a query's source sentences) in the scripts' own end marks."""

import pytest

from graphglean.text.sentences import Sentences


def sentence_of(text: str, name: str) -> str:
    at = text.index(name)
    start, end = Sentences(text).around(at, at + len(name))
    return text[start:end]


@pytest.mark.parametrize("text, name, sentence", [
    ("Scrooge was a miser. Marley was dead! Was he? Yes.", "Marley", "Marley was dead!"),
    ('He said "Humbug." Then Fred came in.', "Fred", "Then Fred came in."),
    ("李明是北京的工程师。李明华是上海的老师。", "李明华", "李明华是上海的老师。"),
    ("「行こう。」と東京で言った。", "東京", "と東京で言った。"),  # the closing bracket stays with its sentence
    ("من هو محمد؟ هو ولي العهد.", "ولي", "هو ولي العهد."),  # Arabic question mark
    ("علی لاہور میں رہتا ہے۔ احمد کراچی میں ہے۔", "احمد", "احمد کراچی میں ہے۔"),  # Urdu full stop
    ("राम दिल्ली में रहता है। सीता मुंबई में है।", "सीता", "सीता मुंबई में है।"),  # Devanagari danda
    ("আমি ঢাকায় থাকি। রহিম চট্টগ্রামে থাকে।", "রহিম", "রহিম চট্টগ্রামে থাকে।"),  # Bengali danda
    ("አበበ በአዲስ አበባ ይኖራል። ከበደ ጎንደር ነው።", "ከበደ", "ከበደ ጎንደር ነው።"),  # Ethiopic full stop
    ("မောင်မောင် ရန်ကုန်မှာ နေတယ်။ မမ မန္တလေးမှာ နေတယ်။", "မမ", "မမ မန္တလေးမှာ နေတယ်။"),  # Myanmar
    ("བཀྲ་ཤིས་ལྷ་སར་ཡོད།ཚེ་རིང་གཞིས་ཀ་རྩེར་ཡོད།", "ཚེ་རིང", "ཚེ་རིང་གཞིས་ཀ་རྩེར་ཡོད།"),  # Tibetan shad, no space
    ("Արամը Երևանում է։ Անին Գյումրիում է։", "Անին", "Անին Գյումրիում է։"),  # Armenian full stop
])
def test_a_sentence_ends_at_its_script_s_own_marks(text, name, sentence):
    assert sentence_of(text, name) == sentence


def test_a_point_inside_a_word_or_number_ends_nothing():
    text = "Version 3.5 of graphglean.io shipped. Bob used it."
    assert sentence_of(text, "graphglean") == "Version 3.5 of graphglean.io shipped."
