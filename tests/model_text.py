"""Hypothesis strategies for what a model writes into names, types and descriptions: any Unicode, empty fields,
huge ones, and the words the rules read (titles, pronouns, kinship words, legal forms, countries, numbers,
articles, possessives), so that each rule's branches are reached and not only the code no rule looks at."""

from __future__ import annotations

from hypothesis import strategies as st

from graphglean.graph.resolution import lexicon

# words and pieces the rules and readers look for; each in several cases
_RULE_WORDS = sorted(
    {"his", "her", "hers", "he", "she", "him", "himself", "herself", "they", "its", "'s", "’s", "'", "of", "the",
     "and", "&", "or", "is", "was", "a", "an", "Jr.", "Sr.", "III", "IV", "ii", "2nd", "1", "0", "42", "1999",
     "first", "second", "one", "two", "co.", "Inc.", "Ltd", "LLC", "GmbH", "S.A.", "plc", "AG", "U.S.", "USA",
     "U.K.", "UN", "IBM", "I.B.M.", "Mr.", "Mrs", "Ms", "Dr.", "Sir", "Lady", "Lord", "King", "Queen", "Prince",
     "St.", "Mt.", "van", "de", "von", "al", "bin", "l'", "d'", "San", "sama", "Bros", "Univ", "Dept",
     "wife", "husband", "mother", "father", "son", "daughter", "brother", "sister", "widow", "nephew",
     "city", "company", "river", "the company", "character", "person", "organization", "geo", "event",
     "Ministry", "Council", "Department", "of the", "The", "Le", "Les", "El", "Das", "(", ")", "[", "]", ",", ".",
     ";", ":", "-", "–", "—", "/", "\\", '"', "“", "”", "«", "»", "*", "**", "#", "##", "<|>", "<|#|>", "|", "->",
     "<", ">", "&amp;", "&#39;", "\n", "\t", "\r", " ", "  ", "\u00a0", "\u200b", "\u200d", "\ufeff", "\u202e",
     "e\u0301", "\u0301", "ß", "İ", "ı", "ﬁ", "Å", "Ⅻ", "①", "²", "½", "٣", "東京", "北京大学", "株式会社", "さん",
     "தமிழ்நாடு", "சென்னை", "அவர்", "القاهرة", "محمد", "بن", "Москва", "Пётр", "Ελλάδα", "ΣΑΣ", "ქართული",
     "🙂", "👩‍👩‍👧", "🇫🇷", "\x00", "\x1b[31m", "\x0c", "\ufffd", "\uffff", "\U0010ffff"}
    | set(list(lexicon.HONORIFICS)[:40]) | set(list(lexicon.KIN)) | set(list(lexicon.LEGAL_FORMS)[:30])
    | set(list(lexicon.COUNTRIES)[:30]) | set(list(lexicon.MALE_NOUNS | lexicon.FEMALE_NOUNS))
    | set(list(lexicon.GENERATIONS)) | set(list(lexicon.ROYAL)) | set(list(lexicon.PARTICLES))
    | set(list(lexicon.ARTICLES)) | set(list(lexicon.CONJUNCTIONS)) | set(list(lexicon.THINGS)[:30])
    | set(list(lexicon.ABBREVIATIONS)) | set(list(lexicon.CREDENTIALS)) | set(list(lexicon.SUFFIX_TITLES)))
_CASES = st.sampled_from([str, str.upper, str.title, str.lower])

# any code point but lone surrogates: text reaches these stages through UTF-8 decoding and the JSON readers,
# which replace them (text/surrogates, the client's UTF-8 answer bodies)
any_text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=24)
rule_word = st.builds(lambda w, case: case(w), st.sampled_from(_RULE_WORDS), _CASES)
word = st.one_of(rule_word, rule_word, any_text)


@st.composite
def phrase(draw, min_words: int = 0, max_words: int = 6) -> str:
    """Words joined by spaces, or by nothing at all."""
    words = draw(st.lists(word, min_size=min_words, max_size=max_words))
    return draw(st.sampled_from([" ", "", " ", ", "])).join(words)


name = st.one_of(phrase(1, 5), phrase(0, 2), any_text)
description = st.one_of(
    phrase(0, 14),
    st.builds(lambda a, end: f"{a} {end}", phrase(0, 8), st.sampled_from(["his", "her", "hers", "him", "his wife",
                                                                          "her husband", "its", "their", "'s"])),
    st.just(""),
    st.builds(lambda p, n: (p + " ") * n, phrase(1, 4), st.integers(50, 400)),  # huge: thousands of characters
)
entity_type = st.one_of(st.sampled_from(["person", "organization", "geo", "event", "", "unknown", "PERSON",
                                         "character", "city", "Personne", "人物", "organization|person"]), any_text)
